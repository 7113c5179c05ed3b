#include "solve/estimate_check.h"

#include <fmt/format.h>

#include "core/text.h"
#include "perf/perf_inputs.h"

namespace preflight {

std::optional<EstimateMiss> estimate_miss(const LatencyCheck& check, unsigned percentile) {
  auto shortfall = estimate_shortfall(check, percentile);
  if (!shortfall) return std::nullopt;
  return EstimateMiss{shortfall->target == "ttft" ? Resource::ttft : Resource::tpot, std::move(shortfall->why)};
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
    probe.verdict.summary =
        fmt::format("does not meet the latency targets by the estimate: first boundary crossed: {}; {}",
                    resource_key(miss->resource), miss->why);
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

PlanEvaluator with_estimate_check(PlanEvaluator inner, EstimateCheck check) {
  return [inner = std::move(inner), check = std::move(check)](const Accelerator& gpu,
                                                              const PlanRequest& request) -> Result<ProbeResult> {
    auto probe = inner(gpu, request);
    if (probe) apply_estimate_check(check, gpu, request, probe.value());
    return probe;
  };
}

}  // namespace preflight
