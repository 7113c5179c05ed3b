// engine_auto_dtype: what --dtype auto serves, by engine, version and config dtype
// (vLLM vllm/config/model.py _resolve_auto_dtype and vllm#18751; SGLang
// model_config.py _get_and_verify_dtype).
#include "engine/engine_dtype.h"

#include <gtest/gtest.h>

namespace preflight {
namespace {

TEST(EngineAutoDtype, Float32ConfigsAreServedIn16Bits) {
  struct Case {
    const char* what;
    Dtype config;
    const char* family;
    EngineKind engine;
    const char* version;
    const char* want;  // "" = auto keeps the config's dtype
  };
  const Case cases[] = {
      {"vLLM, no version (the newest)", Dtype::F32, "qwen3", EngineKind::vllm, "", "bfloat16"},
      {"vLLM 0.9.1, the first with vllm#18751", Dtype::F32, "qwen3", EngineKind::vllm, "0.9.1", "bfloat16"},
      {"vLLM 0.9.0: float16", Dtype::F32, "qwen3", EngineKind::vllm, "0.9.0", "float16"},
      {"vLLM 0.6.4: float16", Dtype::F32, "llama", EngineKind::vllm, "0.6.4", "float16"},
      {"SGLang: float16", Dtype::F32, "qwen3", EngineKind::sglang, "", "float16"},
      {"SGLang Gemma: bfloat16", Dtype::F32, "gemma2", EngineKind::sglang, "", "bfloat16"},
      {"generic engine: the files", Dtype::F32, "qwen3", EngineKind::generic, "", ""},
      {"bfloat16 config: kept", Dtype::BF16, "qwen3", EngineKind::vllm, "", ""},
      {"float16 config: kept", Dtype::F16, "llama", EngineKind::sglang, "", ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    ModelSpec m;
    m.dtype = c.config;
    m.family = c.family;
    EngineOptions e;
    e.kind = c.engine;
    if (!std::string(c.version).empty()) e.version = parse_engine_version(c.version, "test").value();
    const auto got = engine_auto_dtype(m, e);
    EXPECT_EQ(got ? got->dtype : std::string(), c.want);
    if (got) {
      EXPECT_NE(got->why.find("float32 config"), std::string::npos) << got->why;
    }
  }
}

}  // namespace
}  // namespace preflight
