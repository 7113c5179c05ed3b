#include "model/quantization.h"

#include <fmt/format.h>

#include "core/bytes.h"

namespace preflight {

namespace {

std::string module_name_of(const std::string& tensor_name) {
  constexpr std::string_view kWeight = ".weight";
  if (tensor_name.ends_with(kWeight)) return tensor_name.substr(0, tensor_name.size() - kWeight.size());
  return tensor_name;
}

std::string instantiate(const std::string& name, std::uint32_t index) {
  std::string out = name;
  const auto pos = out.find("{E}");
  if (pos != std::string::npos) out.replace(pos, 3, std::to_string(index));
  return out;
}

Result<NamePattern> compile_pattern(const std::string& text, const std::string& origin,
                                    const std::string& pointer) {
  NamePattern p;
  p.text = text;
  if (text.starts_with("re:")) {
    p.is_regex = true;
    try {
      p.regex = std::regex(text.substr(3), std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error&) {
      return Error{origin, pointer, fmt::format("invalid regular expression '{}'", text)};
    }
    p.index_sensitive = pattern_is_index_sensitive(text.substr(3));
  }
  return p;
}

Result<std::vector<NamePattern>> compile_list(const JsonFields& node, std::string_view key) {
  auto list = node.string_list(key);
  if (!list) return list.error();
  std::vector<NamePattern> out;
  for (std::size_t i = 0; i < list->size(); ++i) {
    auto p = compile_pattern((*list)[i], node.origin(), fmt::format("{}/{}", node.pointer_to(key), i));
    if (!p) return p.error();
    out.push_back(std::move(p).value());
  }
  return out;
}

bool any_matches(const std::vector<NamePattern>& patterns, const std::string& module_name,
                 bool linear) {
  for (const auto& p : patterns) {
    if (!p.is_regex && p.text == "Linear") {
      if (linear) return true;
      continue;
    }
    if (p.matches(module_name)) return true;
  }
  return false;
}

bool any_index_sensitive(const std::vector<NamePattern>& patterns) {
  for (const auto& p : patterns)
    if (p.index_sensitive) return true;
  return false;
}

// The group (if any) that quantizes this module.
const QuantGroup* group_for(const QuantizationScheme& scheme, const std::string& module_name,
                            bool linear) {
  if (any_matches(scheme.ignore, module_name, false)) return nullptr;
  for (const auto& g : scheme.groups)
    if (any_matches(g.targets, module_name, linear)) return &g;
  return nullptr;
}

StoredTensor plain_tensor(const LogicalTensor& t, const std::string& name, std::uint32_t instances,
                          std::uint32_t first_instance) {
  StoredTensor s;
  s.name = name;
  s.shape = t.shape;
  s.dtype = t.dtype;
  s.format = StorageFormat::plain;
  const auto elements = element_count(t.shape);
  s.bytes_each = checked_mul(elements, dtype_bits(t.dtype) / 8, name);
  s.logical_params_each = elements;
  s.instances = instances;
  s.module = t.module;
  s.role = t.role;
  s.layer = t.layer;
  s.text = t.text;
  s.first_instance = first_instance;
  return s;
}

Result<std::vector<StoredTensor>> quantized_tensors(const LogicalTensor& t, const QuantGroup& g,
                                                    const std::string& name, std::uint32_t instances,
                                                    std::uint32_t first_instance, const std::string& origin) {
  if (t.shape.size() != 2)
    return Error{origin, "quantization_config/config_groups/" + g.name,
                 fmt::format("cannot quantize {} of shape {}: a 2-D weight is required", name,
                             shape_text(t.shape))};
  const auto out = t.shape[0];
  const auto in = t.shape[1];
  if (g.format == "mxfp4-pack-quantized") {
    if (g.num_bits != 4 || g.type != "float")
      return Error{origin, "quantization_config/config_groups/" + g.name,
                   fmt::format("mxfp4-pack-quantized expects 4-bit float weights, got {}-bit {}",
                               g.num_bits, g.type)};
    const auto base = module_name_of(name);
    StoredTensor packed;
    packed.name = base + ".weight_packed";
    packed.shape = {out, ceil_div(in * 4, 8)};
    packed.dtype = Dtype::U8;
    packed.format = StorageFormat::mxfp4_packed;
    packed.bytes_each = checked_mul(out, ceil_div(in * 4, 8), name);
    packed.logical_params_each = checked_mul(out, in, name);
    StoredTensor scale;
    scale.name = base + ".weight_scale";
    scale.shape = {out, ceil_div(in, g.group_size)};
    scale.dtype = g.scale_dtype;
    scale.format = StorageFormat::mxfp4_scale;
    scale.bytes_each = checked_mul(checked_mul(out, ceil_div(in, g.group_size), name),
                                   dtype_bits(g.scale_dtype) / 8, name);
    scale.logical_params_each = 0;  // scales are not parameters (the hub counts none)
    for (auto* s : {&packed, &scale}) {
      s->instances = instances;
      s->module = t.module;
      s->role = t.role;
      s->layer = t.layer;
      s->text = t.text;
      s->first_instance = first_instance;
    }
    return std::vector<StoredTensor>{packed, scale};
  }
  return Error{origin, "quantization_config/format",
               fmt::format("quantization format '{}' is not supported yet", g.format)};
}

}  // namespace

bool NamePattern::matches(const std::string& module_name) const {
  if (!is_regex) return module_name == text;
  // Python re.match: anchored at the start only.
  return std::regex_search(module_name, regex, std::regex_constants::match_continuous);
}

bool pattern_is_index_sensitive(const std::string& regex_text) {
  // Conservative: anything that can distinguish one digit string from another.
  for (std::size_t i = 0; i < regex_text.size(); ++i) {
    const char c = regex_text[i];
    if (c == '\\') {
      if (i + 1 < regex_text.size()) {
        const char n = regex_text[i + 1];
        if (n == 'd' || n == 'D' || n == 'w' || n == 'W' || n == 'b' || n == 'B' ||
            (n >= '0' && n <= '9'))
          return true;
      }
      ++i;  // escaped literal such as '\.'
      continue;
    }
    if (c >= '0' && c <= '9') return true;
    if (c == '[' || c == '{' || c == '?' || c == '$') return true;
    if (c == '.') {
      const char n = i + 1 < regex_text.size() ? regex_text[i + 1] : '\0';
      if (n != '*' && n != '+') return true;  // a bare '.' counts characters
    }
  }
  return false;
}

Result<QuantizationScheme> parse_quantization(const JsonFields& container) {
  QuantizationScheme scheme;
  scheme.origin = container.origin();
  if (!container.has("quantization_config")) return scheme;
  auto q = container.object("quantization_config");
  if (!q) return q.error();
  auto method = q->string("quant_method");
  if (!method) return method.error();
  if (*method != "compressed-tensors")
    return q->error("quant_method", fmt::format("quantization method '{}' is not supported yet", *method));
  scheme.method = *method;
  auto format = q->string_or("format", "");
  if (!format) return format.error();
  scheme.format = *format;
  auto ignore = compile_list(*q, "ignore");
  if (!ignore) return ignore.error();
  scheme.ignore = std::move(ignore).value();
  auto groups = q->object("config_groups");
  if (!groups) return groups.error();
  for (const auto& [key, value] : groups->node().items()) {
    auto g = groups->object(key);
    if (!g) return g.error();
    QuantGroup group;
    group.name = key;
    auto targets = compile_list(*g, "targets");
    if (!targets) return targets.error();
    group.targets = std::move(targets).value();
    auto gformat = g->string_or("format", scheme.format);
    if (!gformat) return gformat.error();
    group.format = *gformat;
    auto w = g->object("weights");
    if (!w) return w.error();
    auto bits = w->positive_integer("num_bits");
    if (!bits) return bits.error();
    group.num_bits = *bits;
    auto type = w->string_or("type", "int");
    if (!type) return type.error();
    group.type = *type;
    auto gs = w->positive_integer("group_size");
    if (!gs) return gs.error();
    group.group_size = *gs;
    auto sd = w->string_or("scale_dtype", "torch.uint8");
    if (!sd) return sd.error();
    auto scale_dtype = dtype_from_torch(*sd);
    if (!scale_dtype) return w->error("scale_dtype", fmt::format("unknown dtype '{}'", *sd));
    group.scale_dtype = *scale_dtype;
    scheme.groups.push_back(std::move(group));
  }
  return scheme;
}

Result<TensorManifest> apply_quantization(const std::vector<LogicalTensor>& logical,
                                          const QuantizationScheme& scheme) {
  TensorManifest manifest;
  bool sensitive = any_index_sensitive(scheme.ignore);
  for (const auto& g : scheme.groups) sensitive = sensitive || any_index_sensitive(g.targets);

  for (const auto& t : logical) {
    // An expert group is decided once when no pattern can tell its instances
    // apart. Otherwise consecutive instances with the same decision stay one
    // entry, so only the instances a rule singles out are split off.
    // The common case is decided once from the first instance; only index-
    // sensitive ignore patterns are then re-checked per instance.
    const QuantGroup* first = scheme.method == "none"
                                  ? nullptr
                                  : group_for(scheme, module_name_of(instantiate(t.name, 0)), t.linear_weight);
    const bool per_instance = t.instances > 1 && sensitive && first != nullptr;
    const QuantGroup* run_group = nullptr;
    std::uint32_t run_start = 0;
    auto flush = [&](std::uint32_t end) -> std::optional<Error> {
      if (end == run_start) return std::nullopt;
      const std::uint32_t count = end - run_start;
      const std::string name = (per_instance && count == 1) ? instantiate(t.name, run_start) : t.name;
      if (run_group == nullptr) {
        manifest.tensors.push_back(plain_tensor(t, name, count, run_start));
        return std::nullopt;
      }
      auto stored = quantized_tensors(t, *run_group, name, count, run_start, scheme.origin);
      if (!stored) return stored.error();
      for (auto& s : *stored) manifest.tensors.push_back(std::move(s));
      return std::nullopt;
    };
    const std::uint32_t passes = per_instance ? t.instances : 1;
    for (std::uint32_t i = 0; i < passes; ++i) {
      const QuantGroup* g = first;
      if (i > 0 && g != nullptr) {
        const auto module = module_name_of(instantiate(t.name, i));
        for (const auto& p : scheme.ignore)
          if (p.index_sensitive && p.matches(module)) g = nullptr;
      }
      if (i > 0 && g == run_group) continue;
      if (i > 0)
        if (auto e = flush(i)) return *e;
      run_group = g;
      run_start = i;
    }
    if (auto e = flush(t.instances)) return *e;
  }
  return manifest;
}

}  // namespace preflight
