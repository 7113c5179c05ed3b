// Reconciling Kimi K3 (497,220 stored tensors) with what a hub read brings back:
// the header-size estimate `auto` decides on, and the index + shard-size check
// (`--shard-headers lengths`) over 96 shards whose bytes all agree. The index is
// built from the generated manifest, as the loopback fake hub builds it.
#include <benchmark/benchmark.h>

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "artifact/reconciliation.h"
#include "model/model_catalogue.h"

namespace preflight {
namespace {

constexpr std::size_t kShards = 96;

const ModelSpec& k3() {
  static const ModelSpec m = load_catalogue_model("kimi-k3", "bench").value_or_throw();
  return m;
}

struct IndexAndSizes {
  SafetensorsIndex index;
  std::vector<ShardSize> sizes;
};

const IndexAndSizes& k3_index_and_sizes() {
  static const IndexAndSizes built = [] {
    IndexAndSizes out;
    const auto tensors = concrete_tensors(k3().manifest);
    const auto per = (tensors.size() + kShards - 1) / kShards;
    // The index's names are views: the strings live as long as the index (its storage).
    auto owned = std::make_shared<std::deque<std::string>>();
    out.index.storage = owned;
    for (std::size_t s = 0; s < kShards; ++s) {
      const std::string& file = owned->emplace_back("model-" + std::to_string(s + 1) + "-of-96.safetensors");
      out.index.shard_files.push_back(file);
      std::uint64_t payload = 0;
      for (std::size_t i = s * per; i < std::min(tensors.size(), (s + 1) * per); ++i) {
        out.index.weight_map.emplace(owned->emplace_back(tensors[i].name), file);
        payload += tensors[i].bytes;
      }
      out.sizes.push_back(ShardSize{file, 8 + 800'000 + payload, 800'000});
    }
    return out;
  }();
  return built;
}

void BM_EstimateHeaderBytesK3(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(estimated_header_bytes(k3().manifest));
  state.counters["estimate_MB"] = static_cast<double>(estimated_header_bytes(k3().manifest)) / 1e6;
}
BENCHMARK(BM_EstimateHeaderBytesK3)->Unit(benchmark::kMillisecond);

void BM_ReconcileK3IndexAndShardSizes(benchmark::State& state) {
  const auto& in = k3_index_and_sizes();
  for (auto _ : state) {
    ShardSizeCheck check(k3().manifest, in.index, in.sizes);
    const bool agree = check.shards_needing_headers().empty();
    auto r = check.reconcile({});
    if (!agree || !r.exact()) {
      state.SkipWithError("the synthetic K3 shards should agree");
      return;
    }
    benchmark::DoNotOptimize(r);
  }
  state.counters["tensors"] = static_cast<double>(in.index.weight_map.size());
}
BENCHMARK(BM_ReconcileK3IndexAndShardSizes)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace preflight
