// The model catalogue: models embedded in the binary, by name.
//
// Each entry is data (the raw released config.json and an artifact-facts file),
// built into a ModelSpec by its family. `kimi-k3` is the default model.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "model/model_spec.h"

namespace preflight {

struct CatalogueModel {
  std::string name;                 // "kimi-k3"
  std::vector<std::string> aliases; // "moonshotai/Kimi-K3", "k3"
  std::string family;               // "kimi_k3"
  std::string description;
  std::string_view config_json;
  std::string_view artifact_json;   // may be empty
};

inline constexpr std::string_view kDefaultModel = "kimi-k3";

const std::vector<CatalogueModel>& model_catalogue();

// Looks a name up (case-insensitive, aliases too) and builds the model.
// Unknown names get a did-you-mean suggestion naming `origin`.
Result<ModelSpec> load_catalogue_model(std::string_view name, std::string_view origin);

// Builds a model from config.json text read by the caller (a path given as MODEL).
Result<ModelSpec> load_config_model(std::string_view config_json, std::string_view origin);

}  // namespace preflight
