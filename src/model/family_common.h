// Shared building blocks of the description engine (arch/build_described.cc):
// reading a config's dtype, architecture and language-model object, and
// finish_model(), which applies the config's quantization rules by name to the
// logical tensors to produce the stored manifest.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "model/json_fields.h"
#include "model/model_spec.h"

namespace preflight {

// The object holding the language model's fields: `text_config` for multimodal
// wrappers (or `llm_config`), the root otherwise.
Result<JsonFields> text_fields(const JsonFields& root);

// The model dtype from `torch_dtype` / `dtype` (default bfloat16).
Result<Dtype> read_model_dtype(const JsonFields& text, const JsonFields& root);

// Reads an optional boolean (false when absent); errors when present and not a boolean.
Result<bool> read_flag(const JsonFields& node, std::string_view key, bool fallback = false);

// The first entry of `architectures` ("" when the list is empty or absent).
Result<std::string> read_architecture(const JsonFields& root);

// Applies the quantization_config found in `quant_container` (or the root) to
// the logical tensors and stores the manifest in `model`.
Result<ModelSpec> finish_model(ModelSpec model, std::vector<LogicalTensor> tensors, const JsonFields& text,
                               const JsonFields& root);

}  // namespace preflight
