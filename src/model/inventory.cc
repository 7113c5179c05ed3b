#include "model/inventory.h"

#include <fmt/format.h>

#include <set>

#include "core/bytes.h"

namespace preflight {

std::string dtype_bucket(const StoredTensor& t) {
  switch (t.format) {
    case StorageFormat::mxfp4_packed: return "U8 (MXFP4 codes)";
    case StorageFormat::mxfp4_scale: return "U8 (E8M0 scales)";
    case StorageFormat::nvfp4_packed: return "U8 (NVFP4 codes)";
    case StorageFormat::int_packed: {
      // Bits per value from the counting rule (logical params = values): "I32 (packed int4)".
      const auto bits = t.logical_params_each > 0 ? t.bytes_each * 8 / t.logical_params_each : 0;
      return fmt::format("{} (packed int{})", dtype_name(t.dtype), bits);
    }
    case StorageFormat::weight_scale: return fmt::format("{} (weight scales)", dtype_name(t.dtype));
    case StorageFormat::zero_point: return fmt::format("{} (zero points)", dtype_name(t.dtype));
    case StorageFormat::quant_metadata: return fmt::format("{} (quantization metadata)", dtype_name(t.dtype));
    case StorageFormat::activation_scale: return fmt::format("{} (activation scales)", dtype_name(t.dtype));
    case StorageFormat::fp8:   // F8_E4M3 values: the dtype says it
    case StorageFormat::int8:  // I8 values
    case StorageFormat::plain: break;
  }
  return std::string(dtype_name(t.dtype));
}

Inventory build_inventory(const ModelSpec& model) {
  Inventory inv;
  std::map<ModuleClass, InventoryRow> rows;
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
    const auto bucket = dtype_bucket(t);
    row.bytes_by_dtype[bucket] = checked_add(row.bytes_by_dtype[bucket], bytes);
    inv.bytes_by_dtype[bucket] = checked_add(inv.bytes_by_dtype[bucket], bytes);
    const auto elements = checked_mul(element_count(t.shape), t.instances);
    inv.elements_by_dtype[std::string(dtype_name(t.dtype))] =
        checked_add(inv.elements_by_dtype[std::string(dtype_name(t.dtype))], elements);
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
  for (auto m : kAllModuleClasses)
    if (rows.count(m)) inv.by_module.push_back(rows[m]);

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
