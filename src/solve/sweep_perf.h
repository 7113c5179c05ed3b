// Throughput columns of a sweep: for every green cell, the decode roofline of
// its best layout (perf/roofline.h) and the cost at the bound (perf/cost.h).
// Red cells get none: a plan that does not fit has no throughput.
#pragma once

#include "plan/plan.h"
#include "solve/fit.h"
#include "solve/sweep.h"

namespace preflight {

// Fills SweepCell::perf for green cells. `request` is the sweep's (workload,
// engine, perf options). Cells whose GPU lacks bandwidth figures stay empty.
void add_sweep_perf(Sweep& sweep, const PlanContext& context, const PlanRequest& request, unsigned threads = 1);

// The same for `fit`: each fitting family's bound and cost at its minimum count.
void add_fit_perf(std::vector<FamilyFit>& fits, const PlanContext& context, const PlanRequest& request);

}  // namespace preflight
