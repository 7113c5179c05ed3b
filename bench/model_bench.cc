// Model and plan benchmarks: how long the pure computation takes for the
// largest catalogue model (Kimi K3: 497,220 tensors in ~4k manifest entries).
#include <benchmark/benchmark.h>

#include "embedded_files.h"
#include "hardware/gpu_catalogue.h"
#include "model/family_registry.h"
#include "model/inventory.h"
#include "model/model_catalogue.h"
#include "plan/plan.h"

namespace preflight {
namespace {

void BM_GenerateKimiK3Manifest(benchmark::State& state) {
  const auto config = embedded::embedded_file("data/models/kimi-k3/config.json");
  for (auto _ : state) {
    auto m = build_model_from_config(config, "bench");
    benchmark::DoNotOptimize(m.value_or_throw().manifest.tensors.size());
  }
}
BENCHMARK(BM_GenerateKimiK3Manifest)->Unit(benchmark::kMillisecond);

void BM_KimiK3Inventory(benchmark::State& state) {
  const auto m = load_catalogue_model("kimi-k3", "bench").value_or_throw();
  for (auto _ : state) benchmark::DoNotOptimize(build_inventory(m).active_params);
}
BENCHMARK(BM_KimiK3Inventory)->Unit(benchmark::kMillisecond);

void BM_KimiK3Plan32xH100(benchmark::State& state) {
  const auto m = load_catalogue_model("kimi-k3", "bench").value_or_throw();
  const auto& gpu = *GpuCatalogue::embedded().find("h100", "bench").value_or_throw();
  PlanRequest req;
  req.gpu_count = 32;
  req.workload.requested = true;
  req.workload.context_tokens = 1 << 20;
  for (auto _ : state) benchmark::DoNotOptimize(build_plan(m, gpu, req).value_or_throw().verdict.fits);
}
BENCHMARK(BM_KimiK3Plan32xH100)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace preflight
