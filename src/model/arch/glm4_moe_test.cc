// The glm4_moe description (data/architectures/glm4_moe.json) against
// GLM-4.5-Air and GLM-4.5. The configs below are the values of the public
// zai-org/GLM-4.5-Air and zai-org/GLM-4.5 config.json
// (keys the reader does not use are left out). Totals are the Hugging Face
// Hub's safetensors parameter counts (api/models/<repo>?expand[]=safetensors,
// quoted in debaditc/kvfit scripts/build_registry.py): GLM-4.5-Air
// 110,468,824,832, GLM-4.5 358,337,791,296. The Hub lists Air as BF16 plus
// 5,888 F32 values (the score-correction biases), so its payload is
// 2 x BF16 + 4 x F32 bytes; no index total_size was read. The totals add up
// only with the MTP layer's own embed_tokens and shared_head.head.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "config_error_cases.h"
#include "model/family_registry.h"
#include "model/inventory.h"
#include "model/request_state.h"

namespace preflight {
namespace {

nlohmann::json glm45_air() {
  return nlohmann::json::parse(R"({
    "architectures": ["Glm4MoeForCausalLM"],
    "attention_bias": true,
    "first_k_dense_replace": 1,
    "head_dim": 128,
    "hidden_size": 4096,
    "intermediate_size": 10944,
    "max_position_embeddings": 131072,
    "model_type": "glm4_moe",
    "moe_intermediate_size": 1408,
    "n_group": 1,
    "n_routed_experts": 128,
    "n_shared_experts": 1,
    "norm_topk_prob": true,
    "num_attention_heads": 96,
    "num_experts_per_tok": 8,
    "num_hidden_layers": 46,
    "num_key_value_heads": 8,
    "num_nextn_predict_layers": 1,
    "partial_rotary_factor": 0.5,
    "routed_scaling_factor": 1.0,
    "tie_word_embeddings": false,
    "topk_group": 1,
    "torch_dtype": "bfloat16",
    "use_qk_norm": false,
    "vocab_size": 151552
  })");
}

nlohmann::json glm45() {
  auto doc = glm45_air();
  doc["hidden_size"] = 5120;
  doc["intermediate_size"] = 12288;
  doc["moe_intermediate_size"] = 1536;
  doc["n_routed_experts"] = 160;
  doc["first_k_dense_replace"] = 3;
  doc["num_hidden_layers"] = 92;
  doc["routed_scaling_factor"] = 2.5;
  doc["use_qk_norm"] = true;
  return doc;
}

ModelSpec build(const nlohmann::json& doc) {
  return build_model_from_config(doc.dump(), "config.json").value_or_throw();
}

TEST(Glm, Glm45AirMatchesTheHubTotals) {
  const auto m = build(glm45_air());
  EXPECT_EQ(m.family, "glm4_moe");
  EXPECT_EQ(m.manifest.logical_params(), 110'468'824'832u);
  const auto inv = build_inventory(m);
  EXPECT_EQ(inv.elements_by_dtype.at("F32"), 5'888u);  // 46 MoE layers (45 + MTP) x 128
  // BF16 x 2 + F32 x 4 of the Hub's per-dtype counts.
  EXPECT_EQ(m.manifest.payload_bytes(), 220'937'661'440u);
  ASSERT_EQ(m.layers.size(), 46u);
  EXPECT_EQ(m.count_layers(LayerKind::full_attention), 46u);
  EXPECT_EQ(m.mtp_layers, 1u);
  EXPECT_EQ(m.gqa.heads * m.gqa.head_dim, 12'288u);  // not hidden_size
}

TEST(Glm, Glm45MatchesTheHubTotal) {
  const auto m = build(glm45());
  EXPECT_EQ(m.manifest.logical_params(), 358'337'791'296u);
  const auto inv = build_inventory(m);
  EXPECT_EQ(inv.elements_by_dtype.at("F32"), 14'400u);  // 90 MoE layers (89 + MTP) x 160
  EXPECT_EQ(m.manifest.payload_bytes(), 716'675'611'392u);
  EXPECT_EQ(inv.moe_layers, 89u);  // the MTP layer's experts count under mtp
}

TEST(Glm, MtpLayerHoldsItsOwnEmbeddingAndHead) {
  const auto m = build(glm45_air());
  std::map<std::string, const StoredTensor*> by_name;
  for (const auto& t : m.manifest.tensors) by_name[t.name] = &t;
  struct Want {
    const char* name;
    const char* shape;
  };
  for (const auto& w : {Want{"model.layers.46.embed_tokens.weight", "[151552, 4096]"},
                        Want{"model.layers.46.shared_head.head.weight", "[151552, 4096]"},
                        Want{"model.layers.46.eh_proj.weight", "[4096, 8192]"},
                        Want{"model.layers.46.mlp.experts.{E}.down_proj.weight", "[4096, 1408]"},
                        Want{"model.layers.0.mlp.gate_proj.weight", "[10944, 4096]"},
                        Want{"model.layers.1.self_attn.q_proj.bias", "[12288]"},
                        Want{"model.layers.1.self_attn.k_proj.weight", "[1024, 4096]"}}) {
    ASSERT_TRUE(by_name.count(w.name)) << w.name;
    EXPECT_EQ(shape_text(by_name.at(w.name)->shape), w.shape) << w.name;
    EXPECT_EQ(by_name.at(w.name)->module == ModuleClass::mtp, std::string(w.name).find(".46.") != std::string::npos)
        << w.name;
  }
  EXPECT_EQ(by_name.count("model.layers.1.self_attn.q_norm.weight"), 0u);  // Air: use_qk_norm false
  EXPECT_EQ(dtype_name(by_name.at("model.layers.1.mlp.gate.e_score_correction_bias")->dtype), "F32");
  EXPECT_EQ(dtype_name(by_name.at("model.layers.1.mlp.gate.weight")->dtype), "BF16");
}

TEST(Glm, KvCacheCountsDecoderLayersOnly) {
  const auto m = build(glm45_air());
  const auto rows = token_cache_per_rank(m, 2, 1);
  ASSERT_EQ(rows.size(), 1u);
  // 46 layers x 8 KV heads x (128 + 128) x 2 B; the MTP layer 46 is not counted.
  EXPECT_EQ(rows[0].bytes_per_token, 188'416u);
}

TEST(Glm, BadConfigsNameTheField) {
  testing::expect_config_errors(
      glm45_air(),
      {
          {"/num_key_value_heads", "7",
           "config.json: /num_key_value_heads: 96 attention heads are not a multiple of 7 KV heads"},
          {"/num_experts_per_tok", "129",
           "config.json: /num_experts_per_tok: 129 selected experts exceed the 128 routed experts"},
          {"/n_routed_experts", "DELETE", "config.json: /n_routed_experts: missing positive integer"},
          {"/attention_bias", "1", "config.json: /attention_bias: expected true or false, got 1"},
          {"/first_k_dense_replace", "47", "config.json: /first_k_dense_replace: 47 exceeds the 46 layers"},
      });
}

}  // namespace
}  // namespace preflight
