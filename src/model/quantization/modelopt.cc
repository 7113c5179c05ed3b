// ModelOpt (TensorRT Model Optimizer): NVFP4, W4A16_NVFP4, FP8 and MIXED_PRECISION exports.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/text.h"
#include "model/quantization/config_reads.h"
#include "model/quantization/format_readers.h"
#include "model/quantization/name_pattern.h"

namespace preflight {

namespace {

// One ModelOpt algorithm's group: NVFP4 (W4A4: a static input scale), W4A16_NVFP4
// (weight-only: no input scale), FP8 (per-tensor weight and input scales).
Result<QuantGroup> modelopt_group(const JsonFields& where, const std::string& algo_text, std::uint64_t group_size,
                                  const std::string& pointer) {
  QuantGroup g;
  g.pointer = pointer;
  // vLLM upper-cases quant_algo ("ModelOpt may emit lowercase"): compared without case.
  const std::string algo = to_lower(algo_text);
  if (algo == "nvfp4" || algo == "w4a16_nvfp4") {
    g.name = g.format = algo == "nvfp4" ? "modelopt-nvfp4" : "modelopt-w4a16-nvfp4";
    g.kind = QuantFormat::modelopt_nvfp4;
    g.num_bits = 4;
    g.type = "float";
    g.group_size = group_size;
    g.input = algo == "nvfp4" ? QuantGroup::Input::static_scale : QuantGroup::Input::none;
  } else if (algo == "fp8") {
    g.name = g.format = "modelopt-fp8";
    g.kind = QuantFormat::modelopt_fp8;
    g.num_bits = 8;
    g.type = "float";
    g.input = QuantGroup::Input::static_scale;
  } else {
    return where.error("quant_algo", fmt::format("ModelOpt algorithm {} is not supported yet (NVFP4, W4A16_NVFP4, FP8 "
                                                 "and MIXED_PRECISION of them are)",
                                                 echo(algo_text)));
  }
  return g;
}

}  // namespace

// ModelOpt: quant_algo NVFP4 / W4A16_NVFP4 / FP8 / MIXED_PRECISION, excluded modules
// as fnmatch wildcards. Two forms, read as vLLM's ModelOptQuantConfigBase.from_config
// reads them: hf_quant_config.json's {"quantization": {quant_algo,
// kv_cache_quant_algo, exclude_modules}} (merged into quantization_config by the
// loader), and config.json's quantization_config {quant_method "modelopt",
// quant_algo, ignore, kv_cache_scheme | kv_cache_quant_algo, group_size |
// config_groups}. Both lists are read when both are written (each names modules
// ModelOpt left in the model dtype). MIXED_PRECISION lists each quantized module
// in quantized_layers {path: {quant_algo, group_size}} (vLLM
// ModelOptMixedPrecisionConfig); a module it does not list stays unquantized.
Result<QuantizationScheme> parse_modelopt(const JsonFields& q, QuantizationScheme scheme) {
  auto algo_text = q.string("quant_algo");
  if (!algo_text) return algo_text.error();
  std::uint64_t fallback = 16;
  // config.json's form may give the group size only in its first config group's weights.
  if (!q.has("group_size") && q.has("config_groups")) {
    auto groups = q.object("config_groups");
    if (!groups) return groups.error();
    for (const auto& [key, value] : groups->node().items()) {
      auto group = groups->object(key);
      if (!group) return group.error();
      if (!group->has("weights")) continue;
      auto weights = group->object("weights");
      if (!weights) return weights.error();
      auto size = weights->positive_integer_or("group_size", fallback);
      if (!size) return size.error();
      fallback = *size;
      break;
    }
  }
  auto gs = q.positive_integer_or("group_size", fallback);
  if (!gs) return gs.error();
  if (to_lower(*algo_text) == "mixed_precision") {
    scheme.format = "mixed_precision";
    auto layers = q.object("quantized_layers");
    if (!layers) return layers.error();
    for (const auto& [path, value] : layers->node().items()) {
      auto layer = layers->object(path);
      if (!layer) return layer.error();
      auto algo = layer->string("quant_algo");
      if (!algo) return algo.error();
      auto size = layer->positive_integer_or("group_size", *gs);
      if (!size) return size.error();
      auto g = modelopt_group(*layer, *algo, *size, layers->pointer_to(path));
      if (!g) return g.error();
      // One group per algorithm and group size; each listed path points at its group.
      auto same = std::find_if(scheme.groups.begin(), scheme.groups.end(), [&](const QuantGroup& o) {
        return o.format == g->format && o.group_size == g->group_size;
      });
      if (same == scheme.groups.end()) {
        scheme.groups.push_back(std::move(g).value());
        same = scheme.groups.end() - 1;
      }
      scheme.layer_groups.emplace(path, static_cast<std::size_t>(same - scheme.groups.begin()));
    }
  } else {
    auto g = modelopt_group(q, *algo_text, *gs, scheme.pointer);
    if (!g) return g.error();
    scheme.groups.push_back(std::move(g).value());
  }
  for (const char* key : {"exclude_modules", "ignore"}) {
    if (!q.has(key)) continue;
    auto list = q.string_list(key);
    if (!list) return list.error();
    for (std::size_t i = 0; i < list->size(); ++i) {
      // fnmatch: '*' any run, '?' one character, the rest literal, the whole name.
      std::string re = "re:";
      for (char c : (*list)[i]) {
        if (c == '*')
          re += ".*";
        else if (c == '?')
          re += ".";
        else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_')
          re += c;
        else
          re += std::string("\\") + c;
      }
      re += "$";
      auto p = compile_ct_pattern(re, scheme.origin, fmt::format("{}/{}", q.pointer_to(key), i));
      if (!p) return p.error();
      scheme.ignore.push_back(std::move(p).value());
    }
  }
  auto kv = q.string_or("kv_cache_quant_algo", "");
  if (!kv) return kv.error();
  bool fp8_kv = false;
  if (!kv->empty()) {
    fp8_kv = to_lower(*kv) == "fp8";
    if (fp8_kv) scheme.declared_kv_source = q.pointer_to("kv_cache_quant_algo");
  } else if (q.has("kv_cache_scheme") && !q.node()["kv_cache_scheme"].is_null()) {
    auto scheme_kv = q.object("kv_cache_scheme");
    if (!scheme_kv) return scheme_kv.error();
    auto fp8 = declares_fp8_kv(*scheme_kv);
    if (!fp8) return fp8.error();
    fp8_kv = *fp8;
    if (fp8_kv) scheme.declared_kv_source = q.pointer_to("kv_cache_scheme");
  }
  scheme.kv_scales_on_projections = fp8_kv;
  if (fp8_kv) scheme.declared_kv_dtype = "fp8";
  return scheme;
}

}  // namespace preflight
