// Suggestions for a red plan: the smallest changes that make it green, each
// verified by planning it with the same evaluator the solvers use.
//
// Tried in order, each on its own (one flag changed): an FP8 KV cache (when the
// cache is 16- or 32-bit), fewer concurrent requests, a shorter context (both
// the largest value that fits, by bisection), and more GPUs of the same family
// (the smallest green count in whole nodes, with the request's layout flags). Each is
// the red request with one flag changed, planned as `preflight plan` would plan it.
#pragma once

#include <vector>

#include "hardware/accelerator.h"
#include "model/model_spec.h"
#include "plan/plan.h"
#include "solve/plan_probe.h"

namespace preflight {

// `request` is the red plan's request (engine inputs prepared); `plan` its result.
// Returns no suggestion for a green plan or when nothing tried plans green.
std::vector<VerdictSuggestion> find_fixes(const PlanEvaluator& evaluate, const Accelerator& gpu,
                                          const PlanRequest& request, const Plan& plan);

}  // namespace preflight
