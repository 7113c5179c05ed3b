#include "engine/checkpoint_kv_dtype.h"

#include <fmt/format.h>

#include <algorithm>

#include "engine/engine_profile.h"

namespace preflight {

std::optional<CheckpointKvDtype> checkpoint_kv_dtype(const ModelSpec& model, const EngineOptions& engine) {
  const auto& q = model.quantization;
  if (q.declared_kv_dtype != "fp8") return std::nullopt;
  const auto declared = fmt::format("the checkpoint declares an FP8 KV cache ({} {})", q.origin, q.declared_kv_source);
  const auto& profiles = engine_profiles();
  if (engine.kind == EngineKind::generic)
    return CheckpointKvDtype{KvDtype::fp8,
                             fmt::format("{}; vLLM >= {} and SGLang serve it so under --kv-cache-dtype auto", declared,
                                         profiles.vllm.checkpoint_kv.from.str())};
  const bool vllm = engine.kind == EngineKind::vllm;
  const auto& rule = vllm ? profiles.vllm.checkpoint_kv : profiles.sglang.checkpoint_kv;
  const auto& version =
      engine.version ? *engine.version : (vllm ? profiles.vllm.default_version : profiles.sglang.default_version);
  if (version < rule.from) return std::nullopt;
  if (std::find(rule.methods.begin(), rule.methods.end(), q.method) == rule.methods.end()) return std::nullopt;
  return CheckpointKvDtype{KvDtype::fp8, fmt::format("{}; {} {} serves it under --kv-cache-dtype auto ({})", declared,
                                                     vllm ? "vLLM" : "SGLang", version.str(), rule.source)};
}

WorkloadOptions workload_for_engine(const WorkloadOptions& requested, const ModelSpec& model,
                                    const EngineOptions& engine) {
  const auto declared = checkpoint_kv_dtype(model, engine);
  return resolved_workload(requested, model.max_context, dtype_bits(model.dtype),
                           declared ? std::optional<KvDtype>(declared->dtype) : std::nullopt);
}

}  // namespace preflight
