#include "model/arch/config_preparation.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "core/text.h"

namespace preflight::arch {

// The description's class defaults laid over `node` (a copy); `note` lists the ones used.
nlohmann::json with_class_defaults(const Description& d, const nlohmann::json& node, std::string& note) {
  nlohmann::json out = node;
  std::string used;
  for (const auto& c : d.class_defaults) {
    const auto present = [&](const std::string& key) { return out.contains(key) && !out[key].is_null(); };
    if (present(c.key) || (!c.unless.empty() && present(c.unless))) continue;
    out[c.key] = c.value;
    used += fmt::format("{}{} {}", used.empty() ? "" : ", ", c.key,
                        c.value.is_string() ? c.value.get<std::string>() : c.value.dump());
  }
  if (!used.empty()) note = fmt::format("absent from the config, {} defaults used: {}", d.defaults_class, used);
  return out;
}

// A config's layer_types names each layer's kind, and a description reads it by
// comparing entries with literals (`$layer_types[i] == 'linear_attention'`); an
// entry it does not know falls through to its default kind, so a typo
// ("linear_atention") would be read as full attention with no state. Every
// entry must therefore be a literal the description's expressions name, or a
// layer kind key; else the field is named.
std::optional<Error> check_layer_types(const Description& d, const nlohmann::json& node, const std::string& pointer,
                                       const std::string& origin) {
  const auto it = node.find("layer_types");
  if (it == node.end() || !it->is_array()) return std::nullopt;
  bool reads_layer_types = false;
  for (const auto* exprs : {&d.let, &d.spec})
    for (const auto& [name, expr] : *exprs)
      if (expr.text().find("$layer_types") != std::string::npos) reads_layer_types = true;
  if (!reads_layer_types) return std::nullopt;
  std::vector<std::string> known;
  for (const auto* exprs : {&d.let, &d.spec})
    for (const auto& [name, expr] : *exprs) {
      const auto& text = expr.text();
      for (std::size_t open = text.find('\''); open != std::string::npos;) {
        const auto close = text.find('\'', open + 1);
        if (close == std::string::npos) break;
        known.push_back(text.substr(open + 1, close - open - 1));
        open = text.find('\'', close + 1);
      }
    }
  for (const LayerKind k : kAllLayerKinds) known.emplace_back(layer_kind_key(k));
  // The names the description compares layer_types with. None: it passes each
  // entry on as a layer kind, whose own check names a bad one.
  std::vector<std::string> compared;
  for (const auto* exprs : {&d.let, &d.spec})
    for (const auto& [name, expr] : *exprs)
      if (expr.text().find("$layer_types") != std::string::npos)
        for (const auto& k : known)
          if (!k.empty() && expr.text().find("'" + k + "'") != std::string::npos &&
              std::find(compared.begin(), compared.end(), k) == compared.end())
            compared.push_back(k);
  if (compared.empty()) return std::nullopt;
  std::sort(compared.begin(), compared.end());
  for (std::size_t i = 0; i < it->size(); ++i) {
    const auto& entry = (*it)[i];
    if (!entry.is_string()) continue;  // the expressions report a non-string where they read it
    const auto& value = entry.get_ref<const std::string&>();
    if (std::find(known.begin(), known.end(), value) != known.end()) continue;
    return Error{origin, fmt::format("{}/layer_types/{}", pointer, i),
                 fmt::format("unknown layer type {} for architecture {} (it reads {})", echo(value), d.name,
                             fmt::join(compared, ", "))};
  }
  return std::nullopt;
}

}  // namespace preflight::arch
