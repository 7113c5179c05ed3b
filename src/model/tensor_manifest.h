// The tensor manifest: every tensor of a checkpoint, as stored.
//
// A family generator describes a model as logical weights (name, logical shape,
// unquantized dtype, whether it is a quantization target); the quantization
// scheme turns each into the tensors actually stored (for MXFP4: a U8
// `weight_packed` with two FP4 codes per byte and a U8 `weight_scale` with one
// E8M0 exponent per group). Identical tensors that differ only in an expert
// index are one entry with `instances` > 1 and "{E}" in the name, so K3's
// 497,220 tensors fit in about 4,000 entries while staying exact.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/dtype.h"
#include "model/module_class.h"

namespace preflight {

inline constexpr int kNoLayer = -1;

struct LogicalTensor {
  std::string name;                  // ".../experts.{E}.w1.weight" for an expert group
  std::vector<std::uint64_t> shape;  // logical shape (unpacked)
  Dtype dtype = Dtype::BF16;         // storage dtype when not quantized
  bool linear_weight = false;        // an nn.Linear weight: a quantization "Linear" target
  ModuleClass module = ModuleClass::norms;
  ParallelRole role = ParallelRole::replicated;
  int layer = kNoLayer;         // decoder layer (0-indexed) or kNoLayer
  std::uint32_t instances = 1;  // > 1 for expert groups (name holds "{E}")
  bool text = true;             // part of the language model (false: vision, projector)
};

// How a stored tensor encodes its logical weight.
enum class StorageFormat {
  plain,
  mxfp4_packed,      // U8, two E2M1 codes per byte (MXFP4 values)
  mxfp4_scale,       // U8, one E8M0 exponent per 32 values
  nvfp4_packed,      // U8, two E2M1 codes per byte (NVFP4 values, 16-value groups)
  fp8,               // F8_E4M3 values
  int8,              // I8 values (int-quantized)
  int_packed,        // 2/3/4/8-bit integers packed in I32 (pack-quantized, AWQ, GPTQ)
  weight_scale,      // scales of quantized weights (block, group, channel, tensor, global)
  zero_point,        // zero points of asymmetric integer weights
  quant_metadata,    // g_idx, weight_shape
  activation_scale,  // static input scales, KV-cache k_scale / v_scale
};

struct StoredTensor {
  std::string name;
  std::vector<std::uint64_t> shape;
  Dtype dtype = Dtype::BF16;
  StorageFormat format = StorageFormat::plain;
  std::uint64_t bytes_each = 0;           // payload of one instance
  std::uint64_t logical_params_each = 0;  // parameters one instance carries (scales: 0)
  std::uint32_t instances = 1;
  ModuleClass module = ModuleClass::norms;
  ParallelRole role = ParallelRole::replicated;
  int layer = kNoLayer;
  bool text = true;
  std::uint32_t first_instance = 0;  // expert index of the first instance (groups start at 0)

  std::uint64_t bytes() const;           // bytes_each x instances (checked)
  std::uint64_t logical_params() const;  // logical_params_each x instances (checked)
};

std::string_view storage_format_key(StorageFormat f);  // "bf16", "mxfp4", "mxfp4-scale"

// An "{E}" entry: `instances` separate stored tensors, one per expert.
bool is_expert_template(const StoredTensor& t);
// The stored name of instance i (0-based) of an "{E}" entry (the expert index
// first_instance + i in place of "{E}"); the entry's name otherwise.
std::string concrete_name(const StoredTensor& t, std::uint32_t i);

// Fused expert tensors (gpt-oss): an entry standing for `instances` slices of ONE
// stored tensor (its name has no "{E}"), as opposed to `instances` separate tensors.
bool is_fused_slice(const StoredTensor& t);
// The shape as stored: [instances] + shape for a fused entry, else shape.
std::vector<std::uint64_t> stored_shape(const StoredTensor& t);

// One tensor as a shard stores it: "{E}" expanded to the expert index, a fused
// expert entry whole.
struct ConcreteTensor {
  std::string name;
  Dtype dtype{};
  std::vector<std::uint64_t> shape;
  std::uint64_t bytes = 0;
};

struct TensorManifest;
// Every stored tensor of the manifest, in manifest order.
std::vector<ConcreteTensor> concrete_tensors(const TensorManifest& m);
// The same tensors one at a time, without holding them all (Kimi K3 has
// 497,220: a list of them all costs ~100 MB; inspect --tensors streams).
void for_each_concrete_tensor(const TensorManifest& m, const std::function<void(const ConcreteTensor&)>& visit);

struct TensorManifest {
  std::vector<StoredTensor> tensors;

  std::uint64_t tensor_count() const;    // stored tensors as the checkpoint counts them (a fused entry once)
  std::uint64_t payload_bytes() const;   // bytes summed
  std::uint64_t logical_params() const;  // logical parameters summed
};

std::uint64_t element_count(const std::vector<std::uint64_t>& shape);
std::string shape_text(const std::vector<std::uint64_t>& shape);  // "[3072, 1792]"

}  // namespace preflight
