// The stored tensors a logical tensor becomes under its group: values, scales,
// zero points, global scales, as each format writes them.
#include "model/quantization/stored_tensors.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "core/bytes.h"
#include "model/quantization/tensor_names.h"

namespace preflight {

namespace {

using Shape = std::vector<std::uint64_t>;

// Stored tensors

// One stored tensor of logical tensor t: its placement (module, role, layer) is t's.
StoredTensor stored_tensor(const LogicalTensor& t, std::string name, Shape shape, Dtype dtype, StorageFormat format,
                           std::uint64_t params_each, std::uint32_t instances, std::uint32_t first_instance) {
  StoredTensor s;
  s.bytes_each = checked_mul(element_count(shape), dtype_bits(dtype) / 8, name);
  s.name = std::move(name);
  s.shape = std::move(shape);
  s.dtype = dtype;
  s.format = format;
  s.logical_params_each = params_each;
  s.instances = instances;
  s.module = t.module;
  s.role = t.role;
  s.layer = t.layer;
  s.text = t.text;
  s.first_instance = first_instance;
  return s;
}

class Emitter {
 public:
  Emitter(const LogicalTensor& t, std::uint32_t instances, std::uint32_t first)
      : t_(t), instances_(instances), first_(first) {}

  void add(std::string name, Shape shape, Dtype dtype, StorageFormat format, std::uint64_t params_each) {
    out_.push_back(
        stored_tensor(t_, std::move(name), std::move(shape), dtype, format, params_each, instances_, first_));
  }
  std::vector<StoredTensor> take() { return std::move(out_); }

 private:
  const LogicalTensor& t_;
  std::uint32_t instances_;
  std::uint32_t first_;
  std::vector<StoredTensor> out_;
};

// compressed-tensors scale dtype: the config's scale_dtype, else the weight's
// own dtype, with anything but F16/BF16/F32 falling back to F16
// (quantization/lifecycle/initialize.py).
Dtype ct_scale_dtype(const QuantGroup& g, const LogicalTensor& t) {
  if (g.scale_dtype_override) return *g.scale_dtype_override;
  if (t.dtype == Dtype::F16 || t.dtype == Dtype::BF16 || t.dtype == Dtype::F32) return t.dtype;
  return Dtype::F16;
}

Shape ct_scale_shape(const QuantGroup& g, std::uint64_t out, std::uint64_t in) {
  switch (g.strategy) {
    case ScaleStrategy::tensor:
      return {1};
    case ScaleStrategy::channel:
      return {out, 1};
    case ScaleStrategy::block:
      return {ceil_div(out, g.block_rows), ceil_div(in, g.block_cols)};
    case ScaleStrategy::group:
    case ScaleStrategy::tensor_group:
      return {out, std::max<std::uint64_t>(ceil_div(in, g.group_size), 1)};
  }
  return {1};
}

// Static activation scales and group indices, shared by the compressed-tensors
// int/float layouts.
void add_ct_extras(Emitter& e, const QuantGroup& g, const std::string& base, std::uint64_t in, Dtype scale_dtype) {
  if (g.group_index) e.add(base + ".weight_g_idx", {in}, Dtype::I32, StorageFormat::quant_metadata, 0);
  if (g.input == QuantGroup::Input::static_scale) {
    const Shape s = g.input_per_token ? Shape{1, 1} : Shape{1};
    e.add(base + ".input_scale", s, scale_dtype, StorageFormat::activation_scale, 0);
    if (!g.input_symmetric) e.add(base + ".input_zero_point", s, Dtype::I8, StorageFormat::activation_scale, 0);
  }
}

// compressed-tensors pack-quantized: INT2/4/8 values packed in I32 words, scales
// per strategy, packed zero points when asymmetric.
void emit_ct_pack(Emitter& e, const LogicalTensor& t, const QuantGroup& g, const std::string& base, std::uint64_t out,
                  std::uint64_t in, std::uint64_t params) {
  const auto pack = 32 / g.num_bits;
  const auto sd = ct_scale_dtype(g, t);
  e.add(base + ".weight_packed", {out, ceil_div(in, pack)}, Dtype::I32, StorageFormat::int_packed, params);
  e.add(base + ".weight_shape", {2}, Dtype::I64, StorageFormat::quant_metadata, 0);
  const auto scale_shape = ct_scale_shape(g, out, in);
  e.add(base + ".weight_scale", scale_shape, sd, StorageFormat::weight_scale, 0);
  if (!g.symmetric) {
    // Group / channel zero points are packed along the output dimension;
    // others are written as they are (I8).
    if (g.strategy == ScaleStrategy::group || g.strategy == ScaleStrategy::channel)
      e.add(base + ".weight_zero_point", {ceil_div(out, pack), scale_shape[1]}, Dtype::I32, StorageFormat::zero_point,
            0);
    else
      e.add(base + ".weight_zero_point", scale_shape, Dtype::I8, StorageFormat::zero_point, 0);
  }
  add_ct_extras(e, g, base, in, sd);
}

// compressed-tensors int-quantized / float-quantized: one I8 or FP8 value per
// weight, scales per strategy.
void emit_ct_int_or_float(Emitter& e, const LogicalTensor& t, const QuantGroup& g, const std::string& base,
                          std::uint64_t out, std::uint64_t in, std::uint64_t params) {
  const bool is_float = g.kind == QuantFormat::ct_float;
  const auto sd = ct_scale_dtype(g, t);
  e.add(base + ".weight", {out, in}, is_float ? Dtype::F8_E4M3 : Dtype::I8,
        is_float ? StorageFormat::fp8 : StorageFormat::int8, params);
  const auto scale_shape = ct_scale_shape(g, out, in);
  e.add(base + ".weight_scale", scale_shape, sd, StorageFormat::weight_scale, 0);
  if (!g.symmetric)
    e.add(base + ".weight_zero_point", scale_shape, is_float ? Dtype::F8_E4M3 : Dtype::I8, StorageFormat::zero_point,
          0);
  add_ct_extras(e, g, base, in, sd);
}

// bitsandbytes 4-bit: packed values, absmax per 64-value block (itself quantized
// under double quantization), the quant map and the packed quant_state.
void emit_bnb_4bit(Emitter& e, const LogicalTensor& t, const QuantGroup& g, const std::string& name, std::uint64_t out,
                   std::uint64_t in, std::uint64_t params) {
  const auto blocks = ceil_div(params, 64);
  e.add(name, {ceil_div(params, 2), 1}, Dtype::U8, StorageFormat::int_packed, params);
  e.add(name + ".absmax", {blocks}, g.double_quant ? Dtype::U8 : Dtype::F32, StorageFormat::weight_scale, 0);
  if (g.double_quant) {
    e.add(name + ".nested_absmax", {ceil_div(blocks, 256)}, Dtype::F32, StorageFormat::weight_scale, 0);
    e.add(name + ".nested_quant_map", {256}, Dtype::F32, StorageFormat::quant_metadata, 0);
  }
  e.add(name + ".quant_map", {16}, Dtype::F32, StorageFormat::quant_metadata, 0);
  // QuantState.as_dict(packed=True): json.dumps of the non-tensor fields, as U8.
  // nested_offset is a float whose repr length varies; 20 characters is typical.
  std::string state = fmt::format(R"({{"quant_type": "{}", "blocksize": 64, "dtype": "{}", "shape": [{}, {}])",
                                  g.bnb_type, dtype_torch_name(t.dtype), out, in);
  if (g.double_quant)
    state += R"(, "nested_blocksize": 256, "nested_dtype": "float32", "nested_offset": 0.0123456789012345678)";
  state += "}";
  e.add(name + ".quant_state.bitsandbytes__" + g.bnb_type, {state.size()}, Dtype::U8, StorageFormat::quant_metadata, 0);
}

}  // namespace

// A weight stored as it is (most tensors of every model), without an Emitter's
// vector. `name` and `shape` are given apart so a caller done with the logical
// tensor can move them.
StoredTensor plain_tensor(const LogicalTensor& t, std::string name, std::vector<std::uint64_t> shape,
                          std::uint32_t instances, std::uint32_t first_instance) {
  const auto elements = element_count(shape);
  return stored_tensor(t, std::move(name), std::move(shape), t.dtype, StorageFormat::plain, elements, instances,
                       first_instance);
}

Result<std::vector<StoredTensor>> quantized_tensors(const LogicalTensor& t, const QuantGroup& g,
                                                    const std::string& name, std::uint32_t instances,
                                                    std::uint32_t first, const std::string& origin) {
  auto fail = [&](std::string why) -> Error {
    return Error{origin, g.pointer,
                 fmt::format("cannot quantize {} of shape {} as {}: {}", name, shape_text(t.shape), g.format, why)};
  };
  if (t.shape.size() != 2) return fail("a 2-D weight is required");
  const auto out = t.shape[0];
  const auto in = t.shape[1];
  const auto params = checked_mul(out, in, name);
  const auto base = module_name_of(name);
  Emitter e(t, instances, first);

  switch (g.kind) {
    case QuantFormat::ct_mxfp4:
      e.add(base + ".weight_packed", {out, ceil_div(in, 2)}, Dtype::U8, StorageFormat::mxfp4_packed, params);
      e.add(base + ".weight_scale", {out, ceil_div(in, g.group_size)}, g.scale_dtype_override.value_or(Dtype::U8),
            StorageFormat::mxfp4_scale, 0);
      if (g.input == QuantGroup::Input::static_scale)
        e.add(base + ".input_scale", {1}, ct_scale_dtype(g, t), StorageFormat::activation_scale, 0);
      break;
    case QuantFormat::ct_nvfp4:
      e.add(base + ".weight_packed", {out, ceil_div(in, 2)}, Dtype::U8, StorageFormat::nvfp4_packed, params);
      e.add(base + ".weight_scale", {out, ceil_div(in, g.group_size)}, Dtype::F8_E4M3, StorageFormat::weight_scale, 0);
      e.add(base + ".weight_global_scale", {1}, Dtype::F32, StorageFormat::weight_scale, 0);
      if (g.input == QuantGroup::Input::fp4_global)
        e.add(base + ".input_global_scale", {1}, Dtype::F32, StorageFormat::activation_scale, 0);
      break;
    case QuantFormat::ct_pack: {
      emit_ct_pack(e, t, g, base, out, in, params);
      break;
    }
    case QuantFormat::ct_int:
    case QuantFormat::ct_float: {
      emit_ct_int_or_float(e, t, g, base, out, in, params);
      break;
    }
    case QuantFormat::fp8:
      e.add(name, {out, in}, Dtype::F8_E4M3, StorageFormat::fp8, params);
      if (g.strategy == ScaleStrategy::block) {
        e.add(name + "_scale_inv", {ceil_div(out, g.block_rows), ceil_div(in, g.block_cols)}, Dtype::F32,
              StorageFormat::weight_scale, 0);
      } else {
        e.add(base + ".weight_scale", {}, Dtype::F32, StorageFormat::weight_scale, 0);
        if (g.input == QuantGroup::Input::static_scale)
          e.add(base + ".input_scale", {}, Dtype::F32, StorageFormat::activation_scale, 0);
      }
      break;
    case QuantFormat::gpt_oss_mxfp4:
      if (in % 32 != 0) return fail(fmt::format("the input dimension {} is not a multiple of the 32-value block", in));
      e.add(base + "_blocks", {out, in / 32, 16}, Dtype::U8, StorageFormat::mxfp4_packed, params);
      e.add(base + "_scales", {out, in / 32}, Dtype::U8, StorageFormat::mxfp4_scale, 0);
      break;
    case QuantFormat::awq_gemm: {
      const auto group = g.group_size == 0 ? in : g.group_size;
      if (in % group != 0) return fail(fmt::format("group_size {} does not divide the input dimension {}", group, in));
      if (out * g.num_bits % 32 != 0)
        return fail(
            fmt::format("the output dimension {} does not fill whole I32 words of {}-bit values", out, g.num_bits));
      const auto packed_out = out * g.num_bits / 32;
      e.add(base + ".qweight", {in, packed_out}, Dtype::I32, StorageFormat::int_packed, params);
      e.add(base + ".qzeros", {in / group, packed_out}, Dtype::I32, StorageFormat::zero_point, 0);
      e.add(base + ".scales", {in / group, out}, Dtype::F16, StorageFormat::weight_scale, 0);
      break;
    }
    case QuantFormat::mlx_affine: {
      if (in * g.num_bits % 32 != 0)
        return fail(
            fmt::format("the input dimension {} does not fill whole U32 words of {}-bit values", in, g.num_bits));
      e.add(base + ".weight", {out, in * g.num_bits / 32}, Dtype::U32, StorageFormat::int_packed, params);
      e.add(base + ".scales", {out, ceil_div(in, g.group_size)}, t.dtype, StorageFormat::weight_scale, 0);
      e.add(base + ".biases", {out, ceil_div(in, g.group_size)}, t.dtype, StorageFormat::zero_point, 0);
      break;
    }
    case QuantFormat::bnb_4bit: {
      emit_bnb_4bit(e, t, g, name, out, in, params);
      break;
    }
    case QuantFormat::modelopt_nvfp4:
      e.add(name, {out, ceil_div(in, 2)}, Dtype::U8, StorageFormat::nvfp4_packed, params);
      e.add(base + ".weight_scale", {out, ceil_div(in, g.group_size)}, Dtype::F8_E4M3, StorageFormat::weight_scale, 0);
      e.add(base + ".weight_scale_2", {}, Dtype::F32, StorageFormat::weight_scale, 0);
      if (g.input != QuantGroup::Input::none)
        e.add(base + ".input_scale", {}, Dtype::F32, StorageFormat::activation_scale, 0);
      break;
    case QuantFormat::modelopt_fp8:
      e.add(name, {out, in}, Dtype::F8_E4M3, StorageFormat::fp8, params);
      e.add(base + ".weight_scale", {}, Dtype::F32, StorageFormat::weight_scale, 0);
      e.add(base + ".input_scale", {}, Dtype::F32, StorageFormat::activation_scale, 0);
      break;
    case QuantFormat::bnb_8bit:
      e.add(name, {out, in}, Dtype::I8, StorageFormat::int8, params);
      e.add(base + ".SCB", {out}, Dtype::F32, StorageFormat::weight_scale, 0);
      e.add(base + ".weight_format", {}, Dtype::U8, StorageFormat::quant_metadata, 0);
      break;
    case QuantFormat::gptq: {
      const auto group = g.group_size == 0 ? in : g.group_size;
      if (in * g.num_bits % 32 != 0)
        return fail(
            fmt::format("the input dimension {} does not fill whole I32 words of {}-bit values", in, g.num_bits));
      if (out * g.num_bits % 32 != 0)
        return fail(fmt::format("the output dimension {} does not fill whole I32 words of {}-bit zero points", out,
                                g.num_bits));
      const auto groups = ceil_div(in, group);
      e.add(base + ".qweight", {in * g.num_bits / 32, out}, Dtype::I32, StorageFormat::int_packed, params);
      e.add(base + ".qzeros", {groups, out * g.num_bits / 32}, Dtype::I32, StorageFormat::zero_point, 0);
      e.add(base + ".scales", {groups, out}, Dtype::F16, StorageFormat::weight_scale, 0);
      e.add(base + ".g_idx", {in}, Dtype::I32, StorageFormat::quant_metadata, 0);
      break;
    }
  }
  return e.take();
}

// compressed-tensors kv_cache_scheme: k_scale / v_scale on the attention module
// that owns this k_proj (quantization/lifecycle/initialize.py: shape [1], the
// module's parameter dtype).
void add_kv_scales(TensorManifest& manifest, const LogicalTensor& t) {
  constexpr std::string_view kKProj = ".k_proj.weight";
  if (!t.name.ends_with(kKProj) || t.instances != 1) return;
  const auto attn = t.name.substr(0, t.name.size() - kKProj.size());
  Emitter e(t, 1, 0);
  for (const char* s : {".k_scale", ".v_scale"}) e.add(attn + s, {1}, t.dtype, StorageFormat::activation_scale, 0);
  for (auto& s : e.take()) {
    s.role = ParallelRole::replicated;
    manifest.tensors.push_back(std::move(s));
  }
}

}  // namespace preflight
