// checkpoint_kv_dtype: the FP8 KV cache a checkpoint declares, applied under
// --kv-cache-dtype auto by the engines and releases that read it
// (data/engines.json checkpoint_kv_cache: vLLM 0.14 for ModelOpt and
// compressed-tensors, SGLang for ModelOpt).
#include "engine/checkpoint_kv_dtype.h"

#include <gtest/gtest.h>

namespace preflight {
namespace {

TEST(CheckpointKvDtype, FollowsTheEngineAndItsRelease) {
  struct Case {
    const char* what;
    const char* method;
    const char* declared;
    EngineKind engine;
    const char* version;
    bool fp8;
  };
  const Case cases[] = {
      {"vLLM, no version (the newest)", "modelopt", "fp8", EngineKind::vllm, "", true},
      {"vLLM 0.14.0, the first that reads it", "modelopt", "fp8", EngineKind::vllm, "0.14.0", true},
      {"vLLM 0.13.0: the model dtype", "modelopt", "fp8", EngineKind::vllm, "0.13.0", false},
      {"vLLM compressed-tensors", "compressed-tensors", "fp8", EngineKind::vllm, "0.19.0", true},
      {"SGLang ModelOpt", "modelopt", "fp8", EngineKind::sglang, "", true},
      {"SGLang does not read compressed-tensors' scheme", "compressed-tensors", "fp8", EngineKind::sglang, "", false},
      {"SGLang before its first release with it", "modelopt", "fp8", EngineKind::sglang, "0.4.2", false},
      {"the generic planner follows today's engines", "modelopt", "fp8", EngineKind::generic, "", true},
      {"nothing declared", "modelopt", "", EngineKind::vllm, "", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    ModelSpec m;
    m.quantization.method = c.method;
    m.quantization.declared_kv_dtype = c.declared;
    m.quantization.origin = "config.json";
    m.quantization.declared_kv_source = "/quantization_config/kv_cache_quant_algo";
    EngineOptions e;
    e.kind = c.engine;
    if (!std::string(c.version).empty()) e.version = parse_engine_version(c.version, "test").value();
    const auto got = checkpoint_kv_dtype(m, e);
    EXPECT_EQ(got.has_value(), c.fp8);
    if (got) {
      EXPECT_EQ(got->dtype, KvDtype::fp8);
      EXPECT_NE(got->why.find("config.json /quantization_config/kv_cache_quant_algo"), std::string::npos) << got->why;
    }
  }
}

}  // namespace
}  // namespace preflight
