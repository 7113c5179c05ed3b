// Family readers: each builds a ModelSpec (dimensions, layer kinds, manifest)
// from a parsed config.json. Registered in model/family_registry.cc.
#pragma once

#include <nlohmann/json.hpp>

#include <string_view>

#include "core/result.h"
#include "model/model_spec.h"

namespace preflight {

// families/kimi_k3.cc
Result<ModelSpec> build_kimi_k3(const nlohmann::json& root, std::string_view origin);
// families/kimi_linear.cc: Kimi-Linear (KDA + MLA, MoE)
Result<ModelSpec> build_kimi_linear(const nlohmann::json& root, std::string_view origin);

}  // namespace preflight
