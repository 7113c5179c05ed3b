// Bad configs give one located line: origin, JSON pointer, what is wrong.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "embedded_files.h"
#include "model/family_registry.h"

namespace preflight {
namespace {

struct BadConfig {
  const char* pointer;  // where to write
  const char* value;    // JSON text to write there ("DELETE" removes the key)
  const char* error;    // the exact message
};

TEST(KimiK3ConfigErrors, EachBadFieldIsNamed) {
  const BadConfig cases[] = {
      {"/text_config/num_attention_heads", "-4",
       "config.json: /text_config/num_attention_heads: expected a positive integer, got -4"},
      {"/text_config/hidden_size", "\"7168\"",
       "config.json: /text_config/hidden_size: expected a positive integer, got \"7168\""},
      {"/text_config/vocab_size", "DELETE", "config.json: /text_config/vocab_size: missing positive integer"},
      {"/text_config/num_experts_per_token", "1000",
       "config.json: /text_config/num_experts_per_token: 1000 selected experts exceed the 896 routed experts"},
      {"/text_config/linear_attn_config/kda_layers/0", "0",
       "config.json: /text_config/linear_attn_config/kda_layers/0: layer 0 is outside 1..93 (these lists are "
       "1-indexed)"},
      {"/text_config/linear_attn_config/kda_layers/1", "1",
       "config.json: /text_config/linear_attn_config/kda_layers/1: layer 1 is listed twice"},
      {"/text_config/linear_attn_config/full_attn_layers", "[]",
       "config.json: /text_config/linear_attn_config/kda_layers: kda_layers and full_attn_layers list 69 of the 93 "
       "layers: every layer must be in one of them (1-indexed)"},
      {"/text_config/linear_attn_config/full_attn_layers/-", "1",
       "config.json: /text_config/linear_attn_config/kda_layers: 1 layer(s) are in both kda_layers and "
       "full_attn_layers"},
      {"/text_config/quantization_config/quant_method", "\"hqq\"",
       "config.json: /text_config/quantization_config/quant_method: quantization method 'hqq' is not supported "
       "yet"},
      {"/text_config/quantization_config/ignore/0", "\"re:(\"",
       "config.json: /text_config/quantization_config/ignore/0: invalid regular expression 're:('"},
      {"/text_config/quantization_config/config_groups/group_0/weights/group_size", "0",
       "config.json: /text_config/quantization_config/config_groups/group_0/weights/group_size: expected a positive "
       "integer, got 0"},
      {"/dtype", "\"float128\"", "config.json: /dtype: unknown dtype \"float128\""},
      {"/text_config", "DELETE", "config.json: /text_config: missing object (the text of a kimi_k3 model)"},
      {"/text_config/linear_attn_config", "[1]",
       "config.json: /text_config/linear_attn_config: expected an object, got [1]"},
      {"/vision_config/vt_num_hidden_layers", "null",
       "config.json: /vision_config/vt_num_hidden_layers: missing positive integer"},
  };
  const auto base = nlohmann::json::parse(embedded::data_models_kimi_k3_config_json);
  for (const auto& c : cases) {
    auto doc = base;
    const nlohmann::json::json_pointer ptr(c.pointer);
    if (std::string(c.value) == "DELETE")
      doc[ptr.parent_pointer()].erase(ptr.back());
    else
      doc[ptr] = nlohmann::json::parse(c.value);
    const auto result = build_model_from_config(doc.dump(), "config.json");
    ASSERT_FALSE(result.ok()) << c.pointer;
    EXPECT_EQ(result.error().to_string(), c.error);
  }
}

TEST(KimiK3ConfigErrors, NotJsonAtAll) {
  EXPECT_EQ(
      build_model_from_config("{", "config.json").error().to_string(),
      "config.json: invalid JSON: parse error at line 1, column 2: syntax error while parsing object key - unexpected "
      "end of input; expected string literal");
  EXPECT_EQ(build_model_from_config("[]", "config.json").error().to_string(),
            "config.json: expected a JSON object at the top level");
}

TEST(KimiK3ConfigErrors, IndexSensitivePatternsAreDecidedPerExpert) {
  // An ignore rule naming one expert keeps exactly that expert in BF16.
  auto doc = nlohmann::json::parse(embedded::data_models_kimi_k3_config_json);
  doc["text_config"]["quantization_config"]["ignore"].push_back(
      "re:.*layers\\.1\\.block_sparse_moe\\.experts\\.7\\..*");
  const auto m = build_model_from_config(doc.dump(), "config.json").value_or_throw();
  int bf16_experts = 0;
  for (const auto& t : m.manifest.tensors)
    if (t.module == ModuleClass::routed_experts && t.dtype == Dtype::BF16)
      bf16_experts += static_cast<int>(t.instances);
  EXPECT_EQ(bf16_experts, 3);  // w1, w3, w2 of layer 1 expert 7
  // 3 weights now 16-bit instead of 4.25-bit: payload grows by exactly their difference.
  const std::uint64_t bf16 = 3ULL * 3072 * 3584 * 2;
  const std::uint64_t mxfp4 = 17'547'264;
  EXPECT_EQ(m.manifest.payload_bytes(), 1'560'860'324'864ULL - mxfp4 + bf16);
}

}  // namespace
}  // namespace preflight
