// PlanProbe: the one question the solvers (fit, max, sweep) ask, "does this
// request plan green on this GPU, with what headroom, and what binds?", behind
// a swappable function.
//
// The solvers ask it thousands of times (a sweep of every catalogue family x
// 1..256 GPUs x every candidate layout), so they never call build_plan
// directly: they take a PlanEvaluator. full_plan_evaluator() answers with the
// full build_plan (every figure, every rank's ledger); a verdict-only path can
// replace it without touching the solvers, and tests pass synthetic ones to
// check the search logic on known shapes.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/result.h"
#include "hardware/accelerator.h"
#include "model/model_spec.h"
#include "perf/roofline.h"
#include "placement/layout.h"
#include "placement/ledger.h"
#include "plan/plan.h"

namespace preflight {

// A green layout's decode bound at the workload's concurrency and its cost there
// (solve/sweep_perf.h): a sweep cell's or a fitting family's.
struct SweepCellPerf {
  double tokens_per_s_per_request_bound = 0;  // batch 1
  double tokens_per_s_per_gpu_bound = 0;      // at the workload's concurrency
  BindingTerm binding = BindingTerm::memory;  // at the workload's concurrency
  double usd_per_m_at_bound = 0;              // 0: no price
};

struct ProbeResult {
  Layout layout;    // as resolved (TP chosen when the request left it open)
  Verdict verdict;  // fits, first_boundary, headroom_bytes (negative: the worst shortfall)
  // What binds: red, the first boundary crossed; green, the tightest resource,
  // i.e. the last row in allocation order on the tightest rank (the one that
  // would cross capacity first were the headroom gone).
  Resource binding = Resource::none;
};

// Errors mean "this request cannot be planned" (an invalid layout, a count the
// model cannot be split over, an overflowing workload); the solvers skip them.
using PlanEvaluator = std::function<Result<ProbeResult>(const Accelerator&, const PlanRequest&)>;

// Answers with build_plan. Keeps a reference: `model` must outlive the evaluator.
// Overflow (InputError from checked arithmetic) comes back as an Error.
PlanEvaluator full_plan_evaluator(const ModelSpec& model);

// The solvers' fast path: build_plan(context, ..., PlanDetail::verdict_only)
// on a context prepared once (inventory and placement index), planning only
// the representative ranks and no figures. Same verdicts as the full plan.
// Keeps a reference: `context` must outlive the evaluator.
PlanEvaluator verdict_plan_evaluator(const PlanContext& context);

// The resource on top of the tightest rank's stack (see ProbeResult::binding).
Resource binding_resource(const Plan& plan);

// True when the options fix any part of the layout (--tp, --ep, --pp, --dp,
// --dcp): the solvers then plan that layout only instead of searching.
bool layout_given(const LayoutOptions& options);

// The node size the solvers honour: the request's --gpus-per-node, else the
// catalogue's scale-up domain (at least 1).
std::uint64_t node_size(const Accelerator& gpu, const LayoutOptions& options);

// The layouts a solver tries for `request.gpu_count` GPUs: the request's own
// when layout_given, else practical_layouts(model, count, node size), each
// carrying the request's --gpus-per-node.
std::vector<LayoutOptions> layouts_to_try(const ModelSpec& model, const Accelerator& gpu, const PlanRequest& request);

// The layouts `fit` tries at a count when the request carries layout flags:
// the flags are constraints (fit --tp 8 tries every practical layout with TP 8
// at each count: PP and DP vary), else the practical layouts; when no practical
// layout honours them, the flags as written.
std::vector<LayoutOptions> layouts_within(const ModelSpec& model, const Accelerator& gpu, const PlanRequest& request);

// The best of `layouts` for the request: green before red; among green, the
// fewest pipeline stages, then the most headroom; among red, the most headroom;
// ties keep the earlier layout. Layouts the evaluator rejects are
// skipped; when every one is rejected the last error comes back.
struct LayoutSearch {
  ProbeResult best;
  std::uint64_t evaluated = 0;  // evaluator calls, rejected layouts included
};
Result<LayoutSearch> best_layout(const PlanEvaluator& evaluate, const Accelerator& gpu, const PlanRequest& request,
                                 const std::vector<LayoutOptions>& layouts);

// True when `a` is the better plan of the two (see best_layout).
bool better_probe(const ProbeResult& a, const ProbeResult& b);

// How `preflight plan` resolves a request: with layout flags, as given; without,
// the practical layout best_layout picks among layouts_to_try, the one `fit`
// picks at that count (so plan, fit, max, sweep, launch and the suggestions
// agree). Keeps a reference to `model`.
PlanEvaluator practical_evaluator(PlanEvaluator evaluate, const ModelSpec& model);

// The flags that reproduce a resolved layout.
LayoutOptions layout_options_of(const Layout& layout);

}  // namespace preflight
