#include "model/inventory.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <vector>

#include "core/bytes.h"

namespace preflight {

namespace {

// What dtype_bucket's text depends on: bytes are summed under this key per tensor and
// each key named once (K3's 3,180 tensors fall into a handful).
struct BucketKey {
  StorageFormat format;
  Dtype dtype;
  std::uint64_t bits;  // int_packed: bits per value (the counting rule: logical params = values); else 0
  auto operator<=>(const BucketKey&) const = default;
};

BucketKey bucket_key(const StoredTensor& t) {
  const auto bits =
      t.format == StorageFormat::int_packed && t.logical_params_each > 0 ? t.bytes_each * 8 / t.logical_params_each : 0;
  return {t.format, t.dtype, bits};
}

std::string bucket_name(const BucketKey& k) {
  switch (k.format) {
    case StorageFormat::mxfp4_packed:
      return "U8 (MXFP4 codes)";
    case StorageFormat::mxfp4_scale:
      return "U8 (E8M0 scales)";
    case StorageFormat::nvfp4_packed:
      return "U8 (NVFP4 codes)";
    case StorageFormat::int_packed:
      return fmt::format("{} (packed int{})", dtype_name(k.dtype), k.bits);  // "I32 (packed int4)"
    case StorageFormat::weight_scale:
      return fmt::format("{} (weight scales)", dtype_name(k.dtype));
    case StorageFormat::zero_point:
      return fmt::format("{} (zero points)", dtype_name(k.dtype));
    case StorageFormat::quant_metadata:
      return fmt::format("{} (quantization metadata)", dtype_name(k.dtype));
    case StorageFormat::activation_scale:
      return fmt::format("{} (activation scales)", dtype_name(k.dtype));
    case StorageFormat::fp8:   // F8_E4M3 values: the dtype says it
    case StorageFormat::int8:  // I8 values
    case StorageFormat::plain:
      break;
  }
  return std::string(dtype_name(k.dtype));
}

}  // namespace

std::string dtype_bucket(const StoredTensor& t) { return bucket_name(bucket_key(t)); }

Inventory build_inventory(const ModelSpec& model) {
  Inventory inv;
  // Flat tables, not maps, in the per-tensor loop (five map lookups per tensor
  // would be most of this function's time for K3's 3,180 entries). A module's
  // row and a dtype's elements are indexed by the enum; the bucket keys are a
  // handful, found by a linear scan that starts at the last one used.
  constexpr auto kModules = std::size(kAllModuleClasses);
  std::array<InventoryRow, kModules> rows{};
  std::array<bool, kModules> seen{};
  struct Bucket {
    BucketKey key;
    std::uint64_t bytes = 0;
    std::array<std::uint64_t, kModules> by_module{};
    std::array<bool, kModules> in_module{};  // a module's row names the bucket even at 0 bytes
  };
  std::vector<Bucket> buckets;
  std::size_t last_bucket = 0;
  std::array<std::uint64_t, static_cast<std::size_t>(Dtype::U64) + 1> elements_by_dtype{};
  std::array<bool, static_cast<std::size_t>(Dtype::U64) + 1> dtype_seen{};
  std::vector<int> moe_layers;
  for (const auto& t : model.manifest.tensors) {
    const auto m = static_cast<std::size_t>(t.module);
    auto& row = rows[m];
    seen[m] = true;
    row.module = t.module;
    const auto bytes = t.bytes();
    const auto params = t.logical_params();
    const std::uint64_t stored = is_fused_slice(t) ? 1 : t.instances;
    row.tensors = checked_add(row.tensors, stored);
    row.logical_params = checked_add(row.logical_params, params);
    row.bytes = checked_add(row.bytes, bytes);
    const auto key = bucket_key(t);
    if (last_bucket >= buckets.size() || buckets[last_bucket].key != key) {
      last_bucket = 0;
      while (last_bucket < buckets.size() && buckets[last_bucket].key != key) ++last_bucket;
      if (last_bucket == buckets.size()) buckets.push_back(Bucket{key});
    }
    auto& bucket = buckets[last_bucket];
    bucket.by_module[m] = checked_add(bucket.by_module[m], bytes);
    bucket.in_module[m] = true;
    bucket.bytes = checked_add(bucket.bytes, bytes);
    const auto d = static_cast<std::size_t>(t.dtype);
    dtype_seen[d] = true;
    elements_by_dtype[d] = checked_add(elements_by_dtype[d], checked_mul(element_count(t.shape), t.instances));
    inv.tensors = checked_add(inv.tensors, stored);
    inv.logical_params = checked_add(inv.logical_params, params);
    inv.payload_bytes = checked_add(inv.payload_bytes, bytes);
    if (t.format == StorageFormat::plain) {
      inv.unquantized_params = checked_add(inv.unquantized_params, params);
      inv.unquantized_bytes = checked_add(inv.unquantized_bytes, bytes);
    } else {
      inv.quantized_params = checked_add(inv.quantized_params, params);
      inv.quantized_bytes = checked_add(inv.quantized_bytes, bytes);
    }
    if (t.module == ModuleClass::routed_experts) {
      inv.routed_params = checked_add(inv.routed_params, params);
      if (moe_layers.empty() || moe_layers.back() != t.layer) moe_layers.push_back(t.layer);
    } else if (t.text && t.module != ModuleClass::embedding && t.module != ModuleClass::mtp) {
      // MTP layers serve speculative decoding only; they are not on the main token's path.
      inv.active_trunk_params = checked_add(inv.active_trunk_params, params);
    }
  }
  std::sort(moe_layers.begin(), moe_layers.end());
  moe_layers.erase(std::unique(moe_layers.begin(), moe_layers.end()), moe_layers.end());
  // Keys that name the same bucket ("BF16" for plain and fp8-declared BF16) add up.
  for (const auto& b : buckets) {
    auto& sum = inv.bytes_by_dtype[bucket_name(b.key)];
    sum = checked_add(sum, b.bytes);
  }
  for (std::size_t d = 0; d < elements_by_dtype.size(); ++d)
    if (dtype_seen[d]) {
      auto& sum = inv.elements_by_dtype[std::string(dtype_name(static_cast<Dtype>(d)))];
      sum = checked_add(sum, elements_by_dtype[d]);
    }
  for (auto module : kAllModuleClasses) {
    const auto m = static_cast<std::size_t>(module);
    if (!seen[m]) continue;
    for (const auto& b : buckets)
      if (b.in_module[m]) {
        auto& sum = rows[m].bytes_by_dtype[bucket_name(b.key)];
        sum = checked_add(sum, b.by_module[m]);
      }
    inv.by_module.push_back(std::move(rows[m]));
  }

  inv.moe_layers = moe_layers.size();
  const auto experts = model.moe.routed_experts;
  if (experts > 0 && inv.moe_layers > 0) {
    inv.routed_params_per_expert = inv.routed_params / (experts * inv.moe_layers);
    inv.active_routed_params =
        checked_mul(checked_mul(inv.routed_params_per_expert, model.moe.experts_per_token), inv.moe_layers);
  }
  inv.active_params = checked_add(inv.active_trunk_params, inv.active_routed_params);
  return inv;
}

}  // namespace preflight
