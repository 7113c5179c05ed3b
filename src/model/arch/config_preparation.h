// What a description does with a config before building from it: lays its
// class's defaults over the fields the config leaves out, and checks the
// layer_types entries it will compare against literals.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/result.h"
#include "model/arch/architecture.h"

namespace preflight::arch {

// The description's class defaults laid over `node` (a copy); `note` lists the ones used.
nlohmann::json with_class_defaults(const Description& d, const nlohmann::json& node, std::string& note);

// An error naming the first layer_types entry the description would not recognise.
std::optional<Error> check_layer_types(const Description& d, const nlohmann::json& node, const std::string& pointer,
                                       const std::string& origin);

}  // namespace preflight::arch
