// Solver benchmarks: fit and sweep over every catalogue family x 1..256 GPUs x
// every candidate layout, for Kimi K3 and DeepSeek-V3 (issue 4's target: the
// full sweep grid under 200 ms on one core). The model is loaded once; each
// iteration is one whole solver call, as `preflight fit` / `preflight sweep`
// would make it. The counters say how much work one iteration did.
#include <benchmark/benchmark.h>

#include "hardware/gpu_catalogue.h"
#include "model/model_catalogue.h"
#include "solve/fit.h"
#include "solve/sweep.h"

namespace preflight {
namespace {

const ModelSpec& model(const char* name) {
  static const ModelSpec k3 = load_catalogue_model("kimi-k3", "bench").value_or_throw();
  static const ModelSpec v3 = load_catalogue_model("deepseek-v3", "bench").value_or_throw();
  return std::string_view(name) == "kimi-k3" ? k3 : v3;
}

void sweep_full_grid(benchmark::State& state, const char* name) {
  const auto& m = model(name);
  const auto counts = parse_counts("1..256", "bench").value_or_throw();
  Sweep last;
  for (auto _ : state) {
    // A fresh context each iteration, as `preflight sweep` builds one: the
    // layout cache starts cold, so the figure is a whole command's work.
    const PlanContext context(m);
    const auto evaluate = verdict_plan_evaluator(context);
    last = run_sweep(m, evaluate, GpuCatalogue::embedded().all(), PlanRequest{}, counts);
    benchmark::DoNotOptimize(last.green_cells);
  }
  std::size_t cells = 0;
  for (const auto& row : last.rows) cells += row.cells.size();
  state.counters["cells"] = static_cast<double>(cells);
  state.counters["plans"] = static_cast<double>(last.evaluations);
  state.counters["green"] = static_cast<double>(last.green_cells);
}

void fit_all_families(benchmark::State& state, const char* name) {
  const auto& m = model(name);
  std::uint64_t plans = 0, fitting = 0;
  for (auto _ : state) {
    const PlanContext context(m);
    const auto evaluate = verdict_plan_evaluator(context);
    auto fits = solve_fit(m, evaluate, GpuCatalogue::embedded().all(), PlanRequest{}, FitOptions{256}).value_or_throw();
    plans = fitting = 0;
    for (const auto& f : fits) {
      plans += f.evaluations;
      fitting += f.fits ? 1 : 0;
    }
    benchmark::DoNotOptimize(fitting);
  }
  state.counters["plans"] = static_cast<double>(plans);
  state.counters["families_fit"] = static_cast<double>(fitting);
}

void BM_SweepK3FullGrid(benchmark::State& state) { sweep_full_grid(state, "kimi-k3"); }
void BM_SweepDeepSeekV3FullGrid(benchmark::State& state) { sweep_full_grid(state, "deepseek-v3"); }
void BM_FitK3AllFamilies(benchmark::State& state) { fit_all_families(state, "kimi-k3"); }
void BM_FitDeepSeekV3(benchmark::State& state) { fit_all_families(state, "deepseek-v3"); }

BENCHMARK(BM_SweepK3FullGrid)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SweepDeepSeekV3FullGrid)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FitK3AllFamilies)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FitDeepSeekV3)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace preflight
