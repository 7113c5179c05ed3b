// The family registry: which reader builds a ModelSpec from a config.json.
//
// Rows match on `model_type` (root or text_config). A config no row claims is
// read by the generic decoder reader, which says so in the model's notes.
#pragma once

#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "model/model_spec.h"

namespace preflight {

using FamilyBuilder = Result<ModelSpec> (*)(const nlohmann::json& root, std::string_view origin);

struct FamilyRow {
  std::string_view family;                  // "llama", "deepseek_v3", ...
  std::vector<std::string_view> model_types;  // model_type values it claims
  FamilyBuilder build;
  std::string_view description;
};

const std::vector<FamilyRow>& family_registry();

// Parses config.json text and builds the model with its family's reader.
Result<ModelSpec> build_model_from_config(std::string_view config_json, std::string_view origin);

}  // namespace preflight
