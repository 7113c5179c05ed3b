#include "plan/ledger_check.h"

#include <fmt/format.h>

#include <array>
#include <map>

#include "core/bytes.h"
#include "model/request_state.h"
#include "placement/placement.h"
#include "workload/workload.h"

namespace preflight {

std::string weights_disagreement(const Plan& plan, const ModelSpec& model) {
  const auto& l = plan.layout;
  std::map<std::string, std::uint64_t, std::less<>> expected, rows;
  // Summed first, in a flat table by module (one row id per module, not one per
  // tensor; a map lookup per tensor was most of this check for K3's 3,180).
  std::array<std::uint64_t, std::size(kAllModuleClasses)> by_module{};
  std::array<bool, std::size(kAllModuleClasses)> present{};
  const bool experts = model.moe.routed_experts > 0;
  for (const auto& t : model.manifest.tensors) {
    const bool expert = t.role == ParallelRole::expert && experts;
    const bool replicated = t.role == ParallelRole::replicated || (t.role == ParallelRole::expert && !experts);
    // A TP-split tensor has one copy per attention-DP group, or one per stage where
    // SGLang's DP attention splits it over the stage's ranks.
    const bool over_stage = l.dense_over_stage && splits_over_stage(t.module);
    const std::uint64_t copies = expert ? 1 : replicated ? l.stage_ranks() : over_stage ? 1 : l.dp;
    const auto m = static_cast<std::size_t>(t.module);
    present[m] = true;
    by_module[m] = checked_add(by_module[m], checked_mul(t.bytes(), copies, "weight copies"), "weight copies");
  }
  for (auto module : kAllModuleClasses) {
    const auto m = static_cast<std::size_t>(module);
    if (!present[m]) continue;
    auto& e = expected[fmt::format("weights.{}", module_key(module))];
    e = checked_add(e, by_module[m], "weight copies");
  }
  for (const auto& rank : plan.ranks)
    for (const auto& row : rank.rows)
      if (row.resource == Resource::weights && expected.count(row.id) > 0) {
        auto& sum = rows[std::string(row.id)];
        sum = checked_add(sum, row.bytes);
      }
  const bool tied_skipped = plan.engine && model.tied_embeddings;
  // An engine's main model does not load MTP layers unless it drafts with them (size_engine.h).
  const bool mtp_skipped = plan.engine && !plan.mtp_drafts();
  for (const auto& [id, bytes] : expected) {
    if (id == "weights.lm_head" && tied_skipped) continue;
    if (id == "weights.mtp" && mtp_skipped) continue;
    const auto got = rows.count(id) ? rows.at(id) : 0;
    if (got != bytes)
      return fmt::format("{}: the ranks' rows sum to {} B, the manifest's copies to {} B", id, with_commas(got),
                         with_commas(bytes));
  }
  return "";
}

std::string kv_disagreement(const Plan& plan, const ModelSpec& model) {
  if (!plan.engine || plan.engine->kind != EngineKind::vllm || plan.layout.pp != 1 || plan.layout.dcp != 1 ||
      plan.workload.spec_tokens > 0 || !plan.draft_name.empty())
    return "";
  for (auto kind : model.layers)
    if (kind != LayerKind::full_attention && kind != LayerKind::mla) return "";
  // DeepSeek-V3.2's DSA cache (fp8_ds_mla latents, indexer keys) is vLLM's own
  // layout, which the config-level per-token figure does not describe.
  if (model.mla.index_head_dim > 0) return "";
  const auto kv_bytes = kv_dtype_bytes(plan.workload.kv_dtype);
  std::uint64_t per_token = 0;
  const auto& e = *plan.engine;
  for (const auto& row : token_cache_per_rank(model, kv_bytes, plan.layout.tp)) {
    if (row.kind == LayerKind::mla && e.mla_disabled) {
      // Without MLA every head's K and V is cached, qk_nope + qk_rope wide.
      const auto heads = std::max<std::uint64_t>(model.mla.heads / plan.layout.tp, 1);
      per_token = checked_add(
          per_token, row.layers * heads * 2 * (model.mla.qk_nope_head_dim + model.mla.qk_rope_head_dim) * kv_bytes,
          "KV bytes per token");
      continue;
    }
    per_token = checked_add(per_token, row.bytes_per_token, "KV bytes per token");
  }
  const auto block = std::max<std::uint64_t>(e.block_size, 1);
  const auto per_request = [&](std::uint64_t tokens) {
    return checked_mul(checked_mul(ceil_div(tokens, block), block, "KV tokens"), per_token, "KV bytes");
  };
  // Requests are spread over the DP attention groups; a rank holds its group's,
  // each at its own length when the workload is a mix.
  const auto requests = ceil_div(plan.workload.concurrency, std::max<std::uint64_t>(plan.layout.dp, 1));
  std::uint64_t expected = 0;
  if (plan.workload.mix.empty()) {
    expected = checked_mul(per_request(e.max_model_len), requests, "KV bytes");
  } else {
    const auto counts = heaviest_group(plan.workload.mix, plan.workload.concurrency, plan.layout.dp);
    for (std::size_t i = 0; i < counts.size(); ++i)
      expected = checked_add(expected, checked_mul(per_request(plan.workload.mix[i].tokens), counts[i], "KV bytes"));
  }
  for (const auto& rank : plan.ranks)
    for (const auto& row : rank.rows)
      if (row.id == "kv.cache" && row.bytes != expected)
        return fmt::format(
            "rank {}: the KV row holds {} B, {} request(s) x ceil({} / {}) x {} tokens x {} B per token "
            "make {} B",
            rank.rank, with_commas(row.bytes), requests,
            plan.workload.mix.empty() ? std::to_string(e.max_model_len) : "each length", block, block,
            with_commas(per_token), with_commas(expected));
  return "";
}

std::string plan_invariant_violation(const Plan& plan, const ModelSpec& model) {
  for (const auto& rank : plan.ranks) {
    std::string why;
    if (!check_reconciles(rank, &why)) return "ledger does not reconcile: " + why;
  }
  if (const auto why = weights_disagreement(plan, model); !why.empty())
    return "weight rows disagree with the manifest: " + why;
  if (const auto why = kv_disagreement(plan, model); !why.empty())
    return "KV rows disagree with the cache per token: " + why;
  return "";
}

}  // namespace preflight
