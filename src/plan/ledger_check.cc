#include "plan/ledger_check.h"

#include <fmt/format.h>

#include <map>

#include "core/bytes.h"

namespace preflight {

std::string weights_disagreement(const Plan& plan, const ModelSpec& model) {
  const auto& l = plan.layout;
  std::map<std::string, std::uint64_t> expected, rows;
  const bool experts = model.moe.routed_experts > 0;
  for (const auto& t : model.manifest.tensors) {
    const bool expert = t.role == ParallelRole::expert && experts;
    const bool replicated = t.role == ParallelRole::replicated || (t.role == ParallelRole::expert && !experts);
    const std::uint64_t copies = expert ? 1 : replicated ? l.stage_ranks() : l.dp;
    auto& e = expected[fmt::format("weights.{}", module_key(t.module))];
    e = checked_add(e, checked_mul(t.bytes(), copies, "weight copies"), "weight copies");
  }
  for (const auto& rank : plan.ranks)
    for (const auto& row : rank.rows)
      if (row.resource == Resource::weights && expected.count(row.id) > 0) rows[row.id] = checked_add(rows[row.id], row.bytes);
  const bool tied_skipped = plan.engine && model.tied_embeddings;
  for (const auto& [id, bytes] : expected) {
    if (id == "weights.lm_head" && tied_skipped) continue;
    const auto got = rows.count(id) ? rows.at(id) : 0;
    if (got != bytes)
      return fmt::format("{}: the ranks' rows sum to {} B, the manifest's copies to {} B", id, with_commas(got),
                         with_commas(bytes));
  }
  return "";
}

}  // namespace preflight
