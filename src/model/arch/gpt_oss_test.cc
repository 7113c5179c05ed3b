// The gpt_oss description (data/architectures/gpt_oss.json; a C++ family until
// 2026-12-03) against the released checkpoints: every tensor of gpt-oss-20b's index
// (tests/data/reference/models/openai__gpt-oss-20b/model.safetensors.index.json) is
// generated and nothing else, the payload and parameter totals are exact for
// 20b and 120b (TRUTH.md), and the fused experts split cleanly over EP ranks.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "config_error_cases.h"
#include "model/family_registry.h"
#include "model/inventory.h"
#include "model/quantization.h"
#include "placement/placement.h"
#include "reference_files.h"

namespace preflight {
namespace {

nlohmann::json shared_json(const std::string& rel) {
  const auto text = testing::read_reference(rel);
  if (text.empty())
    throw std::runtime_error("not found: " + testing::reference_path(rel) + " (tests read tests/data/reference)");
  return nlohmann::json::parse(text);
}

const nlohmann::json& config_20b() {
  static const auto doc = shared_json("models/openai__gpt-oss-20b/config.json");
  return doc;
}

const ModelSpec& gpt_oss_20b() {
  static const ModelSpec m = build_model_from_config(config_20b().dump(), "config.json").value_or_throw();
  return m;
}

const ModelSpec& gpt_oss_120b() {
  static const ModelSpec m =
      build_model_from_config(shared_json("models/openai__gpt-oss-120b/config.json").dump(), "config.json")
          .value_or_throw();
  return m;
}

// Stored names: a "{E}" entry stands for one tensor per expert, a fused entry for one.
std::set<std::string> stored_names(const TensorManifest& manifest) {
  std::set<std::string> names;
  for (const auto& t : manifest.tensors) {
    const auto pos = t.name.find("{E}");
    if (pos == std::string::npos) {
      names.insert(t.name);
      continue;
    }
    for (std::uint32_t i = 0; i < t.instances; ++i) {
      auto n = t.name;
      n.replace(pos, 3, std::to_string(t.first_instance + i));
      names.insert(n);
    }
  }
  return names;
}

const StoredTensor& find(const ModelSpec& m, const std::string& name) {
  for (const auto& t : m.manifest.tensors)
    if (t.name == name) return t;
  throw std::runtime_error("no tensor " + name);
}

TEST(GptOss, TwentyBGeneratesExactlyTheIndexedTensors) {
  const auto index = shared_json("models/openai__gpt-oss-20b/model.safetensors.index.json");
  std::set<std::string> want;
  for (const auto& [name, shard] : index.at("weight_map").items()) want.insert(name);
  ASSERT_EQ(want.size(), 459u);
  const auto got = stored_names(gpt_oss_20b().manifest);
  std::vector<std::string> missing, extra;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(), std::back_inserter(missing));
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(extra));
  EXPECT_TRUE(missing.empty()) << "not generated: " << (missing.empty() ? "" : missing.front()) << " and "
                               << (missing.empty() ? 0 : missing.size() - 1) << " more";
  EXPECT_TRUE(extra.empty()) << "not in the index: " << (extra.empty() ? "" : extra.front()) << " and "
                             << (extra.empty() ? 0 : extra.size() - 1) << " more";
  EXPECT_EQ(gpt_oss_20b().manifest.tensor_count(), 459u);
  EXPECT_EQ(gpt_oss_20b().manifest.payload_bytes(), index.at("metadata").at("total_size").get<std::uint64_t>());
}

TEST(GptOss, TwentyBTotalsAreExact) {
  const auto& m = gpt_oss_20b();
  EXPECT_EQ(m.manifest.payload_bytes(), 13'761'264'768u);
  // The hub's count: BF16 1,804,459,584 + U8 blocks x 2 (19,110,297,600); scales dropped.
  EXPECT_EQ(m.manifest.logical_params(), 20'914'757'184u);
  const auto inv = build_inventory(m);
  EXPECT_EQ(inv.bytes_by_dtype.at("BF16"), 3'608'919'168u);
  EXPECT_EQ(inv.bytes_by_dtype.at("U8 (MXFP4 codes)"), 9'555'148'800u);
  EXPECT_EQ(inv.bytes_by_dtype.at("U8 (E8M0 scales)"), 597'196'800u);
  EXPECT_EQ(inv.elements_by_dtype.at("BF16"), 1'804'459'584u);
  EXPECT_EQ(inv.elements_by_dtype.at("U8"), 9'555'148'800u + 597'196'800u);
  EXPECT_EQ(inv.unquantized_params, 1'804'459'584u);
  EXPECT_EQ(inv.quantized_params, 19'110'297'600u);
  EXPECT_EQ(inv.moe_layers, 24u);
  // Per expert per layer: (5760 + 2880) x 2880 weights.
  EXPECT_EQ(inv.routed_params_per_expert, 24'883'200u + 8'640u);  // + its gate_up / down bias rows
}

TEST(GptOss, StoredShapesAndDtypesMatchTheCheckpoint) {
  const auto& m = gpt_oss_20b();
  struct Row {
    const char* name;
    const char* shape;
    Dtype dtype;
  };
  const Row rows[] = {
      {"model.embed_tokens.weight", "[201088, 2880]", Dtype::BF16},
      {"lm_head.weight", "[201088, 2880]", Dtype::BF16},
      {"model.layers.0.self_attn.q_proj.weight", "[4096, 2880]", Dtype::BF16},
      {"model.layers.0.self_attn.k_proj.weight", "[512, 2880]", Dtype::BF16},
      {"model.layers.0.self_attn.o_proj.weight", "[2880, 4096]", Dtype::BF16},
      {"model.layers.0.self_attn.o_proj.bias", "[2880]", Dtype::BF16},
      {"model.layers.0.self_attn.sinks", "[64]", Dtype::BF16},
      {"model.layers.0.mlp.router.weight", "[32, 2880]", Dtype::BF16},
      {"model.layers.0.mlp.router.bias", "[32]", Dtype::BF16},
      {"model.layers.0.mlp.experts.gate_up_proj_blocks", "[32, 5760, 90, 16]", Dtype::U8},
      {"model.layers.0.mlp.experts.gate_up_proj_scales", "[32, 5760, 90]", Dtype::U8},
      {"model.layers.0.mlp.experts.gate_up_proj_bias", "[32, 5760]", Dtype::BF16},
      {"model.layers.0.mlp.experts.down_proj_blocks", "[32, 2880, 90, 16]", Dtype::U8},
      {"model.layers.0.mlp.experts.down_proj_scales", "[32, 2880, 90]", Dtype::U8},
      {"model.layers.0.mlp.experts.down_proj_bias", "[32, 2880]", Dtype::BF16},
  };
  for (const auto& r : rows) {
    const auto& t = find(m, r.name);
    EXPECT_EQ(shape_text(stored_shape(t)), r.shape) << r.name;
    EXPECT_EQ(t.dtype, r.dtype) << r.name;
  }
  const auto& blocks = find(m, "model.layers.0.mlp.experts.gate_up_proj_blocks");
  EXPECT_TRUE(is_fused_slice(blocks));
  EXPECT_EQ(blocks.instances, 32u);
  EXPECT_EQ(blocks.role, ParallelRole::expert);
  EXPECT_EQ(blocks.module, ModuleClass::routed_experts);
  EXPECT_EQ(blocks.logical_params_each, 5760u * 2880u);
  EXPECT_EQ(find(m, "model.layers.0.mlp.router.weight").module, ModuleClass::router);
  EXPECT_EQ(find(m, "model.layers.0.self_attn.sinks").module, ModuleClass::gqa_attention);
  EXPECT_EQ(find(m, "lm_head.weight").module, ModuleClass::lm_head);
  EXPECT_EQ(find(m, "model.embed_tokens.weight").module, ModuleClass::embedding);
}

TEST(GptOss, OneTwentyBTotalsAreExact) {
  const auto& m = gpt_oss_120b();
  EXPECT_EQ(m.manifest.payload_bytes(), 65'248'815'744u);
  EXPECT_EQ(m.manifest.logical_params(), 116'829'156'672u);  // BF16 2,167,371,072 + U8 114,661,785,600
  EXPECT_EQ(m.manifest.tensor_count(), 36u * 19u + 3u);
  const auto inv = build_inventory(m);
  EXPECT_EQ(inv.bytes_by_dtype.at("BF16"), 4'334'742'144u);
  EXPECT_EQ(inv.bytes_by_dtype.at("U8 (MXFP4 codes)"), 57'330'892'800u);
  EXPECT_EQ(inv.bytes_by_dtype.at("U8 (E8M0 scales)"), 3'583'180'800u);
}

TEST(GptOss, SlidingAndFullLayersAlternate) {
  for (const ModelSpec* m : {&gpt_oss_20b(), &gpt_oss_120b()}) {
    const auto n = m->layers.size();
    EXPECT_EQ(m->count_layers(LayerKind::sliding_attention), n / 2);
    EXPECT_EQ(m->count_layers(LayerKind::full_attention), n / 2);
    EXPECT_EQ(m->layers.front(), LayerKind::sliding_attention);
    EXPECT_EQ(m->layers[1], LayerKind::full_attention);
    EXPECT_EQ(m->gqa.sliding_window, 128u);
    EXPECT_EQ(m->gqa.heads, 64u);
    EXPECT_EQ(m->gqa.kv_heads, 8u);
    EXPECT_EQ(m->gqa.head_dim, 64u);
    EXPECT_EQ(m->gqa.v_head_dim, 64u);
    EXPECT_EQ(m->moe.experts_per_token, 4u);
    EXPECT_EQ(m->moe.moe_intermediate, 2880u);
    EXPECT_EQ(m->hidden_size, 2880u);
    EXPECT_EQ(m->max_context, 131'072u);
    EXPECT_EQ(m->dtype, Dtype::BF16);
  }
  EXPECT_EQ(gpt_oss_20b().layers.size(), 24u);
  EXPECT_EQ(gpt_oss_20b().moe.routed_experts, 32u);
  EXPECT_EQ(gpt_oss_120b().layers.size(), 36u);
  EXPECT_EQ(gpt_oss_120b().moe.routed_experts, 128u);
  EXPECT_EQ(gpt_oss_20b().quantization.method, "mxfp4");
}

TEST(GptOss, FusedExpertsSplitEvenlyOverExpertParallelRanks) {
  const auto& m = gpt_oss_20b();
  Layout layout;
  layout.world = 4;
  layout.tp = 4;
  layout.dp = 1;
  layout.ep = 4;
  const auto ranks = place_weights(m.manifest, layout, m.layers.size(), m.moe.routed_experts);
  std::uint64_t routed = 0;
  for (const auto& t : m.manifest.tensors)
    if (t.module == ModuleClass::routed_experts) routed += t.bytes();
  ASSERT_EQ(ranks.size(), 4u);
  for (const auto& r : ranks) {
    EXPECT_EQ(r.experts_per_moe_layer, 8u);
    EXPECT_EQ(r.bytes_by_module.at(ModuleClass::routed_experts), routed / 4);
  }
}

TEST(GptOss, WithoutQuantizationTheExpertsAreBf16Parameters) {
  auto doc = config_20b();
  doc.erase("quantization_config");
  const auto m = build_model_from_config(doc.dump(), "config.json").value_or_throw();
  const auto& gate_up = find(m, "model.layers.0.mlp.experts.gate_up_proj");
  EXPECT_EQ(shape_text(stored_shape(gate_up)), "[32, 2880, 5760]");  // transformers' [E, H, 2I]
  EXPECT_EQ(gate_up.dtype, Dtype::BF16);
  EXPECT_EQ(m.manifest.payload_bytes(), 2u * 20'914'757'184u);
  EXPECT_EQ(m.manifest.tensor_count(), 24u * 17u + 3u);
}

TEST(GptOss, BadConfigsAreNamed) {
  testing::expect_config_errors(
      config_20b(),
      {
          {"/layer_types", R"(["sliding_attention"])", "config.json: /layer_types: 1 entries for 24 layers"},
          {"/layer_types/3", R"("chunked")",
           "config.json: /layer_types/3: unknown layer type \"chunked\" (expected full_attention, sliding_attention, "
           "chunked_attention, mla, kda, gated_deltanet, mamba2, short_conv, lightning or stateless)"},
          {"/num_experts_per_tok", "64",
           "config.json: /num_experts_per_tok: 64 selected experts exceed the 32 experts (num_local_experts)"},
          {"/sliding_window", "null", "config.json: /sliding_window: sliding layers need a positive sliding_window"},
          {"/num_key_value_heads", "7",
           "config.json: /num_key_value_heads: 64 attention heads are not a multiple of 7 KV heads"},
          {"/num_local_experts", "0", "config.json: /num_local_experts: expected a positive integer, got 0"},
          {"/tie_word_embeddings", "\"no\"", "config.json: /tie_word_embeddings: expected true or false, got \"no\""},
          {"/quantization_config/modules_to_not_convert/0", "\"*.self_attn\"",
           "config.json: /quantization_config/modules_to_not_convert/0: '*.self_attn' is neither a module name nor a "
           "valid "
           "regular expression"},
      });
}

TEST(GptOss, DefaultsWhenOptionalFieldsAreAbsent) {
  auto doc = config_20b();
  doc.erase("layer_types");
  doc.erase("head_dim");
  doc["tie_word_embeddings"] = true;
  const auto m = build_model_from_config(doc.dump(), "config.json").value_or_throw();
  EXPECT_EQ(m.layers.front(), LayerKind::sliding_attention);
  EXPECT_EQ(m.layers.back(), LayerKind::full_attention);
  EXPECT_EQ(m.gqa.head_dim, 45u);  // 2880 / 64: what the config would imply without head_dim
  for (const auto& t : m.manifest.tensors) EXPECT_NE(t.name, "lm_head.weight");
  EXPECT_GE(m.notes.size(), 3u);
}

}  // namespace
}  // namespace preflight
