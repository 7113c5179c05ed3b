// Decode bytes: what each rank must read from HBM in one step.
//
// Per rank, for a step of shape s (step_shape.h):
//  - always-on weights, read in full at their stored precision: every text
//    tensor on the rank except the input embedding, the routed experts, the
//    MTP layers (no speculation) and the vision tower/projector (text decode).
//    The LM head is read in full (a tied head reads the embedding's vocab slice).
//  - the input embedding is a gather, not a read of the table: tokens x one
//    row (hidden x element) on each rank of the first stage (vLLM's
//    VocabParallelEmbedding masks out-of-shard ids to row 0, so every TP rank
//    reads a row per token).
//  - routed experts, an estimate under uniform routing: a token picks k of E
//    experts, so an expert escapes one token with probability 1 - k/E and all
//    T tokens of the step with (1 - k/E)^T. The expected bytes read on a rank
//    are its resident expert bytes x (1 - (1 - k/E)^T), i.e. experts on the rank
//    x (1 - (1 - k/E)^T) distinct experts touched per MoE layer x bytes per
//    expert (linearity of expectation; exact for any expert sizes). T is the
//    tokens of every active DP group (DP attention gathers them into the EP groups).
//  - KV cache: decode reads batch x (KV bytes per token on the rank x context,
//    sliding/chunked layers capped) / DCP (request_state.h: MLA latents
//    replicated over TP, GQA heads split); the new token's write (1/context
//    of the read) is left out. Prefill writes prompt x KV bytes per token / DCP.
//  - recurrent state (KDA, Gated DeltaNet, Mamba-2): decode reads and writes
//    each request's slot (2 x slot bytes); prefill writes it once.
// Bytes are kept by storage format (traffic_format.h), so the BF16 trunk and
// the MXFP4 experts are counted apart: the "does MXFP4 cut traffic 4x" question.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "perf/format_placement.h"
#include "perf/perf_inputs.h"
#include "perf/step_shape.h"

namespace preflight {

struct RankStepBytes {
  std::uint64_t rank = 0;
  std::uint64_t stage = 0;
  bool active = true;                 // its DP group has tokens this step
  std::uint64_t trunk = 0;            // always-on weights read in full (LM head included)
  std::uint64_t embedding_rows = 0;   // tokens x one embedding row
  std::uint64_t routed_resident = 0;  // routed-expert bytes held on the rank
  std::uint64_t routed = 0;           // expected routed-expert bytes read (estimate)
  std::uint64_t experts_on_rank = 0;  // per MoE layer
  double expert_fraction = 0;         // 1 - (1 - k/E)^T
  double experts_touched = 0;         // per MoE layer on this rank: experts_on_rank x expert_fraction
  std::uint64_t kv = 0;               // KV read (decode) or written (prefill)
  std::uint64_t state = 0;            // recurrent state read + written
  std::uint64_t total = 0;
  std::map<std::string, std::uint64_t> by_format;  // weights by traffic format, plus "kv_cache" and "recurrent_state"
};

// The probability that a given expert serves at least one of `tokens` tokens
// that each pick `k` of `experts` uniformly: 1 - (1 - k/E)^T (1 when k >= E).
double expert_touch_fraction(std::uint64_t k, std::uint64_t experts, std::uint64_t tokens);

// Keys of the non-weight rows in RankStepBytes::by_format.
inline constexpr const char* kKvCacheKey = "kv_cache";
inline constexpr const char* kStateKey = "recurrent_state";

RankStepBytes rank_step_bytes(const PerfInputs& in, const FormatPlacement& placement, const RankFormatWeights& weights,
                              const StepShape& shape);

// The decode step of the inputs (batch_per_group requests per DP group at the
// context), for every rank of the layout.
// An Error when the inputs are not valid (validate_perf_inputs).
Result<std::vector<RankStepBytes>> decode_bytes(const PerfInputs& in, const FormatPlacement& placement);

// Modules a step never reads in full: the embedding (gathered), routed
// experts (selected), MTP layers (speculation only), vision and projector.
bool read_in_full(ModuleClass m);

}  // namespace preflight
