// compressed-tensors (llm-compressor): config_groups with their targets and schemes, ignore, kv_cache_scheme.
#include <fmt/format.h>

#include <optional>
#include <string_view>

#include "core/bytes.h"
#include "model/quantization/config_reads.h"
#include "model/quantization/format_readers.h"
#include "model/quantization/name_pattern.h"

namespace preflight {

namespace {

// compressed-tensors

struct CtFormat {
  std::string_view name;
  QuantFormat kind;
};

constexpr CtFormat kCtFormats[] = {
    {"mxfp4-pack-quantized", QuantFormat::ct_mxfp4}, {"nvfp4-pack-quantized", QuantFormat::ct_nvfp4},
    {"pack-quantized", QuantFormat::ct_pack},        {"int-quantized", QuantFormat::ct_int},
    {"float-quantized", QuantFormat::ct_float},      {"naive-quantized", QuantFormat::ct_int},
};

Result<ScaleStrategy> read_strategy(const JsonFields& w) {
  // compressed-tensors' default: group when a group_size is given, else tensor.
  auto s = w.string_or("strategy", w.has("group_size") ? "group" : "tensor");
  if (!s) return s.error();
  if (*s == "tensor") return ScaleStrategy::tensor;
  if (*s == "channel") return ScaleStrategy::channel;
  if (*s == "group") return ScaleStrategy::group;
  if (*s == "block") return ScaleStrategy::block;
  if (*s == "tensor_group") return ScaleStrategy::tensor_group;
  return w.error("strategy", fmt::format("weight strategy '{}' is not supported (expected tensor, channel, group, "
                                         "block or tensor_group)",
                                         *s));
}

// Format-specific limits, located on the field that breaks them.
std::optional<Error> check_ct_weights(const QuantGroup& g, const JsonFields& w) {
  const auto& f = g.format;
  switch (g.kind) {
    case QuantFormat::ct_mxfp4:
    case QuantFormat::ct_nvfp4: {
      const std::uint64_t want_group = g.kind == QuantFormat::ct_mxfp4 ? 32 : 16;
      if (g.num_bits != 4) return w.error("num_bits", fmt::format("{} stores 4-bit values, got {}", f, g.num_bits));
      if (g.type != "float")
        return w.error("type", fmt::format("{} stores float (E2M1) values, got type '{}'", f, g.type));
      if (g.strategy != ScaleStrategy::group && g.strategy != ScaleStrategy::tensor_group)
        return w.error("strategy", fmt::format("{} scales groups of {} values; strategy must be group or tensor_group",
                                               f, want_group));
      if (g.group_size != want_group)
        return w.error("group_size", fmt::format("{} uses groups of {}, got {}", f, want_group, g.group_size));
      return std::nullopt;
    }
    case QuantFormat::ct_pack:
      if (g.type != "int") return w.error("type", fmt::format("{} packs integers, got type '{}'", f, g.type));
      if (g.num_bits != 2 && g.num_bits != 4 && g.num_bits != 8)
        return w.error("num_bits", fmt::format("{} packs 2, 4 or 8-bit integers into I32, got {}", f, g.num_bits));
      break;
    case QuantFormat::ct_int:
      if (g.num_bits > 8) return w.error("num_bits", fmt::format("{} stores I8 values, got {} bits", f, g.num_bits));
      break;
    case QuantFormat::ct_float:
      if (g.num_bits != 8)
        return w.error("num_bits", fmt::format("{} stores FP8 (E4M3) values, got {} bits", f, g.num_bits));
      break;
    default:
      break;
  }
  if (g.strategy == ScaleStrategy::tensor_group)
    return w.error("strategy", fmt::format("tensor_group scales belong to nvfp4-pack-quantized, not {}", f));
  return std::nullopt;
}

Result<QuantGroup> parse_ct_group(const JsonFields& groups, const std::string& key, const std::string& top_format) {
  auto g = groups.object(key);
  if (!g) return g.error();
  QuantGroup group;
  group.name = key;
  group.pointer = groups.pointer_to(key);
  auto targets = compile_list(*g, "targets", compile_ct_pattern);
  if (!targets) return targets.error();
  if (targets->empty()) return g->error("targets", "a config group needs at least one target");
  group.targets = std::move(targets).value();

  auto gformat = g->string_or("format", top_format);
  if (!gformat) return gformat.error();
  group.format = *gformat;
  if (group.format.empty())
    return g->error("format", "no format: set quantization_config/format or this group's format");
  const CtFormat* known = nullptr;
  for (const auto& row : kCtFormats)
    if (row.name == group.format) known = &row;
  if (known == nullptr) {
    const auto msg = fmt::format("compressed-tensors format '{}' is not supported yet", group.format);
    if (g->has("format")) return g->error("format", msg);
    return Error{groups.origin(), group.pointer, msg + " (from quantization_config/format)"};
  }
  group.kind = known->kind;

  auto w = g->object("weights");
  if (!w) return w.error();
  auto bits = w->positive_integer("num_bits");
  if (!bits) return bits.error();
  group.num_bits = *bits;
  auto type = w->string_or("type", "int");
  if (!type) return type.error();
  if (*type != "int" && *type != "float")
    return w->error("type", fmt::format("expected \"int\" or \"float\", got \"{}\"", *type));
  group.type = *type;
  if (group.format == "naive-quantized")
    group.kind = group.type == "float" ? QuantFormat::ct_float : QuantFormat::ct_int;

  auto strategy = read_strategy(*w);
  if (!strategy) return strategy.error();
  group.strategy = *strategy;
  if (group.strategy == ScaleStrategy::group || group.strategy == ScaleStrategy::tensor_group) {
    auto gs = w->positive_integer("group_size");
    if (!gs) return gs.error();
    group.group_size = *gs;
  } else if (group.strategy == ScaleStrategy::block) {
    auto block = w->integer_list("block_structure");
    if (!block) return block.error();
    if (block->size() != 2)
      return w->error("block_structure", fmt::format("expected [rows, columns], got {} values", block->size()));
    for (std::size_t i = 0; i < 2; ++i)
      if (auto e = check_block_dim((*block)[i], *w, "block_structure", i)) return *e;
    group.block_rows = (*block)[0];
    group.block_cols = (*block)[1];
    group.group_size = checked_mul(group.block_rows, group.block_cols, "block_structure");
  }
  auto sym = read_bool(*w, "symmetric", true);
  if (!sym) return sym.error();
  group.symmetric = *sym;
  if (w->has("actorder")) {
    const auto& a = w->node()["actorder"];
    if (a.is_boolean())
      group.group_index = a.get<bool>();  // legacy `true` means "group"
    else if (a.is_string())
      group.group_index = a.get<std::string>() == "group";
    else
      return w->error("actorder", fmt::format("expected a string or a boolean, got {}", show(a)));
  }
  if (w->has("scale_dtype")) {
    auto sd = w->string("scale_dtype");
    if (!sd) return sd.error();
    auto scale_dtype = dtype_from_torch(*sd);
    if (!scale_dtype) return w->error("scale_dtype", fmt::format("unknown dtype '{}'", *sd));
    group.scale_dtype_override = *scale_dtype;
  }
  if (auto e = check_ct_weights(group, *w)) return *e;
  group.scale_dtype = group.scale_dtype_override.value_or(
      group.kind == QuantFormat::ct_mxfp4   ? Dtype::U8
      : group.kind == QuantFormat::ct_nvfp4 ? Dtype::F8_E4M3
                                            : Dtype::BF16);  // report default; stored: the weight's dtype
  if (group.strategy == ScaleStrategy::channel || group.strategy == ScaleStrategy::tensor) group.group_size = 0;

  if (g->has("input_activations")) {
    auto in = g->object("input_activations");
    if (!in) return in.error();
    const auto& dyn = in->node().contains("dynamic") ? in->node()["dynamic"] : nlohmann::json();
    const bool dynamic_true = dyn.is_boolean() && dyn.get<bool>();
    if (!dyn.is_null() && !dyn.is_boolean() && !(dyn.is_string() && dyn.get<std::string>() == "local"))
      return in->error("dynamic", fmt::format("expected true, false or \"local\", got {}", show(dyn)));
    auto in_bits = in->positive_integer_or("num_bits", 8);
    if (!in_bits) return in_bits.error();
    auto in_type = in->string_or("type", "int");
    if (!in_type) return in_type.error();
    if (*in_bits == 4 && *in_type == "float") {
      // NVFP4 activations: a per-tensor global scale is stored, the local
      // (per-16) scales are computed at run time.
      if (!dynamic_true) group.input = QuantGroup::Input::fp4_global;
    } else if (!dyn.is_null() && dyn.is_string()) {
      return in->error("dynamic", "\"local\" dynamic scales are only defined for FP4 (4-bit float) activations");
    } else if (!dynamic_true) {
      group.input = QuantGroup::Input::static_scale;
      auto in_strategy = in->string_or("strategy", "tensor");
      if (!in_strategy) return in_strategy.error();
      group.input_per_token = *in_strategy == "token";
      auto in_sym = read_bool(*in, "symmetric", true);
      if (!in_sym) return in_sym.error();
      group.input_symmetric = *in_sym;
    }
  }
  if (g->has("output_activations"))
    return g->error("output_activations", "output activation quantization is not supported yet");
  return group;
}

}  // namespace

Result<QuantizationScheme> parse_compressed_tensors(const JsonFields& q, QuantizationScheme scheme) {
  auto format = q.string_or("format", "");
  if (!format) return format.error();
  scheme.format = *format;
  auto ignore = compile_list(q, "ignore", compile_ct_pattern);
  if (!ignore) return ignore.error();
  scheme.ignore = std::move(ignore).value();
  if (q.has("sparsity_config")) {
    auto sparsity = q.object("sparsity_config");
    if (!sparsity) return sparsity.error();
    auto sformat = sparsity->string_or("format", "dense");
    if (!sformat) return sformat.error();
    if (*sformat != "dense")
      return sparsity->error("format", fmt::format("sparsity format '{}' is not supported yet", *sformat));
  }
  if (q.has("kv_cache_scheme")) {
    auto kv = q.object("kv_cache_scheme");
    if (!kv) return kv.error();
    auto dynamic = read_bool(*kv, "dynamic", false);
    if (!dynamic) return dynamic.error();
    scheme.kv_cache_scales = !*dynamic;
    auto fp8 = declares_fp8_kv(*kv);
    if (!fp8) return fp8.error();
    if (*fp8) {
      scheme.declared_kv_dtype = "fp8";
      scheme.declared_kv_source = q.pointer_to("kv_cache_scheme");
    }
    if (scheme.kv_cache_scales)
      scheme.notes.push_back(
          "kv_cache_scheme: k_scale and v_scale [1] (model dtype) stored on every attention module "
          "with a k_proj, as compressed-tensors initialises them");
  }
  auto groups = q.object("config_groups");
  if (!groups) return groups.error();
  if (groups->node().empty()) return q.error("config_groups", "no config groups: nothing would be quantized");
  for (const auto& [key, value] : groups->node().items()) {
    auto group = parse_ct_group(*groups, key, scheme.format);
    if (!group) return group.error();
    scheme.groups.push_back(std::move(group).value());
  }
  return scheme;
}

}  // namespace preflight
