// The per-rank ledger: every byte a rank must hold, row by row, against its
// capacity. Rows are kept in allocation order (weights, runtime reserve,
// activations, recurrent state, KV cache): the first row whose running total
// crosses the capacity names the resource that runs out first.
//
// Invariant (check_reconciles): sum(rows) + free - over == capacity, exactly.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/figure.h"
#include "model/module_class.h"

namespace preflight {

// Memory in allocation order, then the latency targets, which only
// a plan whose memory fits can miss.
// latency_unchecked: memory fits, latency targets were given, but the GPU's
// catalogue row lacks a figure the bounds need (memory bandwidth, BF16 rate):
// neither met nor missed, so never green (perf/perf_inputs.h missing_latency_figure).
enum class Resource { none, weights, reserve, activations, recurrent_state, kv_cache, ttft, tpot, latency_unchecked };

std::string_view resource_key(Resource r);  // "weights", "kv_cache", ... "none"

struct LedgerRow {
  // "weights.routed_experts", "state.recurrent", "kv.cache": always static text
  // (a literal or ledger_weight_row_id), so the solvers' hundreds of thousands
  // of verdict-only ledgers never allocate or copy an id.
  std::string_view id;
  std::string label;
  Resource resource = Resource::weights;
  std::uint64_t bytes = 0;
  Evidence evidence = Evidence::derived;
  std::string formula;
};

struct RankLedger {
  std::uint64_t rank = 0;
  std::uint64_t capacity = 0;  // device-reported total memory of the GPU
  std::vector<LedgerRow> rows;
  std::uint64_t demand = 0;  // sum of rows
  std::uint64_t free = 0;    // capacity - demand when it fits
  std::uint64_t over = 0;    // demand - capacity when it does not
  Resource first_boundary = Resource::none;

  bool fits() const { return over == 0; }
};

// "weights.<module key>", static for the process.
std::string_view ledger_weight_row_id(ModuleClass m);

// Fills demand, free, over and first_boundary from rows and capacity.
void close_ledger(RankLedger& ledger);

// True when the ledger's totals add up; `why` says what does not.
bool check_reconciles(const RankLedger& ledger, std::string* why = nullptr);

}  // namespace preflight
