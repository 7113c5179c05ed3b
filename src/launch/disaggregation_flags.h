// The engine flags of a disaggregated deployment (data/launch/disaggregation.json):
// what makes an instance the prefill or the decode side, and what routes
// requests to the two. Data, each engine with its source.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"
#include "engine/engine_options.h"

namespace preflight {

struct DisaggregationFlags {
  std::vector<std::pair<std::string, std::string>> prefill;  // flag, value ("" for a bare flag)
  std::vector<std::pair<std::string, std::string>> decode;
  std::string front;  // the router or proxy in front of the pools
  std::string source;
};

Result<DisaggregationFlags> parse_disaggregation_flags(std::string_view text, std::string_view origin,
                                                       EngineKind engine);
// The embedded file's entry for vLLM or SGLang.
const DisaggregationFlags& disaggregation_flags(EngineKind engine);

}  // namespace preflight
