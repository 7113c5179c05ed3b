#include "solve/sweep_perf.h"

#include "perf/cost.h"
#include "perf/roofline.h"

namespace preflight {

void add_sweep_perf(Sweep& sweep, const PlanContext& context, const PlanRequest& request) {
  const auto& model = *context.model;
  const auto w = resolved_workload(request.workload, model.max_context, dtype_bits(model.dtype));
  for (auto& row : sweep.rows) {
    for (auto& cell : row.cells) {
      if (!cell.planned || !cell.best.verdict.fits) continue;
      PerfInputs in;
      in.model = &model;
      in.gpu = &row.gpu;
      in.layout = &cell.best.layout;
      in.batch_per_group = decode_batch_per_group(cell.best.layout, w.concurrency);
      in.context = w.mix.empty() ? w.context_tokens : mean_tokens(w.mix);  // as perf_report: the mix's mean length
      in.kv_dtype_bytes = kv_dtype_bytes(w.kv_dtype);
      in.state_dtype_bytes = state_dtype_bytes(w.state_dtype);
      in.scale_out_gb_s = request.perf.scale_out_gb_s;
      if (validate_perf_inputs(in)) continue;
      const auto d = estimate_decode_bound(in, context.formats(), context.placement.representative_ranks(cell.best.layout));
      SweepCellPerf p;
      p.tokens_per_s_per_request_bound = d.tokens_per_s_per_request;
      p.tokens_per_s_per_gpu_bound = d.tokens_per_s_per_gpu_at_batch;
      p.binding = d.binding_at_batch;
      CostInputs c;
      c.gpus = cell.best.layout.world;
      c.price_usd_per_gpu_hour = request.perf.price_usd_per_gpu_hour > 0 ? request.perf.price_usd_per_gpu_hour
                                                                          : row.gpu.price_usd_per_gpu_hour;
      c.cluster_tokens_per_s_bound = d.tokens_per_s_at_batch;
      p.usd_per_m_at_bound = estimate_cost(c).usd_per_m_at_bound;
      cell.perf = p;
    }
  }
}

}  // namespace preflight
