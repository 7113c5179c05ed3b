// Checks the dense descriptions (data/architectures/llama, mistral, qwen2, qwen3; the
// generic fallback) against released checkpoint totals: the configs and truths
// in tests/data/reference/models (TRUTH.md and each folder's notes.md), plus a few public
// configs written inline with the source of their figures.
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

struct SharedCase {
  const char* config;     // under tests/data/reference/models
  std::uint64_t bytes;    // tensor payload (index metadata.total_size)
  std::uint64_t params;   // 0: not separately known
  std::uint64_t tensors;  // 0: not known
  const char* why;        // where the truth comes from
};

// Exact equality everywhere: these are BF16 checkpoints whose every tensor the
// config determines.
const SharedCase kShared[] = {
    {"meta-llama__Llama-3.1-8B/config.json", 16'060'522'496, 8'030'261'248, 0, "TRUTH.md V2 (index + params)"},
    {"meta-llama__Llama-3.1-8B-Instruct/config.json", 16'060'522'496, 8'030'261'248, 0,
     "notes.md: identical shapes to Llama-3.1-8B"},
    {"meta-llama__Meta-Llama-3-8B/config.json", 16'060'522'496, 8'030'261'248, 0, "notes.md: same as Llama-3.1-8B"},
    {"meta-llama__Llama-3.1-70B/config.remembered.json", 141'107'412'992, 70'553'706'496, 723,
     "TRUTH.md V2: index, params, 723 tensors"},
    {"Qwen__Qwen2.5-7B-Instruct/config.json", 15'231'233'024, 7'615'616'512, 0, "TRUTH.md (HF index)"},
    {"Qwen__Qwen2.5-7B-Instruct/config.sibling.Qwen2.5-7B-base.json", 15'231'233'024, 7'615'616'512, 0,
     "base sibling: same tensor shapes"},
    // Qwen2-7B's own index was not found (notes.md: D, same shapes as Qwen2.5-7B).
    {"Qwen__Qwen2-7B-Instruct/config.json", 15'231'233'024, 7'615'616'512, 0, "notes.md D (Qwen2.5-7B shapes)"},
    {"Qwen__Qwen3-14B/config.json", 29'536'614'400, 14'768'307'200, 443, "TRUTH.md; notes.md: 443 tensors"},
    // Tied, yet lm_head.weight is stored: 2 x 751,632,384 (notes.md, Hub API).
    {"Qwen__Qwen3-0.6B/config.json", 1'503'264'768, 751'632'384, 0, "TRUTH.md; notes.md (lm_head stored)"},
    // CodeLlama-7b: no index found (notes.md D 13,477,093,376); vLLM's log in
    // engine-truth r001 loads 12.56 GiB, which is this figure (12.55 GiB) plus buffers.
    {"codellama__CodeLlama-7b-hf/config.values-mlc-preset-codellama_7b.json", 13'477'093'376, 6'738'546'688, 0,
     "notes.md D"},
};

TEST(DenseDecoderShared, PayloadParamsAndTensorsMatchTheReleasedCheckpoints) {
  for (const auto& c : kShared) {
    SCOPED_TRACE(c.config);
    const auto m = load_shared(c.config);
    EXPECT_TRUE(m.family_reader);
    EXPECT_TRUE(m.family == "llama" || m.family == "qwen2" || m.family == "qwen3") << m.family;
    EXPECT_EQ(m.manifest.payload_bytes(), c.bytes) << c.why;
    EXPECT_EQ(m.manifest.logical_params(), c.params) << c.why;
    if (c.tensors > 0) {
      EXPECT_EQ(m.manifest.tensor_count(), c.tensors) << c.why;
    }
    EXPECT_EQ(m.dtype, Dtype::BF16);
  }
}

TEST(DenseDecoderShared, Llama31Dimensions) {
  const auto m = load_shared("meta-llama__Llama-3.1-8B/config.json");
  EXPECT_EQ(m.architecture, "LlamaForCausalLM");
  EXPECT_EQ(m.hidden_size, 4096u);
  EXPECT_EQ(m.vocab_size, 128'256u);
  EXPECT_EQ(m.max_context, 131'072u);
  ASSERT_EQ(m.layers.size(), 32u);
  EXPECT_EQ(m.count_layers(LayerKind::full_attention), 32u);
  EXPECT_EQ(m.gqa.heads, 32u);
  EXPECT_EQ(m.gqa.kv_heads, 8u);
  EXPECT_EQ(m.gqa.head_dim, 128u);
  EXPECT_EQ(m.gqa.v_head_dim, 128u);
  EXPECT_EQ(m.gqa.sliding_window, 0u);
  EXPECT_EQ(m.moe.routed_experts, 0u);
  EXPECT_EQ(m.moe.dense_intermediate, 14'336u);
  EXPECT_TRUE(m.notes.empty());
  // Derived, not read from an index: 32 x 9 + embedding, norm, head.
  EXPECT_EQ(m.manifest.tensor_count(), 291u);
}

TEST(DenseDecoderShared, TensorNamesShapesModulesAndRoles) {
  const auto m = load_shared("Qwen__Qwen2.5-7B-Instruct/config.json");
  struct Want {
    const char* name;
    const char* shape;
    ModuleClass module;
    ParallelRole role;
  };
  const Want wants[] = {
      {"model.embed_tokens.weight", "[152064, 3584]", ModuleClass::embedding, ParallelRole::vocab},
      {"lm_head.weight", "[152064, 3584]", ModuleClass::lm_head, ParallelRole::vocab},
      {"model.norm.weight", "[3584]", ModuleClass::norms, ParallelRole::replicated},
      {"model.layers.0.input_layernorm.weight", "[3584]", ModuleClass::norms, ParallelRole::replicated},
      {"model.layers.27.post_attention_layernorm.weight", "[3584]", ModuleClass::norms, ParallelRole::replicated},
      {"model.layers.0.self_attn.q_proj.weight", "[3584, 3584]", ModuleClass::gqa_attention, ParallelRole::column},
      {"model.layers.0.self_attn.k_proj.weight", "[512, 3584]", ModuleClass::gqa_attention, ParallelRole::column},
      {"model.layers.0.self_attn.v_proj.weight", "[512, 3584]", ModuleClass::gqa_attention, ParallelRole::column},
      {"model.layers.0.self_attn.o_proj.weight", "[3584, 3584]", ModuleClass::gqa_attention, ParallelRole::row},
      // Qwen2 always has q/k/v biases (no o bias), whatever attention_bias says.
      {"model.layers.0.self_attn.q_proj.bias", "[3584]", ModuleClass::gqa_attention, ParallelRole::column},
      {"model.layers.0.self_attn.k_proj.bias", "[512]", ModuleClass::gqa_attention, ParallelRole::column},
      {"model.layers.0.self_attn.v_proj.bias", "[512]", ModuleClass::gqa_attention, ParallelRole::column},
      {"model.layers.3.mlp.gate_proj.weight", "[18944, 3584]", ModuleClass::dense_mlp, ParallelRole::column},
      {"model.layers.3.mlp.up_proj.weight", "[18944, 3584]", ModuleClass::dense_mlp, ParallelRole::column},
      {"model.layers.3.mlp.down_proj.weight", "[3584, 18944]", ModuleClass::dense_mlp, ParallelRole::row},
  };
  for (const auto& w : wants) {
    SCOPED_TRACE(w.name);
    const auto* t = find(m, w.name);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(shape_text(t->shape), w.shape);
    EXPECT_EQ(t->module, w.module);
    EXPECT_EQ(t->role, w.role);
    EXPECT_EQ(t->dtype, Dtype::BF16);
    EXPECT_TRUE(t->text);
  }
  EXPECT_EQ(find(m, "model.layers.0.self_attn.o_proj.bias"), nullptr);
  EXPECT_EQ(find(m, "model.layers.0.self_attn.q_norm.weight"), nullptr);
  EXPECT_EQ(find(m, "model.layers.0.self_attn.q_proj.weight")->layer, 0);
  EXPECT_EQ(find(m, "model.layers.27.post_attention_layernorm.weight")->layer, 27);
  EXPECT_EQ(find(m, "lm_head.weight")->layer, kNoLayer);
  // Derived, not read from an index: 28 x 12 + embedding, norm, head.
  EXPECT_EQ(m.manifest.tensor_count(), 339u);
}

TEST(DenseDecoderShared, QwenSlidingWindowOffMeansFullAttention) {
  // sliding_window 131072 is set but use_sliding_window is false.
  const auto m = load_shared("Qwen__Qwen2-7B-Instruct/config.json");
  EXPECT_EQ(m.count_layers(LayerKind::full_attention), 28u);
  EXPECT_EQ(m.gqa.sliding_window, 0u);
  EXPECT_EQ(m.max_context, 32'768u);
}

TEST(DenseDecoderShared, Qwen3HeadDimQkNormsAndStoredTiedHead) {
  const auto m = load_shared("Qwen__Qwen3-0.6B/config.json");
  EXPECT_EQ(m.gqa.head_dim, 128u);  // explicit: hidden 1024 / 16 heads would be 64
  const auto* q = find(m, "model.layers.0.self_attn.q_proj.weight");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(shape_text(q->shape), "[2048, 1024]");
  const auto* o = find(m, "model.layers.0.self_attn.o_proj.weight");
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(shape_text(o->shape), "[1024, 2048]");
  for (const char* n : {"model.layers.5.self_attn.q_norm.weight", "model.layers.5.self_attn.k_norm.weight"}) {
    const auto* t = find(m, n);
    ASSERT_NE(t, nullptr) << n;
    EXPECT_EQ(shape_text(t->shape), "[128]");
    EXPECT_EQ(t->role, ParallelRole::replicated);
    EXPECT_EQ(t->module, ModuleClass::gqa_attention);
  }
  // The tied head is stored (the bytes say so) and the notes say engines skip it.
  ASSERT_NE(find(m, "lm_head.weight"), nullptr);
  ASSERT_EQ(m.notes.size(), 1u);
  EXPECT_NE(m.notes[0].find("311,164,928"), std::string::npos) << m.notes[0];
  // Without the copy: the 596,049,920 parameters the model card counts.
  EXPECT_EQ(m.manifest.logical_params() - 151'936ull * 1024, 596'049'920u);
  // Qwen3-14B is untied and has no notes.
  EXPECT_TRUE(load_shared("Qwen__Qwen3-14B/config.json").notes.empty());
}

// Public Qwen3 configs beyond tests/data/reference, with their index totals, to pin the
// tied-head rule: 0.6B and 1.7B store the head, 4B does not.
TEST(DenseDecoderInline, TiedQwen3HeadsFollowTheReleasedIndexes) {
  // Qwen/Qwen3-4B-Instruct-2507 config (sgl-project/ome testdata qwen3_4b.json);
  // index total_size 8,044,936,192 with 398 tensors (= 2 x 4,022,468,096, the Hub count).
  const char* qwen3_4b = R"({"architectures": ["Qwen3ForCausalLM"], "attention_bias": false, "head_dim": 128,
    "hidden_size": 2560, "intermediate_size": 9728, "max_position_embeddings": 262144, "max_window_layers": 36,
    "model_type": "qwen3", "num_attention_heads": 32, "num_hidden_layers": 36, "num_key_value_heads": 8,
    "sliding_window": null, "tie_word_embeddings": true, "torch_dtype": "bfloat16", "use_sliding_window": false,
    "vocab_size": 151936})";
  const auto m4 = build_model_from_config(qwen3_4b, "qwen3-4b").value_or_throw();
  EXPECT_EQ(m4.manifest.payload_bytes(), 8'044'936'192u);
  EXPECT_EQ(m4.manifest.tensor_count(), 398u);
  EXPECT_EQ(find(m4, "lm_head.weight"), nullptr);
  EXPECT_TRUE(m4.notes.empty());
  // Qwen/Qwen3-1.7B (values as released: hidden 2048, intermediate 6144, 28 layers,
  // 16 heads, 8 KV heads); index total_size 4,063,479,808 includes the head.
  const char* qwen3_1_7b = R"({"architectures": ["Qwen3ForCausalLM"], "attention_bias": false, "head_dim": 128,
    "hidden_size": 2048, "intermediate_size": 6144, "max_position_embeddings": 40960, "max_window_layers": 28,
    "model_type": "qwen3", "num_attention_heads": 16, "num_hidden_layers": 28, "num_key_value_heads": 8,
    "sliding_window": null, "tie_word_embeddings": true, "torch_dtype": "bfloat16", "use_sliding_window": false,
    "vocab_size": 151936})";
  const auto m17 = build_model_from_config(qwen3_1_7b, "qwen3-1.7b").value_or_throw();
  EXPECT_EQ(m17.manifest.payload_bytes(), 4'063'479'808u);
  EXPECT_NE(find(m17, "lm_head.weight"), nullptr);
}

TEST(DenseDecoderInline, MistralSlidingWindowAndExplicitHeadDim) {
  // mistralai/Mistral-7B-v0.1: sliding_window 4096 on every layer; Hub count
  // 7,241,732,096 parameters.
  const char* mistral = R"({"architectures": ["MistralForCausalLM"], "hidden_size": 4096,
    "intermediate_size": 14336, "max_position_embeddings": 32768, "model_type": "mistral",
    "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "sliding_window": 4096,
    "tie_word_embeddings": false, "torch_dtype": "bfloat16", "vocab_size": 32000})";
  const auto m = build_model_from_config(mistral, "mistral-7b-v0.1").value_or_throw();
  EXPECT_EQ(m.manifest.logical_params(), 7'241'732'096u);
  EXPECT_EQ(m.manifest.payload_bytes(), 2 * 7'241'732'096ull);
  EXPECT_EQ(m.count_layers(LayerKind::sliding_attention), 32u);
  EXPECT_EQ(m.gqa.sliding_window, 4096u);
  // mistralai/Mistral-Nemo-Instruct-2407: head_dim 128 with hidden 5120 / 32 heads
  // (160 otherwise), sliding_window null; Hub count 12,247,782,400.
  const char* nemo = R"({"architectures": ["MistralForCausalLM"], "head_dim": 128, "hidden_size": 5120,
    "intermediate_size": 14336, "max_position_embeddings": 1024000, "model_type": "mistral",
    "num_attention_heads": 32, "num_hidden_layers": 40, "num_key_value_heads": 8, "sliding_window": null,
    "tie_word_embeddings": false, "torch_dtype": "bfloat16", "vocab_size": 131072})";
  const auto n = build_model_from_config(nemo, "mistral-nemo").value_or_throw();
  EXPECT_EQ(n.manifest.logical_params(), 12'247'782'400u);
  EXPECT_EQ(n.count_layers(LayerKind::full_attention), 40u);
  EXPECT_EQ(n.gqa.head_dim, 128u);
}

TEST(DenseDecoderInline, QwenSlidingWindowFromMaxWindowLayersOn) {
  auto doc = nlohmann::json::parse(testing::read_reference("models/Qwen__Qwen2-7B-Instruct/config.json"));
  doc["use_sliding_window"] = true;
  doc["max_window_layers"] = 21;
  doc["sliding_window"] = 4096;
  const auto m = build_model_from_config(doc.dump(), "config.json").value_or_throw();
  EXPECT_EQ(m.count_layers(LayerKind::full_attention), 21u);
  EXPECT_EQ(m.count_layers(LayerKind::sliding_attention), 7u);
  EXPECT_EQ(m.layers[20], LayerKind::full_attention);
  EXPECT_EQ(m.layers[21], LayerKind::sliding_attention);
  EXPECT_EQ(m.gqa.sliding_window, 4096u);
  // layer_types, when written, decides.
  doc["layer_types"] = nlohmann::json::array();
  for (int i = 0; i < 28; ++i) doc["layer_types"].push_back(i % 4 == 3 ? "full_attention" : "sliding_attention");
  const auto t = build_model_from_config(doc.dump(), "config.json").value_or_throw();
  EXPECT_EQ(t.count_layers(LayerKind::full_attention), 7u);
  EXPECT_EQ(t.count_layers(LayerKind::sliding_attention), 21u);
}

TEST(DenseDecoderInline, LlamaBiasesFollowTheConfig) {
  auto doc = nlohmann::json::parse(testing::read_reference("models/meta-llama__Llama-3.1-8B/config.json"));
  doc["attention_bias"] = true;
  doc["mlp_bias"] = true;
  const auto m = build_model_from_config(doc.dump(), "config.json").value_or_throw();
  // q 4096 + k 1024 + v 1024 + o 4096, gate 14336 + up 14336 + down 4096, per layer.
  const std::uint64_t extra = 32ull * (4096 + 1024 + 1024 + 4096 + 14336 + 14336 + 4096);
  EXPECT_EQ(m.manifest.logical_params(), 8'030'261'248ull + extra);
  EXPECT_EQ(find(m, "model.layers.0.self_attn.o_proj.bias")->role, ParallelRole::replicated);
  EXPECT_EQ(find(m, "model.layers.0.mlp.down_proj.bias")->role, ParallelRole::replicated);
  EXPECT_EQ(find(m, "model.layers.0.mlp.up_proj.bias")->role, ParallelRole::column);
}

TEST(DenseDecoderInline, UnknownModelTypeIsReadAsAGenericDecoderOutLoud) {
  auto doc = nlohmann::json::parse(testing::read_reference("models/meta-llama__Llama-3.1-8B/config.json"));
  doc["model_type"] = "my_llama_clone";
  const auto m = build_model_from_config(doc.dump(), "config.json").value_or_throw();
  EXPECT_EQ(m.family, "generic_decoder");
  EXPECT_EQ(m.manifest.payload_bytes(), 16'060'522'496u);
  ASSERT_FALSE(m.notes.empty());
  EXPECT_NE(m.notes.back().find("my_llama_clone"), std::string::npos);
  // A sliding window the generic reader cannot place is counted as full attention, and said.
  doc["sliding_window"] = 4096;
  const auto s = build_model_from_config(doc.dump(), "config.json").value_or_throw();
  EXPECT_EQ(s.count_layers(LayerKind::full_attention), 32u);
  EXPECT_EQ(s.notes.size(), 2u);
}

TEST(DenseDecoderInline, UnknownMoeModelTypeIsReadAsAGenericMoeDecoder) {
  // Mixtral's config under a name nobody describes: the dense Llama reading would
  // count one MLP per layer; the generic MoE reading counts the 8 experts and
  // matches the released total (TRUTH.md: 93,405,585,408 B).
  auto doc = nlohmann::json::parse(testing::read_reference("models/mistralai__Mixtral-8x7B-Instruct-v0.1/config.json"));
  doc["model_type"] = "my_mixtral_clone";
  doc["architectures"] = {"MyMixtralForCausalLM"};
  const auto m = build_model_from_config(doc.dump(), "config.json").value_or_throw();
  EXPECT_EQ(m.family, "generic_moe");
  EXPECT_FALSE(m.family_reader);
  EXPECT_EQ(m.manifest.payload_bytes(), 93'405'585'408u);
  EXPECT_EQ(m.moe.routed_experts, 8u);
  EXPECT_EQ(m.moe.experts_per_token, 2u);
  ASSERT_FALSE(m.notes.empty());
  EXPECT_NE(m.notes.back().find("generic MoE decoder"), std::string::npos);
  // DeepSeek-style keys: the first layers dense, shared experts of n x moe width.
  nlohmann::json ds = {{"model_type", "my_deepseek_clone"},
                       {"hidden_size", 1024},
                       {"num_hidden_layers", 4},
                       {"num_attention_heads", 8},
                       {"vocab_size", 1000},
                       {"intermediate_size", 4096},
                       {"moe_intermediate_size", 256},
                       {"n_routed_experts", 16},
                       {"num_experts_per_tok", 2},
                       {"n_shared_experts", 2},
                       {"first_k_dense_replace", 1}};
  const auto d = build_model_from_config(ds.dump(), "config.json").value_or_throw();
  EXPECT_EQ(d.moe.shared_experts, 2u);
  // Per layer: attention 4 x 1024^2; layer 0 dense 3 x 4096 x 1024; layers 1-3 router 16 x 1024,
  // experts 16 x 3 x 256 x 1024, shared 3 x 512 x 1024; norms 2 x 1024; embedding, head, final norm.
  const std::uint64_t params = 4 * (4ull * 1024 * 1024 + 2 * 1024) + 3ull * 4096 * 1024 +
                               3 * (16ull * 1024 + 16ull * 3 * 256 * 1024 + 3ull * 512 * 1024) + 2ull * 1000 * 1024 +
                               1024;
  EXPECT_EQ(d.manifest.logical_params(), params);
  // A config the generic MoE reading cannot read names the missing reader.
  ds.erase("moe_intermediate_size");
  ds.erase("intermediate_size");
  const auto bad = build_model_from_config(ds.dump(), "config.json");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("no family reader"), std::string::npos) << bad.error().to_string();
}

TEST(DenseDecoderInline, LinearFlagsMarkTheNnLinearWeights) {
  // Quantize every "Linear" target with MXFP4: exactly the projections and the
  // head change format; embedding, norms and biases stay BF16.
  auto doc = nlohmann::json::parse(testing::read_reference("models/Qwen__Qwen2.5-7B-Instruct/config.json"));
  doc["quantization_config"] = nlohmann::json::parse(R"({"quant_method": "compressed-tensors",
    "format": "mxfp4-pack-quantized", "ignore": [], "config_groups": {"group_0": {"format": "mxfp4-pack-quantized",
    "targets": ["Linear"], "weights": {"num_bits": 4, "type": "float", "group_size": 32, "strategy": "group",
    "scale_dtype": "torch.uint8", "symmetric": true, "dynamic": false}}}})");
  const auto m = build_model_from_config(doc.dump(), "config.json").value_or_throw();
  for (const auto& t : m.manifest.tensors) {
    const bool projection = t.name.ends_with("_proj.weight") || t.name.ends_with("_proj.weight_packed") ||
                            t.name.ends_with("_proj.weight_scale") || t.name.starts_with("lm_head.");
    EXPECT_EQ(t.format != StorageFormat::plain, projection) << t.name;
  }
}

TEST(DenseDecoderErrors, EachBadFieldIsNamed) {
  const auto base = nlohmann::json::parse(testing::read_reference("models/meta-llama__Llama-3.1-8B/config.json"));
  testing::expect_config_errors(
      base,
      {
          {"/num_attention_heads", "7",
           "config.json: /num_attention_heads: 7 heads do not divide hidden_size 4096 and no head_dim is given"},
          {"/num_key_value_heads", "-8", "config.json: /num_key_value_heads: expected a positive integer, got -8"},
          {"/num_key_value_heads", "5",
           "config.json: /num_key_value_heads: 32 attention heads are not a multiple of 5 KV heads"},
          {"/hidden_size", "DELETE", "config.json: /hidden_size: missing positive integer"},
          {"/intermediate_size", "\"14336\"",
           "config.json: /intermediate_size: expected a positive integer, got \"14336\""},
          {"/head_dim", "0", "config.json: /head_dim: expected a positive integer, got 0"},
          {"/num_hidden_layers", "100000", "config.json: /num_hidden_layers: 100000 layers is implausible"},
          {"/tie_word_embeddings", "\"yes\"", "config.json: /tie_word_embeddings: expected true or false, got \"yes\""},
          {"/torch_dtype", "\"float128\"", "config.json: /torch_dtype: unknown dtype \"float128\""},
          {"/layer_types", "[\"full_attention\"]", "config.json: /layer_types: 1 entries for 32 layers"},
          {"/sliding_window", "-1", "config.json: /sliding_window: expected a non-negative integer, got -1"},
      });
}

TEST(DenseDecoderErrors, LayerTypesAreCheckedOneByOne) {
  auto doc = nlohmann::json::parse(testing::read_reference("models/meta-llama__Llama-3.1-8B/config.json"));
  doc["layer_types"] = nlohmann::json::array();
  for (int i = 0; i < 32; ++i) doc["layer_types"].push_back(i == 3 ? "chunked" : "sliding_attention");
  EXPECT_EQ(build_model_from_config(doc.dump(), "config.json").error().to_string(),
            "config.json: /layer_types/3: unknown layer type \"chunked\" (expected full_attention, sliding_attention, "
            "chunked_attention, mla, kda, gated_deltanet, mamba2, short_conv, lightning or stateless)");
  doc["layer_types"][3] = "full_attention";
  // Sliding layers without a window.
  EXPECT_EQ(build_model_from_config(doc.dump(), "config.json").error().to_string(),
            "config.json: /sliding_window: sliding layers need a positive sliding_window");
}

}  // namespace
}  // namespace preflight
