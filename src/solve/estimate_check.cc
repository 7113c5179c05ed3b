#include "solve/estimate_check.h"

#include <fmt/format.h>

#include "core/text.h"
#include "perf/perf_inputs.h"

namespace preflight {

std::optional<EstimateMiss> estimate_miss(const LatencyCheck& check, unsigned percentile) {
  if (!check.estimate) return std::nullopt;
  const auto& e = *check.estimate;
  const auto& t = check.targets;
  const double ttft = percentile == 50 ? e.ttft_p50_s : percentile == 99 ? e.ttft_p99_s : e.ttft_p90_s;
  const double tpot = percentile == 50 ? e.tpot_p50_s : percentile == 99 ? e.tpot_p99_s : e.tpot_p90_s;
  const bool ttft_over = t.ttft_s > 0 && ttft > t.ttft_s;
  const bool tpot_over = t.tpot_s > 0 && tpot > t.tpot_s;
  if (!ttft_over && !tpot_over) return std::nullopt;
  // The larger overshoot names the miss, as the bound's check does.
  if (ttft_over && (!tpot_over || ttft / t.ttft_s >= tpot / t.tpot_s))
    return EstimateMiss{Resource::ttft, fmt::format("estimated p{} time to first token {} above the {} target (+-{:.0f}%)",
                                                    percentile, format_seconds(ttft), format_seconds(t.ttft_s), e.band * 100)};
  return EstimateMiss{Resource::tpot, fmt::format("estimated p{} time per output token {} above the {} target (+-{:.0f}%)",
                                                  percentile, format_seconds(tpot), format_seconds(t.tpot_s), e.band * 100)};
}

Result<unsigned> parse_latency_percentile(std::string_view text, std::string_view flag) {
  if (text.empty()) return 90u;
  if (text == "50") return 50u;
  if (text == "90") return 90u;
  if (text == "99") return 99u;
  return Error{std::string(flag), "", fmt::format("expected 50, 90 or 99, got {}", echo(text))};
}

bool apply_estimate_check(const EstimateCheck& check, const Accelerator& gpu, const PlanRequest& request,
                          ProbeResult& probe) {
  if (!check || !probe.verdict.fits) return false;
  if (auto miss = check(gpu, request, probe.layout)) {
    probe.verdict.fits = false;
    probe.verdict.first_boundary = miss->resource;
    probe.verdict.evidence = Evidence::estimate;
    probe.verdict.summary = fmt::format(
        "does not meet the latency targets by the estimate: first boundary crossed: {}; {}", resource_key(miss->resource),
        miss->why);
    probe.binding = miss->resource;
  }
  return true;
}

EstimateCheck latency_estimate_check(const PlanContext& context, unsigned percentile) {
  return [&context, percentile](const Accelerator& gpu, const PlanRequest& request,
                                const Layout& layout) -> std::optional<EstimateMiss> {
    if (request.latency.ttft_s <= 0 && request.latency.tpot_s <= 0) return std::nullopt;
    PlanRequest r = request;
    r.layout.tp = layout.tp;
    r.layout.ep = layout.ep;
    r.layout.pp = layout.pp;
    r.layout.dp = layout.dp;
    r.layout.dcp = layout.dcp;
    r.perf.enabled = false;
    auto plan = build_plan(context, gpu, r, PlanDetail::full);
    if (!plan || !plan->latency) return std::nullopt;  // the bound's verdict stands
    return estimate_miss(*plan->latency, percentile);
  };
}

}  // namespace preflight
