// Request state: what each running request holds besides the weights.
//
// Two pools with different growth (seed 000, "two drawers"):
//  - the MLA latent cache grows with tokens: per token per MLA layer
//    (kv_lora_rank + qk_rope_head_dim) values in the KV dtype. It is replicated
//    on every TP rank (one latent per layer, not per head) and divided by DCP.
//  - KDA layers keep a fixed recurrent state per request: heads x head_dim x
//    head_dim values (FP32 by default in vLLM, SGLang and TensorRT-LLM) plus
//    the short-convolution windows: 3 projections x (heads x head_dim) channels
//    x (kernel - 1) positions in the model dtype. Sharded by attention-TP heads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "model/model_spec.h"

namespace preflight {

struct MlaCachePerToken {
  std::uint64_t layers = 0;
  std::uint64_t values_per_layer = 0;  // kv_lora_rank + qk_rope_head_dim
  std::uint64_t dtype_bytes = 0;
  std::uint64_t bytes = 0;  // per token, whole model (every TP rank holds it all)
};

struct KdaStatePerRequest {
  std::uint64_t layers = 0;
  std::uint64_t heads_per_rank = 0;   // heads / attention TP
  std::uint64_t recurrent_bytes = 0;  // layers x heads_per_rank x d x d x state dtype
  std::uint64_t conv_bytes = 0;       // layers x 3 x (kernel-1) x heads_per_rank x d x conv dtype
  std::uint64_t bytes = 0;            // one state slot on one rank
  std::uint64_t state_dtype_bytes = 0;
  std::uint64_t conv_dtype_bytes = 0;
};

MlaCachePerToken mla_cache_per_token(const ModelSpec& m, std::uint64_t kv_dtype_bytes);

// `layers`: KDA layers counted (default: all of the model's). `attention_tp` must divide the KDA heads (checked by the
// caller's layout validation).
KdaStatePerRequest kda_state_per_request(const ModelSpec& m, std::uint64_t attention_tp,
                                         std::uint64_t state_dtype_bytes, std::uint64_t layers = UINT64_MAX);

}  // namespace preflight

namespace preflight {

// One layer kind's share of the token-growing cache on one rank.
struct TokenCacheRow {
  LayerKind kind = LayerKind::full_attention;
  std::uint64_t layers = 0;
  std::uint64_t bytes_per_token = 0;  // all layers of this kind, on one rank
  std::uint64_t token_cap = 0;        // sliding window / chunk; 0 = grows with the context
  bool replicated_over_tp = false;    // MLA latents, or KV heads fewer than TP
  std::string formula;
};

// One layer kind's fixed state per request (one slot) on one rank.
struct StateRow {
  LayerKind kind = LayerKind::kda;
  std::uint64_t layers = 0;
  std::uint64_t recurrent_bytes = 0;
  std::uint64_t conv_bytes = 0;
  std::uint64_t bytes = 0;
  std::string formula;
};

// A contiguous range of decoder layers: a pipeline stage (default: all).
struct LayerRange {
  std::uint64_t first = 0;
  std::uint64_t count = UINT64_MAX;
  std::uint64_t count_kind(const ModelSpec& m, LayerKind kind) const;
};

// Token cache per layer kind (GQA K and V with head_dim / v_head_dim, sliding
// and chunked layers capped, MLA latent + rope replicated over TP).
std::vector<TokenCacheRow> token_cache_per_rank(const ModelSpec& m, std::uint64_t kv_dtype_bytes, std::uint64_t tp,
                                                LayerRange range = {});

// Recurrent state per layer kind (KDA, Gated DeltaNet, Mamba-2), sharded by TP heads.
std::vector<StateRow> recurrent_state_per_rank(const ModelSpec& m, std::uint64_t tp, std::uint64_t state_dtype_bytes,
                                               LayerRange range = {});

// Cache bytes one request of `context` tokens holds on one rank (caps applied).
std::uint64_t cache_bytes_for_context(const std::vector<TokenCacheRow>& rows, std::uint64_t context);

}  // namespace preflight
