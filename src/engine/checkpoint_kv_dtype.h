// The KV-cache dtype a checkpoint declares, as engines apply it under
// `--kv-cache-dtype auto`. A ModelOpt export with kv_cache_quant_algo FP8, or a
// compressed-tensors / ModelOpt kv_cache_scheme of 8-bit floats, was calibrated
// for an FP8 cache; vLLM (from 0.14, both methods) and SGLang (ModelOpt only)
// then allocate the cache in FP8 without being asked. The releases and methods
// are data (data/engines.json checkpoint_kv_cache, with the engine source).
#pragma once

#include <optional>
#include <string>

#include "engine/engine_options.h"
#include "model/model_spec.h"
#include "workload/cache_dtype.h"
#include "workload/workload.h"

namespace preflight {

struct CheckpointKvDtype {
  KvDtype dtype = KvDtype::fp8;
  std::string why;  // one line: the declaration, the engine rule and its source
};

// nullopt: `auto` is the model's dtype (nothing declared, or the engine at this
// release does not read the declaration). The generic planner follows what
// current engines do.
std::optional<CheckpointKvDtype> checkpoint_kv_dtype(const ModelSpec& model, const EngineOptions& engine);

// The workload as this engine and release would run it: resolved_workload with
// the checkpoint's KV-cache dtype where `auto` takes it.
WorkloadOptions workload_for_engine(const WorkloadOptions& requested, const ModelSpec& model,
                                    const EngineOptions& engine);

}  // namespace preflight
