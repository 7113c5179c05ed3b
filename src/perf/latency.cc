#include "perf/latency.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "perf/perf_inputs.h"

namespace preflight {

namespace {

constexpr std::uint64_t kDefaultOutputTokens = 1024;
constexpr const char* kBoundsSource =
    "perf/roofline.h (decode step) and perf/prefill.h (one prompt), at this plan's layout";

std::string seconds_or_none(double target) { return target > 0 ? format_seconds(target) : "none"; }

}  // namespace

std::uint64_t default_output_tokens(std::uint64_t length) {
  return std::max<std::uint64_t>(1, std::min(kDefaultOutputTokens, length / 2));
}

std::uint64_t default_input_tokens(std::uint64_t length, std::uint64_t output_tokens) {
  return length > output_tokens ? length - output_tokens : 1;
}

Result<std::uint64_t> concurrency_from_rate(const LatencyTargets& t, std::uint64_t output_tokens) {
  if (t.rate_per_s <= 0) return Error{"--rate", "", "no rate given"};
  if (t.tpot_s <= 0)
    return Error{"--rate", "",
                 "running requests follow from the rate and how long each request runs: give --tpot (and --ttft)"};
  const double running = t.rate_per_s * (t.ttft_s + static_cast<double>(output_tokens) * t.tpot_s);
  if (!std::isfinite(running) || running > 16'777'216.0)
    return Error{"--rate", "", fmt::format("{:.4g} running requests is too many to plan", running)};
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(running - 1e-9)));
}

LatencyCheck check_latency(const LatencyTargets& targets, std::uint64_t concurrency, bool from_rate,
                           const LatencyBounds& b) {
  LatencyCheck c;
  c.targets = targets;
  c.concurrency = concurrency;
  c.concurrency_from_rate = from_rate;
  c.bounds = b;
  const double rate = targets.rate_per_s;
  const auto out_tokens = static_cast<double>(targets.output_tokens);
  const bool prefills = targets.phase != LatencyPhase::decode;
  const bool decodes = targets.phase != LatencyPhase::prefill;
  if (rate > 0) {
    if (prefills)
      c.prefill_share = rate * b.prefill_slowest_stage_s / static_cast<double>(std::max<std::uint64_t>(b.dp_groups, 1));
    if (decodes) c.decode_share = b.decode_tokens_per_s > 0 ? rate * out_tokens / b.decode_tokens_per_s : INFINITY;
    c.saturated = !(c.prefill_share + c.decode_share < 1.0);
  }
  c.ttft_s = (rate > 0 && !c.saturated ? b.prefill_s / (1.0 - c.decode_share) : b.prefill_s) + targets.kv_transfer_s;
  c.tpot_s = rate > 0 && !c.saturated ? b.decode_step_s / (1.0 - c.prefill_share) : b.decode_step_s;

  const double ttft_over = targets.ttft_s > 0 && prefills ? c.ttft_s / targets.ttft_s : 0;
  const double tpot_over = targets.tpot_s > 0 && decodes ? c.tpot_s / targets.tpot_s : 0;
  if (c.saturated) {
    c.binding = prefills ? "ttft" : "tpot";  // a decode pool that cannot keep up lets its requests' tokens wait
    c.why = fmt::format(
        "{:.4g} requests/s need {:.0f}% of the cluster's time for prefill and {:.0f}% for decode at their "
        "bounds: the queue grows without end",
        rate, 100 * c.prefill_share, 100 * c.decode_share);
  } else if (tpot_over > 1 && tpot_over >= ttft_over) {
    c.binding = "tpot";
    c.why =
        fmt::format("time per output token is at least {} (decode step at {} running requests{}), above the {} target",
                    format_seconds(c.tpot_s), concurrency, rate > 0 ? ", with prefill's share" : "",
                    format_seconds(targets.tpot_s));
  } else if (ttft_over > 1) {
    c.binding = "ttft";
    c.why = fmt::format("time to first token is at least {} (a {}-token prompt{}), above the {} target",
                        format_seconds(c.ttft_s), targets.input_tokens, rate > 0 ? ", with decode's share" : "",
                        format_seconds(targets.ttft_s));
  }

  auto& f = c.figures;
  if (prefills)
    f.push_back(real_figure(
        "latency.prefill_bound_s", fmt::format("prefill of one {}-token prompt, alone", targets.input_tokens),
        b.prefill_s, "s", Evidence::estimate,
        "largest of compute, memory and communication per rank, summed over stages (a lower bound)", kBoundsSource));
  if (decodes)
    f.push_back(real_figure(
        "latency.decode_step_bound_s", fmt::format("decode step at {} running requests", concurrency), b.decode_step_s,
        "s", Evidence::estimate,
        "largest of memory, compute and communication per rank, summed over stages (a lower bound)", kBoundsSource));
  if (rate > 0 && prefills)
    f.push_back(real_figure("latency.prefill_share", "share of the cluster's time prefill needs at the rate",
                            100 * c.prefill_share, "%", Evidence::estimate,
                            fmt::format("{:.4g} requests/s x {} (slowest stage) / {} DP groups", rate,
                                        format_seconds(b.prefill_slowest_stage_s), b.dp_groups),
                            "--rate and the prefill bound"));
  if (rate > 0 && decodes)
    f.push_back(
        real_figure("latency.decode_share", "share of the cluster's time decode needs at the rate",
                    100 * c.decode_share, "%", Evidence::estimate,
                    fmt::format("{:.4g} requests/s x {} output tokens / {:.4g} tokens/s (cluster bound at the batch)",
                                rate, targets.output_tokens, b.decode_tokens_per_s),
                    "--rate, --output-tokens and the decode bound"));
  const auto transfer = targets.kv_transfer_s > 0
                            ? fmt::format(" + {} KV transfer to the decode pool", format_seconds(targets.kv_transfer_s))
                            : std::string();
  if (prefills)
    f.push_back(
        real_figure("latency.ttft_s", "time to first token", c.ttft_s, "s", Evidence::estimate,
                    (rate > 0 && !c.saturated && c.decode_share > 0
                         ? fmt::format("{} / (1 - decode share {:.3f}) (chunked prefill interleaved with decode)",
                                       format_seconds(b.prefill_s), c.decode_share)
                         : fmt::format("the prefill bound, {}", format_seconds(b.prefill_s))) +
                        transfer,
                    fmt::format("target {}", seconds_or_none(targets.ttft_s))));
  if (decodes)
    f.push_back(real_figure("latency.tpot_s", "time per output token", c.tpot_s, "s", Evidence::estimate,
                            rate > 0 && !c.saturated && c.prefill_share > 0
                                ? fmt::format("{} / (1 - prefill share {:.3f}) (prefill chunks ride in decode steps)",
                                              format_seconds(b.decode_step_s), c.prefill_share)
                                : fmt::format("the decode step bound, {}", format_seconds(b.decode_step_s)),
                            fmt::format("target {}", seconds_or_none(targets.tpot_s))));
  if (from_rate)
    f.push_back(
        exact_figure("latency.concurrency_from_rate", "running requests at the rate (Little's law)", concurrency,
                     "requests", Evidence::estimate,
                     fmt::format("ceil({:.4g} requests/s x ({} + {} tokens x {}))", rate,
                                 format_seconds(targets.ttft_s), targets.output_tokens, format_seconds(targets.tpot_s)),
                     "--rate, --ttft, --tpot, --output-tokens"));
  c.assumptions.push_back(
      "latency: roofline bounds (no launch or collective latency, kernels at peak), so a missed target is certain and "
      "a "
      "met one a deployment hypothesis");
  if (targets.phase != LatencyPhase::both)
    c.assumptions.push_back(fmt::format("latency: a disaggregated {} pool: only its phase is checked here",
                                        prefills ? "prefill" : "decode"));
  else if (rate > 0)
    c.assumptions.push_back(
        "latency under load: chunked prefill shares every step with decode (vLLM V1 and SGLang defaults); each phase "
        "gets the time the other leaves, spread evenly; queueing delay beyond that is not modelled");
  return c;
}

std::optional<EstimateShortfall> estimate_shortfall(const LatencyCheck& check, unsigned percentile) {
  if (!check.estimate) return std::nullopt;
  const auto& e = *check.estimate;
  const auto& t = check.targets;
  const double ttft = percentile == 50 ? e.ttft_p50_s : percentile == 99 ? e.ttft_p99_s : e.ttft_p90_s;
  const double tpot = percentile == 50 ? e.tpot_p50_s : percentile == 99 ? e.tpot_p99_s : e.tpot_p90_s;
  const bool ttft_over = t.ttft_s > 0 && t.phase != LatencyPhase::decode && ttft > t.ttft_s;
  const bool tpot_over = t.tpot_s > 0 && t.phase != LatencyPhase::prefill && tpot > t.tpot_s;
  if (!ttft_over && !tpot_over) return std::nullopt;
  // The larger overshoot names the miss, as the bound's check does.
  if (ttft_over && (!tpot_over || ttft / t.ttft_s >= tpot / t.tpot_s))
    return EstimateShortfall{
        "ttft", fmt::format("estimated p{} time to first token {} above the {} target (+-{:.0f}%)", percentile,
                            format_seconds(ttft), format_seconds(t.ttft_s), e.band * 100)};
  return EstimateShortfall{
      "tpot", fmt::format("estimated p{} time per output token {} above the {} target (+-{:.0f}%)", percentile,
                          format_seconds(tpot), format_seconds(t.tpot_s), e.band * 100)};
}

}  // namespace preflight
