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

// The reason an architecture class is a pooling model (an embedding, reranker,
// classifier or reward head: data/out_of_scope.json "pooling architectures",
// matched by the end of the class name), or nullopt.
std::optional<std::string> pooling_reason(std::string_view architecture);

}  // namespace preflight
