// The qwen3_next description (data/architectures/qwen3_next.json) against
// Qwen/Qwen3-Next-80B-A3B-Instruct. The config
// below carries the values of the public config.json (the same values are in
// debaditc/kvfit src/kvfit/data/models.json). Totals: the Hub's safetensors
// parameter count for the repository, 81,324,862,720 (debaditc/kvfit
// scripts/build_registry.py, read from api/models/<repo>?expand[]=safetensors),
// and 79,674,391,296 for Qwen/Qwen3-Coder-Next, the same architecture shipped
// without MTP weights. Every tensor is BF16 (A_log and dt_bias included), so
// the payload is twice the parameters; no index total_size was read.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "config_error_cases.h"
#include "model/family_registry.h"
#include "model/inventory.h"
#include "model/request_state.h"

namespace preflight {
namespace {

nlohmann::json qwen3_next() {
  return nlohmann::json::parse(R"({
    "architectures": ["Qwen3NextForCausalLM"],
    "decoder_sparse_step": 1,
    "full_attention_interval": 4,
    "head_dim": 256,
    "hidden_act": "silu",
    "hidden_size": 2048,
    "intermediate_size": 5120,
    "linear_conv_kernel_dim": 4,
    "linear_key_head_dim": 128,
    "linear_num_key_heads": 16,
    "linear_num_value_heads": 32,
    "linear_value_head_dim": 128,
    "max_position_embeddings": 262144,
    "mlp_only_layers": [],
    "model_type": "qwen3_next",
    "moe_intermediate_size": 512,
    "norm_topk_prob": true,
    "num_attention_heads": 16,
    "num_experts": 512,
    "num_experts_per_tok": 10,
    "num_hidden_layers": 48,
    "num_key_value_heads": 2,
    "partial_rotary_factor": 0.25,
    "rope_theta": 10000000,
    "shared_expert_intermediate_size": 512,
    "tie_word_embeddings": false,
    "torch_dtype": "bfloat16",
    "use_sliding_window": false,
    "vocab_size": 151936
  })");
}

ModelSpec build(const nlohmann::json& doc) {
  return build_model_from_config(doc.dump(), "config.json").value_or_throw();
}

TEST(Qwen3Next, LayerKindsFollowTheInterval) {
  const auto m = build(qwen3_next());
  EXPECT_EQ(m.family, "qwen3_next");
  ASSERT_EQ(m.layers.size(), 48u);
  EXPECT_EQ(m.count_layers(LayerKind::full_attention), 12u);
  EXPECT_EQ(m.count_layers(LayerKind::gated_deltanet), 36u);
  for (std::size_t i = 0; i < 48; ++i)
    EXPECT_EQ(m.layers[i], (i + 1) % 4 == 0 ? LayerKind::full_attention : LayerKind::gated_deltanet) << i;
  EXPECT_EQ(m.gdn.v_heads, 32u);
  EXPECT_EQ(m.gdn.k_heads, 16u);
  EXPECT_EQ(m.mtp_layers, 1u);
}

TEST(Qwen3Next, TensorShapesAndDtypes) {
  const auto m = build(qwen3_next());
  std::map<std::string, const StoredTensor*> by_name;
  for (const auto& t : m.manifest.tensors) by_name[t.name] = &t;
  struct Want {
    const char* name;
    const char* shape;
  };
  for (const auto& w :
       {Want{"model.layers.3.self_attn.q_proj.weight", "[8192, 2048]"},  // 16 x 256 x 2 (query + gate)
        Want{"model.layers.3.self_attn.k_proj.weight", "[512, 2048]"},
        Want{"model.layers.3.self_attn.o_proj.weight", "[2048, 4096]"},
        Want{"model.layers.3.self_attn.q_norm.weight", "[256]"},
        Want{"model.layers.0.linear_attn.in_proj_qkvz.weight", "[12288, 2048]"},
        Want{"model.layers.0.linear_attn.in_proj_ba.weight", "[64, 2048]"},
        Want{"model.layers.0.linear_attn.conv1d.weight", "[8192, 1, 4]"},
        Want{"model.layers.0.linear_attn.A_log", "[32]"}, Want{"model.layers.0.linear_attn.dt_bias", "[32]"},
        Want{"model.layers.0.linear_attn.norm.weight", "[128]"},
        Want{"model.layers.0.linear_attn.out_proj.weight", "[2048, 4096]"},
        Want{"model.layers.0.mlp.shared_expert.down_proj.weight", "[2048, 512]"},
        Want{"model.layers.0.mlp.shared_expert_gate.weight", "[1, 2048]"},
        Want{"model.layers.47.mlp.experts.{E}.gate_proj.weight", "[512, 2048]"}, Want{"mtp.fc.weight", "[2048, 4096]"},
        Want{"mtp.layers.0.self_attn.q_proj.weight", "[8192, 2048]"},
        Want{"mtp.layers.0.mlp.experts.{E}.down_proj.weight", "[2048, 512]"}}) {
    ASSERT_TRUE(by_name.count(w.name)) << w.name;
    EXPECT_EQ(shape_text(by_name.at(w.name)->shape), w.shape) << w.name;
  }
  // Every tensor is BF16, A_log and dt_bias included.
  const auto inv = build_inventory(m);
  EXPECT_EQ(inv.elements_by_dtype.size(), 1u);
  EXPECT_EQ(inv.elements_by_dtype.count("BF16"), 1u);
  EXPECT_EQ(by_name.count("mtp.embed_tokens.weight"), 0u);  // the MTP block shares the embedding and head
}

TEST(Qwen3Next, TotalsMatchTheHubCount) {
  const auto m = build(qwen3_next());
  EXPECT_EQ(m.manifest.logical_params(), 81'324'862'720u);
  EXPECT_EQ(m.manifest.payload_bytes(), 162'649'725'440u);  // all BF16
  // The MTP block under mtp.*: about 1.65B parameters, no config field.
  std::uint64_t mtp = 0;
  for (const auto& t : m.manifest.tensors)
    if (t.module == ModuleClass::mtp) mtp += t.logical_params();
  EXPECT_EQ(mtp, 1'650'471'424u);
  // Qwen3-Coder-Next: the same architecture without MTP weights.
  auto coder = qwen3_next();
  coder["mtp_num_hidden_layers"] = 0;
  const auto c = build(coder);
  EXPECT_EQ(c.mtp_layers, 0u);
  EXPECT_EQ(c.manifest.logical_params(), 79'674'391'296u);
  EXPECT_EQ(m.manifest.logical_params() - c.manifest.logical_params(), mtp);
}

TEST(Qwen3Next, RequestState) {
  const auto m = build(qwen3_next());
  const auto cache = token_cache_per_rank(m, 2, 1);
  ASSERT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache[0].bytes_per_token, 24'576u);  // 12 full layers x 2 KV heads x (256 + 256) x 2 B
  const auto state = recurrent_state_per_rank(m, 1, 4);
  ASSERT_EQ(state.size(), 1u);
  EXPECT_EQ(state[0].recurrent_bytes, 75'497'472u);  // 36 x 32 x 128 x 128 x 4 B
  EXPECT_EQ(state[0].conv_bytes, 1'769'472u);        // 36 x (2 x 16 x 128 + 32 x 128) x 3 x 2 B
}

TEST(Qwen3Next, BadConfigsNameTheField) {
  testing::expect_config_errors(
      qwen3_next(),
      {
          {"/full_attention_interval", "0",
           "config.json: /full_attention_interval: expected a positive integer, got 0"},
          {"/linear_num_value_heads", "24",
           "config.json: /linear_num_value_heads: 24 value heads are not a multiple of the 16 key heads"},
          {"/layer_types", "[\"linear_attention\"]", "config.json: /layer_types: 1 entries for 48 layers"},
          {"/mlp_only_layers", "[-1]", "config.json: /mlp_only_layers/0: expected a non-negative integer, got -1"},
          {"/num_experts_per_tok", "513",
           "config.json: /num_experts_per_tok: 513 selected experts exceed the 512 routed experts"},
          {"/linear_conv_kernel_dim", "DELETE", "config.json: /linear_conv_kernel_dim: missing positive integer"},
      });
  // An explicit layer_types list wins over the interval.
  auto doc = qwen3_next();
  std::vector<std::string> types(48, "linear_attention");
  types[0] = "full_attention";
  doc["layer_types"] = types;
  const auto m = build(doc);
  EXPECT_EQ(m.layers[0], LayerKind::full_attention);
  EXPECT_EQ(m.count_layers(LayerKind::full_attention), 1u);
}

// A layer type the description does not read is refused with its index, not
// read as full attention (which would drop the layer's recurrent state).
TEST(Qwen3Next, AnUnknownLayerTypeIsRefusedNotReadAsFullAttention) {
  auto doc = qwen3_next();
  std::vector<std::string> types(48, "linear_attention");
  for (std::size_t i = 3; i < 48; i += 4) types[i] = "full_attention";
  types[5] = "linear_atention";
  doc["layer_types"] = types;
  auto m = build_model_from_config(doc.dump(), "config.json");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().to_string(),
            "config.json: /layer_types/5: unknown layer type 'linear_atention' for architecture qwen3_next (it reads "
            "full_attention, gated_deltanet, linear_attention)");
}

}  // namespace
}  // namespace preflight
