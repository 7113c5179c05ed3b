#include "model/model_catalogue.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/suggest.h"
#include "core/text.h"
#include "embedded_files.h"
#include "model/family_registry.h"

namespace preflight {

const std::vector<CatalogueModel>& model_catalogue() {
  static const std::vector<CatalogueModel> kModels = {
      {"kimi-k3",
       {"moonshotai/kimi-k3", "k3", "kimi_k3"},
       "kimi_k3",
       "Moonshot Kimi K3: 93 layers (69 KDA + 24 MLA), 896 MXFP4 routed experts, MoonViT-V2 vision",
       embedded::data_models_kimi_k3_config_json,
       embedded::data_models_kimi_k3_artifact_json},
  };
  return kModels;
}

Result<ModelSpec> load_config_model(std::string_view config_json, std::string_view origin) {
  return build_model_from_config(config_json, origin);
}

Result<ModelSpec> load_catalogue_model(std::string_view name, std::string_view origin) {
  const auto key = to_lower(name);
  std::vector<std::string> names;
  for (const auto& entry : model_catalogue()) {
    names.push_back(entry.name);
    const bool hit = entry.name == key ||
                     std::find(entry.aliases.begin(), entry.aliases.end(), key) != entry.aliases.end();
    if (!hit) continue;
    auto spec = load_config_model(entry.config_json, fmt::format("{} (embedded config.json)", entry.name));
    if (!spec) return spec.error();
    ModelSpec m = std::move(spec).value();
    m.name = entry.name;
    if (!entry.artifact_json.empty()) {
      auto facts = parse_artifact_facts(entry.artifact_json, fmt::format("{} (embedded artifact.json)", entry.name));
      if (!facts) return facts.error();
      m.artifact = *facts;
    }
    return m;
  }
  for (const auto& entry : model_catalogue())
    for (const auto& a : entry.aliases) names.push_back(a);
  return Error{std::string(origin), "", unknown_name_message("model", name, names, "preflight models")};
}

}  // namespace preflight
