// What preflight does not plan, said in one line: it sizes decoder LLMs and
// vision-language models, not encoders or encoder-decoders (data/out_of_scope.json).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace preflight {

// The reason a config is out of scope ("model_type 'bert' is an encoder-only
// model: ..."), or nullopt when it may be a decoder.
std::optional<std::string> out_of_scope_reason(const nlohmann::json& config, std::string_view model_type);

}  // namespace preflight
