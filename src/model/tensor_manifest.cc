#include "model/tensor_manifest.h"

#include "core/bytes.h"

namespace preflight {

std::uint64_t StoredTensor::bytes() const { return checked_mul(bytes_each, instances, name); }
std::uint64_t StoredTensor::logical_params() const { return checked_mul(logical_params_each, instances, name); }

std::string_view storage_format_key(StorageFormat f) {
  switch (f) {
    case StorageFormat::plain:
      return "plain";
    case StorageFormat::mxfp4_packed:
      return "mxfp4";
    case StorageFormat::mxfp4_scale:
      return "mxfp4-scale";
    case StorageFormat::nvfp4_packed:
      return "nvfp4";
    case StorageFormat::fp8:
      return "fp8";
    case StorageFormat::int8:
      return "int8";
    case StorageFormat::int_packed:
      return "int-packed";
    case StorageFormat::weight_scale:
      return "weight-scale";
    case StorageFormat::zero_point:
      return "zero-point";
    case StorageFormat::quant_metadata:
      return "quant-metadata";
    case StorageFormat::activation_scale:
      return "activation-scale";
  }
  return "?";
}

bool is_expert_template(const StoredTensor& t) { return t.name.find("{E}") != std::string::npos; }

std::string concrete_name(const StoredTensor& t, std::uint32_t i) {
  const auto pos = t.name.find("{E}");
  if (pos == std::string::npos) return t.name;
  std::string name = t.name;
  name.replace(pos, 3, std::to_string(t.first_instance + i));
  return name;
}

bool is_fused_slice(const StoredTensor& t) { return t.instances > 1 && !is_expert_template(t); }

std::vector<std::uint64_t> stored_shape(const StoredTensor& t) {
  if (!is_fused_slice(t)) return t.shape;
  std::vector<std::uint64_t> shape{t.instances};
  shape.insert(shape.end(), t.shape.begin(), t.shape.end());
  return shape;
}

std::uint64_t TensorManifest::tensor_count() const {
  std::uint64_t n = 0;
  for (const auto& t : tensors) n = checked_add(n, is_fused_slice(t) ? 1 : t.instances, "tensor count");
  return n;
}

std::uint64_t TensorManifest::payload_bytes() const {
  std::uint64_t n = 0;
  for (const auto& t : tensors) n = checked_add(n, t.bytes(), "manifest payload");
  return n;
}

std::uint64_t TensorManifest::logical_params() const {
  std::uint64_t n = 0;
  for (const auto& t : tensors) n = checked_add(n, t.logical_params(), "manifest parameters");
  return n;
}

std::uint64_t element_count(const std::vector<std::uint64_t>& shape) {
  std::uint64_t n = 1;
  for (auto d : shape) n = checked_mul(n, d, "tensor elements");
  return n;
}

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

void for_each_concrete_tensor(const TensorManifest& m, const std::function<void(const ConcreteTensor&)>& visit) {
  ConcreteTensor one;
  for (const auto& t : m.tensors) {
    one.dtype = t.dtype;
    if (!is_expert_template(t)) {
      one.name = t.name;
      one.shape = stored_shape(t);
      one.bytes = t.bytes();
      visit(one);
      continue;
    }
    one.shape = t.shape;
    one.bytes = t.bytes_each;
    for (std::uint32_t i = 0; i < t.instances; ++i) {
      one.name = concrete_name(t, i);
      visit(one);
    }
  }
}

std::vector<ConcreteTensor> concrete_tensors(const TensorManifest& m) {
  std::vector<ConcreteTensor> out;
  out.reserve(m.tensor_count());
  for_each_concrete_tensor(m, [&](const ConcreteTensor& t) { out.push_back(t); });
  return out;
}

}  // namespace preflight
