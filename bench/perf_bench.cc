// Throughput-figure benchmarks (issue 5): the roofline of one plan, the full
// plan with throughput, cost and cold start, and a sweep with its throughput
// columns. Each iteration starts from a fresh PlanContext (the per-format
// placement is built on first use), as one `preflight` command would.
#include <benchmark/benchmark.h>

#include "hardware/gpu_catalogue.h"
#include "model/model_catalogue.h"
#include "perf/roofline.h"
#include "perf/serving_simulation.h"
#include "plan/plan.h"
#include "solve/sweep.h"
#include "solve/sweep_perf.h"

namespace preflight {
namespace {

const ModelSpec& k3() {
  static const ModelSpec m = load_catalogue_model("kimi-k3", "bench").value_or_throw();
  return m;
}

const Accelerator& gpu(const char* name) { return *GpuCatalogue::embedded().find(name, "bench").value_or_throw(); }

PlanRequest workload(std::uint64_t gpus) {
  PlanRequest r;
  r.gpu_count = gpus;
  r.workload.requested = true;
  r.workload.context_tokens = 131072;
  r.workload.concurrency = 16;
  return r;
}

// A whole `preflight plan` of K3 on 32 x H100 with every figure (the plan
// also builds the format placement for the roofline).
void BM_PlanWithPerfK3On32H100(benchmark::State& state) {
  for (auto _ : state) {
    const PlanContext context(k3());
    auto plan = build_plan(context, gpu("H100"), workload(32)).value_or_throw();
    benchmark::DoNotOptimize(plan.perf->decode_tokens_per_s_bound);
  }
}

// The decode roofline alone (both batch shapes) with the format placement warm.
void BM_DecodeRooflineK3On32H100(benchmark::State& state) {
  const PlanContext context(k3());
  const auto layout = choose_layout(k3(), 32, LayoutOptions{0, 0, 0, 0, 1, 8}).value_or_throw();
  PerfInputs in{&k3(), &gpu("H100"), &layout, 16, 131072, 1, 4, 0, 50};
  const auto& formats = context.formats();
  for (auto _ : state) benchmark::DoNotOptimize(estimate_decode(in, formats)->tokens_per_s_at_batch);
}

// `preflight sweep` over every family x 1..256 at 128K x 16 requests, without
// and with the throughput columns: the difference is what the columns cost.
void sweep_with_workload(benchmark::State& state, bool with_perf) {
  const auto counts = parse_counts("1..256", "bench").value_or_throw();
  std::size_t with = 0;
  for (auto _ : state) {
    const PlanContext context(k3());
    auto sweep = run_sweep(k3(), verdict_plan_evaluator(context), GpuCatalogue::embedded().all(), workload(1), counts);
    if (with_perf) add_sweep_perf(sweep, context, workload(1));
    with = 0;
    for (const auto& row : sweep.rows)
      for (const auto& c : row.cells) with += c.perf ? 1 : 0;
    benchmark::DoNotOptimize(with);
  }
  state.counters["cells_with_perf"] = static_cast<double>(with);
}
void BM_SweepK3Workload(benchmark::State& state) { sweep_with_workload(state, false); }
void BM_SweepK3WorkloadWithPerf(benchmark::State& state) { sweep_with_workload(state, true); }

// The latency estimate's scheduler simulation, 10,000 requests: Poisson
// arrivals near saturation and a closed loop of 256 clients, 1,000-token
// prompts and outputs, step times of an 8B-class model.
void BM_SimulateServing10kRequests(benchmark::State& state) {
  SimulationInputs in;
  in.model.weights_s_1 = in.model.weights_s_64 = 0.0045;
  in.model.kv_s_per_context_token = 4e-8;
  in.model.decode_compute_s_per_seq = 1.5e-5;
  in.model.prefill_compute_s_per_token = 1.4e-5;
  in.model.layers = 32;
  in.efficiency.per_layer_s = 8e-5;
  in.efficiency.per_step_s = 1.4e-3;
  in.efficiency.per_seq_s = 2.7e-5;
  in.requests = 10000;
  in.input_tokens = 1000;
  in.output_tokens = 1000;
  in.kv_capacity_tokens = 400000;
  if (state.range(0) == 0) {
    in.arrivals = ArrivalKind::poisson;
    in.rate_per_s = 10;
  } else {
    in.arrivals = ArrivalKind::closed_loop;
    in.concurrency = 256;
  }
  for (auto _ : state) benchmark::DoNotOptimize(simulate_serving(in).value_or_throw().steps);
}
BENCHMARK(BM_SimulateServing10kRequests)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

BENCHMARK(BM_PlanWithPerfK3On32H100)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DecodeRooflineK3On32H100)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SweepK3Workload)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SweepK3WorkloadWithPerf)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace preflight
