#include "artifact/reconciliation.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "core/bytes.h"

namespace preflight {

namespace {

constexpr std::size_t kMaxExamples = 20;

struct GeneratedTensor {
  Dtype dtype;
  std::vector<std::uint64_t> shape;  // as stored (a fused expert entry carries its expert dimension)
  std::uint64_t bytes;
  bool seen = false;
};

// Every generated tensor by its concrete name ("{E}" expanded).
std::unordered_map<std::string, GeneratedTensor> expand(const TensorManifest& m) {
  std::unordered_map<std::string, GeneratedTensor> out;
  out.reserve(m.tensor_count());
  for (auto& t : concrete_tensors(m)) out.emplace(std::move(t.name), GeneratedTensor{t.dtype, std::move(t.shape), t.bytes});
  return out;
}

std::string describe(Dtype d, const std::vector<std::uint64_t>& shape, std::uint64_t bytes) {
  return fmt::format("{} {} {} B", dtype_name(d), shape_text(shape), with_commas(bytes));
}

void note(Reconciliation& r, TensorDifference d) {
  if (r.examples.size() < kMaxExamples) r.examples.push_back(std::move(d));
}

void finish_missing(Reconciliation& r, const std::unordered_map<std::string, GeneratedTensor>& generated) {
  std::vector<std::string> missing;
  for (const auto& [name, g] : generated)
    if (!g.seen) {
      ++r.missing_count;
      r.missing_bytes += g.bytes;
      missing.push_back(name);
    }
  std::sort(missing.begin(), missing.end());  // deterministic examples
  for (const auto& name : missing) {
    const auto& g = generated.at(name);
    note(r, {name, describe(g.dtype, g.shape, g.bytes), "", -static_cast<std::int64_t>(g.bytes)});
  }
}

}  // namespace

bool Reconciliation::adds_up() const {
  if (!from_headers) return true;
  const auto expected = static_cast<std::int64_t>(generated_bytes) - static_cast<std::int64_t>(missing_bytes) +
                        static_cast<std::int64_t>(extra_bytes) + mismatch_delta;
  return expected == static_cast<std::int64_t>(real_bytes);
}

Reconciliation reconcile_with_headers(const TensorManifest& generated_manifest, const std::vector<NamedHeader>& shards) {
  Reconciliation r;
  r.from_headers = true;
  r.generated_tensors = generated_manifest.tensor_count();
  r.generated_bytes = generated_manifest.payload_bytes();
  r.shard_count = shards.size();
  auto generated = expand(generated_manifest);
  std::vector<std::string> extra_names;
  for (const auto& shard : shards) {
    r.header_bytes = checked_add(r.header_bytes, 8 + shard.header.header_length, "header bytes");
    for (const auto& t : shard.header.tensors) {
      ++r.real_tensors;
      const auto bytes = t.bytes();
      r.real_bytes = checked_add(r.real_bytes, bytes, "real payload");
      auto it = generated.find(t.name);
      if (it == generated.end()) {
        ++r.extra_count;
        r.extra_bytes += bytes;
        note(r, {t.name, "", describe(t.dtype, t.shape, bytes), static_cast<std::int64_t>(bytes)});
        continue;
      }
      it->second.seen = true;
      if (it->second.dtype != t.dtype || it->second.shape != t.shape || it->second.bytes != bytes) {
        ++r.mismatched_count;
        const auto delta = static_cast<std::int64_t>(bytes) - static_cast<std::int64_t>(it->second.bytes);
        r.mismatch_delta += delta;
        note(r, {t.name, describe(it->second.dtype, it->second.shape, it->second.bytes),
                 describe(t.dtype, t.shape, bytes), delta});
      }
    }
  }
  finish_missing(r, generated);
  return r;
}

Reconciliation reconcile_with_index(const TensorManifest& generated_manifest, const SafetensorsIndex& index) {
  Reconciliation r;
  r.generated_tensors = generated_manifest.tensor_count();
  r.generated_bytes = generated_manifest.payload_bytes();
  r.shard_count = index.shard_files.size();
  r.index_total_size = index.total_size;
  auto generated = expand(generated_manifest);
  for (const auto& [name, file] : index.weight_map) {
    ++r.real_tensors;
    auto it = generated.find(name);
    if (it == generated.end()) {
      ++r.extra_count;
      note(r, {name, "", fmt::format("in {}", file), 0});
      continue;
    }
    it->second.seen = true;
  }
  finish_missing(r, generated);
  return r;
}

}  // namespace preflight
