#include "solve/sweep.h"

#include <map>
#include <utility>
#include <vector>

#include "core/parallel_for.h"

namespace preflight {

Sweep run_sweep(const ModelSpec& model, const PlanEvaluator& evaluate, const std::vector<Accelerator>& gpus,
                const PlanRequest& request, const CountSpec& counts, unsigned threads, const SweepEstimate& estimate) {
  Sweep sweep;
  if (estimate.check) sweep.estimate_percentile = estimate.percentile;
  sweep.rows.resize(gpus.size());
  // Candidate layouts depend on the model, the count and the node size only:
  // families sharing a node size share the enumeration, made once up front.
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::vector<LayoutOptions>> layouts;
  std::vector<std::vector<std::uint64_t>> row_counts(gpus.size());
  PlanRequest r = request;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    sweep.rows[i].gpu = gpus[i];
    sweep.rows[i].gpus_per_node = node_size(gpus[i], request.layout);
    row_counts[i] = counts_for(counts, sweep.rows[i].gpus_per_node);
    for (const auto count : row_counts[i]) {
      r.gpu_count = count;
      auto [it, inserted] = layouts.try_emplace({count, sweep.rows[i].gpus_per_node});
      if (inserted) it->second = layouts_to_try(model, gpus[i], r);
    }
  }
  std::vector<std::uint64_t> evaluations(gpus.size(), 0);
  parallel_for(gpus.size(), threads, [&](std::size_t i) {
    auto& row = sweep.rows[i];
    PlanRequest cell_request = request;
    for (const auto count : row_counts[i]) {
      cell_request.gpu_count = count;
      const auto& candidates = layouts.at({count, row.gpus_per_node});
      SweepCell cell;
      cell.gpus = count;
      auto search = best_layout(evaluate, row.gpu, cell_request, candidates);
      if (search) {
        evaluations[i] += search->evaluated;
        cell.planned = true;
        cell.best = search->best;
        if (apply_estimate_check(estimate.check, row.gpu, cell_request, cell.best)) ++evaluations[i];
      } else {
        evaluations[i] += candidates.size();
        cell.note = search.error().to_string();
      }
      row.cells.push_back(std::move(cell));
    }
  });
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    sweep.evaluations += evaluations[i];
    for (const auto& cell : sweep.rows[i].cells)
      if (cell.planned && cell.best.verdict.fits) ++sweep.green_cells;
  }
  return sweep;
}

}  // namespace preflight
