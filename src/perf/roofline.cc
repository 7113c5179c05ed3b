#include "perf/roofline.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/bytes.h"

namespace preflight {

std::string_view binding_term_key(BindingTerm t) {
  switch (t) {
    case BindingTerm::memory:
      return "memory_bandwidth";
    case BindingTerm::compute:
      return "compute";
    case BindingTerm::communication:
      return "communication";
  }
  return "memory_bandwidth";
}

RankTerms rank_terms(const Accelerator& gpu, const RankStepBytes& bytes, const RankStepFlops& flops,
                     const RankStepComm& comm) {
  RankTerms t;
  t.rank = bytes.rank;
  t.memory_s = static_cast<double>(bytes.total) / (gpu.memory_bandwidth_tb_s * 1e12);
  t.compute_s = flops.seconds;
  t.communication_s = comm.seconds;
  t.seconds = t.memory_s;
  if (t.compute_s > t.seconds) t.seconds = t.compute_s, t.binding = BindingTerm::compute;
  if (t.communication_s > t.seconds) t.seconds = t.communication_s, t.binding = BindingTerm::communication;
  return t;
}

std::vector<RankFormatWeights> all_rank_weights(const FormatPlacement& placement, const Layout& layout) {
  std::vector<RankFormatWeights> out;
  out.reserve(layout.world);
  for (std::uint64_t r = 0; r < layout.world; ++r) out.push_back(placement.rank_weights(layout, r));
  return out;
}

StepEstimate estimate_step(const PerfInputs& in, const FormatPlacement& placement,
                           const std::vector<RankFormatWeights>& weights, const StepShape& shape) {
  const auto& layout = *in.layout;
  StepEstimate s;
  s.shape = shape;
  s.world = layout.world;
  s.stage_seconds.assign(layout.pp, 0.0);
  s.tokens_per_step = shape.moe_tokens();
  std::vector<bool> seen(layout.pp, false);
  std::vector<RankTerms> stage_worst(layout.pp);
  std::vector<RankStepBytes> worst_bytes(layout.pp);
  std::vector<RankStepFlops> worst_flops(layout.pp);
  std::vector<RankStepComm> worst_comm(layout.pp);
  for (const auto& w : weights) {
    auto bytes = rank_step_bytes(in, placement, w, shape);
    auto flops = rank_step_flops(in, placement, w, shape);
    auto comm = rank_step_comm(in, placement, w.rank, shape);
    const auto terms = rank_terms(*in.gpu, bytes, flops, comm);
    for (const auto& [key, b] : bytes.by_format)
      s.cluster_bytes_by_format[key] = checked_add(s.cluster_bytes_by_format[key], b, "cluster bytes");
    s.cluster_bytes = checked_add(s.cluster_bytes, bytes.total, "cluster bytes");
    s.cluster_flops = checked_add(s.cluster_flops, flops.total, "cluster FLOPs");
    s.cluster_comm_bytes = checked_add(s.cluster_comm_bytes, comm.total, "cluster communication");
    if (comm.unknown_rate_bytes > 0) s.communication_unknown = true;
    const auto st = w.stage;
    if (!seen[st] || terms.seconds > stage_worst[st].seconds) {
      seen[st] = true;
      stage_worst[st] = terms;
      worst_bytes[st] = std::move(bytes);
      worst_flops[st] = std::move(flops);
      worst_comm[st] = std::move(comm);
    }
  }
  std::uint64_t slowest = 0;
  for (std::uint64_t st = 0; st < layout.pp; ++st) {
    s.stage_seconds[st] = stage_worst[st].seconds;
    s.step_seconds += stage_worst[st].seconds;
    if (stage_worst[st].seconds > stage_worst[slowest].seconds) slowest = st;
  }
  s.slowest_stage_seconds = stage_worst[slowest].seconds;
  s.binding = stage_worst[slowest];
  s.binding_bytes = worst_bytes[slowest];
  s.binding_flops = worst_flops[slowest];
  s.binding_comm = worst_comm[slowest];
  return s;
}

Figure communication_figure(const StepEstimate& s, const Accelerator& gpu, Figure f) {
  if (!s.communication_unknown) return f;
  f.display = "unknown";
  f.formula +=
      fmt::format(": {} has no interconnect bandwidth in the catalogue, so the term is unknown and left out", gpu.id);
  return f;
}

namespace {

std::string seconds_text(double s) { return format_seconds(s); }

std::string source_text(const PerfInputs& in) {
  const auto& g = *in.gpu;
  return fmt::format(
      "tensor manifest and plan placement (placement/placement.h); data/gpus.json {}: {} TB/s HBM, "
      "BF16 {} / FP8 {} / FP4 {} dense TFLOPS, interconnect {} GB/s bidirectional",
      g.id, g.memory_bandwidth_tb_s, g.bf16_dense_tflops, g.fp8_dense_tflops, g.fp4_dense_tflops, g.interconnect_gb_s);
}

// "trunk 15,009,849,344 B + embedding rows 8,192 B + ..." for one rank's step.
std::string bytes_breakdown(const PerfInputs& in, const RankStepBytes& b, std::uint64_t moe_tokens) {
  std::string out = fmt::format("always-on weights {} B", with_commas(b.trunk));
  if (b.embedding_rows > 0) out += fmt::format(" + embedding rows {} B", with_commas(b.embedding_rows));
  if (b.routed_resident > 0)
    out +=
        fmt::format(" + routed experts {} B resident x (1 - (1 - {}/{})^{}) = {} B", with_commas(b.routed_resident),
                    in.model->moe.experts_per_token, in.model->moe.routed_experts, moe_tokens, with_commas(b.routed));
  if (b.kv > 0) out += fmt::format(" + KV {} B", with_commas(b.kv));
  if (b.state > 0) out += fmt::format(" + state {} B (read and written)", with_commas(b.state));
  return out;
}

std::string terms_formula(const PerfInputs& in, const StepEstimate& s) {
  const auto& g = *in.gpu;
  const auto& b = s.binding;
  const auto& c = s.binding_comm;
  const std::string communication =
      c.unknown_rate_bytes > 0
          ? fmt::format(
                "communication {} B sent, {} B of it over links of unknown bandwidth ({} has no interconnect "
                "bandwidth in the catalogue) = unknown, left out ({} for the rest)",
                with_commas(c.total), with_commas(c.unknown_rate_bytes), g.id, seconds_text(b.communication_s))
          : fmt::format("communication {} B sent at {} GB/s each way = {}", with_commas(c.total),
                        g.interconnect_gb_s / 2, seconds_text(b.communication_s));
  std::string out =
      fmt::format("max(memory {} B / {} TB/s = {}, compute {} FLOP at the format rates = {}, {}) on rank {}",
                  with_commas(s.binding_bytes.total), g.memory_bandwidth_tb_s, seconds_text(b.memory_s),
                  with_commas(s.binding_flops.total), seconds_text(b.compute_s), communication, b.rank);
  if (s.stage_seconds.size() > 1) {
    out += "; summed over PP stages:";
    for (auto t : s.stage_seconds) out += " " + seconds_text(t);
  }
  if (s.communication_unknown && c.unknown_rate_bytes == 0)
    out += fmt::format(
        "; another rank sends over links of unknown bandwidth ({} has no interconnect bandwidth in "
        "the catalogue): its communication is left out",
        g.id);
  if (s.binding_comm.crosses_nodes && !s.binding_comm.scale_out_modelled)
    out += "; traffic between nodes counted at the NVLink rate (no scale-out bandwidth given): optimistic";
  if (s.binding_comm.crosses_nodes && s.binding_comm.scale_out_modelled)
    out += fmt::format("; {} B of it between nodes at {} GB/s each way", with_commas(s.binding_comm.inter_node),
                       in.scale_out_gb_s);
  return out;
}

void step_figures(std::vector<Figure>& f, const PerfInputs& in, const StepEstimate& s, const std::string& prefix,
                  const std::string& when, Evidence bytes_evidence, const std::string& source) {
  const auto& b = s.binding_bytes;
  f.push_back(bytes_figure(prefix + "bytes_per_step_per_rank",
                           fmt::format("bytes rank {} reads per decode step ({})", b.rank, when), b.total,
                           bytes_evidence, bytes_breakdown(in, b, s.shape.moe_tokens()), source));
  f.push_back(bytes_figure(prefix + "bytes_per_token",
                           fmt::format("bytes read per generated token, all GPUs ({})", when),
                           s.tokens_per_step ? s.cluster_bytes / s.tokens_per_step : 0, bytes_evidence,
                           fmt::format("{} B read by {} ranks per step / {} tokens per step",
                                       with_commas(s.cluster_bytes), s.world, s.tokens_per_step),
                           source));
  if (b.experts_on_rank > 0)
    f.push_back(real_figure(
        prefix + "expected_experts_per_moe_layer",
        fmt::format("distinct experts a step touches per MoE layer on rank {} ({})", b.rank, when), b.experts_touched,
        "experts", Evidence::estimate,
        fmt::format("{} experts on the rank x (1 - (1 - {}/{})^{} tokens) (uniform routing)", b.experts_on_rank,
                    in.model->moe.experts_per_token, in.model->moe.routed_experts, s.shape.moe_tokens()),
        source));
  auto term = real_figure(prefix + "binding_term", fmt::format("binding term of the decode step ({})", when),
                          s.binding.seconds, "s", Evidence::estimate, terms_formula(in, s), source);
  term.display = fmt::format("{} ({})", binding_term_key(s.binding.binding), seconds_text(s.binding.seconds));
  f.push_back(term);
  f.push_back(real_figure(prefix + "decode_step_seconds_bound", fmt::format("decode step time, lower bound ({})", when),
                          s.step_seconds, "s", Evidence::estimate, terms_formula(in, s), source));
}

}  // namespace

Result<DecodeEstimate> estimate_decode(const PerfInputs& in) {
  if (auto e = validate_perf_inputs(in)) return *e;
  const FormatPlacement placement(*in.model);
  return estimate_decode(in, placement);
}

Result<DecodeEstimate> estimate_decode(const PerfInputs& in, const FormatPlacement& placement) {
  if (auto e = validate_perf_inputs(in)) return *e;
  return estimate_decode(in, placement, all_rank_weights(placement, *in.layout));
}

Result<DecodeEstimate> estimate_decode(const PerfInputs& in, const FormatPlacement& placement,
                                       const std::vector<RankFormatWeights>& weights) {
  if (auto e = validate_perf_inputs(in)) return *e;
  const auto& layout = *in.layout;
  DecodeEstimate d;
  d.batch1 = estimate_step(in, placement, weights, decode_step(in, 1));
  d.at_batch = estimate_step(in, placement, weights, decode_step(in, in.batch_per_group));
  d.concurrency = checked_mul(checked_mul(in.batch_per_group, layout.dp, "concurrency"), layout.pp, "concurrency");
  const auto world = static_cast<double>(layout.world);
  d.tokens_per_s_per_request_bound = 1.0 / d.batch1.step_seconds;
  d.tokens_per_s_per_gpu_bound = static_cast<double>(d.batch1.tokens_per_step) / d.batch1.slowest_stage_seconds / world;
  d.tokens_per_s_per_request_at_batch = 1.0 / d.at_batch.step_seconds;
  d.tokens_per_s_at_batch = static_cast<double>(d.at_batch.tokens_per_step) / d.at_batch.slowest_stage_seconds;
  d.tokens_per_s_per_gpu_at_batch = d.tokens_per_s_at_batch / world;

  const bool moe = in.model->moe.routed_experts > 0;
  const auto bytes_evidence = !moe && layout.world == 1 ? Evidence::derived : Evidence::estimate;
  const auto source = source_text(in);
  auto& f = d.figures;
  const auto& s1 = d.batch1;

  // Bytes per token by storage format (batch 1: one request, the CLI's definition).
  for (const auto& [key, bytes] : s1.cluster_bytes_by_format) {
    const auto per_token = s1.tokens_per_step ? bytes / s1.tokens_per_step : 0;
    f.push_back(bytes_figure(
        "perf.bytes_per_token_by_dtype." + key, fmt::format("bytes read per token stored as {} (batch 1)", key),
        per_token, bytes_evidence,
        fmt::format("{} B over {} ranks / {} tokens", with_commas(bytes), s1.world, s1.tokens_per_step), source));
    const double share =
        s1.cluster_bytes ? 100.0 * static_cast<double>(bytes) / static_cast<double>(s1.cluster_bytes) : 0;
    f.push_back(real_figure(
        "perf.bytes_share." + key, fmt::format("share of per-token bytes stored as {} (batch 1)", key), share, "%",
        bytes_evidence, fmt::format("{} B / {} B", with_commas(bytes), with_commas(s1.cluster_bytes)), source));
  }
  step_figures(f, in, s1, "perf.", "batch 1", bytes_evidence, source);
  f.push_back(
      exact_figure("perf.flops_per_token", "FLOPs per generated token, all GPUs (batch 1)",
                   s1.tokens_per_step ? s1.cluster_flops / s1.tokens_per_step : 0, "FLOP", Evidence::estimate,
                   fmt::format("2 x parameters each token multiplies (routed: x {}/{} of the experts' tokens) + "
                               "attention at context {}: {} FLOP / {} tokens",
                               in.model->moe.experts_per_token, in.model->moe.routed_experts, in.context,
                               with_commas(s1.cluster_flops), s1.tokens_per_step),
                   source));
  f.push_back(real_figure(
      "perf.memory_seconds", "memory term of the binding rank (batch 1)", s1.binding.memory_s, "s", Evidence::estimate,
      fmt::format("{} B / ({} TB/s x 10^12)", with_commas(s1.binding_bytes.total), in.gpu->memory_bandwidth_tb_s),
      source));
  f.push_back(real_figure("perf.compute_seconds", "compute term of the binding rank (batch 1)", s1.binding.compute_s,
                          "s", Evidence::estimate,
                          fmt::format("{} FLOP at the dense rate of each weight format (attention at BF16)",
                                      with_commas(s1.binding_flops.total)),
                          source));
  f.push_back(communication_figure(
      s1, *in.gpu,
      real_figure(
          "perf.communication_seconds", "communication term of the binding rank (batch 1)", s1.binding.communication_s,
          "s", Evidence::estimate,
          fmt::format(
              "{} B sent (TP all-reduce {} + EP all-to-all {} + MoE-TP all-reduce {} + PP {}) at {} GB/s each way",
              with_commas(s1.binding_comm.total), with_commas(s1.binding_comm.tp_allreduce),
              with_commas(s1.binding_comm.ep_alltoall), with_commas(s1.binding_comm.moe_allreduce),
              with_commas(s1.binding_comm.pipeline), in.gpu->interconnect_gb_s / 2),
          source)));
  f.push_back(real_figure("perf.decode_tokens_per_s_bound",
                          "decode tokens/s per request, upper bound (batch 1, no speculation)",
                          d.tokens_per_s_per_request_bound, "tokens/s", Evidence::estimate,
                          fmt::format("1 / {} step", seconds_text(s1.step_seconds)), source));
  f.push_back(real_figure("perf.decode_tokens_per_s_per_gpu_bound", "decode tokens/s per GPU, upper bound (batch 1)",
                          d.tokens_per_s_per_gpu_bound, "tokens/s", Evidence::estimate,
                          fmt::format("{} tokens per step / {} slowest stage / {} GPUs", s1.tokens_per_step,
                                      seconds_text(s1.slowest_stage_seconds), layout.world),
                          source));

  // At the given concurrency.
  const auto& sb = d.at_batch;
  const auto when = fmt::format("{} requests per DP group", in.batch_per_group);
  f.push_back(exact_figure("perf.concurrency", "requests in flight", d.concurrency, "requests", Evidence::derived,
                           fmt::format("{} per DP group x DP {} x PP {}", in.batch_per_group, layout.dp, layout.pp),
                           source));
  step_figures(f, in, sb, "perf.at_concurrency.", when, bytes_evidence, source);
  f.push_back(real_figure("perf.at_concurrency.tokens_per_s_per_request_bound",
                          fmt::format("decode tokens/s per request, upper bound ({})", when),
                          d.tokens_per_s_per_request_at_batch, "tokens/s", Evidence::estimate,
                          fmt::format("1 / {} step", seconds_text(sb.step_seconds)), source));
  f.push_back(real_figure(
      "perf.at_concurrency.tokens_per_s_bound", fmt::format("decode tokens/s of the cluster, upper bound ({})", when),
      d.tokens_per_s_at_batch, "tokens/s", Evidence::estimate,
      fmt::format("{} tokens per step / {} slowest stage", sb.tokens_per_step, seconds_text(sb.slowest_stage_seconds)),
      source));
  f.push_back(real_figure("perf.at_concurrency.tokens_per_s_per_gpu_bound",
                          fmt::format("decode tokens/s per GPU, upper bound ({})", when),
                          d.tokens_per_s_per_gpu_at_batch, "tokens/s", Evidence::estimate,
                          fmt::format("{:.4g} tokens/s / {} GPUs", d.tokens_per_s_at_batch, layout.world), source));

  auto& a = d.assumptions;
  a.push_back(
      "bounds assume memory traffic, math and communication overlap perfectly, with no kernel-launch or "
      "collective latency: real steps are slower");
  if (moe)
    a.push_back("routing is uniform and independent across tokens (real routers are skewed: fewer distinct experts)");
  a.push_back(
      "bounds without speculative decoding (a speculative speed-up, when asked, is its own hypothesis); MTP "
      "layers, vision tower and projector are not read");
  a.push_back("the input embedding is gathered (one row per token), the LM head read in full");
  if (s1.communication_unknown || sb.communication_unknown)
    a.push_back(
        fmt::format("{} has no interconnect bandwidth in the catalogue: the communication term is unknown and "
                    "left out of every bound (real steps are slower still)",
                    in.gpu->id));
  if (sb.binding_comm.crosses_nodes && !sb.binding_comm.scale_out_modelled)
    a.push_back(
        "a collective spans nodes and no scale-out bandwidth was given: it is timed at the NVLink rate (optimistic)");
  return d;
}

Result<DecodeBound> estimate_decode_bound(const PerfInputs& in, const FormatPlacement& placement,
                                          const std::vector<std::uint64_t>& ranks) {
  if (auto e = validate_perf_inputs(in)) return *e;
  const auto& layout = *in.layout;
  std::vector<RankFormatWeights> weights;
  weights.reserve(ranks.size());
  for (auto r : ranks) weights.push_back(placement.rank_weights(layout, r));
  const auto b1 = estimate_step(in, placement, weights, decode_step(in, 1));
  const auto bb = estimate_step(in, placement, weights, decode_step(in, in.batch_per_group));
  DecodeBound d;
  d.tokens_per_s_per_request = 1.0 / b1.step_seconds;
  d.tokens_per_s_at_batch = static_cast<double>(bb.tokens_per_step) / bb.slowest_stage_seconds;
  d.tokens_per_s_per_gpu_at_batch = d.tokens_per_s_at_batch / static_cast<double>(layout.world);
  d.binding_at_batch = bb.binding.binding;
  return d;
}

}  // namespace preflight
