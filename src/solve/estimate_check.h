// Sizing against the latency estimate rather than the bound: a count whose
// memory fits and whose bounds meet the targets is accepted by `fit` only when
// the simulated percentile (perf/serving_simulation.h, p90 by default:
// --latency-percentile) meets them too. A bound can only rule a count out; the
// estimate, a planning estimate with its band, decides where the search stops.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "hardware/accelerator.h"
#include "placement/layout.h"
#include "plan/plan.h"

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

// The estimate's percentile of a plan against its targets (nullopt: met, or no estimate).
std::optional<EstimateMiss> estimate_miss(const LatencyCheck& check, unsigned percentile);

}  // namespace preflight
