// Prefill lower bound: the least time one prompt can take to its first token
// alone on the cluster, in one forward pass (no chunking).
//
// The same three roofs as decode (roofline.h), for a step of P prompt tokens
// on one DP group:
//   compute-bound term: 2 x the parameters each token multiplies x P (the LM
//     head once: only the last position needs logits), routed experts at
//     P x k / E of their parameters per rank, plus the causal attention term
//     2 x heads x (d_qk + d_v) x P(P+1)/2 per layer (step_flops.h).
//   bandwidth-bound term: every resident weight read once (the routed experts a
//     prompt of P tokens touches: 1 - (1 - k/E)^P of them, all of them for any
//     real prompt), P embedding rows, the prompt's KV written once (P x KV
//     bytes per token / DCP) and each recurrent state slot written once.
//   communication: the collectives of communication.h for P tokens.
// The bound is the largest of the three per rank, summed over PP stages.
// Real prefill is slower: attention kernels reach 50-70% of peak, chunked
// prefill re-reads the weights once per chunk, and the request queues.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/figure.h"
#include "perf/format_placement.h"
#include "perf/perf_inputs.h"
#include "perf/roofline.h"

namespace preflight {

struct PrefillEstimate {
  std::uint64_t prompt_tokens = 0;
  StepEstimate step;
  double seconds_bound = 0;    // sum over stages of the slowest rank's largest term
  double compute_seconds = 0;  // the binding rank's compute term
  double memory_seconds = 0;   // the binding rank's bandwidth term
  double communication_seconds = 0;
  std::vector<Figure> figures;  // perf.prefill_*
};

// Validates the inputs (an Error names the bad one); `prompt_tokens` >= 1.
// The inputs' batch_per_group and context are not used: one prompt, alone.
Result<PrefillEstimate> estimate_prefill(const PerfInputs& in, std::uint64_t prompt_tokens);
Result<PrefillEstimate> estimate_prefill(const PerfInputs& in, const FormatPlacement& placement,
                                         std::uint64_t prompt_tokens);
Result<PrefillEstimate> estimate_prefill(const PerfInputs& in, const FormatPlacement& placement,
                                         const std::vector<RankFormatWeights>& weights, std::uint64_t prompt_tokens);

}  // namespace preflight
