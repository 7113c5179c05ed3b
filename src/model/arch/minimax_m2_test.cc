// The minimax_m2 description (data/architectures/minimax_m2.json) against
// MiniMaxAI/MiniMax-M2. The config below carries
// the values of the public config.json (attn_type_list generated: 62 ones).
// Totals: the safetensors payload read from the repository's headers by
// hf-mem (alvarobartt/hf-mem README.md: MiniMaxAI/MiniMax-M2 memory =
// 230,121,630,720 bytes) and the parameter count without block scales
// (228,689,764,864: the Hub's safetensors total and llama.cpp's n_params).
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "config_error_cases.h"
#include "model/family_registry.h"
#include "model/inventory.h"
#include "model/quantization.h"
#include "model/request_state.h"

namespace preflight {
namespace {

nlohmann::json minimax_m2() {
  auto doc = nlohmann::json::parse(R"({
    "architectures": ["MiniMaxM2ForCausalLM"],
    "head_dim": 128,
    "hidden_act": "silu",
    "hidden_size": 3072,
    "intermediate_size": 1536,
    "max_position_embeddings": 196608,
    "model_type": "minimax_m2",
    "mtp_transformer_layers": 1,
    "num_attention_heads": 48,
    "num_experts_per_tok": 8,
    "num_hidden_layers": 62,
    "num_key_value_heads": 8,
    "num_local_experts": 256,
    "num_mtp_modules": 3,
    "qk_norm_type": "per_layer",
    "quantization_config": {
      "activation_scheme": "dynamic",
      "fmt": "float8_e4m3fn",
      "quant_method": "fp8",
      "weight_block_size": [128, 128],
      "modules_to_not_convert": ["gate", "e_score_correction_bias", "lm_head"]
    },
    "rms_norm_eps": 1e-06,
    "rope_theta": 5000000,
    "rotary_dim": 64,
    "scoring_func": "sigmoid",
    "shared_intermediate_size": 0,
    "tie_word_embeddings": false,
    "torch_dtype": "bfloat16",
    "use_mtp": true,
    "use_qk_norm": true,
    "use_routing_bias": true,
    "vocab_size": 200064
  })");
  doc["attn_type_list"] = std::vector<int>(62, 1);
  return doc;
}

nlohmann::json unquantized() {
  auto doc = minimax_m2();
  doc.erase("quantization_config");
  return doc;
}

ModelSpec build(const nlohmann::json& doc) {
  return build_model_from_config(doc.dump(), "config.json").value_or_throw();
}

TEST(MiniMax, LogicalShapesAndParameters) {
  const auto m = build(unquantized());
  EXPECT_EQ(m.family, "minimax_m2");
  EXPECT_EQ(m.manifest.logical_params(), 228'689'764'864u);
  ASSERT_EQ(m.layers.size(), 62u);
  EXPECT_EQ(m.count_layers(LayerKind::full_attention), 62u);
  EXPECT_EQ(m.mtp_layers, 0u);  // use_mtp, but no MTP tensors are shipped
  ASSERT_FALSE(m.notes.empty());
  std::map<std::string, const StoredTensor*> by_name;
  for (const auto& t : m.manifest.tensors) by_name[t.name] = &t;
  struct Want {
    const char* name;
    const char* shape;
    const char* dtype;
  };
  for (const auto& w : {Want{"model.layers.0.self_attn.q_proj.weight", "[6144, 3072]", "BF16"},
                        Want{"model.layers.0.self_attn.q_norm.weight", "[6144]", "BF16"},  // all 48 heads
                        Want{"model.layers.0.self_attn.k_norm.weight", "[1024]", "BF16"},
                        Want{"model.layers.61.block_sparse_moe.gate.weight", "[256, 3072]", "F32"},
                        Want{"model.layers.61.block_sparse_moe.e_score_correction_bias", "[256]", "F32"},
                        Want{"model.layers.61.block_sparse_moe.experts.{E}.w2.weight", "[3072, 1536]", "BF16"}}) {
    ASSERT_TRUE(by_name.count(w.name)) << w.name;
    EXPECT_EQ(shape_text(by_name.at(w.name)->shape), w.shape) << w.name;
    EXPECT_EQ(dtype_name(by_name.at(w.name)->dtype), w.dtype) << w.name;
  }
  // No dense layer and no shared expert: every layer is MoE.
  const auto inv = build_inventory(m);
  EXPECT_EQ(inv.moe_layers, 62u);
  EXPECT_EQ(inv.routed_params_per_expert, 14'155'776u);  // 3 x 1536 x 3072
}

TEST(MiniMax, Fp8PayloadMatchesTheHeaders) {
  const auto m = build(minimax_m2());
  EXPECT_EQ(m.manifest.payload_bytes(), 230'121'630'720u);
  EXPECT_EQ(m.manifest.logical_params(), 228'689'764'864u);
  const auto inv = build_inventory(m);
  // FP8: 62 x (attention 44,040,192 + experts 3,623,878,656) weights, one byte each.
  EXPECT_EQ(inv.bytes_by_dtype.at("F8_E4M3"), 227'410'968'576u);
}

TEST(MiniMax, KvCachePerToken) {
  const auto m = build(unquantized());
  const auto rows = token_cache_per_rank(m, 2, 1);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].bytes_per_token, 253'952u);  // 62 x 8 x (128 + 128) x 2 B
}

TEST(MiniMax, BadConfigsNameTheField) {
  testing::expect_config_errors(
      unquantized(),
      {
          {"/qk_norm_type", "\"per_head\"",
           "config.json: /qk_norm_type: 'per_head' is not supported (the released checkpoints use per_layer)"},
          {"/shared_intermediate_size", "1536",
           "config.json: /shared_intermediate_size: 1536: no MiniMax-M2 checkpoint has a shared expert, so its naming "
           "is "
           "unknown"},
          {"/attn_type_list/5", "0",
           "config.json: /attn_type_list: attention type 0 (lightning) is not supported in minimax_m2 (only 1, full "
           "attention; MiniMax-M1 is model_type minimax_m1)"},
          {"/num_local_experts", "DELETE", "config.json: /num_local_experts: missing positive integer"},
          {"/num_key_value_heads", "5",
           "config.json: /num_key_value_heads: 48 attention heads are not a multiple of 5 KV heads"},
          {"/use_routing_bias", "\"true\"", "config.json: /use_routing_bias: expected true or false, got \"true\""},
      });
}

}  // namespace
}  // namespace preflight
