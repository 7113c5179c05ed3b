// What an engine's `--dtype auto` holds a model in, where that is not the
// config's dtype. Both engines serve a float32 config in 16 bits:
//
//   vLLM    vllm/config/model.py _resolve_auto_dtype: a float32 config is
//           downcast to the platform's first supported dtype, bfloat16 on
//           GPUs that have it (vllm#18751, from 0.9.1); before that release,
//           "following common practice", float16.
//   SGLang  python/sglang/srt/configs/model_config.py _get_and_verify_dtype:
//           float32 -> float16, except Gemma models -> bfloat16.
//
// Either way two bytes per element, and the KV cache's `auto` follows. Only
// the name differs with the version, so an unknown version is not an error.
#pragma once

#include <optional>
#include <string>

#include "engine/engine_options.h"
#include "model/model_spec.h"

namespace preflight {

struct EngineAutoDtype {
  std::string dtype;  // as --dtype takes it: "bfloat16" | "float16"
  std::string why;    // one line with the engine rule and its source
};

// nullopt: `auto` keeps the config's dtype (any dtype but float32, or the generic engine).
std::optional<EngineAutoDtype> engine_auto_dtype(const ModelSpec& model, const EngineOptions& engine);

}  // namespace preflight
