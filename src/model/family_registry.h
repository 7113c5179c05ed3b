// Which reader builds a ModelSpec from a config.json: the architecture
// description (data/architectures/) claiming its `model_type` (root, else
// text_config's). A config no description claims is read by the generic
// decoder reading, which says so in the model's notes.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "model/model_spec.h"

namespace preflight {

// Parses config.json text and builds the model with its architecture's description.
Result<ModelSpec> build_model_from_config(std::string_view config_json, std::string_view origin);

}  // namespace preflight
