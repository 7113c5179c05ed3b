// Step FLOPs: the math one rank does in a step, by the rate it can run at.
//
// Weights (the usual 2 FLOPs per parameter per token, one multiply-add):
//  - always-on matmuls: 2 x the rank's parameters of that module x the tokens
//    of its DP group; the LM head only for the rows that need logits (one per
//    request: decode's batch, prefill's last position, as vLLM's logits
//    processor does).
//  - routed experts, an expectation under uniform routing: each of the T
//    tokens of the stage sends k of E experts, so the rank's experts see
//    T x k / E of their tokens: 2 x routed params on the rank x T x k / E.
//  - parameters come from bytes by the (format, module) ratio
//    (FormatPlacement::params_for), and each format runs at its own rate
//    (traffic_format.h: FP4 natively on Blackwell, BF16 via Marlin on Hopper).
// Attention (BF16 rate), per layer on the rank, heads / TP of them:
//  - decode, per request of context c: GQA 2 x heads x (head_dim + v_head_dim)
//    x c (scores QK^T and the weighted sum PV; sliding/chunked layers cap c);
//    MLA in the absorbed form engines decode with (DeepSeek-V2 paper section
//    2.1.3; FlashMLA): scores over the latent + rope (kv_lora + rope values),
//    output over the latent (kv_lora): 2 x heads x (2 x kv_lora + rope) x c.
//    DCP splits the context over DCP ranks.
//  - prefill of P tokens, causal: the same per-pair cost over P(P+1)/2 pairs
//    (sliding: sum of min(i, window)); MLA prefill runs as MHA on the
//    decompressed heads (qk_nope + qk_rope + v_head_dim per pair).
//  - linear mixers, per token (an estimate: three d_k x d_v matrix-vector
//    products per head for the delta rule, S^T k, the rank-1 update, S^T q;
//    two for Mamba-2's update and readout): KDA and Gated DeltaNet
//    2 x 3 x heads x d_k x d_v, Mamba-2 2 x 2 x heads x head_dim x state.
#pragma once

#include <cstdint>
#include <map>

#include "perf/format_placement.h"
#include "perf/perf_inputs.h"
#include "perf/step_shape.h"
#include "perf/traffic_format.h"

namespace preflight {

struct RankStepFlops {
  std::uint64_t rank = 0;
  std::uint64_t trunk = 0;      // always-on weight matmuls
  std::uint64_t routed = 0;     // expected routed-expert matmuls
  std::uint64_t attention = 0;  // scores and weighted sums, linear mixers
  std::uint64_t total = 0;
  std::map<RateClass, std::uint64_t> by_rate;  // FLOPs by the rate class they run at
  double seconds = 0;                          // sum over classes of FLOPs / dense rate
};

// Attention FLOPs of one active rank of `stage` for the step.
std::uint64_t attention_flops(const ModelSpec& model, const Layout& layout, std::uint64_t stage,
                              const StepShape& shape);

RankStepFlops rank_step_flops(const PerfInputs& in, const FormatPlacement& placement, const RankFormatWeights& weights,
                              const StepShape& shape);

}  // namespace preflight
