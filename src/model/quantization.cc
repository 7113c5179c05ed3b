#include "model/quantization.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

#include "core/ascii_runs.h"
#include "core/bytes.h"
#include "core/text.h"

namespace preflight {

namespace {

using Shape = std::vector<std::uint64_t>;

// A tensor's module: its name without ".weight".
std::string_view module_view(std::string_view tensor_name) {
  constexpr std::string_view kWeight = ".weight";
  if (tensor_name.ends_with(kWeight)) tensor_name.remove_suffix(kWeight.size());
  return tensor_name;
}

std::string module_name_of(const std::string& tensor_name) { return std::string(module_view(tensor_name)); }

std::string instantiate(const std::string& name, std::uint32_t index) {
  std::string out = name;
  const auto pos = out.find("{E}");
  if (pos != std::string::npos) out.replace(pos, 3, std::to_string(index));
  return out;
}

// ---------------------------------------------------------------------------
// Module patterns

// The subset of Python regex syntax that module patterns use in practice:
// literal characters, escaped punctuation ("\\."), '.' (any character) and
// 'x*'. Matching it by hand keeps per-expert decisions cheap (std::regex is slow
// on ".*" prefixes); anything else goes to std::regex. Returns false when the
// pattern needs the regex engine.
bool simple_atoms(std::string_view re, std::vector<SimpleAtom>& out) {
  out.clear();
  for (std::size_t i = 0; i < re.size(); ++i) {
    SimpleAtom a;
    const char c = re[i];
    if (c == '\\') {
      if (i + 1 >= re.size() || std::isalnum(static_cast<unsigned char>(re[i + 1]))) return false;  // \d, \w, \1...
      a.c = re[++i];
    } else if (c == '.') {
      a.any = true;
    } else if (std::string_view("[](){}|+?^$*").find(c) != std::string_view::npos) {
      return false;  // classes, groups, alternation, other quantifiers, anchors, a '*' with nothing to repeat
    } else {
      a.c = c;
    }
    if (i + 1 < re.size() && re[i + 1] == '*') {
      a.star = true;
      ++i;
      if (i + 1 < re.size() && (re[i + 1] == '*' || re[i + 1] == '?' || re[i + 1] == '+')) return false;
    }
    out.push_back(a);
  }
  return true;
}

// A form of `re` for the built-in matcher, or nullopt when it needs std::regex.
std::optional<SimpleForm> simple_form(std::string_view re) {
  SimpleForm f;
  if (!simple_atoms(re, f.atoms)) return std::nullopt;
  f.glob = std::all_of(f.atoms.begin(), f.atoms.end(), [](const SimpleAtom& a) { return a.star ? a.any : !a.any; });
  if (f.glob) {
    f.anchored = f.atoms.empty() || !f.atoms.front().star;
    std::string run;
    for (const auto& a : f.atoms) {
      if (a.star) {
        if (!run.empty()) f.segments.push_back(std::move(run));
        run.clear();
      } else {
        run.push_back(a.c);
      }
    }
    if (!run.empty()) f.segments.push_back(std::move(run));
    if (!f.atoms.empty() && f.atoms.front().star) f.anchored = false;
  }
  return f;
}

// The forms of `re`: one, or one per alternative when the only group is a
// literal alternation ("mlp\.(gate|up|gate_up|down)_proj"): re.match with
// backtracking tries each alternative, so the pattern matches when one does.
// Empty when std::regex is needed.
std::vector<SimpleForm> simple_forms(std::string_view re) {
  std::vector<SimpleForm> out;
  const auto open = re.find('(');
  if (open == std::string_view::npos) {
    if (auto f = simple_form(re)) out.push_back(std::move(*f));
    return out;
  }
  const auto close = re.find(')', open);
  if (close == std::string_view::npos || re.find_first_of("()", close + 1) != std::string_view::npos ||
      (open > 0 && re[open - 1] == '\\') ||
      (close + 1 < re.size() && std::string_view("*+?{").find(re[close + 1]) != std::string_view::npos))
    return out;
  const auto body = re.substr(open + 1, close - open - 1);
  if (body.empty() || body.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_|") !=
                          std::string_view::npos)
    return out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= body.size(); ++i) {
    if (i < body.size() && body[i] != '|') continue;
    const std::string alternative = std::string(re.substr(0, open)) + std::string(body.substr(start, i - start)) +
                                    std::string(re.substr(close + 1));
    auto f = simple_form(alternative);
    if (!f) return {};
    out.push_back(std::move(*f));
    start = i + 1;
  }
  return out;
}

// re.match semantics: the atoms must match a prefix of the text.
bool match_atoms(const SimpleAtom* a, const SimpleAtom* end, std::string_view text) {
  if (a == end) return true;
  if (a->star) {
    for (std::size_t i = 0;; ++i) {
      if (match_atoms(a + 1, end, text.substr(i))) return true;
      if (i >= text.size() || !(a->any || text[i] == a->c)) return false;
    }
  }
  if (!text.empty() && (a->any || text[0] == a->c)) return match_atoms(a + 1, end, text.substr(1));
  return false;
}

bool match_form(const SimpleForm& f, std::string_view text) {
  if (!f.glob) return match_atoms(f.atoms.data(), f.atoms.data() + f.atoms.size(), text);
  std::size_t pos = 0;
  for (std::size_t i = 0; i < f.segments.size(); ++i) {
    const auto& seg = f.segments[i];
    if (i == 0 && f.anchored) {
      if (!text.starts_with(seg)) return false;
      pos = seg.size();
      continue;
    }
    const auto at = text.find(seg, pos);
    if (at == std::string_view::npos) return false;
    pos = at + seg.size();
  }
  return true;
}

bool regex_match_start(const NamePattern& p, const std::string& text) {
  if (p.simple)
    return std::any_of(p.forms.begin(), p.forms.end(), [&](const SimpleForm& f) { return match_form(f, text); });
  return std::regex_search(text, p.regex, std::regex_constants::match_continuous);
}

bool has_digit(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Why std::regex must not run `re`, or "" when it may. std::regex backtracks
// without bound, so a quantifier applied to what is already repeated
// ("layers**", "(a+)+") takes exponential time on a module name (a fuzzed
// config held a 90-star pattern for minutes). Python's re refuses the first
// shape too ("multiple repeat"); real ignore lists use neither.
std::string repetition_problem(std::string_view re) {
  enum class Prev { none, atom, quantified, lazy, repeated_group };
  Prev prev = Prev::none;
  std::vector<bool> group_repeats;                                // per open group: whether something inside it repeats
  const auto quantifier_at = [&](std::size_t i) -> std::size_t {  // its length, or 0
    const char c = re[i];
    if (c == '*' || c == '+' || c == '?') return 1;
    if (c != '{') return 0;
    std::size_t j = i + 1, digits = 0;
    while (j < re.size() && std::isdigit(static_cast<unsigned char>(re[j]))) ++j, ++digits;
    if (j < re.size() && re[j] == ',') {
      ++j;
      while (j < re.size() && std::isdigit(static_cast<unsigned char>(re[j]))) ++j, ++digits;
    }
    return digits > 0 && j < re.size() && re[j] == '}' ? j + 1 - i : 0;
  };
  for (std::size_t i = 0; i < re.size(); ++i) {
    const char c = re[i];
    if (const auto length = quantifier_at(i)) {
      if (c == '?' && prev == Prev::quantified) {  // lazy: "*?"
        prev = Prev::lazy;
        continue;
      }
      if (prev == Prev::quantified || prev == Prev::lazy) return "a repeat of a repeat (Python: multiple repeat)";
      if (prev == Prev::repeated_group) return "a repeated group that itself repeats (exponential backtracking)";
      if (!group_repeats.empty()) group_repeats.back() = true;
      prev = Prev::quantified;
      i += length - 1;
      continue;
    }
    if (c == '\\') {
      ++i;
      prev = Prev::atom;
    } else if (c == '[') {  // a class: to its closing ']' (a ']' first is literal)
      std::size_t j = i + 1;
      if (j < re.size() && re[j] == '^') ++j;
      if (j < re.size() && re[j] == ']') ++j;
      while (j < re.size() && re[j] != ']') j += re[j] == '\\' ? 2 : 1;
      i = j;
      prev = Prev::atom;
    } else if (c == '(') {
      group_repeats.push_back(false);
      prev = Prev::none;
    } else if (c == ')') {
      const bool repeats = !group_repeats.empty() && group_repeats.back();
      if (!group_repeats.empty()) group_repeats.pop_back();
      if (repeats && !group_repeats.empty()) group_repeats.back() = true;
      prev = repeats ? Prev::repeated_group : Prev::atom;
    } else if (c == '|') {
      prev = Prev::none;
    } else {
      prev = Prev::atom;
    }
  }
  return "";
}

// compressed-tensors `ignore` / `targets` entry: "re:<regex>" or an exact name.
Result<NamePattern> compile_ct_pattern(const std::string& text, const std::string& origin, const std::string& pointer) {
  NamePattern p;
  p.text = text;
  if (text.starts_with("re:")) {
    p.kind = NamePattern::Kind::regex;
    p.is_regex = true;
    p.forms = simple_forms(std::string_view(text).substr(3));
    p.simple = !p.forms.empty();
    if (!p.simple) {
      if (const auto why = repetition_problem(std::string_view(text).substr(3)); !why.empty())
        return Error{origin, pointer, fmt::format("regular expression '{}' is refused: {}", text, why)};
      try {
        p.regex = std::regex(text.substr(3), std::regex::ECMAScript | std::regex::optimize);
      } catch (const std::regex_error&) {
        return Error{origin, pointer, fmt::format("invalid regular expression '{}'", text)};
      }
    }
    p.index_sensitive = pattern_is_index_sensitive(text.substr(3));
  } else {
    // An exact name can single out one expert only by naming its index.
    p.index_sensitive = has_digit(text);
  }
  return p;
}

// modules_to_not_convert / ignored_layers entry (substring or re.match).
Result<NamePattern> compile_module_pattern(const std::string& text, const std::string& origin,
                                           const std::string& pointer) {
  NamePattern p;
  p.text = text;
  p.kind = NamePattern::Kind::module;
  if (text.empty()) return Error{origin, pointer, "empty module pattern (it would exclude every module)"};
  p.forms = simple_forms(text);
  p.simple = !p.forms.empty();
  if (!p.simple) {
    if (const auto why = repetition_problem(text); !why.empty())
      return Error{origin, pointer, fmt::format("'{}' is refused as a regular expression: {}", text, why)};
    try {
      p.regex = std::regex(text, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error&) {
      return Error{origin, pointer, fmt::format("'{}' is neither a module name nor a valid regular expression", text)};
    }
  }
  p.index_sensitive = has_digit(text) || pattern_is_index_sensitive(text);
  return p;
}

using PatternCompiler = Result<NamePattern> (*)(const std::string&, const std::string&, const std::string&);

Result<std::vector<NamePattern>> compile_list(const JsonFields& node, std::string_view key, PatternCompiler compile) {
  auto list = node.string_list(key);
  if (!list) return list.error();
  std::vector<NamePattern> out;
  for (std::size_t i = 0; i < list->size(); ++i) {
    auto p = compile((*list)[i], node.origin(), fmt::format("{}/{}", node.pointer_to(key), i));
    if (!p) return p.error();
    out.push_back(std::move(p).value());
  }
  return out;
}

// ---------------------------------------------------------------------------
// Small typed reads

Result<bool> read_bool(const JsonFields& node, std::string_view key, bool fallback) {
  if (!node.has(key)) return fallback;
  const auto& v = node.node()[std::string(key)];
  if (!v.is_boolean()) return node.error(key, fmt::format("expected true or false, got {}", show(v)));
  return v.get<bool>();
}

// group_size as AWQ / GPTQ write it: a positive integer, or -1 for one group
// per row (returned as 0). Required: both producers always write it.
Result<std::uint64_t> read_group_size(const JsonFields& node, std::string_view key) {
  if (!node.has(key)) return node.error(key, "missing positive integer or -1");
  const auto& v = node.node()[std::string(key)];
  // nlohmann reads non-negative literals as unsigned and negative ones as signed.
  if (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() == -1) return std::uint64_t{0};
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > 0) return node.positive_integer(key);
  return node.error(key, fmt::format("expected a positive integer or -1, got {}", show(v)));
}

// One dimension of a scale block ([rows, columns]), located on its list entry.
std::optional<Error> check_block_dim(std::uint64_t value, const JsonFields& node, std::string_view key, std::size_t i) {
  const auto pointer = fmt::format("{}/{}", node.pointer_to(key), i);
  if (value == 0) return Error{node.origin(), pointer, "block size must be positive, got 0"};
  if (value > (1ULL << 20))
    return Error{node.origin(), pointer, fmt::format("block size {} is implausibly large", value)};
  return std::nullopt;
}

// ---------------------------------------------------------------------------
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

// A kv_cache_scheme (compressed-tensors, and ModelOpt's config.json form) that
// is 8-bit float declares an FP8 KV cache (vLLM ModelOptQuantConfigBase.from_config:
// type "float" and num_bits 8 -> kv_cache_quant_algo "FP8").
Result<bool> declares_fp8_kv(const JsonFields& kv) {
  auto bits = kv.positive_integer_or("num_bits", 0);
  if (!bits) return bits.error();
  auto type = kv.string_or("type", "");
  if (!type) return type.error();
  return *bits == 8 && *type == "float";
}

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

// ---------------------------------------------------------------------------
// Hugging Face quantizers: fp8, mxfp4, awq, gptq

Result<std::vector<NamePattern>> read_not_convert(const JsonFields& q, std::initializer_list<std::string_view> keys) {
  std::vector<NamePattern> out;
  for (auto key : keys) {
    auto list = compile_list(q, key, compile_module_pattern);
    if (!list) return list.error();
    for (auto& p : *list) out.push_back(std::move(p));
  }
  return out;
}

Result<QuantizationScheme> parse_fp8(const JsonFields& q, QuantizationScheme scheme) {
  QuantGroup g;
  g.name = "fp8";
  g.pointer = scheme.pointer;
  g.format = "fp8";
  g.kind = QuantFormat::fp8;
  g.num_bits = 8;
  g.type = "float";
  g.scale_dtype = Dtype::F32;
  auto fmt_name = q.string_or("fmt", "e4m3");
  if (!fmt_name) return fmt_name.error();
  if (*fmt_name != "e4m3" && *fmt_name != "float8_e4m3fn")
    return q.error("fmt",
                   fmt::format("FP8 format '{}' is not supported (expected \"e4m3\" or \"float8_e4m3fn\")", *fmt_name));
  auto activation = q.string_or("activation_scheme", "dynamic");
  if (!activation) return activation.error();
  if (*activation != "dynamic" && *activation != "static")
    return q.error("activation_scheme", fmt::format("expected \"dynamic\" or \"static\", got \"{}\"", *activation));
  if (q.has("weight_block_size")) {
    auto block = q.integer_list("weight_block_size");
    if (!block) return block.error();
    if (block->size() != 2)
      return q.error("weight_block_size", fmt::format("expected [rows, columns], got {} values", block->size()));
    for (std::size_t i = 0; i < 2; ++i)
      if (auto e = check_block_dim((*block)[i], q, "weight_block_size", i)) return *e;
    if (*activation == "static")
      return q.error("activation_scheme",
                     "static activation scales with weight_block_size: block-wise FP8 checkpoints use dynamic "
                     "activation scaling (vLLM rejects this combination)");
    g.strategy = ScaleStrategy::block;
    g.block_rows = (*block)[0];
    g.block_cols = (*block)[1];
    g.group_size = checked_mul(g.block_rows, g.block_cols, "weight_block_size");
  } else {
    g.strategy = ScaleStrategy::tensor;
    g.group_size = 0;
    if (*activation == "static") g.input = QuantGroup::Input::static_scale;
    scheme.notes.push_back(
        "fp8 without weight_block_size: per-tensor scales as AutoFP8 writes them (weight_scale F32 [], plus "
        "input_scale F32 [] when activation_scheme is static)");
  }
  auto ignore = read_not_convert(q, {"modules_to_not_convert", "ignored_layers"});
  if (!ignore) return ignore.error();
  scheme.ignore = std::move(ignore).value();
  scheme.groups.push_back(std::move(g));
  return scheme;
}

Result<QuantizationScheme> parse_mxfp4(const JsonFields& q, QuantizationScheme scheme) {
  QuantGroup g;
  g.name = "mxfp4";
  g.pointer = scheme.pointer;
  g.format = "mxfp4";
  g.kind = QuantFormat::gpt_oss_mxfp4;
  g.num_bits = 4;
  g.type = "float";
  g.group_size = 32;
  g.scale_dtype = Dtype::U8;
  auto ignore = read_not_convert(q, {"modules_to_not_convert"});
  if (!ignore) return ignore.error();
  scheme.ignore = std::move(ignore).value();
  scheme.groups.push_back(std::move(g));
  return scheme;
}

Result<QuantizationScheme> parse_awq(const JsonFields& q, QuantizationScheme scheme) {
  QuantGroup g;
  g.name = "awq";
  g.pointer = scheme.pointer;
  g.format = "awq";
  g.kind = QuantFormat::awq_gemm;
  g.type = "int";
  g.scale_dtype = Dtype::F16;
  g.symmetric = false;
  // AutoAWQ always writes bits and group_size; zero_point and version default
  // as in transformers' AwqConfig (true, "gemm").
  auto bits = q.positive_integer("bits");
  if (!bits) return bits.error();
  if (*bits != 4) return q.error("bits", fmt::format("AWQ (GEMM) packs 4-bit weights, got {}", *bits));
  g.num_bits = *bits;
  auto gs = read_group_size(q, "group_size");
  if (!gs) return gs.error();
  g.group_size = *gs;
  g.strategy = g.group_size == 0 ? ScaleStrategy::channel : ScaleStrategy::group;
  auto zp = read_bool(q, "zero_point", true);
  if (!zp) return zp.error();
  auto version = q.string_or("version", "gemm");
  if (!version) return version.error();
  std::string lower = *version;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower != "gemm")
    return q.error("version", fmt::format("AWQ version '{}' is not supported yet (only \"gemm\")", *version));
  auto ignore = read_not_convert(q, {"modules_to_not_convert"});
  if (!ignore) return ignore.error();
  scheme.ignore = std::move(ignore).value();
  scheme.groups.push_back(std::move(g));
  return scheme;
}

Result<QuantizationScheme> parse_gptq(const JsonFields& q, QuantizationScheme scheme) {
  QuantGroup g;
  g.name = "gptq";
  g.pointer = scheme.pointer;
  g.format = "gptq";
  g.kind = QuantFormat::gptq;
  g.type = "int";
  g.scale_dtype = Dtype::F16;
  auto bits = q.positive_integer("bits");
  if (!bits) return bits.error();
  if (*bits != 2 && *bits != 3 && *bits != 4 && *bits != 8)
    return q.error("bits", fmt::format("GPTQ stores 2, 3, 4 or 8-bit weights, got {}", *bits));
  g.num_bits = *bits;
  auto gs = read_group_size(q, "group_size");
  if (!gs) return gs.error();
  g.group_size = *gs;
  g.strategy = g.group_size == 0 ? ScaleStrategy::channel : ScaleStrategy::group;
  // desc_act and sym change values, not what is stored (g_idx and qzeros are
  // always written), but a wrong type is still a bad config.
  for (const char* key : {"desc_act", "sym"}) {
    auto flag = read_bool(q, key, key == std::string_view("sym"));
    if (!flag) return flag.error();
    if (key == std::string_view("sym")) g.symmetric = *flag;
  }
  auto ckpt = q.string_or("checkpoint_format", "gptq");
  if (!ckpt) return ckpt.error();
  if (*ckpt != "gptq" && *ckpt != "gptq_v2")
    return q.error("checkpoint_format",
                   fmt::format("GPTQ checkpoint format '{}' is not supported yet (expected gptq or gptq_v2)", *ckpt));
  // AutoGPTQ (model_file_base_name) and optimum's GPTQ integration (use_exllama,
  // exllama_config) build every QuantLinear with a bias; GPTQModel (meta) follows the layer.
  // Seen in Qwen-7B-Chat-Int4 (AutoGPTQ) and Qwen1.5-14B-Chat-GPTQ-Int4 (optimum keys).
  g.bias_always = (q.has("model_file_base_name") || q.has("use_exllama") || q.has("exllama_config")) && !q.has("meta");
  auto ignore = read_not_convert(q, {"modules_to_not_convert"});
  if (!ignore) return ignore.error();
  scheme.ignore = std::move(ignore).value();
  // GPTQModel's per-module overrides (gptqmodel/utils/model.py dynamic_get, read
  // the same way by vLLM's gptq_utils.get_dynamic_override): each key is a
  // Python re.match pattern on the module name; "-:" leaves the module
  // unquantized, "+:" (or no prefix) overrides bits / group_size. Overrides are
  // groups tried before the model-wide one (the last group).
  if (q.has("dynamic")) {
    const auto& d = q.node()["dynamic"];
    if (!d.is_object()) return q.error("dynamic", fmt::format("expected an object, got {}", show(d)));
    for (const auto& [key, value] : d.items()) {
      const auto pointer = fmt::format("{}/{}", q.pointer_to("dynamic"), pointer_token(key));
      const bool negative = key.starts_with("-:");
      const std::string pattern = key.starts_with("-:") || key.starts_with("+:") ? key.substr(2) : key;
      auto p = compile_ct_pattern("re:" + pattern, scheme.origin, pointer);
      if (!p) return p.error();
      if (negative) {
        scheme.ignore.push_back(std::move(p).value());
        continue;
      }
      if (!value.is_object())
        return Error{scheme.origin, pointer, fmt::format("expected an object, got {}", show(value))};
      JsonFields node(value, scheme.origin, pointer);
      QuantGroup o = g;
      o.name = key;
      o.pointer = pointer;
      auto obits = node.positive_integer_or("bits", g.num_bits);
      if (!obits) return obits.error();
      if (*obits != 2 && *obits != 3 && *obits != 4 && *obits != 8)
        return node.error("bits", fmt::format("GPTQ stores 2, 3, 4 or 8-bit weights, got {}", *obits));
      o.num_bits = *obits;
      if (node.has("group_size")) {
        auto ogs = read_group_size(node, "group_size");
        if (!ogs) return ogs.error();
        o.group_size = *ogs;
        o.strategy = o.group_size == 0 ? ScaleStrategy::channel : ScaleStrategy::group;
      }
      o.targets.push_back(std::move(p).value());
      scheme.groups.push_back(std::move(o));
    }
  }
  scheme.groups.push_back(std::move(g));
  return scheme;
}

// MLX: `bits` and `group_size` with no quant_method; module paths may override.
Result<QuantizationScheme> parse_mlx(const JsonFields& q, QuantizationScheme scheme) {
  scheme.method = "mlx";
  auto group_of = [&](const JsonFields& node, std::string name) -> Result<QuantGroup> {
    QuantGroup g;
    g.name = std::move(name);
    g.pointer = node.pointer_to("bits");
    g.format = "mlx";
    g.kind = QuantFormat::mlx_affine;
    g.type = "int";
    auto bits = node.positive_integer("bits");
    if (!bits) return bits.error();
    if (*bits != 2 && *bits != 3 && *bits != 4 && *bits != 5 && *bits != 6 && *bits != 8)
      return node.error("bits", fmt::format("MLX stores 2, 3, 4, 5, 6 or 8-bit weights, got {}", *bits));
    g.num_bits = *bits;
    auto gs = node.positive_integer("group_size");
    if (!gs) return gs.error();
    g.group_size = *gs;
    auto mode = node.string_or("mode", "affine");
    if (!mode) return mode.error();
    if (*mode != "affine")
      return node.error("mode", fmt::format("MLX quantization mode '{}' is not supported yet (affine is)", *mode));
    return g;
  };
  auto main = group_of(q, "mlx");
  if (!main) return main.error();
  // Per-module overrides come first so the exact name wins (Decider takes the first group whose target matches).
  for (const auto& [key, value] : q.node().items()) {
    if (key == "bits" || key == "group_size" || key == "mode" || key == "quant_method") continue;
    if (value.is_boolean() && !value.get<bool>()) {
      auto p = compile_ct_pattern(key, scheme.origin, q.pointer_to(key));
      if (!p) return p.error();
      scheme.ignore.push_back(std::move(p).value());
    } else if (value.is_object()) {
      JsonFields node(value, scheme.origin, q.pointer_to(key));
      auto g = group_of(node, key);
      if (!g) return g.error();
      auto p = compile_ct_pattern(key, scheme.origin, q.pointer_to(key));
      if (!p) return p.error();
      g.value().targets.push_back(std::move(p).value());
      scheme.groups.push_back(std::move(g).value());
    }
  }
  scheme.groups.push_back(std::move(main).value());
  return scheme;
}

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

// bitsandbytes 4-bit or 8-bit, as transformers saves it.
Result<QuantizationScheme> parse_bnb(const JsonFields& q, QuantizationScheme scheme) {
  QuantGroup g;
  g.pointer = scheme.pointer;
  g.type = "int";
  auto four = read_bool(q, "load_in_4bit", false);
  if (!four) return four.error();
  auto eight = read_bool(q, "load_in_8bit", false);
  if (!eight) return eight.error();
  if (*four == *eight) return q.error("load_in_4bit", "exactly one of load_in_4bit and load_in_8bit must be true");
  if (*four) {
    g.name = g.format = "bnb-4bit";
    g.kind = QuantFormat::bnb_4bit;
    g.num_bits = 4;
    g.group_size = 64;
    auto type = q.string_or("bnb_4bit_quant_type", "fp4");
    if (!type) return type.error();
    if (*type != "nf4" && *type != "fp4")
      return q.error("bnb_4bit_quant_type", fmt::format("expected nf4 or fp4, got {}", echo(*type)));
    g.bnb_type = *type;
    auto dq = read_bool(q, "bnb_4bit_use_double_quant", false);
    if (!dq) return dq.error();
    g.double_quant = *dq;
    auto storage = q.string_or("bnb_4bit_quant_storage", "uint8");
    if (!storage) return storage.error();
    if (*storage != "uint8")
      return q.error("bnb_4bit_quant_storage",
                     fmt::format("storage {} is not supported yet (uint8 is)", echo(*storage)));
  } else {
    g.name = g.format = "bnb-8bit";
    g.kind = QuantFormat::bnb_8bit;
    g.num_bits = 8;
  }
  scheme.groups.push_back(std::move(g));
  auto skip = read_not_convert(q, {"llm_int8_skip_modules"});
  if (!skip) return skip.error();
  scheme.ignore = std::move(skip).value();
  return scheme;
}

// ---------------------------------------------------------------------------
// Decisions

bool is_ct(const QuantizationScheme& s) { return s.method == "compressed-tensors"; }

// What the HF quantizers convert before any modules_to_not_convert entry.
bool eligible(const QuantizationScheme& s, const LogicalTensor& t) {
  if (is_ct(s)) return true;
  // nn.Linear and nn.Embedding with to_quantized, if group_size divides the input;
  // mlx-vlm leaves the vision tower and projector in the model dtype.
  if (s.method == "mlx")
    return t.text && (t.linear_weight || t.module == ModuleClass::embedding) && t.shape.size() == 2 &&
           s.model_wide_group() != nullptr && t.shape[1] % s.model_wide_group()->group_size == 0;
  if (!t.linear_weight) return false;
  if (s.method == "mxfp4") return t.module == ModuleClass::routed_experts;  // only GptOssExperts are replaced
  if (s.method == "mlx") return true;  // Linear and Embedding, the head included (decided with the group size)
  if (t.module == ModuleClass::lm_head) return false;  // the output embedding is kept
  if (s.method == "awq" || s.method == "gptq") return t.text && t.module != ModuleClass::mtp;
  return true;  // fp8: every nn.Linear
}

// Decides each tensor's group. A pattern that is not index-sensitive gives one
// answer for every name that differs only in its digit runs (layer and expert
// indices), so its answers are kept per name with each digit run folded to "0":
// Kimi K3's 2,904 tensors share a few dozen such names (run for every tensor, the
// pattern tests would be 4.1M of a plan's 54M instructions).
class Decider {
 public:
  explicit Decider(const QuantizationScheme& s) : s_(s) {
    for (const auto& g : s.groups) slots_ += g.targets.size();
    slots_ += s.ignore.size();
  }

  // `module` is viewed, not copied: the memo needs only its folded form, and the
  // patterns get a string (module_text) only when one must be tested.
  const QuantGroup* decide(const LogicalTensor& t, std::string_view module) {
    if (s_.method == "none" || !eligible(s_, t)) return nullptr;
    memo_ = nullptr;
    module_text_ready_ = false;
    std::size_t slot = 0;
    for (const auto& p : s_.ignore) {
      const std::size_t here = slot++;
      // A class name in `ignore` ("Linear") would ignore everything; names and regexes only.
      if (!(p.kind == NamePattern::Kind::exact && p.text == "Linear") && test(p, here, module)) return nullptr;
    }
    if (s_.format == "mixed_precision") {
      // ModelOpt MIXED_PRECISION: the module's path or the nearest listed path above it
      // ("...mlp.experts" holds "...mlp.experts.3.down_proj"); unlisted modules stay unquantized.
      for (std::string_view path = module;;) {
        if (auto it = s_.layer_groups.find(path); it != s_.layer_groups.end()) return &s_.groups[it->second];
        const auto dot = path.rfind('.');
        if (dot == std::string_view::npos) return nullptr;
        path = path.substr(0, dot);
      }
    }
    if (s_.method == "mlx" || s_.method == "gptq") {  // a module override, else the model-wide setting (the last group)
      for (const auto& g : s_.groups) {
        for (const auto& p : g.targets) {
          const std::size_t here = slot++;
          if (test(p, here, module)) return &g;
        }
      }
      return s_.model_wide_group();
    }
    if (!is_ct(s_)) return s_.model_wide_group();
    // compressed-tensors: the most specific target wins (exact name, then regex, then class).
    const QuantGroup* best = nullptr;
    int best_level = 0;
    for (const auto& g : s_.groups) {
      for (const auto& p : g.targets) {
        const std::size_t here = slot++;
        int level = 0;
        if (p.kind == NamePattern::Kind::exact && p.text == "Linear")
          level = t.linear_weight ? 1 : 0;
        else if (test(p, here, module))
          level = p.kind == NamePattern::Kind::exact ? 3 : 2;
        if (level > best_level) {
          best_level = level;
          best = &g;
        }
      }
    }
    return best;
  }

 private:
  bool test(const NamePattern& p, std::size_t slot, std::string_view module) {
    if (p.index_sensitive) return p.matches(module_text(module));
    if (memo_ == nullptr) {
      fold_digits(module, folded_);
      auto it = memo_by_name_.find(folded_);
      if (it == memo_by_name_.end()) it = memo_by_name_.emplace(folded_, std::vector<signed char>(slots_, -1)).first;
      memo_ = &it->second;
    }
    auto& answer = (*memo_)[slot];
    if (answer < 0) answer = p.matches(module_text(module)) ? 1 : 0;
    return answer == 1;
  }

  // The module name as a string, made once per decision and only when a pattern is tested.
  const std::string& module_text(std::string_view module) {
    if (!module_text_ready_) {
      module_text_.assign(module);
      module_text_ready_ = true;
    }
    return module_text_;
  }

  // `name` with each digit run as one "0", into `out` (its buffer reused).
  // Copied a run of non-digits at a time (a name has a few digit runs in ~70
  // characters; every tensor of a model is decided, so this is per tensor).
  static void fold_digits(std::string_view name, std::string& out) {
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    out.clear();
    const char* s = name.data();
    const std::size_t n = name.size();
    std::size_t at = 0;
    while (at < n) {
      const std::size_t run = non_digit_end(s, at, n);
      out.append(s + at, run - at);
      if (run == n) break;
      out.push_back('0');
      at = run;
      while (at < n && digit(s[at])) ++at;
    }
  }

  const QuantizationScheme& s_;
  std::size_t slots_ = 0;
  // Every tensor of a model is looked up here by its folded name (~60 bytes):
  // hashed eight bytes at a time (a multiply-xorshift mix) rather than by
  // std::hash's byte loop, which costs ~130 instructions a lookup.
  struct FoldedNameHash {
    std::size_t operator()(const std::string& s) const {
      std::uint64_t h = 0x9E3779B97F4A7C15ull ^ s.size();
      std::size_t at = 0;
      for (; at + 8 <= s.size(); at += 8) {
        std::uint64_t w;
        std::memcpy(&w, s.data() + at, 8);
        h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
      }
      std::uint64_t tail = 0;
      std::memcpy(&tail, s.data() + at, s.size() - at);
      h = (h ^ tail) * 0x94D049BB133111EBull;
      return static_cast<std::size_t>(h ^ (h >> 29));
    }
  };
  std::unordered_map<std::string, std::vector<signed char>, FoldedNameHash> memo_by_name_;
  std::vector<signed char>* memo_ = nullptr;  // this decision's answers
  std::string folded_;                        // the folded name being looked up
  std::string module_text_;                   // module_text's string, for this decision
  bool module_text_ready_ = false;
};

bool any_index_sensitive(const QuantizationScheme& s) {
  for (const auto& p : s.ignore)
    if (p.index_sensitive) return true;
  for (const auto& g : s.groups)
    for (const auto& p : g.targets)
      if (p.index_sensitive) return true;
  return false;
}

// ---------------------------------------------------------------------------
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

// A weight stored as it is (most tensors of every model), without an Emitter's
// vector. `name` and `shape` are given apart so a caller done with the logical
// tensor can move them.
StoredTensor plain_tensor(const LogicalTensor& t, std::string name, Shape shape, std::uint32_t instances,
                          std::uint32_t first_instance) {
  const auto elements = element_count(shape);
  return stored_tensor(t, std::move(name), std::move(shape), t.dtype, StorageFormat::plain, elements, instances,
                       first_instance);
}

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

  // Static activation scales and group indices are shared by the int/float layouts.
  auto add_ct_extras = [&](Dtype scale_dtype) {
    if (g.group_index) e.add(base + ".weight_g_idx", {in}, Dtype::I32, StorageFormat::quant_metadata, 0);
    if (g.input == QuantGroup::Input::static_scale) {
      const Shape s = g.input_per_token ? Shape{1, 1} : Shape{1};
      e.add(base + ".input_scale", s, scale_dtype, StorageFormat::activation_scale, 0);
      if (!g.input_symmetric) e.add(base + ".input_zero_point", s, Dtype::I8, StorageFormat::activation_scale, 0);
    }
  };

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
          e.add(base + ".weight_zero_point", {ceil_div(out, pack), scale_shape[1]}, Dtype::I32,
                StorageFormat::zero_point, 0);
        else
          e.add(base + ".weight_zero_point", scale_shape, Dtype::I8, StorageFormat::zero_point, 0);
      }
      add_ct_extras(sd);
      break;
    }
    case QuantFormat::ct_int:
    case QuantFormat::ct_float: {
      const bool is_float = g.kind == QuantFormat::ct_float;
      const auto sd = ct_scale_dtype(g, t);
      e.add(base + ".weight", {out, in}, is_float ? Dtype::F8_E4M3 : Dtype::I8,
            is_float ? StorageFormat::fp8 : StorageFormat::int8, params);
      const auto scale_shape = ct_scale_shape(g, out, in);
      e.add(base + ".weight_scale", scale_shape, sd, StorageFormat::weight_scale, 0);
      if (!g.symmetric)
        e.add(base + ".weight_zero_point", scale_shape, is_float ? Dtype::F8_E4M3 : Dtype::I8,
              StorageFormat::zero_point, 0);
      add_ct_extras(sd);
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
      e.add(name + ".quant_state.bitsandbytes__" + g.bnb_type, {state.size()}, Dtype::U8, StorageFormat::quant_metadata,
            0);
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

}  // namespace

bool NamePattern::matches(const std::string& module_name) const {
  switch (kind) {
    case Kind::exact:
      return module_name == text;
    case Kind::regex:
      return regex_match_start(*this, module_name);  // Python re.match: anchored at the start only
    case Kind::module:
      return module_name.find(text) != std::string::npos || regex_match_start(*this, module_name);
  }
  return false;
}

bool pattern_is_index_sensitive(const std::string& regex_text) {
  // Conservative: anything that can distinguish one digit string from another.
  for (std::size_t i = 0; i < regex_text.size(); ++i) {
    const char c = regex_text[i];
    if (c == '\\') {
      if (i + 1 < regex_text.size()) {
        const char n = regex_text[i + 1];
        // \S matches one character of a digit run as of anything else: "experts\.\S\." tells 7 from 12.
        if (n == 'd' || n == 'D' || n == 'w' || n == 'W' || n == 'b' || n == 'B' || n == 'S' || (n >= '0' && n <= '9'))
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
