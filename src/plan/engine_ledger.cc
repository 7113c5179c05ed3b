#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/bytes.h"
#include "plan/plan_steps.h"

namespace preflight::plan_steps {

// The token cache a group's running requests hold on one engine worker: each
// request at its length (a mix), else every request at max_model_len.
std::uint64_t engine_kv_in_use(const EngineWorker& worker, const WorkloadOptions& w, std::uint64_t groups) {
  if (w.mix.empty() || worker.kv_request_bytes_by_length.size() != w.mix.size())
    return checked_mul(ceil_div(w.concurrency, std::max<std::uint64_t>(groups, 1)), worker.kv_request_bytes,
                       "KV cache");
  const auto counts = heaviest_group(w.mix, w.concurrency, groups);
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < counts.size(); ++i)
    bytes = checked_add(bytes, checked_mul(counts[i], worker.kv_request_bytes_by_length[i], "KV cache"));
  return bytes;
}

// The ledger of a rank as vLLM or SGLang allocates it: weights as the engine
// loads them, the engine's own reservations, then the workload's state and
// KV in the engine's page layout. What is left is the engine's spare pool.
RankLedger engine_rank_ledger(const Plan& plan, const ModelSpec& model, const RankWeights& weights,
                              const EngineWorker& worker, const EngineWorkerInput& input, bool formulas) {
  const auto& e = *plan.engine;
  const bool vllm = e.kind == EngineKind::vllm;
  RankLedger l;
  l.rank = weights.rank;
  l.capacity = plan.gpu.device_total_bytes;
  // Engine-side weight changes of this worker's stage (same for every rank of a stage).
  const auto tied = model.tied_embeddings ? input.lm_head_bytes : 0;
  add_weight_rows(l, plan, weights, formulas, tied, input.mtp_skipped);
  add_draft_row(l, plan, formulas);
  const auto loaded = input.placed_weights - std::min(input.placed_weights, checked_add(tied, input.mtp_skipped));
  if (worker.weights_bytes > loaded) {
    // vLLM: the tensors it adds when it loads (padding, caches); SGLang: MLA's w_kc / w_vc copies.
    const auto extra = worker.weights_bytes - loaded;
    l.rows.push_back(row("weights.engine_tensors", "engine-side tensors", Resource::weights, extra, Evidence::estimate,
                         text_if(formulas, [&] {
                           return vllm ? "what vLLM adds when it loads (see engine.weights_bytes_per_rank)"
                                       : "MLA's w_kc and w_vc, BF16 copies of kv_b_proj SGLang keeps for decoding "
                                         "(see engine.weights_bytes_per_rank)";
                         })));
  }
  const auto total = l.capacity;
  const auto headroom = total - std::min(total, worker.requested_bytes);
  l.rows.push_back(row("reserve.engine", vllm ? "outside gpu_memory_utilization" : "outside mem_fraction_static",
                       Resource::reserve, headroom, Evidence::derived, text_if(formulas, [&] {
                         return vllm ? fmt::format("device total x (1 - {})", e.memory_fraction)
                                     : fmt::format(
                                           "CUDA context + free memory before loading x (1 - {}): "
                                           "activations and CUDA graphs live here",
                                           e.memory_fraction);
                       })));
  if (vllm) {
    l.rows.push_back(row("reserve.non_torch", "non-torch (NCCL, all-reduce)", Resource::reserve, worker.non_torch_bytes,
                         Evidence::estimate, text_if(formulas, [&] { return "era constant by TP / PP"; })));
    if (worker.cuda_graph_bytes > 0)
      l.rows.push_back(row("reserve.cuda_graphs", "CUDA graph pool", Resource::reserve, worker.cuda_graph_bytes,
                           Evidence::estimate, text_if(formulas, [&] { return "subtracted by vLLM 0.21 and later"; })));
    l.rows.push_back(row("activations.profile_peak", "profile-run activation peak", Resource::activations,
                         worker.activation_peak_bytes, Evidence::estimate, text_if(formulas, [&] {
                           return "max(forward of max_num_batched_tokens, sampler of max_num_seqs x vocab)";
                         })));
  }
  const auto requests = ceil_div(plan.workload.concurrency, plan.layout.dp);
  if (worker.state_request_bytes > 0) {
    const auto need = checked_mul(requests, worker.state_request_bytes, "state");
    // SGLang allocates its whole state pool at start-up.
    const auto bytes = vllm ? need : std::max(need, worker.state_pool_bytes);
    l.rows.push_back(row("state.recurrent", vllm ? "recurrent state (padded pages)" : "recurrent state pool",
                         Resource::recurrent_state, bytes, Evidence::estimate, text_if(formulas, [&] {
                           return vllm ? fmt::format("{} requests x {} B (state pages padded to the attention page)",
                                                     requests, with_commas(worker.state_request_bytes))
                                       : fmt::format("max({} requests x {} B, the {} B pool SGLang allocates)",
                                                     requests, with_commas(worker.state_request_bytes),
                                                     with_commas(worker.state_pool_bytes));
                         })));
  }
  if (worker.kv_request_bytes > 0)
    l.rows.push_back(
        row("kv.cache", "KV cache in use", Resource::kv_cache, engine_kv_in_use(worker, plan.workload, plan.layout.dp),
            Evidence::estimate, text_if(formulas, [&] {
              return plan.workload.mix.empty()
                         ? fmt::format("{} requests x {} B ({}-token blocks for {} tokens)", requests,
                                       with_commas(worker.kv_request_bytes), e.block_size, with_commas(e.max_model_len))
                         : fmt::format("{}, each in {}-token blocks for its length",
                                       requests_text(plan.workload, plan.layout.dp), e.block_size);
            })));
  close_ledger(l);
  return l;
}

EngineWorkerInput worker_input(const Plan& plan, const RankWeights& rw) {
  EngineWorkerInput in;
  in.rank = rw.rank;
  in.stage = rw.stage;
  in.placed_weights = checked_add(rw.total, plan.draft_weights_per_rank);  // the engine loads the draft too
  in.lm_head_bytes = rw.lm_head_bytes;
  in.expert_bytes = rw.expert_bytes;
  // MTP layers load only as the draft of MTP speculative decoding (--spec-tokens without --draft).
  in.mtp_skipped = plan.mtp_drafts() ? 0 : rw.mtp_bytes;
  const auto& l = plan.layout;
  if (l.pp > 1) in.layers = LayerRange{l.first_layer(rw.stage), l.stage_layers[rw.stage]};
  in.first_stage = rw.stage == 0;
  in.last_stage = rw.stage + 1 == l.pp;
  return in;
}

// Engine refusals and SGLang's split pools, which a shared ledger cannot show.
void apply_engine_verdict(Plan& plan) {
  if (!plan.engine) return;
  const auto& e = *plan.engine;
  auto& v = plan.verdict;
  const auto requests = ceil_div(plan.workload.concurrency, plan.layout.dp);
  std::string why;
  Resource boundary = Resource::none;
  if (!v.fits) return;  // the ledger already names what ran out
  if (!e.failure.empty()) {
    why = e.failure;
    boundary = e.min_kv_budget_bytes == 0 ? Resource::weights : Resource::kv_cache;
  } else if (e.kind == EngineKind::sglang) {
    for (const auto& w : e.workers) {
      if (w.state_pool_bytes > 0 && checked_mul(requests, w.state_request_bytes) > w.state_pool_bytes) {
        why = fmt::format("{} requests need {} state slots; SGLang's state pool holds {} (--mamba-full-memory-ratio)",
                          requests, requests * (w.state_request_bytes / std::max<std::uint64_t>(e.state_slot_bytes, 1)),
                          e.state_slots);
        boundary = Resource::recurrent_state;
        break;
      }
      if (engine_kv_in_use(w, plan.workload, plan.layout.dp) > w.kv_pool_bytes) {
        why = plan.workload.mix.empty()
                  ? fmt::format("{} requests of {} tokens need more than the {} tokens of SGLang's KV pool", requests,
                                with_commas(plan.workload.context_tokens), with_commas(e.kv_cache_tokens))
                  : fmt::format("{} need more than the {} tokens of SGLang's KV pool",
                                requests_text(plan.workload, plan.layout.dp), with_commas(e.kv_cache_tokens));
        boundary = Resource::kv_cache;
        break;
      }
    }
    if (why.empty() && requests > e.max_running_requests) {
      why = fmt::format("{} running requests exceed max_running_requests {}", requests, e.max_running_requests);
      boundary = e.state_slots > 0 ? Resource::recurrent_state : Resource::kv_cache;
    }
  }
  if (boundary == Resource::none) return;
  v.fits = false;
  v.first_boundary = boundary;
  v.evidence = Evidence::derived;
  v.summary = fmt::format("does not fit: first boundary crossed: {}; {}", resource_key(boundary), why);
}

}  // namespace preflight::plan_steps
