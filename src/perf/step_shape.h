// StepShape: what one forward step of the engine processes.
//
// Decode: every DP group runs its batch of requests one token each, attending
// to `context` tokens. Prefill (the time-to-first-token bound): one request's
// prompt of `context` tokens on one DP group, alone on the cluster.
// The MoE layers of a stage see the tokens of every active DP group (DP
// attention gathers them into the EP groups), so routing fractions use
// tokens_per_group x active_groups.
#pragma once

#include <cstdint>

#include "core/bytes.h"
#include "perf/perf_inputs.h"

namespace preflight {

struct StepShape {
  bool prefill = false;
  std::uint64_t tokens_per_group = 1;    // tokens an active DP group pushes through its layers
  std::uint64_t active_groups = 1;       // DP groups with tokens this step
  std::uint64_t requests_per_group = 1;  // requests of an active group (LM head rows, state slots)
  std::uint64_t context = 0;             // decode: tokens attended per request; prefill: prompt length

  std::uint64_t moe_tokens() const { return checked_mul(tokens_per_group, active_groups, "MoE tokens per step"); }
};

inline StepShape decode_step(const PerfInputs& in, std::uint64_t batch_per_group) {
  return StepShape{false, batch_per_group, in.layout->dp, batch_per_group, in.context};
}

inline StepShape prefill_step(std::uint64_t prompt_tokens) {
  return StepShape{true, prompt_tokens, 1, 1, prompt_tokens};
}

// Whether `rank`'s DP group has tokens this step (groups are numbered within a stage).
inline bool rank_active(const Layout& layout, std::uint64_t rank, const StepShape& s) {
  return (rank % layout.stage_ranks()) / layout.tp < s.active_groups;
}

}  // namespace preflight
