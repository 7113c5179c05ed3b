#include "model/inventory.h"

#include <fmt/format.h>

#include <set>

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
  const auto bits = t.format == StorageFormat::int_packed && t.logical_params_each > 0
                        ? t.bytes_each * 8 / t.logical_params_each
                        : 0;
  return {t.format, t.dtype, bits};
}

std::string bucket_name(const BucketKey& k) {
  switch (k.format) {
    case StorageFormat::mxfp4_packed: return "U8 (MXFP4 codes)";
    case StorageFormat::mxfp4_scale: return "U8 (E8M0 scales)";
    case StorageFormat::nvfp4_packed: return "U8 (NVFP4 codes)";
    case StorageFormat::int_packed: return fmt::format("{} (packed int{})", dtype_name(k.dtype), k.bits);  // "I32 (packed int4)"
    case StorageFormat::weight_scale: return fmt::format("{} (weight scales)", dtype_name(k.dtype));
    case StorageFormat::zero_point: return fmt::format("{} (zero points)", dtype_name(k.dtype));
    case StorageFormat::quant_metadata: return fmt::format("{} (quantization metadata)", dtype_name(k.dtype));
    case StorageFormat::activation_scale: return fmt::format("{} (activation scales)", dtype_name(k.dtype));
    case StorageFormat::fp8:   // F8_E4M3 values: the dtype says it
    case StorageFormat::int8:  // I8 values
    case StorageFormat::plain: break;
  }
  return std::string(dtype_name(k.dtype));
}

}  // namespace

std::string dtype_bucket(const StoredTensor& t) { return bucket_name(bucket_key(t)); }

Inventory build_inventory(const ModelSpec& model) {
  Inventory inv;
  std::map<ModuleClass, InventoryRow> rows;
  std::map<ModuleClass, std::map<BucketKey, std::uint64_t>> row_buckets;
  std::map<BucketKey, std::uint64_t> buckets;
  std::map<Dtype, std::uint64_t> elements_by_dtype;
  std::set<int> moe_layers;
  for (const auto& t : model.manifest.tensors) {
    auto& row = rows[t.module];
    row.module = t.module;
    const auto bytes = t.bytes();
    const auto params = t.logical_params();
    const std::uint64_t stored = is_fused_slice(t) ? 1 : t.instances;
    row.tensors = checked_add(row.tensors, stored);
    row.logical_params = checked_add(row.logical_params, params);
    row.bytes = checked_add(row.bytes, bytes);
    const auto key = bucket_key(t);
    auto& in_row = row_buckets[t.module][key];
    in_row = checked_add(in_row, bytes);
    auto& in_all = buckets[key];
    in_all = checked_add(in_all, bytes);
    auto& elements = elements_by_dtype[t.dtype];
    elements = checked_add(elements, checked_mul(element_count(t.shape), t.instances));
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
      moe_layers.insert(t.layer);
    } else if (t.text && t.module != ModuleClass::embedding && t.module != ModuleClass::mtp) {
      // MTP layers serve speculative decoding only; they are not on the main token's path.
      inv.active_trunk_params = checked_add(inv.active_trunk_params, params);
    }
  }
  // Keys that name the same bucket ("BF16" for plain and fp8-declared BF16) add up.
  const auto add_named = [&](std::map<std::string, std::uint64_t>& out, const std::map<BucketKey, std::uint64_t>& in) {
    for (const auto& [key, bytes] : in) {
      auto& sum = out[bucket_name(key)];
      sum = checked_add(sum, bytes);
    }
  };
  add_named(inv.bytes_by_dtype, buckets);
  for (const auto& [dtype, elements] : elements_by_dtype) {
    auto& sum = inv.elements_by_dtype[std::string(dtype_name(dtype))];
    sum = checked_add(sum, elements);
  }
  for (auto m : kAllModuleClasses)
    if (rows.count(m)) {
      add_named(rows[m].bytes_by_dtype, row_buckets[m]);
      inv.by_module.push_back(rows[m]);
    }

  inv.moe_layers = moe_layers.size();
  const auto experts = model.moe.routed_experts;
  if (experts > 0 && inv.moe_layers > 0) {
    inv.routed_params_per_expert = inv.routed_params / (experts * inv.moe_layers);
    inv.active_routed_params = checked_mul(checked_mul(inv.routed_params_per_expert, model.moe.experts_per_token),
                                           inv.moe_layers);
  }
  inv.active_params = checked_add(inv.active_trunk_params, inv.active_routed_params);
  return inv;
}

}  // namespace preflight
