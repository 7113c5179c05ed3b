#include "model/quantization.h"

#include <fmt/format.h>

#include <optional>
#include <set>
#include <string_view>

#include "model/quantization/format_readers.h"
#include "model/quantization/stored_tensors.h"
#include "model/quantization/tensor_decision.h"
#include "model/quantization/tensor_names.h"

namespace preflight {

const QuantGroup* QuantizationScheme::model_wide_group() const {
  if (groups.empty() || format == "mixed_precision") return nullptr;
  return method == "mlx" || method == "gptq" ? &groups.back() : &groups.front();
}

Result<QuantizationScheme> parse_quantization(const JsonFields& container) {
  QuantizationScheme scheme;
  scheme.origin = container.origin();
  scheme.pointer = container.pointer_to("quantization_config");
  // MLX writes `quantization` (and, in newer versions, the same object as quantization_config).
  const char* key = container.has("quantization_config") ? "quantization_config"
                    : container.has("quantization")      ? "quantization"
                                                         : nullptr;
  if (!key) return scheme;
  scheme.pointer = container.pointer_to(key);
  auto q = container.object(key);
  if (!q) return q.error();
  if (!q->has("quant_method") && q->has("bits") && q->has("group_size")) return parse_mlx(*q, std::move(scheme));
  auto method = q->string("quant_method");
  if (!method) return method.error();
  scheme.method = *method;
  if (*method == "compressed-tensors") return parse_compressed_tensors(*q, std::move(scheme));
  if (*method == "fp8") return parse_fp8(*q, std::move(scheme));
  if (*method == "mxfp4") return parse_mxfp4(*q, std::move(scheme));
  if (*method == "awq") return parse_awq(*q, std::move(scheme));
  if (*method == "gptq") return parse_gptq(*q, std::move(scheme));
  if (*method == "bitsandbytes") return parse_bnb(*q, std::move(scheme));
  if (*method == "modelopt") return parse_modelopt(*q, std::move(scheme));
  return q->error("quant_method", fmt::format("quantization method '{}' is not supported yet", *method));
}

Result<TensorManifest> apply_quantization(std::vector<LogicalTensor> logical, const QuantizationScheme& scheme) {
  TensorManifest manifest;
  // A quantized weight is stored as two or three tensors (values, scales, zero
  // points): room for three per logical tensor, so the vector never regrows
  // (pages reserved but never written cost nothing).
  manifest.tensors.reserve(logical.size() * 3);
  // AutoGPTQ biases: which modules already have one.
  std::set<std::string> biases;
  for (const auto& g : scheme.groups)
    if (g.bias_always) {
      for (const auto& t : logical)
        if (t.name.ends_with(".bias")) biases.insert(t.name);
      break;
    }
  const bool sensitive = any_index_sensitive(scheme);
  Decider decider(scheme);
  // KV-cache scales are named after the k_proj they follow: its name is read after it is stored.
  const bool keep_logical = scheme.kv_cache_scales || scheme.kv_scales_on_projections;

  for (auto& t : logical) {
    // An expert group is decided once when no pattern can tell its instances
    // apart (or when its instances are slices of one fused tensor, whose name
    // has no index). Otherwise every instance is decided, and consecutive
    // instances with the same decision stay one entry, so only the instances a
    // rule singles out are split off.
    const bool indexed = t.name.find("{E}") != std::string::npos;
    const bool per_instance = t.instances > 1 && indexed && sensitive;
    const std::uint32_t passes = per_instance ? t.instances : 1;
    const QuantGroup* run_group = nullptr;
    std::uint32_t run_start = 0;
    auto flush = [&](std::uint32_t end) -> std::optional<Error> {
      if (end == run_start) return std::nullopt;
      const std::uint32_t count = per_instance ? end - run_start : t.instances;
      if (run_group == nullptr) {
        if (passes == 1 && !keep_logical) {  // its only stored form: the name and shape move
          manifest.tensors.push_back(plain_tensor(t, std::move(t.name), std::move(t.shape), count, run_start));
          return std::nullopt;
        }
        manifest.tensors.push_back(plain_tensor(
            t, (per_instance && count == 1) ? instantiate(t.name, run_start) : t.name, t.shape, count, run_start));
        return std::nullopt;
      }
      const std::string name = (per_instance && count == 1) ? instantiate(t.name, run_start) : t.name;
      auto stored = quantized_tensors(t, *run_group, name, count, run_start, scheme.origin);
      if (!stored) return stored.error();
      for (auto& s : *stored) manifest.tensors.push_back(std::move(s));
      if (run_group->bias_always && !biases.count(module_name_of(name) + ".bias")) {
        LogicalTensor bias = t;
        bias.shape = {t.shape.front()};
        bias.dtype = Dtype::F16;
        manifest.tensors.push_back(plain_tensor(bias, module_name_of(name) + ".bias", bias.shape, count, run_start));
      }
      return std::nullopt;
    };
    for (std::uint32_t i = 0; i < passes; ++i) {
      // Viewed, not copied (an instance's name is made for an indexed group).
      const std::string instance = indexed ? instantiate(t.name, i) : std::string();
      const QuantGroup* g =
          decider.decide(t, module_view(indexed ? std::string_view(instance) : std::string_view(t.name)));
      if (i > 0 && g == run_group) continue;
      if (i > 0)
        if (auto e = flush(i)) return *e;
      run_group = g;
      run_start = i;
    }
    if (auto e = flush(passes)) return *e;
    if (scheme.kv_cache_scales) add_kv_scales(manifest, t);
    // ModelOpt keeps the KV-cache scales on the projections themselves.
    if (scheme.kv_scales_on_projections && t.name.ends_with("k_proj.weight")) {
      const std::string base = module_name_of(t.name);
      LogicalTensor scale = t;
      scale.shape = {};
      scale.dtype = Dtype::F32;
      auto k = plain_tensor(scale, base + ".k_scale", scale.shape, t.instances, 0);
      k.format = StorageFormat::activation_scale;
      k.logical_params_each = 0;
      manifest.tensors.push_back(k);
      auto v = plain_tensor(scale, base.substr(0, base.size() - 6) + "v_proj.v_scale", scale.shape, t.instances, 0);
      v.format = StorageFormat::activation_scale;
      v.logical_params_each = 0;
      manifest.tensors.push_back(v);
    }
  }
  return manifest;
}

}  // namespace preflight
