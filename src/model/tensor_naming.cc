#include "model/tensor_naming.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "core/json_read.h"
#include "embedded_files.h"

namespace preflight {

namespace {

std::vector<std::string_view> components(std::string_view name) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start <= name.size()) {
    const auto dot = name.find('.', start);
    const auto end = dot == std::string_view::npos ? name.size() : dot;
    out.push_back(name.substr(start, end - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return out;
}

std::optional<std::uint64_t> number(std::string_view text) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  std::uint64_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return n;
}

bool in(const std::vector<std::string>& list, std::string_view c) {
  return std::find(list.begin(), list.end(), c) != list.end();
}

Result<std::vector<std::string>> string_list(const nlohmann::json& node, const char* key, std::string_view origin,
                                             const std::string& pointer) {
  std::vector<std::string> out;
  if (!node.contains(key)) return out;
  const auto& v = node.at(key);
  if (!v.is_array())
    return Error{std::string(origin), pointer + "/" + key, "expected a list of strings, got " + show(v)};
  for (const auto& s : v) {
    if (!s.is_string())
      return Error{std::string(origin), pointer + "/" + key, "expected a list of strings, got " + show(v)};
    out.push_back(s.get<std::string>());
  }
  return out;
}

}  // namespace

ModuleClass attention_module(const ModelSpec& model, int layer) {
  if (layer < 0 || static_cast<std::size_t>(layer) >= model.layers.size()) return ModuleClass::gqa_attention;
  switch (model.layers[static_cast<std::size_t>(layer)]) {
    case LayerKind::mla:
      return ModuleClass::mla_attention;
    case LayerKind::kda:
      return ModuleClass::kda_attention;
    case LayerKind::gated_deltanet:
    case LayerKind::mamba2:
    case LayerKind::short_conv:
    case LayerKind::lightning:
      return ModuleClass::linear_attention;
    default:
      return ModuleClass::gqa_attention;
  }
}

Result<TensorNaming> TensorNaming::parse(std::string_view json_text, std::string_view origin) {
  auto doc = parse_json(json_text, origin);
  if (!doc) return doc.error();
  if (!doc->is_object() || !doc->contains("rules") || !doc->at("rules").is_array())
    return Error{std::string(origin), "/rules", "expected a list of rules"};
  TensorNaming naming;
  auto containers = string_list(*doc, "layer_containers", origin, "");
  if (!containers) return containers.error();
  naming.containers_ = std::move(containers).value();
  const auto& rules = doc->at("rules");
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const auto pointer = fmt::format("/rules/{}", i);
    const auto& r = rules[i];
    if (!r.is_object()) return Error{std::string(origin), pointer, "expected a rule object"};
    Rule rule;
    rule.name = r.value("name", "");
    auto any = string_list(r, "any", origin, pointer);
    if (!any) return any.error();
    rule.any = std::move(any).value();
    auto within = string_list(r, "within", origin, pointer);
    if (!within) return within.error();
    rule.within = std::move(within).value();
    auto none = string_list(r, "within_none", origin, pointer);
    if (!none) return none.error();
    rule.within_none = std::move(none).value();
    rule.contains = r.value("contains", "");
    if (rule.any.empty() && rule.contains.empty())
      return Error{std::string(origin), pointer, "a rule needs 'any' components or 'contains' text"};
    const std::string module = r.value("module", "");
    if (module == "attention") {
      rule.attention = true;
    } else if (auto m = module_from_key(module)) {
      rule.module = *m;
    } else {
      return Error{std::string(origin), pointer + "/module", "unknown module class " + quote(module)};
    }
    const auto role = parallel_role_from_key(r.value("role", ""));
    if (!role) return Error{std::string(origin), pointer + "/role", "unknown role " + quote(r.value("role", ""))};
    rule.role = *role;
    rule.text = r.value("text", true);
    naming.rules_.push_back(std::move(rule));
  }
  return naming;
}

const TensorNaming& TensorNaming::embedded() {
  static const TensorNaming naming = [] {
    auto parsed = parse(embedded::data_tensor_naming_json, "data/tensor_naming.json (embedded)");
    if (!parsed) throw std::logic_error("the embedded naming table is invalid: " + parsed.error().to_string());
    return std::move(parsed).value();
  }();
  return naming;
}

std::optional<std::pair<std::string, std::uint64_t>> TensorNaming::stack_of(std::string_view name) const {
  std::size_t start = 0;
  while (start < name.size()) {
    const auto dot = name.find('.', start);
    if (dot == std::string_view::npos) break;
    const auto part = name.substr(start, dot - start);
    const auto next_end = name.find('.', dot + 1);
    const auto next = name.substr(dot + 1, (next_end == std::string_view::npos ? name.size() : next_end) - dot - 1);
    if (in(containers_, part))
      if (auto n = number(next)) return std::make_pair(std::string(name.substr(0, dot)), *n);
    start = dot + 1;
  }
  return std::nullopt;
}

std::string TensorNaming::decoder_stack(const std::vector<std::string_view>& names,
                                        std::uint64_t decoder_layers) const {
  std::map<std::string, std::pair<std::set<std::uint64_t>, std::uint64_t>> stacks;  // indices, tensors
  for (const auto& n : names)
    if (auto s = stack_of(n)) {
      auto& entry = stacks[s->first];
      entry.first.insert(s->second);
      ++entry.second;
    }
  std::string best;
  std::uint64_t best_beyond = UINT64_MAX, best_tensors = 0;
  for (const auto& [prefix, entry] : stacks) {
    const auto layers = entry.first.size();
    const std::uint64_t beyond = layers >= decoder_layers ? layers - decoder_layers : UINT64_MAX - 1;
    if (beyond < best_beyond || (beyond == best_beyond && entry.second > best_tensors)) {
      best = prefix;
      best_beyond = beyond;
      best_tensors = entry.second;
    }
  }
  return best;
}

TensorClass TensorNaming::classify(std::string_view name, const ModelSpec& model,
                                   std::string_view decoder_stack) const {
  TensorClass out;
  const auto parts = components(name);
  // The decoder layer and the expert index.
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    if (out.layer == kNoLayer && in(containers_, parts[i]))
      if (auto n = number(parts[i + 1])) out.layer = static_cast<int>(*n);
    if (parts[i] == "experts")
      if (auto n = number(parts[i + 1])) out.expert = static_cast<std::uint32_t>(*n);
  }
  for (const auto& rule : rules_) {
    std::size_t at = parts.size();
    for (std::size_t i = 0; i < parts.size() && at == parts.size(); ++i) {
      if (!rule.any.empty() && in(rule.any, parts[i])) at = i;
      if (!rule.contains.empty() && parts[i].find(rule.contains) != std::string_view::npos) at = i;
    }
    if (at == parts.size()) continue;
    if (!rule.within.empty()) {
      bool found = false;
      for (std::size_t i = 0; i < at && !found; ++i) found = in(rule.within, parts[i]);
      if (!found) continue;
    }
    bool excluded = false;
    for (const auto& p : parts) excluded = excluded || in(rule.within_none, p);
    if (excluded) continue;
    out.rule = rule.name;
    out.module = rule.attention ? attention_module(model, out.layer) : rule.module;
    out.role = rule.role;
    out.text = rule.text;
    break;
  }
  // A numbered stack other than the decoder's is an encoder's (a vision or audio tower).
  if (out.text && !decoder_stack.empty() && out.module != ModuleClass::mtp && out.module != ModuleClass::projector)
    if (const auto stack = stack_of(name); stack && stack->first != decoder_stack) {
      out.module = ModuleClass::vision_tower;
      out.role = ParallelRole::replicated;
      out.text = false;
      out.rule = "encoder stack (not the decoder's " + std::string(decoder_stack) + ")";
    }
  if (!out.text) out.layer = kNoLayer;  // a vision tower's layers are not decoder layers
  // Layers past the config's decoder layers are multi-token-prediction layers;
  // an MTP block numbered on its own (mtp.layers.0) lives after the decoder too.
  if (out.text && out.layer != kNoLayer && static_cast<std::size_t>(out.layer) >= model.layers.size())
    out.module = ModuleClass::mtp;
  else if (out.module == ModuleClass::mtp)
    out.layer = kNoLayer;
  if (out.module == ModuleClass::routed_experts) {
    out.fused_experts = !out.expert.has_value();
    out.role = ParallelRole::expert;
  } else {
    out.expert.reset();
  }
  if (out.module == ModuleClass::mtp || out.module == ModuleClass::unclassified) out.role = ParallelRole::replicated;
  // A row-parallel layer adds its bias once, after the all-reduce: every rank holds it.
  if (out.role == ParallelRole::row && !parts.empty() && parts.back() == "bias") out.role = ParallelRole::replicated;
  return out;
}

}  // namespace preflight
