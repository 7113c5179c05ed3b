#include "perf/step_time_model.h"

#include <algorithm>

#include "perf/roofline.h"
#include "perf/step_shape.h"

namespace preflight {

namespace {

struct Terms {
  double memory = 0, compute = 0, comm = 0;
};

// A step's terms summed over the stages: the slowest rank's terms scaled by
// the step's time over its slowest stage's (PP stages run one after another
// for one token).
Terms terms(const StepEstimate& s) {
  const double stages = s.slowest_stage_seconds > 0 ? s.step_seconds / s.slowest_stage_seconds : 1.0;
  return {s.binding.memory_s * stages, s.binding.compute_s * stages, s.binding.communication_s * stages};
}

constexpr std::uint64_t kWideBatch = 64;

}  // namespace

double StepTimeModel::weights_s(std::uint64_t tokens) const {
  const double n = static_cast<double>(std::clamp<std::uint64_t>(tokens, 1, kWideBatch));
  return weights_s_1 + (weights_s_64 - weights_s_1) * (n - 1) / static_cast<double>(kWideBatch - 1);
}

double StepTimeModel::memory_s(std::uint64_t tokens, std::uint64_t context_tokens) const {
  return weights_s(tokens) + kv_s_per_context_token * static_cast<double>(context_tokens);
}

double StepTimeModel::compute_s(std::uint64_t decode_seqs, std::uint64_t context_tokens,
                                std::uint64_t prefill_tokens) const {
  return decode_compute_s_per_seq * static_cast<double>(decode_seqs) +
         attention_compute_s_per_context_token * static_cast<double>(context_tokens) +
         prefill_compute_s_per_token * static_cast<double>(prefill_tokens);
}

double StepTimeModel::comm_s(std::uint64_t decode_seqs, std::uint64_t prefill_tokens) const {
  return decode_comm_s_per_seq * static_cast<double>(decode_seqs) +
         prefill_comm_s_per_token * static_cast<double>(prefill_tokens);
}

StepTimeModel build_step_time_model(const PerfInputs& in, const FormatPlacement& placement,
                                    const std::vector<RankFormatWeights>& weights, std::uint64_t prefill_tokens) {
  const std::uint64_t c1 = std::max<std::uint64_t>(in.context, 1);
  const std::uint64_t c2 = checked_mul(c1, 2, "context");
  PerfInputs at = in;
  at.context = c1;
  const auto one = terms(estimate_step(at, placement, weights, decode_step(at, 1)));
  const auto wide = terms(estimate_step(at, placement, weights, decode_step(at, kWideBatch)));
  at.context = c2;
  const auto longer = terms(estimate_step(at, placement, weights, decode_step(at, 1)));
  const std::uint64_t p = std::max<std::uint64_t>(prefill_tokens, 1);
  const auto prefill = terms(estimate_step(in, placement, weights, prefill_step(p)));

  StepTimeModel m;
  const double d1 = static_cast<double>(c1);
  m.kv_s_per_context_token = std::max(0.0, (longer.memory - one.memory) / static_cast<double>(c2 - c1));
  m.weights_s_1 = std::max(0.0, one.memory - m.kv_s_per_context_token * d1);
  m.weights_s_64 = std::max(m.weights_s_1, wide.memory - m.kv_s_per_context_token * d1 * kWideBatch);
  m.attention_compute_s_per_context_token =
      std::max(0.0, (longer.compute - one.compute) / static_cast<double>(c2 - c1));
  m.decode_compute_s_per_seq = std::max(0.0, wide.compute / kWideBatch - m.attention_compute_s_per_context_token * d1);
  m.prefill_compute_s_per_token = prefill.compute / static_cast<double>(p);
  m.decode_comm_s_per_seq = wide.comm / kWideBatch;
  m.prefill_comm_s_per_token = prefill.comm / static_cast<double>(p);
  const auto& layout = *in.layout;
  m.layers = in.model->layers.size();
  const auto& moe = in.model->moe;
  const std::uint64_t moe_layers =
      moe.routed_experts > 0 && m.layers > moe.first_dense_layers ? m.layers - moe.first_dense_layers : 0;
  m.collectives = (layout.tp > 1 ? 2 * m.layers : 0) + (layout.ep > 1 ? 2 * moe_layers : 0);
  return m;
}

double step_seconds(const StepTimeModel& m, const StepEfficiency& e, std::uint64_t decode_seqs,
                    std::uint64_t context_tokens, std::uint64_t prefill_tokens) {
  if (decode_seqs == 0 && prefill_tokens == 0) return 0;
  const auto tokens = decode_seqs + prefill_tokens;
  const double experts_beyond_one = m.weights_s(tokens) - m.weights_s_1;
  return e.per_step_s + e.per_seq_s * static_cast<double>(decode_seqs) + e.per_layer_s * static_cast<double>(m.layers) +
         e.per_collective_s * static_cast<double>(m.collectives) +
         (m.memory_s(tokens, context_tokens) - experts_beyond_one) / e.memory + experts_beyond_one / e.moe_memory +
         m.compute_s(decode_seqs, context_tokens, prefill_tokens) / e.compute + m.comm_s(decode_seqs, prefill_tokens);
}

}  // namespace preflight
