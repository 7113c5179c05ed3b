// The state-space hybrids as descriptions (data/architectures/bamba.json,
// granitemoehybrid.json, nemotron_h.json, jamba.json, falcon_h1.json, mamba2.json):
// layer kinds from each config's own pattern key, the Mamba mixer's tensors and
// the per-request state they imply. Bamba is exact against a real index total
// (ibm-fms/Bamba-9B-1.8T model.safetensors.index.json: total_size 19,560,470,784);
// the others have only their model cards (uncorpused_descriptions_test.cc).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "model/family_registry.h"
#include "model/request_state.h"

namespace preflight {
namespace {

ModelSpec build(const char* config) { return build_model_from_config(config, "config.json").value_or_throw(); }

std::map<std::string, std::string> shapes(const ModelSpec& m) {
  std::map<std::string, std::string> out;
  for (const auto& t : m.manifest.tensors) out[t.name] = shape_text(stored_shape(t));
  return out;
}

constexpr const char* kBamba9B = R"({"architectures": ["BambaForCausalLM"], "model_type": "bamba",
  "hidden_size": 4096, "num_hidden_layers": 32, "attn_layer_indices": [9, 18, 27], "intermediate_size": 14336,
  "num_attention_heads": 32, "num_key_value_heads": 8, "mamba_n_heads": 128, "mamba_d_head": 64, "mamba_d_state": 128,
  "mamba_n_groups": 1, "mamba_d_conv": 4, "mamba_expand": 2, "mamba_conv_bias": true, "mamba_proj_bias": false,
  "vocab_size": 128256, "tie_word_embeddings": false, "max_position_embeddings": 262144, "torch_dtype": "bfloat16"})";

TEST(SsmDescriptions, BambaMatchesItsIndexTotal) {
  const auto m = build(kBamba9B);
  EXPECT_EQ(m.family, "bamba");
  EXPECT_EQ(m.manifest.payload_bytes(), 19'560'470'784u);
  EXPECT_EQ(m.count_layers(LayerKind::full_attention), 3u);
  EXPECT_EQ(m.count_layers(LayerKind::mamba2), 29u);
  const auto s = shapes(m);
  EXPECT_EQ(s.at("model.layers.0.mamba.in_proj.weight"), "[16768, 4096]");  // 2 x 8192 + 2 x 1 x 128 + 128
  EXPECT_EQ(s.at("model.layers.0.mamba.conv1d.weight"), "[8448, 1, 4]");
  EXPECT_EQ(s.count("model.layers.9.mamba.in_proj.weight"), 0u);
  EXPECT_EQ(s.at("model.layers.9.self_attn.k_proj.weight"), "[1024, 4096]");
  // fp32 state: 29 layers x (128 heads x 64 x 128 x 4 B + 8,448 conv channels x 3 positions x 2 B).
  const auto rows = recurrent_state_per_rank(m, 1, 4);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].bytes, 29u * (128 * 64 * 128 * 4 + 8448 * 3 * 2));
  EXPECT_EQ(token_cache_per_rank(m, 2, 1)[0].bytes_per_token, 3u * 8 * 256 * 2);  // only the 3 attention layers
}

TEST(SsmDescriptions, NemotronHReadsItsPatternString) {
  const auto m = build(R"({"model_type": "nemotron_h", "hidden_size": 4096, "num_hidden_layers": 8,
    "hybrid_override_pattern": "M-M*-ME-", "intermediate_size": 1024, "num_attention_heads": 32,
    "num_key_value_heads": 8, "attention_head_dim": 128, "mamba_num_heads": 128, "mamba_head_dim": 64,
    "ssm_state_size": 128, "n_groups": 8, "vocab_size": 1000, "n_routed_experts": 4, "num_experts_per_tok": 2,
    "moe_intermediate_size": 256, "moe_shared_expert_intermediate_size": 512})");
  EXPECT_EQ(m.count_layers(LayerKind::mamba2), 3u);
  EXPECT_EQ(m.count_layers(LayerKind::full_attention), 1u);
  EXPECT_EQ(m.count_layers(LayerKind::stateless), 4u);  // three MLP layers and one MoE layer keep nothing
  const auto s = shapes(m);
  EXPECT_EQ(s.at("backbone.layers.1.mixer.up_proj.weight"), "[1024, 4096]");  // relu2: no gate_proj
  EXPECT_EQ(s.count("backbone.layers.1.mixer.gate_proj.weight"), 0u);
  EXPECT_EQ(s.at("backbone.layers.3.mixer.o_proj.weight"), "[4096, 4096]");
  EXPECT_EQ(s.at("backbone.layers.6.mixer.experts.{E}.up_proj.weight"), "[256, 4096]");
  EXPECT_EQ(s.at("backbone.layers.6.mixer.shared_experts.down_proj.weight"), "[4096, 512]");
  EXPECT_EQ(s.at("backbone.layers.0.mixer.in_proj.weight"), "[18560, 4096]");  // 2 x 8192 + 2 x 8 x 128 + 128
}

TEST(SsmDescriptions, JambaInterleavesAttentionAndExperts) {
  const auto m = build(R"({"model_type": "jamba", "hidden_size": 4096, "num_hidden_layers": 32,
    "num_experts": 16, "num_experts_per_tok": 2, "intermediate_size": 14336, "num_attention_heads": 32,
    "num_key_value_heads": 8, "vocab_size": 65536})");
  EXPECT_EQ(m.count_layers(LayerKind::full_attention), 4u);  // layers 4, 12, 20, 28
  const auto s = shapes(m);
  EXPECT_EQ(s.count("model.layers.4.self_attn.q_proj.weight"), 1u);
  EXPECT_EQ(s.at("model.layers.1.feed_forward.router.weight"), "[16, 4096]");  // odd layers are MoE
  EXPECT_EQ(s.count("model.layers.2.feed_forward.gate_proj.weight"), 1u);
  EXPECT_EQ(s.at("model.layers.0.mamba.x_proj.weight"), "[288, 8192]");  // dt_rank auto = 256, + 2 x 16
  EXPECT_EQ(s.at("model.layers.0.mamba.A_log"), "[8192, 16]");
  // Mamba-1 state, fp32: 28 layers x (8,192 x 16 x 4 B + 8,192 x 3 x 2 B).
  EXPECT_EQ(recurrent_state_per_rank(m, 1, 4)[0].bytes, 28u * (8192 * 16 * 4 + 8192 * 3 * 2));
}

TEST(SsmDescriptions, GraniteHybridFusesItsExperts) {
  const auto m = build(R"({"model_type": "granitemoehybrid", "hidden_size": 1536, "num_hidden_layers": 4,
    "layer_types": ["mamba", "attention", "mamba", "mamba"], "num_attention_heads": 12, "num_key_value_heads": 4,
    "intermediate_size": 512, "num_local_experts": 64, "num_experts_per_tok": 6, "shared_intermediate_size": 1024,
    "mamba_n_heads": 48, "mamba_d_head": 64, "mamba_d_state": 128, "vocab_size": 100352, "tie_word_embeddings": true})");
  const auto s = shapes(m);
  EXPECT_EQ(s.at("model.layers.0.block_sparse_moe.input_linear.weight"), "[64, 1024, 1536]");
  EXPECT_EQ(s.at("model.layers.0.block_sparse_moe.output_linear.weight"), "[64, 1536, 512]");
  EXPECT_EQ(s.at("model.layers.1.shared_mlp.input_linear.weight"), "[2048, 1536]");
  EXPECT_EQ(s.count("lm_head.weight"), 0u);
  EXPECT_EQ(m.count_layers(LayerKind::mamba2), 3u);
  // Dense H models (no experts) keep only the shared MLP, as a dense MLP.
  const auto dense = build(R"({"model_type": "granitemoehybrid", "hidden_size": 1536, "num_hidden_layers": 2,
    "layer_types": ["mamba", "attention"], "num_attention_heads": 12, "intermediate_size": 512, "num_local_experts": 0,
    "num_experts_per_tok": 0, "shared_intermediate_size": 4096, "mamba_n_heads": 48, "mamba_d_head": 64,
    "vocab_size": 1000})");
  EXPECT_EQ(shapes(dense).count("model.layers.0.block_sparse_moe.router.layer.weight"), 0u);
  EXPECT_EQ(dense.moe.dense_intermediate, 4096u);
}

TEST(SsmDescriptions, FalconH1StoresTheMambaNormOnlyWhenAsked) {
  const char* config = R"({"model_type": "falcon_h1", "hidden_size": 1024, "num_hidden_layers": 2,
    "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 64, "intermediate_size": 2048,
    "mamba_d_ssm": 1536, "mamba_n_heads": 24, "mamba_d_head": 64, "mamba_d_state": 128, "mamba_rms_norm": false,
    "vocab_size": 32784})";
  const auto s = shapes(build(config));
  EXPECT_EQ(s.at("model.layers.0.mamba.in_proj.weight"), "[3352, 1024]");  // 2 x 1536 + 2 x 128 + 24
  EXPECT_EQ(s.count("model.layers.0.mamba.norm.weight"), 0u);
  EXPECT_EQ(s.count("model.layers.0.self_attn.q_proj.weight"), 1u);  // attention and Mamba in every layer
}

}  // namespace
}  // namespace preflight
