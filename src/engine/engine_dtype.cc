#include "engine/engine_dtype.h"

#include <fmt/format.h>

#include "engine/engine_profile.h"

namespace preflight {

std::optional<EngineAutoDtype> engine_auto_dtype(const ModelSpec& model, const EngineOptions& engine) {
  if (model.dtype != Dtype::F32) return std::nullopt;
  switch (engine.kind) {
    case EngineKind::generic:
      return std::nullopt;
    case EngineKind::vllm: {
      // vllm#18751 (merged 2025-05-30, first released in 0.9.1): float32 -> the platform's preferred dtype.
      const bool bf16 = !engine.version || !(*engine.version < EngineVersion{0, 9, 1});
      return EngineAutoDtype{
          bf16 ? "bfloat16" : "float16",
          bf16 ? "vLLM --dtype auto serves a float32 config in bfloat16, the platform's preferred dtype "
                 "(vllm/config/model.py _resolve_auto_dtype, vllm#18751, 0.9.1 and later); the KV cache follows"
               : "vLLM --dtype auto serves a float32 config in float16 before 0.9.1 (vllm/config.py "
                 "_get_and_verify_dtype: 'we use float16 for float32 models'); the KV cache follows"};
    }
    case EngineKind::sglang: {
      const bool gemma = model.family.rfind("gemma", 0) == 0;
      return EngineAutoDtype{gemma ? "bfloat16" : "float16",
                             fmt::format("SGLang --dtype auto serves a float32 config in {} (python/sglang/srt/configs/"
                                         "model_config.py _get_and_verify_dtype: float16, bfloat16 for Gemma); the KV "
                                         "cache follows",
                                         gemma ? "bfloat16" : "float16")};
    }
  }
  return std::nullopt;
}

}  // namespace preflight
