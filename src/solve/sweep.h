// sweep: a family x GPU-count grid of verdicts, the "cheat sheet" done with
// real plans: every cell is the best of the candidate layouts at that count
// (green before red, then the most headroom), with its headroom and binding
// resource.
//
// Green is not monotone in the count for a fixed layout shape (uneven expert
// deals, TP choices that change with the count), so every cell is evaluated;
// the model is shared and the candidate layouts of a (count, node size) pair
// are enumerated once for all families.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "hardware/accelerator.h"
#include "model/model_spec.h"
#include "perf/roofline.h"
#include "plan/plan.h"
#include "solve/estimate_check.h"
#include "solve/gpu_counts.h"
#include "solve/plan_probe.h"

namespace preflight {

// Throughput of a green cell's best layout (solve/sweep_perf.h): upper bounds.

struct SweepCell {
  std::uint64_t gpus = 0;
  bool planned = false;  // false: no layout of this count could be planned (`note` says why)
  ProbeResult best;      // planned: the best layout's result
  std::string note;
  std::optional<SweepCellPerf> perf;  // green cells, once add_sweep_perf ran
};

struct SweepRow {
  Accelerator gpu;
  std::uint64_t gpus_per_node = 1;
  std::vector<SweepCell> cells;  // ascending count
};

struct Sweep {
  std::vector<SweepRow> rows;     // in the order the families were given
  std::uint64_t evaluations = 0;  // evaluator calls
  std::uint64_t green_cells = 0;
  unsigned estimate_percentile = 0;  // green cells met the targets at this estimate percentile (0: not checked)
};

// With latency targets the sweep checks each cell green on memory and the
// bounds against the simulated percentile too (solve/estimate_check.h), as fit
// and max do. `check` must be safe to call from several threads (build_plan on
// a shared PlanContext is).
struct SweepEstimate {
  EstimateCheck check = {};
  unsigned percentile = 0;
};

// `request.gpu_count` is ignored; the workload, engine and --gpus-per-node
// apply to every cell. With `threads` > 1 the families are planned in
// parallel (core/parallel_for.h): `evaluate` must then be safe to call from
// several threads at once, as verdict_plan_evaluator's is. The grid is the
// same whatever the thread count.
Sweep run_sweep(const ModelSpec& model, const PlanEvaluator& evaluate, const std::vector<Accelerator>& gpus,
                const PlanRequest& request, const CountSpec& counts, unsigned threads = 1,
                const SweepEstimate& estimate = {});

}  // namespace preflight
