// The steps build_plan (plan.cc) runs, one concept per file, shared between
// them and nowhere else (an internal header: include it only from src/plan):
//  - plan_figures.cc: the first pass's weight bounds, active parameters, the KV offload tiers;
//  - pools.cc: the workload's pools per stage and the generic ledger of a rank;
//  - engine_ledger.cc: a rank as vLLM or SGLang allocates it, and the engines' refusals;
//  - verdict.cc: the verdict from the ledgers, the latency targets, the generic-reading label;
//  - plan_context.cc: what many plans of one model share.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/size_engine.h"
#include "plan/plan.h"

namespace preflight::plan_steps {

inline constexpr const char* kConfigSource = "config.json of the model";

inline LedgerRow row(std::string_view id, std::string label, Resource r, std::uint64_t bytes, Evidence e,
                     std::string formula) {
  return LedgerRow{id, std::move(label), r, bytes, e, std::move(formula)};
}

// Formulas are skipped on the solvers' fast path (numbers only).
// A formula only when the plan shows formulas: the solvers' verdict-only plans
// skip building the strings (most of their cost before this was formatting).
template <typename MakeText>
std::string text_if(bool on, MakeText make) {
  if (!on) return std::string();
  return std::string(make());
}

// The workload's pools on one rank of a stage (pools.cc).
struct Pools {
  std::uint64_t requests_per_group = 0;
  // per slot (state) and per token (cache), per rank, by layer kind; shared by every plan of the context
  std::shared_ptr<const PlanContext::StageRequestState> rows;
  std::uint64_t slot_bytes = 0;         // one state slot on one rank
  std::uint64_t slots_per_request = 0;  // --state-slots + --spec-tokens
  std::uint64_t state_rank_bytes = 0;   // the state pool on one rank
  std::uint64_t cache_per_token = 0;    // uncapped, per rank
  std::uint64_t cache_per_request = 0;  // one request at the context, per rank (caps applied, before DCP)
  std::uint64_t cache_rank_bytes = 0;   // the cache pool on one rank
  std::uint64_t hidden_buffer = 0;
  std::uint64_t attn_res_sources = 0;
  std::uint64_t attn_res_bytes = 0;
  std::uint64_t ffn_payload = 0;  // routed latent payload (MoE) or MLP intermediate (dense)
  std::string ffn_label;
  std::string ffn_formula;
  std::uint64_t reserve = 0;
  std::vector<TokenCacheRow> draft_cache;  // --draft: its cache per token on a rank
  std::uint64_t draft_cache_per_request = 0;
  std::uint64_t draft_cache_rank_bytes = 0;
};

// plan_figures.cc
std::string gpu_source(const Accelerator& gpu);
// Weight lower bounds of the first pass.
void add_weight_bound_figures(Plan& plan, const ModelSpec& model, const Inventory& inv,
                              const std::vector<RankWeights>& placed, std::uint64_t replicated);
void add_active_figures(Plan& plan, const ModelSpec& model, const Inventory& inv);
void add_offload_figures(Plan& plan, const PlanContext& context, const PlanRequest& request);

// pools.cc
// `texts`: the ledger's labels and formulas (a full plan); the verdict needs numbers only.
Pools compute_pools(const Plan& plan, const PlanContext& context, const ModelSpec* draft, std::uint64_t stage,
                    bool texts);
std::string joined(const std::vector<std::string>& parts, std::string_view sep);
std::string requests_text(const WorkloadOptions& w, std::uint64_t groups);
void add_pool_figures(Plan& plan, const ModelSpec& model, const Pools& p);
// `tied_head_skipped` and `mtp_skipped`: bytes of those modules the engine does not load.
void add_weight_rows(RankLedger& l, const Plan& plan, const RankWeights& weights, bool formulas,
                     std::uint64_t tied_head_skipped, std::uint64_t mtp_skipped = 0);
void add_draft_row(RankLedger& l, const Plan& plan, bool formulas);
RankLedger rank_ledger(const Plan& plan, const RankWeights& weights, const Pools* pools, bool formulas);

// engine_ledger.cc
std::uint64_t engine_kv_in_use(const EngineWorker& worker, const WorkloadOptions& w, std::uint64_t groups);
RankLedger engine_rank_ledger(const Plan& plan, const ModelSpec& model, const RankWeights& weights,
                              const EngineWorker& worker, const EngineWorkerInput& input, bool formulas);
EngineWorkerInput worker_input(const Plan& plan, const RankWeights& rw);
void apply_engine_verdict(Plan& plan);

// verdict.cc
void mark_guessed_structure(Plan& plan);
Verdict judge(const Plan& plan, bool with_summary);
void apply_latency(Plan& plan, const PlanContext& context, const Accelerator& gpu, const PlanRequest& request,
                   bool full);

}  // namespace preflight::plan_steps
