// Throughput of the artifact readers at the scale of the largest real
// checkpoints: a ~25 MB model.safetensors.index.json (~250k tensors; DeepSeek-V3's
// has ~91k, a 1T-parameter MoE with per-expert scales several times that) and
// the headers of 100 shards of ~1,500 tensors each (a 163-shard DeepSeek-V3
// shard holds 500-600). The inputs are synthetic but laid out as writers lay
// them out (safetensors README format; transformers' index), built once.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "artifact/safetensors_header.h"
#include "artifact/safetensors_index.h"

namespace {

constexpr int kIndexTensors = 250'000;
constexpr int kShards = 100;
constexpr int kTensorsPerShard = 1'500;

// "model.layers.L.mlp.experts.E.PROJ.SUFFIX": the long expert names that make
// big indexes big.
std::string tensor_name(int i) {
  static const char* const kProj[] = {"gate_proj", "up_proj", "down_proj"};
  static const char* const kSuffix[] = {"weight", "weight_scale_inv", "input_scale", "weight_packed", "weight_shape"};
  const int suffix = i % 5;
  const int proj = (i / 5) % 3;
  const int expert = (i / 15) % 384;
  const int layer = i / (15 * 384);
  return "model.layers." + std::to_string(layer) + ".mlp.experts." + std::to_string(expert) + "." + kProj[proj] + "." +
         kSuffix[suffix];
}

const std::string& index_json() {
  static const std::string text = [] {
    std::string out = "{\n  \"metadata\": {\n    \"total_size\": 1369062772000\n  },\n  \"weight_map\": {\n";
    for (int i = 0; i < kIndexTensors; ++i) {
      char shard[64];
      std::snprintf(shard, sizeof shard, "model-%05d-of-000163.safetensors", 1 + i * 163 / kIndexTensors);
      out += "    \"" + tensor_name(i) + "\": \"" + shard + "\"";
      out += i + 1 < kIndexTensors ? ",\n" : "\n";
    }
    out += "  }\n}\n";
    return out;
  }();
  return text;
}

struct Shard {
  std::string prefix;  // 8-byte length + header
  std::uint64_t file_size = 0;
};

std::string le64(std::uint64_t n) {
  std::string out(8, '\0');
  for (std::size_t i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return out;
}

const std::vector<Shard>& shards() {
  static const std::vector<Shard> all = [] {
    std::vector<Shard> out;
    for (int s = 0; s < kShards; ++s) {
      std::string json = "{\"__metadata__\":{\"format\":\"pt\"}";
      std::uint64_t offset = 0;
      for (int t = 0; t < kTensorsPerShard; ++t) {
        // Alternate FP8 weights [2048, 7168] and their F32 block scales [16, 56].
        const bool weight = t % 2 == 0;
        const std::uint64_t bytes = weight ? 2048ULL * 7168 : 16ULL * 56 * 4;
        json += ",\"" + tensor_name(s * kTensorsPerShard + t) + "\":{\"dtype\":\"" + (weight ? "F8_E4M3" : "F32") +
                "\",\"shape\":" + (weight ? "[2048,7168]" : "[16,56]") + ",\"data_offsets\":[" +
                std::to_string(offset) + "," + std::to_string(offset + bytes) + "]}";
        offset += bytes;
      }
      json += "}";
      while ((8 + json.size()) % 8 != 0) json += ' ';
      out.push_back({le64(json.size()) + json, 8 + json.size() + offset});
    }
    return out;
  }();
  return all;
}

void BM_ParseIndex25MB(benchmark::State& state) {
  const std::string& text = index_json();
  std::size_t shard_files = 0;
  for (auto _ : state) {
    auto index = preflight::parse_safetensors_index(text, "model.safetensors.index.json");
    if (!index.ok()) {
      state.SkipWithError(index.error().to_string().c_str());
      return;
    }
    shard_files = index->shard_files.size();
    benchmark::DoNotOptimize(index);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(text.size()));
  state.counters["MB"] = static_cast<double>(text.size()) / 1e6;
  state.counters["tensors"] = kIndexTensors;
  state.counters["shard_files"] = static_cast<double>(shard_files);
}
BENCHMARK(BM_ParseIndex25MB)->Unit(benchmark::kMillisecond);

void BM_ParseShardHeaders100x1500(benchmark::State& state) {
  const auto& all = shards();
  std::uint64_t header_bytes = 0;
  for (const auto& s : all) header_bytes += s.prefix.size();
  for (auto _ : state) {
    for (const auto& s : all) {
      auto header = preflight::parse_safetensors_prefix(s.prefix, s.file_size, "shard");
      if (!header.ok()) {
        state.SkipWithError(header.error().to_string().c_str());
        return;
      }
      benchmark::DoNotOptimize(header);
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(header_bytes));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * kShards);
  state.counters["header_MB"] = static_cast<double>(header_bytes) / 1e6;
  state.counters["tensors"] = kShards * kTensorsPerShard;
}
BENCHMARK(BM_ParseShardHeaders100x1500)->Unit(benchmark::kMillisecond);

}  // namespace
