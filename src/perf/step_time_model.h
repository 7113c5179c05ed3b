// StepTimeModel: the time of one engine step as a function of what it
// processes, for the latency estimate and the serving simulation.
//
// The roofline (roofline.h) prices one step shape at a time and takes the
// largest of its terms: a bound. A scheduler simulation needs the time of
// thousands of mixed steps (b decode sequences attending to S context tokens
// in all, plus p prefill tokens), so the roofline is sampled at four shapes and
// its terms kept as lines:
//
//   memory(n, S)  = W(n) + kv_per_context_token x S
//                   W(n): weights read by a step of n tokens, W(1) .. W(64)
//                   interpolated (MoE steps touch more experts as n grows)
//   compute(b, S, p) = b x decode_compute_per_seq + attention_compute_per_context_token x S
//                      + p x prefill_compute_per_token
//   comm(b, p)    = b x decode_comm_per_seq + p x prefill_comm_per_token
//
// every term summed over the pipeline's stages. The estimate of a step is
//   t = (W(1) + kv) / memory_efficiency + (W(n) - W(1)) / moe_memory_efficiency
//       + compute / compute_efficiency + comm
// plus layers x per_layer_s + collectives x per_collective_s + per_step_s +
// decoded sequences x per_seq_s,
// with the efficiencies of latency_efficiency.h; the bound (efficiencies 1,
// no overhead, the largest term instead of the sum) stays the roofline's.
#pragma once

#include <cstdint>
#include <vector>

#include "perf/format_placement.h"
#include "perf/perf_inputs.h"

namespace preflight {

struct StepTimeModel {
  double weights_s_1 = 0;               // W(1)
  double weights_s_64 = 0;              // W(64)
  double kv_s_per_context_token = 0;    // memory seconds per context token a decode step reads
  double decode_compute_s_per_seq = 0;  // compute of one decode token, without its attention reads
  double attention_compute_s_per_context_token = 0;
  double prefill_compute_s_per_token = 0;
  double decode_comm_s_per_seq = 0;
  double prefill_comm_s_per_token = 0;
  // Fixed costs the roofline has no term for: kernels launched per decoder
  // layer, and collectives per step whose latency, not their bytes, dominates
  // at small batches (2 all-reduces per layer at TP > 1, 2 all-to-alls per MoE
  // layer at EP > 1).
  std::uint64_t layers = 0;
  std::uint64_t collectives = 0;

  double weights_s(std::uint64_t tokens) const;
  double memory_s(std::uint64_t tokens, std::uint64_t context_tokens) const;
  double compute_s(std::uint64_t decode_seqs, std::uint64_t context_tokens, std::uint64_t prefill_tokens) const;
  double comm_s(std::uint64_t decode_seqs, std::uint64_t prefill_tokens) const;
};

// The model of one DP group's steps, from the roofline sampled at decode
// steps of 1 and 64 sequences at `in.context` and 2 x `in.context` tokens,
// and a prefill of `prefill_tokens`. Assumes validated inputs.
StepTimeModel build_step_time_model(const PerfInputs& in, const FormatPlacement& placement,
                                    const std::vector<RankFormatWeights>& weights, std::uint64_t prefill_tokens);

struct StepEfficiency {
  double memory = 1;            // share of peak memory bandwidth achieved
  double compute = 1;           // share of peak dense BF16/FP8 rate achieved
  double per_layer_s = 0;       // fixed cost per decoder layer and step (kernel launches, norms, scheduling)
  double per_collective_s = 0;  // latency of one collective
  // A serving engine's own costs around the model's kernels (scheduling,
  // sampling, detokenizing and streaming): per step and per decoded sequence.
  double per_step_s = 0;
  double per_seq_s = 0;
  // Share of peak bandwidth at which a step reads the expert weights a wider
  // batch touches beyond one token's, W(n) - W(1): grouped GEMMs over a few
  // tokens per expert run further from peak than dense ones. No effect on a
  // dense model (W(n) = W(1)).
  double moe_memory = 1;
};

// One step's estimated seconds.
double step_seconds(const StepTimeModel& m, const StepEfficiency& e, std::uint64_t decode_seqs,
                    std::uint64_t context_tokens, std::uint64_t prefill_tokens);

}  // namespace preflight
