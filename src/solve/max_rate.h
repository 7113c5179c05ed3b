// max --solve rate: the highest arrival rate (requests per second over the
// whole cluster) at which a cluster still meets the latency targets.
//
// At a rate R a plan is green when three things hold, as in `plan --rate R`:
//   - memory, with the running requests Little's law gives at the targets,
//     ceil(R x (TTFT + output x TPOT)) (perf/latency.h);
//   - the roofline bounds, with prefill and decode sharing the GPUs at R;
//   - the simulated percentile of a Poisson stream at R (the estimate,
//     solve/estimate_check.h, p90 by default).
// For a fixed seed the simulated arrivals are one pattern compressed in time
// as R grows, so every test above only gets harder with R: the search gallops
// by doubling from 1 request/s (halving below it when 1 fails) to bracket the
// boundary, then bisects the ratio until the bracket is within `precision`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/result.h"
#include "hardware/accelerator.h"
#include "model/model_spec.h"
#include "perf/latency.h"
#include "plan/plan.h"
#include "solve/estimate_check.h"
#include "solve/plan_probe.h"

namespace preflight {

// The bounds a plan checked at the answer (perf/latency.h's LatencyCheck).
struct LatencyBoundsAt {
  bool known = false;
  double ttft_s = 0, tpot_s = 0;
};

struct MaxRateOptions {
  EstimateCheck estimate_check = {};  // null: the bounds and memory alone decide
  unsigned estimate_percentile = 0;   // for the report
  double floor_per_s = 1.0 / 1024;    // the lowest rate searched
  double ceiling_per_s = 0;           // the highest rate searched; 0: 2^20 requests/s
  double precision = 0.01;            // the answer is within this ratio of the boundary
};

struct MaxRateResult {
  bool found = false;       // the floor meets the targets
  double rate_per_s = 0;    // found: the highest rate searched that meets them (the cluster's)
  bool at_ceiling = false;  // found and the ceiling meets them: nothing above was searched
  double ceiling_per_s = 0;
  double floor_per_s = 0;
  ProbeResult at_value;               // found: the best plan at rate_per_s; else the plan at the floor
  std::uint64_t concurrency = 0;      // running requests at rate_per_s by Little's law (found) or at the floor
  std::optional<ProbeResult> beyond;  // found, below the ceiling: the plan just above (red)
  double beyond_rate_per_s = 0;
  std::string beyond_note;        // the rate just above cannot be planned: why
  std::uint64_t evaluations = 0;  // evaluator calls and estimate checks
  unsigned estimate_percentile = 0;
  std::optional<LatencyEstimate> estimate;  // at the answer, once add_rate_estimate ran
  LatencyBoundsAt bound;                    // at the answer, once add_rate_estimate ran
};

// The request at rate R: rate_per_s = R, the running requests by Little's law
// at the targets and the output tokens in force (--output-tokens, else the
// default from the typical length), concurrency_from_rate set. Errors: no
// --tpot (Little's law needs a request's duration), too many requests.
Result<PlanRequest> request_at_rate(const ModelSpec& model, const PlanRequest& request, double rate_per_s);

// `request` gives the GPU count, the workload's lengths, the targets and the
// engine. Errors: no --tpot, a burst (--rate inf), a mix of lengths (the
// simulation runs one length), a request that cannot be planned at the floor.
Result<MaxRateResult> solve_max_rate(const ModelSpec& model, const PlanEvaluator& evaluate, const Accelerator& gpu,
                                     const PlanRequest& request, const MaxRateOptions& options);

// The full plan at the answer's rate and layout: its simulated percentiles and
// its bounds, for the report. Nothing when no rate was found.
void add_rate_estimate(MaxRateResult& result, const PlanContext& context, const Accelerator& gpu,
                       const PlanRequest& request);

}  // namespace preflight
