#include "perf/perf_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/bytes.h"
#include "perf/decode_bytes.h"
#include "perf/speculative.h"

namespace preflight {

namespace {

// A prompt long enough to be compute-bound on every catalogue GPU, short
// enough to be a typical chat or RAG turn; --prompt-tokens overrides it.
constexpr std::uint64_t kDefaultPromptTokens = 8192;

PerfInputs perf_inputs(const PerfPlanInputs& in, std::uint64_t batch) {
  auto p = workload_perf_inputs(*in.model, *in.gpu, *in.layout, *in.workload, in.options.scale_out_gb_s);
  p.batch_per_group = batch;
  return p;
}

// MTP layer bytes on the heaviest rank: a model's own draft when no --draft is given.
std::uint64_t mtp_bytes_per_rank(const std::vector<RankFormatWeights>& weights) {
  std::uint64_t most = 0;
  for (const auto& w : weights) {
    std::uint64_t b = 0;
    for (const auto& [format, modules] : w.bytes) {
      const auto it = modules.find(ModuleClass::mtp);
      if (it != modules.end()) b += it->second;
    }
    most = std::max(most, b);
  }
  return most;
}

void add_spec(PerfReport& r, const PerfPlanInputs& in, const PerfInputs& p,
              const std::vector<RankFormatWeights>& weights) {
  auto& s = r.spec;
  s.tokens = in.workload->spec_tokens;
  s.acceptance = in.options.spec_acceptance;
  s.tokens_per_step = expected_tokens_per_verify(s.tokens, s.acceptance);
  auto shape = decode_step(p, 1);
  shape.tokens_per_group = s.tokens + 1;  // N draft positions and the target's own
  s.verify = estimate_step(p, *in.placement, weights, shape);
  std::uint64_t draft_bytes = in.draft_bytes_per_rank;
  std::string draft_what = in.draft_name.empty() ? "" : fmt::format("--draft {}", in.draft_name);
  if (draft_bytes == 0 && in.model->mtp_layers > 0) {
    // An MTP layer is a decoder layer: one token reads its dense part and the
    // k of E routed experts it picks. Scale the rank's MTP bytes by the
    // model-wide split of the MTP layers into routed and the rest.
    std::uint64_t routed = 0, all = 0;
    for (const auto& t : in.model->manifest.tensors) {
      if (t.module != ModuleClass::mtp) continue;
      all = checked_add(all, t.bytes());
      if (t.role == ParallelRole::expert) routed = checked_add(routed, t.bytes());
    }
    const auto& moe = in.model->moe;
    const double touched = expert_touch_fraction(moe.experts_per_token, moe.routed_experts, 1);
    const double read_share =
        all ? (static_cast<double>(all - routed) + static_cast<double>(routed) * touched) / static_cast<double>(all)
            : 1.0;
    draft_bytes = static_cast<std::uint64_t>(static_cast<double>(mtp_bytes_per_rank(weights)) * read_share);
    draft_what = fmt::format("the model's {} MTP layer{} (its routed experts at {}/{})", in.model->mtp_layers,
                             in.model->mtp_layers == 1 ? "" : "s", moe.experts_per_token, moe.routed_experts);
  }
  const double bw = in.gpu->memory_bandwidth_tb_s * 1e12;
  s.draft_seconds = static_cast<double>(checked_mul(draft_bytes, s.tokens, "draft bytes")) / bw;
  s.tokens_per_s_bound = s.tokens_per_step / (s.verify.step_seconds + s.draft_seconds);

  const auto src =
      "--spec-tokens, --spec-acceptance (the acceptance rate is an assumption about the draft and the task)";
  auto& f = r.figures;
  f.push_back(real_figure("perf.spec.tokens_per_step",
                          fmt::format("expected tokens per verification step ({} draft tokens)", s.tokens),
                          s.tokens_per_step, "tokens", Evidence::hypothesis,
                          fmt::format("(1 - {}^{}) / (1 - {}) (Leviathan et al. 2023, eq. 1: each draft token accepted "
                                      "independently with probability {})",
                                      s.acceptance, s.tokens + 1, s.acceptance, s.acceptance),
                          src));
  f.push_back(real_figure("perf.spec.verify_step_seconds_bound",
                          fmt::format("verification step, {} positions per request (lower bound)", s.tokens + 1),
                          s.verify.step_seconds, "s", Evidence::estimate,
                          fmt::format("decode roofline with {} tokens per request; binding: {}", s.tokens + 1,
                                      binding_term_key(s.verify.binding.binding)),
                          "perf/roofline.h"));
  f.push_back(real_figure(
      "perf.spec.draft_seconds", "draft passes per step (memory-bound)", s.draft_seconds, "s", Evidence::estimate,
      draft_bytes == 0 ? "no draft weights known (pass --draft MODEL; n-gram drafting reads none)"
                       : fmt::format("{} passes x {} B of {} per rank / {} TB/s", s.tokens, with_commas(draft_bytes),
                                     draft_what, in.gpu->memory_bandwidth_tb_s),
      src));
  f.push_back(real_figure("perf.spec.decode_tokens_per_s_bound",
                          "decode tokens/s per request with speculation (hypothesis)", s.tokens_per_s_bound, "tokens/s",
                          Evidence::hypothesis,
                          fmt::format("{:.3g} tokens / ({} verify + {} draft)", s.tokens_per_step,
                                      format_seconds(s.verify.step_seconds), format_seconds(s.draft_seconds)),
                          src));
  r.assumptions.push_back(fmt::format(
      "speculation: {} draft tokens accepted at {} each, independently; the speed-up over {:.4g} tokens/s is a "
      "hypothesis until measured on the workload",
      s.tokens, s.acceptance, r.decode_tokens_per_s_bound));
}

}  // namespace

PerfInputs workload_perf_inputs(const ModelSpec& model, const Accelerator& gpu, const Layout& layout,
                                const WorkloadOptions& workload, double scale_out_gb_s) {
  PerfInputs p;
  p.model = &model;
  p.gpu = &gpu;
  p.layout = &layout;
  p.batch_per_group = decode_batch_per_group(layout, workload.concurrency);
  // A mix: each decode step reads every running request's cache, on average the mean length's.
  p.context = typical_length(workload);
  p.kv_dtype_bytes = kv_dtype_bytes(workload.kv_dtype);
  p.state_dtype_bytes = state_dtype_bytes(workload.state_dtype);
  p.scale_out_gb_s = scale_out_gb_s;
  return p;
}

std::uint64_t decode_batch_per_group(const Layout& layout, std::uint64_t concurrency) {
  const auto groups = std::max<std::uint64_t>(checked_mul(layout.dp, layout.pp, "DP x PP"), 1);
  return std::max<std::uint64_t>(ceil_div(std::max<std::uint64_t>(concurrency, 1), groups), 1);
}

namespace {
// The prompt the TTFT bound times: --prompt-tokens, else the context up to kDefaultPromptTokens.
std::uint64_t prefill_prompt(const PerfPlanInputs& in) {
  if (in.options.prompt_tokens > 0) return in.options.prompt_tokens;
  return std::min<std::uint64_t>(std::max<std::uint64_t>(in.workload->context_tokens, 1), kDefaultPromptTokens);
}
}  // namespace

PerfReport build_perf_report(const PerfPlanInputs& in) {
  PerfReport r;
  const auto& o = in.options;
  const auto& layout = *in.layout;
  r.batch_per_group = decode_batch_per_group(layout, in.workload->concurrency);
  const auto p = perf_inputs(in, r.batch_per_group);

  // Every rank's weights by format, once: decode, prefill and speculation read them.
  const auto weights =
      validate_perf_inputs(p) ? std::vector<RankFormatWeights>{} : all_rank_weights(*in.placement, layout);
  auto decode = estimate_decode(p, *in.placement, weights);
  auto prefill = decode ? estimate_prefill(p, *in.placement, weights, prefill_prompt(in))
                        : Result<PrefillEstimate>(decode.error());
  if (!prefill) {  // a decode error passes through
    r.unavailable = prefill.error().message;
  } else {
    r.available = true;
    r.decode = std::move(decode).value();
    r.decode_tokens_per_s_bound = r.decode.tokens_per_s_per_request_bound;
    for (const auto& [key, bytes] : r.decode.batch1.cluster_bytes_by_format)
      r.bytes_per_token_by_dtype.emplace_back(
          key, r.decode.batch1.tokens_per_step ? bytes / r.decode.batch1.tokens_per_step : 0);
    std::stable_sort(r.bytes_per_token_by_dtype.begin(), r.bytes_per_token_by_dtype.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    r.figures = r.decode.figures;
    // The seeds' "does MXFP4 cut traffic 4x" question is about weights: their
    // shares without the cache and state rows.
    std::uint64_t weight_bytes = 0;
    for (const auto& [key, bytes] : r.bytes_per_token_by_dtype)
      if (key != kKvCacheKey && key != kStateKey) weight_bytes += bytes;
    for (const auto& [key, bytes] : r.bytes_per_token_by_dtype) {
      if (key == kKvCacheKey || key == kStateKey || weight_bytes == 0) continue;
      const double share = 100.0 * static_cast<double>(bytes) / static_cast<double>(weight_bytes);
      r.weight_bytes_share.emplace_back(key, share);
      r.figures.push_back(real_figure("perf.weight_bytes_share." + key,
                                      fmt::format("share of per-token weight bytes stored as {} (batch 1)", key), share,
                                      "%", Evidence::estimate,
                                      fmt::format("{} B / {} B of weights read per token (cache and state left out)",
                                                  with_commas(bytes), with_commas(weight_bytes)),
                                      "perf.bytes_per_token_by_dtype"));
    }
    r.assumptions = r.decode.assumptions;
    if (!in.workload->mix.empty())
      r.assumptions.push_back(
          fmt::format("request mix: decode reads each request's cache at the mix's mean length, {} tokens "
                      "(weighted by share); memory is sized at each member's length",
                      with_commas(p.context)));
    r.prefill = std::move(prefill).value();
    for (const auto& f : r.prefill.figures) r.figures.push_back(f);
    if (in.workload->spec_tokens > 0) add_spec(r, in, p, weights);
    if (o.scale_out_gb_s > 0 && layout.world > layout.gpus_per_node)
      r.assumptions.push_back(fmt::format(
          "scale-out: {} GB/s per GPU each way between nodes (--scale-out-gb-s; one 400 Gb/s NIC per GPU = 50)",
          o.scale_out_gb_s));

    CostInputs c;
    c.gpus = layout.world;
    if (o.price_usd_per_gpu_hour > 0) {
      c.price_usd_per_gpu_hour = o.price_usd_per_gpu_hour;
      c.price_source = "--price";
    } else {
      c.price_usd_per_gpu_hour = in.gpu->price_usd_per_gpu_hour;
      c.price_source = fmt::format("data/gpus.json {}: {}", in.gpu->id, in.gpu->price_note);
    }
    c.cluster_tokens_per_s_bound = r.decode.tokens_per_s_at_batch;
    c.request_tokens_per_s_bound = r.decode.tokens_per_s_per_request_bound;
    c.concurrency = r.decode.concurrency;
    c.utilisation = o.utilisation;
    c.api_usd_per_m = o.api_usd_per_m;
    r.cost = estimate_cost(c);
    for (const auto& f : r.cost.figures) r.figures.push_back(f);
    if (!r.cost.priced)
      r.assumptions.push_back(fmt::format(
          "cost: no dated public price for {} in the catalogue; pass --price USD per GPU-hour", in.gpu->id));
  }

  ColdStartInputs cs;
  cs.artifact_bytes = in.artifact_bytes;
  cs.artifact_evidence = in.artifact_evidence;
  cs.artifact_source = in.artifact_source;
  cs.staging_copies = o.staging_copies;
  for (double rate : kColdStartRatesGbps) cs.rates_gbps.push_back(rate);
  if (o.download_gbps > 0 &&
      std::find(cs.rates_gbps.begin(), cs.rates_gbps.end(), o.download_gbps) == cs.rates_gbps.end())
    cs.rates_gbps.push_back(o.download_gbps);
  cs.read_gb_s = o.read_gb_s;
  cs.read_source =
      "--read-gb-s (default 2 GB/s per node: a network file system client or one SATA-class SSD; "
      "a local NVMe Gen4 drive reads up to ~7 GB/s)";
  cs.node_bytes = in.node_bytes;
  r.cold_start = estimate_cold_start(cs);
  for (const auto& f : r.cold_start.figures) r.figures.push_back(f);
  r.assumptions.push_back(
      "cold start: transfer time only; engine start-up work (CUDA graph capture, compilation, "
      "warm-up) is not included");
  return r;
}

}  // namespace preflight
