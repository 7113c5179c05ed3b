#include "solve/sweep_perf.h"

#include "core/parallel_for.h"
#include "engine/checkpoint_kv_dtype.h"
#include "perf/cost.h"
#include "perf/roofline.h"

namespace preflight {

namespace {

// A green layout's decode bound at the workload's concurrency and its cost at the bound.
std::optional<SweepCellPerf> green_perf(const PlanContext& context, const Accelerator& gpu, const Layout& layout,
                                        const PlanRequest& request, const WorkloadOptions& w) {
  const auto& model = *context.model;
  const auto in = workload_perf_inputs(model, gpu, layout, w, request.perf.scale_out_gb_s);
  const auto bound = estimate_decode_bound(in, context.formats(), context.placement.representative_ranks(layout));
  if (!bound) return std::nullopt;  // no bound for these inputs (a stage without layers, say): the cell has no perf
  const auto& d = *bound;
  SweepCellPerf p;
  p.tokens_per_s_per_request_bound = d.tokens_per_s_per_request;
  p.tokens_per_s_per_gpu_bound = d.tokens_per_s_per_gpu_at_batch;
  p.binding = d.binding_at_batch;
  CostInputs c;
  c.gpus = layout.world;
  c.price_usd_per_gpu_hour =
      request.perf.price_usd_per_gpu_hour > 0 ? request.perf.price_usd_per_gpu_hour : gpu.price_usd_per_gpu_hour;
  c.cluster_tokens_per_s_bound = d.tokens_per_s_at_batch;
  p.usd_per_m_at_bound = estimate_cost(c).usd_per_m_at_bound;
  return p;
}

}  // namespace

void add_sweep_perf(Sweep& sweep, const PlanContext& context, const PlanRequest& request, unsigned threads) {
  const auto& model = *context.model;
  const auto w = workload_for_engine(request.workload, model, request.engine);
  // Each family's row is independent; the context's format placement is built once (call_once).
  parallel_for(sweep.rows.size(), threads, [&](std::size_t i) {
    auto& row = sweep.rows[i];
    for (auto& cell : row.cells)
      if (cell.planned && cell.best.verdict.fits)
        cell.perf = green_perf(context, row.gpu, cell.best.layout, request, w);
  });
}

void add_fit_perf(std::vector<FamilyFit>& fits, const PlanContext& context, const PlanRequest& request) {
  const auto& model = *context.model;
  const auto w = workload_for_engine(request.workload, model, request.engine);
  for (auto& f : fits)
    if (f.fits) f.perf = green_perf(context, f.gpu, f.best.layout, request, w);
}

}  // namespace preflight
