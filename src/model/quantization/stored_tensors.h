// The stored tensors a logical tensor becomes under its quantization group.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "model/quantization.h"
#include "model/tensor_manifest.h"

namespace preflight {

// A weight stored as it is (most tensors of every model). `name` and `shape` are
// given apart so a caller done with the logical tensor can move them.
StoredTensor plain_tensor(const LogicalTensor& t, std::string name, std::vector<std::uint64_t> shape,
                          std::uint32_t instances, std::uint32_t first_instance);

// The tensors group `g` stores for logical tensor `t` (values, scales, zero
// points, global scales); errors name the tensor and the rule.
Result<std::vector<StoredTensor>> quantized_tensors(const LogicalTensor& t, const QuantGroup& g,
                                                    const std::string& name, std::uint32_t instances,
                                                    std::uint32_t first, const std::string& origin);

// compressed-tensors kv_cache_scheme: k_scale / v_scale on the attention module
// that owns this k_proj.
void add_kv_scales(TensorManifest& manifest, const LogicalTensor& t);

}  // namespace preflight
