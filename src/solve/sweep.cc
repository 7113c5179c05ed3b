#include "solve/sweep.h"

#include <map>
#include <utility>

namespace preflight {

Sweep run_sweep(const ModelSpec& model, const PlanEvaluator& evaluate, const std::vector<Accelerator>& gpus,
                const PlanRequest& request, const CountSpec& counts) {
  Sweep sweep;
  // Candidate layouts depend on the model, the count and the node size only:
  // families sharing a node size share the enumeration.
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::vector<LayoutOptions>> layouts;
  PlanRequest r = request;
  for (const auto& gpu : gpus) {
    SweepRow row;
    row.gpu = gpu;
    row.gpus_per_node = node_size(gpu, request.layout);
    for (const auto count : counts_for(counts, row.gpus_per_node)) {
      r.gpu_count = count;
      auto [it, inserted] = layouts.try_emplace({count, row.gpus_per_node});
      if (inserted) it->second = layouts_to_try(model, gpu, r);
      SweepCell cell;
      cell.gpus = count;
      auto search = best_layout(evaluate, gpu, r, it->second);
      if (search) {
        sweep.evaluations += search->evaluated;
        cell.planned = true;
        cell.best = search->best;
        if (cell.best.verdict.fits) ++sweep.green_cells;
      } else {
        sweep.evaluations += it->second.size();
        cell.note = search.error().to_string();
      }
      row.cells.push_back(std::move(cell));
    }
    sweep.rows.push_back(std::move(row));
  }
  return sweep;
}

}  // namespace preflight
