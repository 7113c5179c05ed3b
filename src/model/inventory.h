// Inventory: parameters and bytes of a manifest, folded by module class and by
// storage format, and the active parameters per token.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/model_spec.h"

namespace preflight {

struct InventoryRow {
  ModuleClass module;
  std::uint64_t tensors = 0;
  std::uint64_t logical_params = 0;
  std::uint64_t bytes = 0;
  std::map<std::string, std::uint64_t> bytes_by_dtype;  // "BF16", "F32", "U8 (MXFP4 codes)", "U8 (E8M0 scales)"
};

struct Inventory {
  std::vector<InventoryRow> by_module;  // kAllModuleClasses order, empty classes skipped
  std::map<std::string, std::uint64_t> bytes_by_dtype;
  std::map<std::string, std::uint64_t> elements_by_dtype;  // stored elements (U8 counts bytes)
  std::uint64_t tensors = 0;
  std::uint64_t logical_params = 0;
  std::uint64_t payload_bytes = 0;

  // Two-precision view (seed 001): bytes of quantized weights (codes + scales)
  // and the logical parameters they carry, against everything else.
  std::uint64_t quantized_params = 0;
  std::uint64_t quantized_bytes = 0;
  std::uint64_t unquantized_params = 0;
  std::uint64_t unquantized_bytes = 0;

  // Active parameters per token: every text tensor except the input embedding
  // (a lookup, not a matmul), the routed experts and the MTP layers, plus
  // experts_per_token of the routed experts in each MoE layer. Vision and
  // projector are excluded.
  std::uint64_t active_params = 0;
  std::uint64_t active_trunk_params = 0;   // the always-on part
  std::uint64_t active_routed_params = 0;  // the selected experts' part
  std::uint64_t routed_params = 0;         // all routed experts
  std::uint64_t routed_params_per_expert = 0;
  std::uint64_t moe_layers = 0;
};

Inventory build_inventory(const ModelSpec& model);

// "U8 (MXFP4 codes)": the label used in bytes_by_dtype for a stored tensor.
std::string dtype_bucket(const StoredTensor& t);

}  // namespace preflight
