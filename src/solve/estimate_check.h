// Sizing against the latency estimate rather than the bound: a count whose
// memory fits and whose bounds meet the targets is accepted by `fit` only when
// the simulated percentile (perf/serving_simulation.h, p90 by default:
// --latency-percentile) meets them too. A bound can only rule a count out; the
// estimate, a planning estimate with its band, decides where the search stops.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "hardware/accelerator.h"
#include "placement/layout.h"
#include "plan/plan.h"
#include "solve/plan_probe.h"

namespace preflight {

// What the estimate misses: the target (ttft or tpot) and the sentence.
struct EstimateMiss {
  Resource resource = Resource::ttft;
  std::string why;
};

// Nullopt when the estimate meets every target at this count and layout (or
// no target is given).
using EstimateCheck = std::function<std::optional<EstimateMiss>(const Accelerator&, const PlanRequest&, const Layout&)>;

// percentile: 50, 90 or 99. Keeps a reference: `context` must outlive it.
EstimateCheck latency_estimate_check(const PlanContext& context, unsigned percentile);

// An evaluator whose green answers also pass `check` (a red plan's suggestions
// are planned this way, so none is offered that the estimate rules out).
PlanEvaluator with_estimate_check(PlanEvaluator inner, EstimateCheck check);

// The estimate's percentile of a plan against its targets (nullopt: met, or no estimate).
std::optional<EstimateMiss> estimate_miss(const LatencyCheck& check, unsigned percentile);

// --latency-percentile: 50, 90 or 99 (empty: 90). The error names `flag`.
Result<unsigned> parse_latency_percentile(std::string_view text, std::string_view flag);

// What every solver does with a green probe (fit, max, sweep): ask the check;
// on a miss the probe turns red with the target as its first boundary and the
// estimate as its evidence. True when the check ran (a green probe and a check).
bool apply_estimate_check(const EstimateCheck& check, const Accelerator& gpu, const PlanRequest& request,
                          ProbeResult& probe);

}  // namespace preflight
