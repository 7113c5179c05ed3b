#include "perf/prefill.h"

#include <fmt/format.h>

#include "core/bytes.h"
#include "perf/step_shape.h"

namespace preflight {

Result<PrefillEstimate> estimate_prefill(const PerfInputs& in, std::uint64_t prompt_tokens) {
  if (auto e = validate_perf_inputs(in)) return *e;
  const FormatPlacement placement(*in.model);
  return estimate_prefill(in, placement, prompt_tokens);
}

Result<PrefillEstimate> estimate_prefill(const PerfInputs& in, const FormatPlacement& placement,
                                         std::uint64_t prompt_tokens) {
  if (auto e = validate_perf_inputs(in)) return *e;
  return estimate_prefill(in, placement, all_rank_weights(placement, *in.layout), prompt_tokens);
}

Result<PrefillEstimate> estimate_prefill(const PerfInputs& in, const FormatPlacement& placement,
                                         const std::vector<RankFormatWeights>& weights, std::uint64_t prompt_tokens) {
  if (auto e = validate_perf_inputs(in)) return *e;
  if (prompt_tokens == 0) return Error{"perf", "prompt_tokens", "the prompt must be at least 1 token"};
  PrefillEstimate p;
  p.prompt_tokens = prompt_tokens;
  p.step = estimate_step(in, placement, weights, prefill_step(prompt_tokens));
  p.seconds_bound = p.step.step_seconds;
  p.compute_seconds = p.step.binding.compute_s;
  p.memory_seconds = p.step.binding.memory_s;
  p.communication_seconds = p.step.binding.communication_s;

  const auto& g = *in.gpu;
  const auto& b = p.step.binding_bytes;
  const auto& fl = p.step.binding_flops;
  const auto source = fmt::format(
      "tensor manifest and plan placement; data/gpus.json {}: {} TB/s HBM, BF16 {} / FP8 {} / "
      "FP4 {} dense TFLOPS, interconnect {} GB/s bidirectional",
      g.id, g.memory_bandwidth_tb_s, g.bf16_dense_tflops, g.fp8_dense_tflops, g.fp4_dense_tflops, g.interconnect_gb_s);
  const auto when = fmt::format("prompt of {} tokens", prompt_tokens);
  auto& f = p.figures;
  f.push_back(exact_figure(
      "perf.prefill_flops_per_rank", fmt::format("FLOPs on rank {} ({})", fl.rank, when), fl.total, "FLOP",
      Evidence::estimate,
      fmt::format("weights {} (2 x params x {} tokens; LM head once) + routed {} (x {}/{} of the "
                  "tokens) + attention {} (causal, P(P+1)/2 pairs per head and layer)",
                  with_commas(fl.trunk), prompt_tokens, with_commas(fl.routed), in.model->moe.experts_per_token,
                  in.model->moe.routed_experts, with_commas(fl.attention)),
      source));
  f.push_back(real_figure("perf.prefill_compute_seconds", fmt::format("compute-bound term ({})", when),
                          p.compute_seconds, "s", Evidence::estimate,
                          fmt::format("{} FLOP at the dense rate of each weight format (attention at BF16 {} TFLOPS)",
                                      with_commas(fl.total), g.bf16_dense_tflops),
                          source));
  f.push_back(
      bytes_figure("perf.prefill_bytes_per_rank", fmt::format("bytes rank {} moves in HBM ({})", b.rank, when), b.total,
                   Evidence::estimate,
                   fmt::format("weights read once {} B + embedding rows {} B + routed experts touched {} B + KV "
                               "written {} B + state written {} B",
                               with_commas(b.trunk), with_commas(b.embedding_rows), with_commas(b.routed),
                               with_commas(b.kv), with_commas(b.state)),
                   source));
  f.push_back(real_figure("perf.prefill_memory_seconds", fmt::format("bandwidth-bound term ({})", when),
                          p.memory_seconds, "s", Evidence::estimate,
                          fmt::format("{} B / ({} TB/s x 10^12)", with_commas(b.total), g.memory_bandwidth_tb_s),
                          source));
  f.push_back(communication_figure(
      p.step, g,
      real_figure(
          "perf.prefill_communication_seconds", fmt::format("communication term ({})", when), p.communication_seconds,
          "s", Evidence::estimate,
          fmt::format("{} B sent at {} GB/s each way", with_commas(p.step.binding_comm.total), g.interconnect_gb_s / 2),
          source)));
  auto term =
      real_figure("perf.prefill_binding_term", fmt::format("binding term of the prefill ({})", when),
                  p.step.binding.seconds, "s", Evidence::estimate,
                  fmt::format("max(compute, bandwidth, communication) on rank {}", p.step.binding.rank), source);
  term.display = std::string(binding_term_key(p.step.binding.binding));
  f.push_back(term);
  f.push_back(
      real_figure("perf.prefill_seconds_bound", fmt::format("time to first token, lower bound ({})", when),
                  p.seconds_bound, "s", Evidence::estimate,
                  fmt::format("sum over {} PP stage(s) of the slowest rank's max(compute, bandwidth, communication)",
                              in.layout->pp),
                  source));
  return p;
}

}  // namespace preflight
