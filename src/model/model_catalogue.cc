#include "model/model_catalogue.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <stdexcept>

#include "core/suggest.h"
#include "core/json_read.h"
#include "core/text.h"
#include "embedded_files.h"
#include "model/family_registry.h"
#include "model/json_fields.h"

namespace preflight {

Result<std::vector<CatalogueModel>> parse_model_catalogue(std::string_view json_text, std::string_view origin) {
  auto parsed = parse_json(json_text, origin);
  if (!parsed) return parsed.error();
  nlohmann::json& doc = parsed.value();
  if (!doc.is_object()) return Error{std::string(origin), "", "not a JSON object"};
  if (!doc.contains("models") || !doc["models"].is_array()) return Error{std::string(origin), "/models", "missing list"};
  std::vector<CatalogueModel> out;
  for (std::size_t i = 0; i < doc["models"].size(); ++i) {
    const auto& entry = doc["models"][i];
    if (!entry.is_object())
      return Error{std::string(origin), fmt::format("/models/{}", i), "expected an object"};
    JsonFields f(entry, std::string(origin), fmt::format("/models/{}", i));
    CatalogueModel m;
    for (auto [key, target, required] : {std::tuple<std::string_view, std::string*, bool>{"name", &m.name, true},
                                         {"hub_id", &m.hub_id, false},
                                         {"description", &m.description, false},
                                         {"config", &m.config_path, true},
                                         {"config_provenance", &m.config_provenance, false},
                                         {"artifact", &m.artifact_path, false},
                                         {"index", &m.index_path, false},
                                         {"quantize", &m.quantize, false}}) {
      auto v = required ? f.string(key) : f.string_or(key, "");
      if (!v) return v.error();
      *target = *v;
    }
    auto aliases = f.string_list("aliases");
    if (!aliases) return aliases.error();
    for (const auto& a : *aliases) m.aliases.push_back(to_lower(a));
    if (entry.contains("default") && entry["default"].is_boolean()) m.is_default = entry["default"].get<bool>();
    out.push_back(std::move(m));
  }
  return out;
}

const std::vector<CatalogueModel>& model_catalogue() {
  static const std::vector<CatalogueModel> kModels = [] {
    auto parsed = parse_model_catalogue(embedded::embedded_file("data/models/catalogue.json"),
                                        "data/models/catalogue.json (embedded)");
    if (!parsed) throw std::logic_error("embedded model catalogue is invalid: " + parsed.error().to_string());
    return std::move(parsed).value();
  }();
  return kModels;
}

Result<ModelSpec> load_config_model(std::string_view config_json, std::string_view origin) {
  return build_model_from_config(config_json, origin);
}

Result<const CatalogueModel*> find_catalogue_model(std::string_view name, std::string_view origin) {
  const auto key = to_lower(name);
  std::vector<std::string> names;
  for (const auto& entry : model_catalogue()) {
    names.push_back(entry.name);
    if (entry.name == key || std::find(entry.aliases.begin(), entry.aliases.end(), key) != entry.aliases.end())
      return &entry;
  }
  for (const auto& entry : model_catalogue())
    for (const auto& a : entry.aliases) names.push_back(a);
  return Error{std::string(origin), "", unknown_name_message("model", name, names, "preflight models")};
}

Result<ModelSpec> load_catalogue_model(std::string_view name, std::string_view origin) {
  auto found = find_catalogue_model(name, origin);
  if (!found) return found.error();
  {
    const auto& entry = **found;
    const auto config = embedded::embedded_file(entry.config_path);
    if (config.empty()) return Error{std::string(origin), "", fmt::format("{}: embedded {} is missing", entry.name, entry.config_path)};
    auto spec = load_config_model(config, fmt::format("{} ({})", entry.name, entry.config_path));
    if (!spec) return spec.error();
    ModelSpec m = std::move(spec).value();
    m.name = entry.name;
    if (!entry.artifact_path.empty()) {
      auto facts = parse_artifact_facts(embedded::embedded_file(entry.artifact_path), entry.artifact_path);
      if (!facts) return facts.error();
      m.artifact = *facts;
    }
    return m;
  }
}

}  // namespace preflight
