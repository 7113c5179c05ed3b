// fit: the minimum GPU count per family that plans green, the layout that
// achieves it, and the resource that binds.
//
// Counts are searched upwards in whole-node steps (gpu_counts.h) and the search
// stops at the first green count; every candidate layout is tried at each count
// and the one with the most headroom kept. Counts whose aggregate device memory
// is below the model's tensor payload are red by construction (some rank must
// hold more weight bytes than it has) and are not evaluated.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "hardware/accelerator.h"
#include "model/model_spec.h"
#include "plan/plan.h"
#include "solve/estimate_check.h"
#include "solve/plan_probe.h"

namespace preflight {

struct FitOptions {
  std::uint64_t max_gpus = 256;  // largest count searched
  // Latency targets: a count green on memory and the bounds is accepted only
  // when this check (the simulated percentile) meets them too; empty: the bounds alone.
  EstimateCheck estimate_check = {};
  unsigned estimate_percentile = 0;  // the percentile estimate_check compares (for the report)
};

struct FamilyFit {
  Accelerator gpu;
  std::uint64_t gpus_per_node = 1;
  bool fits = false;
  std::uint64_t min_gpus = 0;  // fits: the smallest green count
  ProbeResult best;            // fits: the best layout at min_gpus; else the plan at `limit_gpus`
                               // when it was planned (not ruled out by the weight floor)
  bool limit_planned = false;  // !fits: `best` holds the plan at limit_gpus
  // The binding resource: what ran out at the largest count searched below
  // min_gpus (`binding_at` > 0), or, when min_gpus is the first count searched,
  // the green plan's tightest resource (`binding_at` = 0). Without a fit: what
  // binds at `limit_gpus`.
  Resource binding = Resource::none;
  std::uint64_t binding_at = 0;
  std::uint64_t limit_gpus = 0;       // !fits: the largest count that could be planned (0: none)
  std::string note;                   // !fits and nothing could be planned: the planner's error
  std::uint64_t evaluations = 0;      // evaluator calls
  std::uint64_t pruned = 0;           // counts ruled out by the aggregate-memory bound
  std::optional<SweepCellPerf> perf;  // fits: the bound and cost at min_gpus, once add_fit_perf ran
};

// One family. `request.gpu_count` is ignored; the rest (workload, engine,
// --gpus-per-node) applies at every count. Errors only for bad options (a
// zero or too large --max-gpus).
Result<FamilyFit> fit_family(const ModelSpec& model, const PlanEvaluator& evaluate, const Accelerator& gpu,
                             const PlanRequest& request, const FitOptions& options);

// Every family in order (the payload bound computed once).
Result<std::vector<FamilyFit>> solve_fit(const ModelSpec& model, const PlanEvaluator& evaluate,
                                         const std::vector<Accelerator>& gpus, const PlanRequest& request,
                                         const FitOptions& options);

}  // namespace preflight
