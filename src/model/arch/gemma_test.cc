// Checks the Gemma 2 / Gemma 3 descriptions (data/architectures/gemma2.json,
// gemma3_text.json, gemma3.json). tests/data/reference/models has no Gemma folder, so
// the configs are public copies written inline (sources beside each), and the
// truths are the Hub's safetensors parameter counts and index totals:
//   gemma-2-2b-it   2,614,341,888 params (Hub safetensors total)
//   gemma-2-9b-it   9,241,705,984 params; index total_size 18,483,411,968, 464 tensors
//   gemma-3-1b-it     999,885,952 params (Hub safetensors total)
//   gemma-3-4b-it   4,300,079,472 params (Hub safetensors total)
//   gemma-3-27b-it 27,432,406,640 params; medgemma-27b-it (same architecture)
//                  index total_size 54,864,813,280 = 2 x that (TRUTH.md surprise 1)
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "config_error_cases.h"
#include "model/family_registry.h"
#include "model/inventory.h"

namespace preflight {
namespace {

// google/gemma-3-27b-it config.json as released (sgl-project/ome
// pkg/hfutil/modelconfig/testdata/gemma3.json): most text fields are left to
// Gemma3TextConfig's defaults, vocab_size included.
constexpr const char* kGemma3_27b = R"({
  "architectures": ["Gemma3ForConditionalGeneration"], "boi_token_index": 255999, "eoi_token_index": 256000,
  "eos_token_id": [1, 106], "image_token_index": 262144, "initializer_range": 0.02, "mm_tokens_per_image": 256,
  "model_type": "gemma3",
  "text_config": {"head_dim": 128, "hidden_size": 5376, "intermediate_size": 21504, "model_type": "gemma3_text",
    "num_attention_heads": 32, "num_hidden_layers": 62, "num_key_value_heads": 16, "query_pre_attn_scalar": 168,
    "rope_scaling": {"factor": 8.0, "rope_type": "linear"}, "sliding_window": 1024},
  "torch_dtype": "bfloat16", "transformers_version": "4.50.0.dev0",
  "vision_config": {"hidden_size": 1152, "image_size": 896, "intermediate_size": 4304,
    "model_type": "siglip_vision_model", "num_attention_heads": 16, "num_hidden_layers": 27, "patch_size": 14,
    "vision_use_head": false}})";

// google/gemma-3-4b-it: the same wrapper; text values as published for the 4B
// (hidden 2560, intermediate 10240, 34 layers, 8 heads, 4 KV heads, head_dim 256).
constexpr const char* kGemma3_4b = R"({
  "architectures": ["Gemma3ForConditionalGeneration"], "mm_tokens_per_image": 256, "model_type": "gemma3",
  "text_config": {"head_dim": 256, "hidden_size": 2560, "intermediate_size": 10240, "model_type": "gemma3_text",
    "num_attention_heads": 8, "num_hidden_layers": 34, "num_key_value_heads": 4, "sliding_window": 1024,
    "rope_scaling": {"factor": 8.0, "rope_type": "linear"}},
  "torch_dtype": "bfloat16",
  "vision_config": {"hidden_size": 1152, "image_size": 896, "intermediate_size": 4304,
    "model_type": "siglip_vision_model", "num_attention_heads": 16, "num_hidden_layers": 27, "patch_size": 14,
    "vision_use_head": false}})";

// google/gemma-3-1b-it (ome testdata gemma3_text.json): text only, no wrapper.
constexpr const char* kGemma3_1b = R"({
  "architectures": ["Gemma3ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "attn_logit_softcapping": null, "bos_token_id": 2, "cache_implementation": "hybrid", "eos_token_id": [1, 106],
  "final_logit_softcapping": null, "head_dim": 256, "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 1152,
  "initializer_range": 0.02, "intermediate_size": 6912, "max_position_embeddings": 32768,
  "model_type": "gemma3_text", "num_attention_heads": 4, "num_hidden_layers": 26, "num_key_value_heads": 1,
  "pad_token_id": 0, "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06, "rope_local_base_freq": 10000,
  "rope_scaling": null, "rope_theta": 1000000, "sliding_window": 512, "sliding_window_pattern": 6,
  "torch_dtype": "bfloat16", "transformers_version": "4.50.0.dev0", "use_cache": true, "vocab_size": 262144})";

// google/gemma-2-9b (ome testdata gemma_2_9b.json): the base repository is
// stored in float32. gemma-2-9b-it has the same values with torch_dtype bfloat16.
constexpr const char* kGemma2_9b = R"({
  "architectures": ["Gemma2ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "attn_logit_softcapping": 50.0, "bos_token_id": 2, "cache_implementation": "hybrid", "eos_token_id": 1,
  "final_logit_softcapping": 30.0, "head_dim": 256, "hidden_act": "gelu_pytorch_tanh",
  "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 3584, "initializer_range": 0.02,
  "intermediate_size": 14336, "max_position_embeddings": 8192, "model_type": "gemma2", "num_attention_heads": 16,
  "num_hidden_layers": 42, "num_key_value_heads": 8, "pad_token_id": 0, "query_pre_attn_scalar": 256,
  "rms_norm_eps": 1e-06, "rope_theta": 10000.0, "sliding_window": 4096, "sliding_window_size": 4096,
  "torch_dtype": "float32", "transformers_version": "4.42.0.dev0", "use_cache": true, "vocab_size": 256000})";

// google/gemma-2-2b-it (ome testdata gemma_2_2b_it.json).
constexpr const char* kGemma2_2b = R"({
  "architectures": ["Gemma2ForCausalLM"], "attention_bias": false, "attn_logit_softcapping": 50.0,
  "final_logit_softcapping": 30.0, "head_dim": 256, "hidden_size": 2304, "intermediate_size": 9216,
  "max_position_embeddings": 8192, "model_type": "gemma2", "num_attention_heads": 8, "num_hidden_layers": 26,
  "num_key_value_heads": 4, "query_pre_attn_scalar": 256, "sliding_window": 4096, "torch_dtype": "bfloat16",
  "vocab_size": 256000})";

ModelSpec build(const std::string& config) { return build_model_from_config(config, "config.json").value_or_throw(); }

const StoredTensor* find(const ModelSpec& m, const std::string& name) {
  for (const auto& t : m.manifest.tensors)
    if (t.name == name) return &t;
  return nullptr;
}

std::string gemma2_9b_it() {
  auto doc = nlohmann::json::parse(kGemma2_9b);
  doc["torch_dtype"] = "bfloat16";
  return doc.dump();
}

TEST(GemmaTotals, ParametersAndBytesMatchTheReleasedCheckpoints) {
  struct Case {
    const char* name;
    std::string config;
    std::uint64_t params, bytes, tensors;  // tensors 0: no index count seen
  };
  const Case cases[] = {
      {"gemma-3-27b-it", kGemma3_27b, 27'432'406'640, 54'864'813'280, 0},
      {"gemma-3-4b-it", kGemma3_4b, 4'300'079'472, 2 * 4'300'079'472ull, 0},
      {"gemma-3-1b-it", kGemma3_1b, 999'885'952, 2 * 999'885'952ull, 0},
      {"gemma-2-9b-it", gemma2_9b_it(), 9'241'705'984, 18'483'411'968, 464},
      // The float32 base: same parameters, 4 bytes each (its index total not seen).
      {"gemma-2-9b", kGemma2_9b, 9'241'705'984, 4 * 9'241'705'984ull, 464},
      {"gemma-2-2b-it", kGemma2_2b, 2'614'341'888, 2 * 2'614'341'888ull, 0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto m = build(c.config);
    EXPECT_EQ(m.family.substr(0, 5), "gemma");  // gemma2, gemma3_text or gemma3
    EXPECT_EQ(m.manifest.logical_params(), c.params);
    EXPECT_EQ(m.manifest.payload_bytes(), c.bytes);
    if (c.tensors > 0) {
      EXPECT_EQ(m.manifest.tensor_count(), c.tensors);
    }
    // Tied embeddings: no head stored under either naming.
    EXPECT_EQ(find(m, "lm_head.weight"), nullptr);
    EXPECT_EQ(find(m, "language_model.lm_head.weight"), nullptr);
  }
}

TEST(GemmaLayers, Gemma2AlternatesStartingWithSliding) {
  const auto m = build(gemma2_9b_it());
  ASSERT_EQ(m.layers.size(), 42u);
  EXPECT_EQ(m.layers[0], LayerKind::sliding_attention);
  EXPECT_EQ(m.layers[1], LayerKind::full_attention);
  EXPECT_EQ(m.count_layers(LayerKind::sliding_attention), 21u);
  EXPECT_EQ(m.count_layers(LayerKind::full_attention), 21u);
  EXPECT_EQ(m.gqa.sliding_window, 4096u);
  EXPECT_EQ(m.gqa.heads, 16u);
  EXPECT_EQ(m.gqa.kv_heads, 8u);
  EXPECT_EQ(m.gqa.head_dim, 256u);  // not 3584 / 16
  EXPECT_EQ(m.max_context, 8192u);
  EXPECT_EQ(m.dtype, Dtype::BF16);
  EXPECT_TRUE(m.notes.empty());
  // Four norms per layer; q_proj is 16 x 256 = 4096 wide over a 3584 hidden.
  for (const char* n :
       {"model.layers.7.input_layernorm.weight", "model.layers.7.post_attention_layernorm.weight",
        "model.layers.7.pre_feedforward_layernorm.weight", "model.layers.7.post_feedforward_layernorm.weight"}) {
    const auto* t = find(m, n);
    ASSERT_NE(t, nullptr) << n;
    EXPECT_EQ(shape_text(t->shape), "[3584]");
    EXPECT_EQ(t->module, ModuleClass::norms);
  }
  EXPECT_EQ(shape_text(find(m, "model.layers.0.self_attn.q_proj.weight")->shape), "[4096, 3584]");
  EXPECT_EQ(shape_text(find(m, "model.layers.0.self_attn.o_proj.weight")->shape), "[3584, 4096]");
  EXPECT_EQ(find(m, "model.layers.0.self_attn.q_norm.weight"), nullptr);  // Gemma 3 only
  EXPECT_EQ(build(kGemma2_9b).dtype, Dtype::F32);
}

TEST(GemmaLayers, Gemma3HasOneGlobalLayerInSix) {
  const auto m = build(kGemma3_27b);
  ASSERT_EQ(m.layers.size(), 62u);
  EXPECT_EQ(m.count_layers(LayerKind::full_attention), 10u);  // layers 5, 11, ..., 59
  EXPECT_EQ(m.count_layers(LayerKind::sliding_attention), 52u);
  EXPECT_EQ(m.layers[4], LayerKind::sliding_attention);
  EXPECT_EQ(m.layers[5], LayerKind::full_attention);
  EXPECT_EQ(m.layers[61], LayerKind::sliding_attention);
  EXPECT_EQ(m.gqa.sliding_window, 1024u);
  EXPECT_EQ(m.vocab_size, 262'208u);
  EXPECT_EQ(m.max_context, 131'072u);
  ASSERT_EQ(m.notes.size(), 1u);
  EXPECT_EQ(m.notes[0],
            "absent from the config, Gemma3TextConfig defaults used: vocab_size 262208, max_position_embeddings "
            "131072, sliding_window_pattern 6");
  const auto one = build(kGemma3_1b);
  EXPECT_EQ(one.count_layers(LayerKind::full_attention), 4u);  // 5, 11, 17, 23
  EXPECT_EQ(one.gqa.sliding_window, 512u);
  EXPECT_TRUE(one.notes.empty());
  // layer_types, when written, decides.
  auto doc = nlohmann::json::parse(kGemma3_1b);
  doc["layer_types"] = nlohmann::json::array();
  for (int i = 0; i < 26; ++i) doc["layer_types"].push_back(i < 2 ? "full_attention" : "sliding_attention");
  EXPECT_EQ(build(doc.dump()).count_layers(LayerKind::full_attention), 2u);
}

// vLLM keeps one cos/sin cache per distinct RoPE: Gemma 3's global layers scale
// linearly (factor 8: 131,072 x 8 positions), its sliding layers rotate with
// rope_local_base_freq unscaled (131,072 positions), a second cache.
TEST(GemmaLayers, Gemma3HasTwoRopeCaches) {
  const auto m = build(kGemma3_27b);
  EXPECT_EQ(m.rope_cache_positions, 1'048'576u);
  EXPECT_EQ(m.local_rope_cache_positions, 131'072u);
  EXPECT_EQ(m.rotary_dim, 128u);
  const auto one = build(kGemma3_1b);  // rope_scaling null: no factor
  EXPECT_EQ(one.rope_cache_positions, 32'768u);
  EXPECT_EQ(one.local_rope_cache_positions, 32'768u);
}

TEST(GemmaLayers, DefaultsFillAnOmittedAttentionShape) {
  // With heads, KV heads and head_dim left out, Gemma3TextConfig's defaults
  // (8, 4, 256) are the 4B's own values: the same total, and the notes say so.
  auto doc = nlohmann::json::parse(kGemma3_4b);
  for (const char* k : {"num_attention_heads", "num_key_value_heads", "head_dim"}) doc["text_config"].erase(k);
  const auto m = build(doc.dump());
  EXPECT_EQ(m.manifest.logical_params(), 4'300'079'472u);
  ASSERT_EQ(m.notes.size(), 1u);
  EXPECT_NE(m.notes[0].find("num_attention_heads 8, num_key_value_heads 4, head_dim 256"), std::string::npos)
      << m.notes[0];
}

TEST(GemmaTensors, Gemma3WrapperNamesShapesAndClasses) {
  const auto m = build(kGemma3_27b);
  struct Want {
    const char* name;
    const char* shape;
    ModuleClass module;
    ParallelRole role;
    bool text;
  };
  using MC = ModuleClass;
  using PR = ParallelRole;
  const Want wants[] = {
      {"language_model.model.embed_tokens.weight", "[262208, 5376]", MC::embedding, PR::vocab, true},
      {"language_model.model.norm.weight", "[5376]", MC::norms, PR::replicated, true},
      {"language_model.model.layers.0.self_attn.q_proj.weight", "[4096, 5376]", MC::gqa_attention, PR::column, true},
      {"language_model.model.layers.0.self_attn.k_proj.weight", "[2048, 5376]", MC::gqa_attention, PR::column, true},
      {"language_model.model.layers.0.self_attn.o_proj.weight", "[5376, 4096]", MC::gqa_attention, PR::row, true},
      {"language_model.model.layers.0.self_attn.q_norm.weight", "[128]", MC::gqa_attention, PR::replicated, true},
      {"language_model.model.layers.0.self_attn.k_norm.weight", "[128]", MC::gqa_attention, PR::replicated, true},
      {"language_model.model.layers.61.mlp.down_proj.weight", "[5376, 21504]", MC::dense_mlp, PR::row, true},
      {"language_model.model.layers.61.pre_feedforward_layernorm.weight", "[5376]", MC::norms, PR::replicated, true},
      {"vision_tower.vision_model.embeddings.patch_embedding.weight", "[1152, 3, 14, 14]", MC::vision_tower,
       PR::replicated, false},
      {"vision_tower.vision_model.embeddings.position_embedding.weight", "[4096, 1152]", MC::vision_tower,
       PR::replicated, false},
      // The encoder's linear layers are split over TP (vLLM and SGLang shard them); its
      // embeddings, norms and biases stay whole.
      {"vision_tower.vision_model.encoder.layers.26.self_attn.out_proj.weight", "[1152, 1152]", MC::vision_tower,
       PR::column, false},
      {"vision_tower.vision_model.encoder.layers.26.mlp.fc1.weight", "[4304, 1152]", MC::vision_tower, PR::column,
       false},
      {"vision_tower.vision_model.encoder.layers.26.mlp.fc2.bias", "[1152]", MC::vision_tower, PR::replicated, false},
      {"vision_tower.vision_model.post_layernorm.bias", "[1152]", MC::vision_tower, PR::replicated, false},
      {"multi_modal_projector.mm_input_projection_weight", "[1152, 5376]", MC::projector, PR::replicated, false},
      {"multi_modal_projector.mm_soft_emb_norm.weight", "[1152]", MC::projector, PR::replicated, false},
  };
  for (const auto& w : wants) {
    SCOPED_TRACE(w.name);
    const auto* t = find(m, w.name);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(shape_text(t->shape), w.shape);
    EXPECT_EQ(t->module, w.module);
    EXPECT_EQ(t->role, w.role);
    EXPECT_EQ(t->text, w.text);
    EXPECT_EQ(t->dtype, Dtype::BF16);
  }
  // Derived counts: 62 x 13 + 2 text, 27 x 16 + 5 vision, 2 projector tensors.
  EXPECT_EQ(m.manifest.tensor_count(), 808u + 437u + 2u);
  const auto inv = build_inventory(m);
  std::map<ModuleClass, std::uint64_t> params;
  for (const auto& r : inv.by_module) params[r.module] = r.logical_params;
  EXPECT_EQ(params[MC::vision_tower], 416'866'032u);
  EXPECT_EQ(params[MC::projector], 6'194'304u);
  // Active: the text model without its input embedding (vision is not per token).
  EXPECT_EQ(inv.active_params, 27'009'346'304ull - 262'208ull * 5376);
}

TEST(GemmaTensors, LinearFlagsMarkTheNnLinearWeights) {
  // Quantize every "Linear" target: projections and SigLIP q/k/v/out/fc1 change
  // format; embeddings, norms, biases, the patch Conv2d and the projector's bare
  // parameter stay BF16. fc2 is ignored by name: its 4,304 inputs are not a
  // whole number of 32-wide MXFP4 groups.
  auto doc = nlohmann::json::parse(kGemma3_27b);
  doc["quantization_config"] = nlohmann::json::parse(R"({"quant_method": "compressed-tensors",
    "format": "mxfp4-pack-quantized", "ignore": ["re:.*mlp\\.fc2"],
    "config_groups": {"group_0": {"format": "mxfp4-pack-quantized", "targets": ["Linear"], "weights": {"num_bits": 4, "type": "float", "group_size": 32, "strategy": "group",
    "scale_dtype": "torch.uint8", "symmetric": true, "dynamic": false}}}})");
  const auto m = build(doc.dump());
  for (const auto& t : m.manifest.tensors) {
    const auto stem = t.name.substr(0, t.name.rfind('.'));
    const bool linear = stem.ends_with("_proj") || stem.ends_with(".fc1");
    const bool weight = !t.name.ends_with(".bias");
    EXPECT_EQ(t.format != StorageFormat::plain, linear && weight) << t.name;
  }
}

TEST(GemmaErrors, EachBadFieldIsNamed) {
  testing::expect_config_errors(
      nlohmann::json::parse(kGemma3_27b),
      {
          {"/text_config/hidden_size", "DELETE", "config.json: /text_config/hidden_size: missing positive integer"},
          {"/text_config/num_key_value_heads", "5",
           "config.json: /text_config/num_key_value_heads: 32 attention heads are not a multiple of 5 KV heads"},
          {"/text_config/num_key_value_heads", "-16",
           "config.json: /text_config/num_key_value_heads: expected a positive integer, got -16"},
          {"/text_config/sliding_window_pattern", "0",
           "config.json: /text_config/sliding_window_pattern: expected a positive integer, got 0"},
          {"/text_config/layer_types", "[\"sliding_attention\"]",
           "config.json: /text_config/layer_types: 1 entries for 62 layers"},
          {"/vision_config", "DELETE",
           "config.json: /vision_config: missing object (the siglip_vision of a gemma3 model)"},
          {"/vision_config/patch_size", "1000", "config.json: /vision_config/patch_size: 1000 exceeds image_size 896"},
          {"/vision_config/num_hidden_layers", "null",
           "config.json: /vision_config/num_hidden_layers: missing positive integer"},
          {"/vision_config/vision_use_head", "1",
           "config.json: /vision_config/vision_use_head: expected true or false, got 1"},
          {"/torch_dtype", "\"float128\"", "config.json: /torch_dtype: unknown dtype \"float128\""},
      });
}

}  // namespace
}  // namespace preflight
