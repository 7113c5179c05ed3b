// Checks the MoE decoder reader (Mixtral, Qwen2-MoE, Qwen3-MoE) against the
// released totals in tests/data/reference/models/TRUTH.md and a few public configs
// written inline with the source of their figures.
//
// Active parameters follow Inventory's definition: every text tensor except the
// input embedding and the routed experts, plus experts_per_token routed experts
// per MoE layer. Model cards count the input embedding too (Mixtral "12.9B" =
// 12,748,853,248 + 131,072,000 embedding; Qwen3-235B-A22B "22B" = 21,568,433,664 +
// 622,329,856), so the figures asserted here are the definition's, stated exactly.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "config_error_cases.h"
#include "model/family_registry.h"
#include "model/inventory.h"
#include "reference_files.h"

namespace preflight {
namespace {

ModelSpec load_shared(const std::string& rel) {
  const auto text = testing::read_reference("models/" + rel);
  EXPECT_FALSE(text.empty()) << "not found: " << testing::reference_path("models/" + rel);
  return build_model_from_config(text, rel).value_or_throw();
}

const StoredTensor* find(const ModelSpec& m, const std::string& name) {
  for (const auto& t : m.manifest.tensors)
    if (t.name == name) return &t;
  return nullptr;
}

struct Case {
  const char* config;
  std::uint64_t bytes, params, tensors, active;
  const char* why;
};

TEST(MoeDecoderShared, PayloadParamsTensorsAndActiveParameters) {
  const Case cases[] = {
      // 995 tensors = 32 x (4 attention + 2 norms + router + 24 expert weights) + 3: derived.
      {"mistralai__Mixtral-8x7B-v0.1/config.json", 93'405'585'408, 46'702'792'704, 995, 12'748'853'248,
       "TRUTH.md: index total_size, params 46,702,792,704"},
      {"mistralai__Mixtral-8x7B-Instruct-v0.1/config.json", 93'405'585'408, 46'702'792'704, 995, 12'748'853'248,
       "notes.md: same checkpoint shapes as the base"},
      {"Qwen__Qwen3-235B-A22B-Instruct-2507/config.json", 470'187'269'120, 235'093'634'560, 36'945, 21'568'433'664,
       "TRUTH.md V2: index total_size, 36,945 tensors, params"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.config);
    const auto m = load_shared(c.config);
    EXPECT_TRUE(m.family == "mixtral" || m.family == "qwen3_moe") << m.family;
    EXPECT_EQ(m.manifest.payload_bytes(), c.bytes) << c.why;
    EXPECT_EQ(m.manifest.logical_params(), c.params) << c.why;
    EXPECT_EQ(m.manifest.tensor_count(), c.tensors) << c.why;
    EXPECT_EQ(build_inventory(m).active_params, c.active);
  }
}

TEST(MoeDecoderShared, MixtralSpecAndTensors) {
  const auto m = load_shared("mistralai__Mixtral-8x7B-v0.1/config.json");
  EXPECT_EQ(m.architecture, "MixtralForCausalLM");
  EXPECT_EQ(m.moe.routed_experts, 8u);
  EXPECT_EQ(m.moe.experts_per_token, 2u);
  EXPECT_EQ(m.moe.moe_intermediate, 14'336u);
  EXPECT_EQ(m.moe.shared_experts, 0u);
  EXPECT_EQ(m.moe.first_dense_layers, 0u);
  EXPECT_EQ(m.moe.dense_intermediate, 0u);
  EXPECT_EQ(m.count_layers(LayerKind::full_attention), 32u);  // sliding_window null
  EXPECT_EQ(m.gqa.kv_heads, 8u);
  EXPECT_EQ(m.gqa.head_dim, 128u);
  EXPECT_TRUE(m.notes.empty());
  const auto* gate = find(m, "model.layers.0.block_sparse_moe.gate.weight");
  ASSERT_NE(gate, nullptr);
  EXPECT_EQ(shape_text(gate->shape), "[8, 4096]");
  EXPECT_EQ(gate->module, ModuleClass::router);
  EXPECT_EQ(gate->role, ParallelRole::replicated);
  struct Want {
    const char* name;
    const char* shape;
  };
  for (auto w : {Want{"model.layers.31.block_sparse_moe.experts.{E}.w1.weight", "[14336, 4096]"},
                 Want{"model.layers.31.block_sparse_moe.experts.{E}.w3.weight", "[14336, 4096]"},
                 Want{"model.layers.31.block_sparse_moe.experts.{E}.w2.weight", "[4096, 14336]"}}) {
    const auto* t = find(m, w.name);
    ASSERT_NE(t, nullptr) << w.name;
    EXPECT_EQ(shape_text(t->shape), w.shape);
    EXPECT_EQ(t->instances, 8u);
    EXPECT_EQ(t->module, ModuleClass::routed_experts);
    EXPECT_EQ(t->role, ParallelRole::expert);
    EXPECT_EQ(t->layer, 31);
  }
  const auto inv = build_inventory(m);
  EXPECT_EQ(inv.moe_layers, 32u);
  EXPECT_EQ(inv.routed_params_per_expert, 3ull * 14'336 * 4'096);
}

TEST(MoeDecoderShared, Qwen3MoeSpecAndTensors) {
  const auto m = load_shared("Qwen__Qwen3-235B-A22B-Instruct-2507/config.json");
  EXPECT_EQ(m.moe.routed_experts, 128u);
  EXPECT_EQ(m.moe.experts_per_token, 8u);
  EXPECT_EQ(m.moe.moe_intermediate, 1'536u);
  EXPECT_EQ(m.moe.dense_intermediate, 12'288u);  // no dense layer uses it (mlp_only_layers [])
  EXPECT_EQ(m.moe.first_dense_layers, 0u);
  EXPECT_EQ(m.max_context, 262'144u);
  EXPECT_EQ(m.count_layers(LayerKind::full_attention), 94u);
  // TRUTH.md surprise 8: q_proj is [8192, 4096], wider than the hidden size.
  EXPECT_EQ(shape_text(find(m, "model.layers.0.self_attn.q_proj.weight")->shape), "[8192, 4096]");
  EXPECT_EQ(shape_text(find(m, "model.layers.0.self_attn.k_norm.weight")->shape), "[128]");
  EXPECT_EQ(shape_text(find(m, "model.layers.93.mlp.gate.weight")->shape), "[128, 4096]");
  const auto* down = find(m, "model.layers.93.mlp.experts.{E}.down_proj.weight");
  ASSERT_NE(down, nullptr);
  EXPECT_EQ(shape_text(down->shape), "[4096, 1536]");
  EXPECT_EQ(down->instances, 128u);
  EXPECT_EQ(find(m, "model.layers.0.mlp.down_proj.weight"), nullptr);
  EXPECT_EQ(find(m, "model.layers.0.self_attn.q_proj.bias"), nullptr);
}

TEST(MoeDecoderInline, Qwen3_30B_A3B) {
  // Qwen/Qwen3-30B-A3B: Hub count 30,532,122,624 parameters. A public count of
  // 3,353,032,704 "active" includes the 311,164,928 input embedding.
  const char* config = R"({"architectures": ["Qwen3MoeForCausalLM"], "attention_bias": false,
    "decoder_sparse_step": 1, "head_dim": 128, "hidden_size": 2048, "intermediate_size": 6144,
    "max_position_embeddings": 40960, "max_window_layers": 48, "mlp_only_layers": [], "model_type": "qwen3_moe",
    "moe_intermediate_size": 768, "norm_topk_prob": true, "num_attention_heads": 32, "num_experts": 128,
    "num_experts_per_tok": 8, "num_hidden_layers": 48, "num_key_value_heads": 4, "sliding_window": null,
    "tie_word_embeddings": false, "torch_dtype": "bfloat16", "use_sliding_window": false, "vocab_size": 151936})";
  const auto m = build_model_from_config(config, "qwen3-30b-a3b").value_or_throw();
  EXPECT_EQ(m.manifest.logical_params(), 30'532'122'624u);
  EXPECT_EQ(m.manifest.payload_bytes(), 2 * 30'532'122'624ull);
  EXPECT_EQ(build_inventory(m).active_params, 3'353'032'704ull - 311'164'928ull);
}

TEST(MoeDecoderInline, Qwen2MoeSharedExpertAndQkvBiases) {
  // Qwen/Qwen1.5-MoE-A2.7B(-Chat): Hub count 14,315,784,192 parameters; 60 routed
  // experts of 1,408 and one fused shared expert of 5,632 (= 4 x 1,408) with a
  // sigmoid gate; q/k/v biases as in Qwen2.
  const char* config = R"({"architectures": ["Qwen2MoeForCausalLM"], "decoder_sparse_step": 1,
    "hidden_size": 2048, "intermediate_size": 5632, "max_position_embeddings": 32768, "max_window_layers": 21,
    "model_type": "qwen2_moe", "moe_intermediate_size": 1408, "norm_topk_prob": false,
    "num_attention_heads": 16, "num_experts": 60, "num_experts_per_tok": 4, "num_hidden_layers": 24,
    "num_key_value_heads": 16, "shared_expert_intermediate_size": 5632, "sliding_window": 32768,
    "tie_word_embeddings": false, "torch_dtype": "bfloat16", "use_sliding_window": false, "vocab_size": 151936})";
  const auto m = build_model_from_config(config, "qwen1.5-moe-a2.7b").value_or_throw();
  EXPECT_EQ(m.manifest.logical_params(), 14'315'784'192u);
  EXPECT_EQ(m.moe.shared_experts, 4u);
  EXPECT_EQ(m.moe.moe_intermediate, 1'408u);
  EXPECT_EQ(m.count_layers(LayerKind::full_attention), 24u);
  const auto* shared = find(m, "model.layers.0.mlp.shared_expert.gate_proj.weight");
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(shape_text(shared->shape), "[5632, 2048]");
  EXPECT_EQ(shared->module, ModuleClass::shared_experts);
  EXPECT_EQ(shared->role, ParallelRole::column);
  const auto* gate = find(m, "model.layers.0.mlp.shared_expert_gate.weight");
  ASSERT_NE(gate, nullptr);
  EXPECT_EQ(shape_text(gate->shape), "[1, 2048]");
  EXPECT_EQ(gate->role, ParallelRole::replicated);
  EXPECT_NE(find(m, "model.layers.0.self_attn.k_proj.bias"), nullptr);
  EXPECT_EQ(find(m, "model.layers.0.self_attn.o_proj.bias"), nullptr);
  // Active: the shared expert runs for every token (2.7B with the 0.31B embedding).
  EXPECT_EQ(build_inventory(m).active_params, 2'378'008'576u);
}

TEST(MoeDecoderInline, Ernie45MoeLayoutAsSGLangLoadsIt) {
  // baidu/ERNIE-4.5-21B-A3B-PT ("21B total, 3B active"); dimensions as published
  // (also in the transformers and SGLang test fixtures). SGLang's Ernie4DecoderLayer:
  // MoE where start <= i <= end and (i - start) % interval == 0, so layer 0 is dense;
  // its strict MTP loader fixes the stored MTP block as a dense layer.
  const char* config = R"({"architectures": ["Ernie4_5_MoeForCausalLM"], "model_type": "ernie4_5_moe",
    "hidden_size": 2560, "intermediate_size": 12288, "max_position_embeddings": 131072, "num_attention_heads": 20,
    "num_key_value_heads": 4, "num_hidden_layers": 28, "vocab_size": 103424, "use_bias": false,
    "moe_num_experts": 64, "moe_num_shared_experts": 2, "moe_layer_start_index": 1, "moe_intermediate_size": 1536,
    "moe_k": 6, "moe_layer_interval": 1, "tie_word_embeddings": true, "torch_dtype": "bfloat16",
    "num_nextn_predict_layers": 1})";
  const auto m = build_model_from_config(config, "ernie-4.5-21b-a3b").value_or_throw();
  EXPECT_EQ(m.family, "ernie4_5_moe");
  // Counted by hand: H 2560, q/o 2560 x 2560, k/v 512 x 2560, dense MLP 3 x 12288 x 2560,
  // expert 3 x 1536 x 2560, shared 3 x 3072 x 2560, router 64 x 2560 (+ 64 F32 statics).
  const std::uint64_t H = 2560, attn = 2 * H * H + 2 * 512 * H, dense = 3 * 12288 * H;
  const std::uint64_t expert = 3 * 1536 * H, shared = 3 * 3072 * H, router = 64 * H + 64;
  const std::uint64_t layers = 28 * (attn + 2 * H) + dense + 27 * (64 * expert + shared + router);
  const std::uint64_t mtp = 2 * H + 2 * H * H + attn + 2 * H + dense;
  EXPECT_EQ(m.manifest.logical_params(), 103424 * H + layers + H + mtp);
  EXPECT_EQ(m.manifest.logical_params(), 21'948'655'808u);
  EXPECT_EQ(m.moe.first_dense_layers, 1u);
  EXPECT_NE(find(m, "model.layers.0.mlp.down_proj.weight"), nullptr);
  EXPECT_EQ(find(m, "model.layers.0.mlp.gate.weight"), nullptr);
  const auto* statics = find(m, "model.layers.27.mlp.moe_statics.e_score_correction_bias");
  ASSERT_NE(statics, nullptr);
  EXPECT_EQ(shape_text(statics->shape), "[1, 64]");
  EXPECT_EQ(statics->dtype, Dtype::F32);
  const auto* block = find(m, "model.mtp_block.0.mlp.down_proj.weight");
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(block->module, ModuleClass::mtp);
  EXPECT_EQ(shape_text(block->shape), "[2560, 12288]");
  EXPECT_NE(find(m, "model.mtp_linear_proj.0.weight"), nullptr);
  EXPECT_EQ(find(m, "lm_head.weight"), nullptr);  // tied by default
  EXPECT_EQ(m.count_layers(LayerKind::full_attention), 28u);
  // Active ("A3B"): everything but the embedding, routed experts and MTP, plus 6 of 64 experts.
  EXPECT_EQ(build_inventory(m).active_params, layers + H - 27 * 64 * expert + 27 * 6 * expert);
}

TEST(MoeDecoderInline, SparseStepAndMlpOnlyLayersMakeDenseLayers) {
  auto doc = nlohmann::json::parse(testing::read_reference("models/Qwen__Qwen3-235B-A22B-Instruct-2507/config.json"));
  doc["num_hidden_layers"] = 6;
  doc["decoder_sparse_step"] = 2;  // sparse where (i + 1) % 2 == 0: layers 1, 3, 5
  doc["mlp_only_layers"] = {3};    // ... but 3 stays dense
  const auto m = build_model_from_config(doc.dump(), "config.json").value_or_throw();
  EXPECT_EQ(m.moe.first_dense_layers, 1u);
  ASSERT_EQ(m.notes.size(), 1u);  // dense layers after sparse ones are said
  for (int i : {0, 2, 3, 4}) {
    const auto* t = find(m, "model.layers." + std::to_string(i) + ".mlp.down_proj.weight");
    ASSERT_NE(t, nullptr) << i;
    EXPECT_EQ(shape_text(t->shape), "[4096, 12288]");
    EXPECT_EQ(t->module, ModuleClass::dense_mlp);
    EXPECT_EQ(find(m, "model.layers." + std::to_string(i) + ".mlp.gate.weight"), nullptr);
  }
  for (int i : {1, 5}) EXPECT_NE(find(m, "model.layers." + std::to_string(i) + ".mlp.gate.weight"), nullptr) << i;
  EXPECT_EQ(build_inventory(m).moe_layers, 2u);
}

TEST(MoeDecoderInline, RoutersAreLinearAndIgnoredByName) {
  // An MXFP4 scheme over every Linear that ignores the head and the routers by
  // name, as the quantized Mixtral releases do: routers stay BF16, experts do not.
  auto doc = nlohmann::json::parse(testing::read_reference("models/mistralai__Mixtral-8x7B-v0.1/config.json"));
  doc["quantization_config"] = nlohmann::json::parse(R"({"quant_method": "compressed-tensors",
    "format": "mxfp4-pack-quantized", "ignore": ["lm_head", "re:.*block_sparse_moe.gate"],
    "config_groups": {"group_0": {"format": "mxfp4-pack-quantized", "targets": ["Linear"],
    "weights": {"num_bits": 4, "type": "float", "group_size": 32, "strategy": "group",
    "scale_dtype": "torch.uint8", "symmetric": true, "dynamic": false}}}})");
  const auto m = build_model_from_config(doc.dump(), "config.json").value_or_throw();
  for (const auto& t : m.manifest.tensors) {
    const bool quantized = t.format != StorageFormat::plain;
    if (t.module == ModuleClass::router || t.module == ModuleClass::lm_head || t.module == ModuleClass::norms ||
        t.module == ModuleClass::embedding)
      EXPECT_FALSE(quantized) << t.name;
    else
      EXPECT_TRUE(quantized) << t.name;
  }
  // Without the ignore entry the routers are quantized too: they are nn.Linear.
  doc["quantization_config"]["ignore"] = {"lm_head"};
  const auto all = build_model_from_config(doc.dump(), "config.json").value_or_throw();
  bool router_quantized = false;
  for (const auto& t : all.manifest.tensors)
    if (t.module == ModuleClass::router && t.format != StorageFormat::plain) router_quantized = true;
  EXPECT_TRUE(router_quantized);
}

void expect_errors(const std::string& reference_config, const std::vector<testing::BadField>& cases) {
  testing::expect_config_errors(nlohmann::json::parse(testing::read_reference("models/" + reference_config)), cases);
}

TEST(MoeDecoderErrors, MixtralBadFieldsAreNamed) {
  expect_errors(
      "mistralai__Mixtral-8x7B-v0.1/config.json",
      {
          {"/num_experts_per_tok", "9",
           "config.json: /num_experts_per_tok: 9 selected experts exceed the 8 routed experts"},
          {"/num_local_experts", "0", "config.json: /num_local_experts: expected a positive integer, got 0"},
          {"/num_local_experts", "DELETE", "config.json: /num_local_experts: missing positive integer"},
          {"/num_key_value_heads", "-8", "config.json: /num_key_value_heads: expected a positive integer, got -8"},
          {"/num_attention_heads", "48",
           "config.json: /num_attention_heads: 48 heads do not divide hidden_size 4096 and no head_dim is "
           "given"},
      });
}

TEST(MoeDecoderErrors, QwenBadFieldsAreNamed) {
  expect_errors(
      "Qwen__Qwen3-235B-A22B-Instruct-2507/config.json",
      {
          {"/moe_intermediate_size", "DELETE", "config.json: /moe_intermediate_size: missing positive integer"},
          {"/num_experts_per_tok", "129",
           "config.json: /num_experts_per_tok: 129 selected experts exceed the 128 routed experts"},
          {"/mlp_only_layers", "[0, 94]",
           "config.json: /mlp_only_layers: layer 94 is outside 0..93 (this list is 0-indexed)"},
          {"/decoder_sparse_step", "0", "config.json: /decoder_sparse_step: expected a positive integer, got 0"},
          {"/num_key_value_heads", "5",
           "config.json: /num_key_value_heads: 64 attention heads are not a multiple of 5 KV heads"},
      });
}

}  // namespace
}  // namespace preflight
