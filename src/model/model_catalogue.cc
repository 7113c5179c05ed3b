#include "model/model_catalogue.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "core/house_layout.h"
#include "core/json_read.h"
#include "core/suggest.h"
#include "core/text.h"
#include "embedded_files.h"
#include "model/family_registry.h"
#include "model/json_fields.h"

namespace preflight {

namespace {

// One entry of the catalogue's "models" list (its JSON pointer: /models/i).
Result<CatalogueModel> read_catalogue_entry(const nlohmann::json& entry, std::string_view origin, std::size_t i) {
  if (!entry.is_object()) return Error{std::string(origin), fmt::format("/models/{}", i), "expected an object"};
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
  return m;
}

constexpr std::string_view kEmbeddedPath = "data/models/catalogue.json";
constexpr std::string_view kEmbeddedOrigin = "data/models/catalogue.json (embedded)";

// The embedded catalogue's quick index, as the GPU catalogue's: a plan
// needs one model of 26, so each entry is found by its "name" and "aliases"
// lines in the house layout (entries opened and closed at four spaces, keys at
// six) and only the entry asked for is parsed. Anything not in that layout
// leaves the index unusable and lookups to the full parse; ModelCatalogueQuick.*
// holds the two to the same answers.
struct QuickCatalogue {
  bool usable = false;
  std::vector<std::string_view> entries;                               // "{" to "}"
  std::vector<std::pair<std::string, std::vector<std::string>>> keys;  // name, lower-cased aliases
};

QuickCatalogue build_quick_catalogue(std::string_view text) {
  QuickCatalogue index;
  auto entries = house_layout_entries(text, "models");
  if (!entries) return index;
  for (const auto entry : *entries) {
    auto name = house_layout_string(entry, "name");
    if (!name) return index;
    auto aliases = house_layout_strings(entry, "aliases");
    if (!aliases) return index;
    for (auto& a : *aliases) a = to_lower(a);
    index.keys.emplace_back(std::move(*name), std::move(*aliases));
  }
  index.entries = std::move(*entries);
  index.usable = true;
  return index;
}

const QuickCatalogue& quick_catalogue() {
  static const QuickCatalogue quick = build_quick_catalogue(embedded::embedded_file(kEmbeddedPath));
  return quick;
}

}  // namespace

Result<std::vector<CatalogueModel>> parse_model_catalogue(std::string_view json_text, std::string_view origin) {
  auto parsed = parse_json(json_text, origin);
  if (!parsed) return parsed.error();
  nlohmann::json& doc = parsed.value();
  if (!doc.is_object()) return Error{std::string(origin), "", "not a JSON object"};
  if (!doc.contains("models") || !doc["models"].is_array())
    return Error{std::string(origin), "/models", "missing list"};
  std::vector<CatalogueModel> out;
  for (std::size_t i = 0; i < doc["models"].size(); ++i) {
    auto m = read_catalogue_entry(doc["models"][i], origin, i);
    if (!m) return m.error();
    out.push_back(std::move(m).value());
  }
  return out;
}

const std::vector<CatalogueModel>& model_catalogue() {
  static const std::vector<CatalogueModel> kModels = [] {
    auto parsed = parse_model_catalogue(embedded::embedded_file(kEmbeddedPath), kEmbeddedOrigin);
    if (!parsed) throw std::logic_error("embedded model catalogue is invalid: " + parsed.error().to_string());
    return std::move(parsed).value();
  }();
  return kModels;
}

Result<ModelSpec> load_config_model(std::string_view config_json, std::string_view origin) {
  return build_model_from_config(config_json, origin);
}

std::size_t quick_catalogue_entries() { return quick_catalogue().usable ? quick_catalogue().entries.size() : 0; }

Result<const CatalogueModel*> find_catalogue_model(std::string_view name, std::string_view origin) {
  const auto key = to_lower(name);
  // The quick path: the first entry named so, parsed alone and kept (pointers stay valid).
  const QuickCatalogue& quick = quick_catalogue();
  if (quick.usable) {
    for (std::size_t i = 0; i < quick.entries.size(); ++i) {
      const auto& [entry_name, aliases] = quick.keys[i];
      if (entry_name != key && std::find(aliases.begin(), aliases.end(), key) == aliases.end()) continue;
      static std::mutex mutex;
      static std::map<std::size_t, std::unique_ptr<const CatalogueModel>> read;
      const std::lock_guard<std::mutex> lock(mutex);
      if (auto it = read.find(i); it != read.end()) return it->second.get();
      auto doc = parse_json(quick.entries[i], kEmbeddedOrigin);
      if (!doc) break;
      auto m = read_catalogue_entry(*doc, kEmbeddedOrigin, i);
      if (!m) break;
      return read.emplace(i, std::make_unique<const CatalogueModel>(std::move(m).value())).first->second.get();
    }
  }
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
    if (config.empty())
      return Error{std::string(origin), "", fmt::format("{}: embedded {} is missing", entry.name, entry.config_path)};
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
