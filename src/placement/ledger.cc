#include "placement/ledger.h"

#include <fmt/format.h>

#include <array>
#include <string>

#include "core/bytes.h"

namespace preflight {

std::string_view ledger_weight_row_id(ModuleClass m) {
  // Built once; the strings never move, so the views stay valid.
  static const auto ids = [] {
    std::array<std::string, std::size(kAllModuleClasses)> out;
    for (auto c : kAllModuleClasses) out[static_cast<std::size_t>(c)] = "weights." + std::string(module_key(c));
    return out;
  }();
  return ids[static_cast<std::size_t>(m)];
}

std::string_view resource_key(Resource r) {
  switch (r) {
    case Resource::none:
      return "none";
    case Resource::weights:
      return "weights";
    case Resource::reserve:
      return "reserve";
    case Resource::activations:
      return "activations";
    case Resource::recurrent_state:
      return "recurrent_state";
    case Resource::kv_cache:
      return "kv_cache";
    case Resource::ttft:
      return "ttft";
    case Resource::tpot:
      return "tpot";
    case Resource::latency_unchecked:
      return "latency_unchecked";
  }
  return "none";
}

void close_ledger(RankLedger& ledger) {
  ledger.demand = 0;
  ledger.first_boundary = Resource::none;
  for (const auto& row : ledger.rows) {
    ledger.demand = checked_add(ledger.demand, row.bytes, "rank ledger");
    if (ledger.first_boundary == Resource::none && ledger.demand > ledger.capacity)
      ledger.first_boundary = row.resource;
  }
  ledger.free = ledger.demand <= ledger.capacity ? ledger.capacity - ledger.demand : 0;
  ledger.over = ledger.demand > ledger.capacity ? ledger.demand - ledger.capacity : 0;
}

bool check_reconciles(const RankLedger& ledger, std::string* why) {
  std::uint64_t sum = 0;
  for (const auto& row : ledger.rows) sum += row.bytes;
  const bool rows_ok = sum == ledger.demand;
  const bool balance_ok = ledger.demand + ledger.free - ledger.over == ledger.capacity;
  const bool exclusive = ledger.free == 0 || ledger.over == 0;
  if (why && !(rows_ok && balance_ok && exclusive))
    *why = fmt::format("rank {}: rows sum {} vs demand {}; demand {} + free {} - over {} vs capacity {}", ledger.rank,
                       sum, ledger.demand, ledger.demand, ledger.free, ledger.over, ledger.capacity);
  return rows_ok && balance_ok && exclusive;
}

}  // namespace preflight
