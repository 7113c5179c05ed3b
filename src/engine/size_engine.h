// Sizing a plan the way vLLM or SGLang would at start-up. The plan supplies
// each distinct worker's weights (from placement) and its layers; the engine
// rules turn them into the budget, the KV/state pools and the figures the
// engine would log.
#pragma once

#include <cstdint>
#include <vector>

#include "core/result.h"
#include "engine/engine_options.h"
#include "engine/engine_sizing.h"
#include "hardware/accelerator.h"
#include "model/model_spec.h"
#include "model/request_state.h"
#include "placement/layout.h"
#include "workload/workload.h"

namespace preflight {

struct EngineWorkerInput {
  std::uint64_t rank = 0;
  std::uint64_t stage = 0;
  std::uint64_t placed_weights = 0;  // the rank's tensor shares (placement)
  std::uint64_t lm_head_bytes = 0;   // of which the LM head (skipped when tied)
  std::uint64_t expert_bytes = 0;    // of which routed-expert tensors
  // Of which MTP layers the engine does not load: the main model skips them
  // (vLLM deepseek_v2.py load_weights "skip spec decode layers for main model",
  // qwen3_next / qwen3_5 skip_prefixes ["mtp."]; SGLang loads layers
  // [start_layer, end_layer) only); an MTP draft loads them (--spec-tokens, no --draft).
  std::uint64_t mtp_skipped = 0;
  LayerRange layers;  // the stage's decoder layers
  bool first_stage = true;
  bool last_stage = true;
};

struct EngineInputs {
  const ModelSpec* model = nullptr;
  const Accelerator* gpu = nullptr;
  const Layout* layout = nullptr;
  const WorkloadOptions* workload = nullptr;  // context_tokens = max_model_len
  EngineOptions options;
  std::vector<EngineWorkerInput> workers;
  bool with_figures = true;  // false: the solvers' fast path (numbers only)
  // Speculative decoding (workload->spec_tokens): a --draft model's cache
  // joins the engine's pools (its weights are already in placed_weights).
  const ModelSpec* draft = nullptr;
  std::uint64_t draft_tp = 1;
};

// vLLM (V1; V0 rules for versions before 0.8) and SGLang. Errors name the flag.
Result<EngineSizing> size_vllm(const EngineInputs& in);
Result<EngineSizing> size_sglang(const EngineInputs& in);

// SGLang's token pools from the bytes left after weights, activations and the
// state pool (model_executor/pool_configurator.py): the default pool, the
// HybridSWA pair (cell = full + ratio x swa bytes per token; the SWA pool holds
// ratio x the full tokens) and All-SWA (sliding layers only: one pool at full
// size, the ratio ignored); each page-aligned down. max_total_num_tokens is the
// full pool, or the SWA pool when there is no full layer.
struct SglangTokenPool {
  std::uint64_t full_tokens = 0;
  std::uint64_t swa_tokens = 0;
  std::uint64_t max_total_tokens = 0;
};
SglangTokenPool sglang_token_pool(std::uint64_t available, std::uint64_t full_bytes_per_token,
                                  std::uint64_t swa_bytes_per_token, double swa_ratio, std::uint64_t page);
Result<EngineSizing> size_engine(const EngineInputs& in);

// Bytes the engine adds to or removes from a worker's placed weights: the
// RoPE cos/sin cache, MLA's absorbed kv_b_proj copies, a tied LM head it does
// not load. `formula` explains the sum.
struct EngineWeightAdjustment {
  std::uint64_t rope_cache = 0;
  std::uint64_t mla_absorbed = 0;
  std::uint64_t tied_head_skipped = 0;
  std::uint64_t mtp_skipped = 0;
  std::uint64_t total(std::uint64_t placed) const {
    return placed - tied_head_skipped - mtp_skipped + rope_cache + mla_absorbed;
  }
};
EngineWeightAdjustment vllm_weight_adjustment(const ModelSpec& m, const Layout& layout, const EngineWorkerInput& w,
                                              std::uint64_t rope_dtype_bytes);

}  // namespace preflight
