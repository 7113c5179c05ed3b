// merge_hf_quant_config: ModelOpt's hf_quant_config.json becomes the
// quantization_config of a config.json that declares none (vLLM get_quant_config).
#include "artifact/hf_quant_config.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace preflight {
namespace {

constexpr const char* kHf =
    R"({"producer": {"name": "modelopt", "version": "0.27.1"}, "quantization": {"quant_algo": "NVFP4",
        "kv_cache_quant_algo": "FP8", "group_size": 16, "exclude_modules": ["lm_head", "model.layers.*.self_attn*"]}})";

TEST(HfQuantConfig, FillsAConfigThatDeclaresNone) {
  auto got =
      merge_hf_quant_config(R"({"model_type": "llama", "hidden_size": 8})", "config.json", kHf, "hf_quant_config.json");
  ASSERT_TRUE(got.ok()) << got.error().to_string();
  ASSERT_TRUE(got->merged);
  const auto doc = nlohmann::json::parse(got->config);
  EXPECT_EQ(doc["quantization_config"]["quant_method"], "modelopt");
  EXPECT_EQ(doc["quantization_config"]["quant_algo"], "NVFP4");
  EXPECT_EQ(doc["quantization_config"]["exclude_modules"].size(), 2u);
  EXPECT_EQ(doc["hidden_size"], 8);
}

TEST(HfQuantConfig, ConfigJsonWins) {
  const std::string config = R"({"model_type": "llama", "quantization_config": {"quant_method": "fp8"}})";
  auto got = merge_hf_quant_config(config, "config.json", kHf, "hf_quant_config.json");
  ASSERT_TRUE(got.ok());
  EXPECT_FALSE(got->merged);
  EXPECT_EQ(got->config, config);
  EXPECT_EQ(
      got->note,
      "hf_quant_config.json not read: config.json declares quantization_config, which vLLM and SGLang read first");
  const std::string wrapped = R"({"text_config": {"quantization_config": {"quant_method": "fp8"}}})";
  auto inner = merge_hf_quant_config(wrapped, "config.json", kHf, "hf_quant_config.json");
  ASSERT_TRUE(inner.ok());
  EXPECT_FALSE(inner->merged);
}

TEST(HfQuantConfig, BadFilesAreNamedOnOneLine) {
  const std::pair<const char*, const char*> cases[] = {
      {"[1]", "hf_quant_config.json: expected a JSON object, got [1]"},
      {R"({"producer": {}})", "hf_quant_config.json: /quantization: missing: ModelOpt writes its settings there"},
      {R"({"quantization": "NVFP4"})", "hf_quant_config.json: /quantization: expected an object, got \"NVFP4\""},
  };
  for (const auto& [text, message] : cases) {
    SCOPED_TRACE(text);
    auto got = merge_hf_quant_config("{}", "config.json", text, "hf_quant_config.json");
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.error().to_string(), message);
  }
  auto syntax = merge_hf_quant_config("{}", "config.json", "{", "hf_quant_config.json");
  ASSERT_FALSE(syntax.ok());
  EXPECT_EQ(syntax.error().to_string().find('\n'), std::string::npos);
}

}  // namespace
}  // namespace preflight
