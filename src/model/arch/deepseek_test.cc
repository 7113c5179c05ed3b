// The deepseek description (data/architectures/deepseek.json; a C++ family until
// 2026-12-03) against the released checkpoints: DeepSeek-V2-Lite-Chat
// (index total), DeepSeek-V3 / R1 and Kimi-K2-Instruct (verbatim tensor
// inventories in tests/data/reference/models, every group's shape and dtype), and
// DeepSeek-V3.2 (a public header audit of rev a7e62ac: 92,425 tensors,
// 689,471,107,200 bytes). The FP8 block format's sizes are checked on the
// released configs; the logical shapes and parameter counts on the same
// configs without their quantization_config.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "config_error_cases.h"
#include "inventory_table.h"
#include "model/family_registry.h"
#include "model/inventory.h"
#include "model/quantization.h"
#include "model/request_state.h"
#include "reference_files.h"

namespace preflight {
namespace {

constexpr const char* kV2Lite = "models/deepseek-ai__DeepSeek-V2-Lite-Chat/config.json";
constexpr const char* kV3 = "models/deepseek-ai__DeepSeek-V3/config.json";
constexpr const char* kV32 = "models/deepseek-ai__DeepSeek-V3.2-Exp/config.sibling.DeepSeek-V3.2.json";
constexpr const char* kK2 = "models/moonshotai__Kimi-K2-Instruct/config.json";

nlohmann::json reference_config(const char* rel) {
  const auto text = testing::read_reference(rel);
  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded()) ADD_FAILURE() << "config not found or not JSON: " << testing::reference_path(rel);
  return doc;
}

ModelSpec build(const nlohmann::json& doc) {
  auto m = build_model_from_config(doc.dump(), "config.json");
  if (!m) throw std::runtime_error(m.error().to_string());
  return std::move(m).value();
}

// The same config without its quantization_config: every tensor in its logical
// shape and unquantized dtype, whatever quantization.cc supports.
ModelSpec build_logical(const char* rel) {
  auto doc = reference_config(rel);
  doc.erase("quantization_config");
  return build(doc);
}

// Every inventory tensor is generated with its shape (and dtype when
// `check_dtype`), and every generated tensor is in the inventory.
void expect_matches_inventory(const ModelSpec& m, const std::string& rel, bool quantized) {
  const auto rows = testing::read_inventory_table(rel);
  ASSERT_GT(rows.size(), 30u) << "inventory not found: " << testing::reference_path(rel);
  std::map<std::string, const StoredTensor*> made;
  for (const auto& t : m.manifest.tensors) made[t.name] = &t;
  std::set<std::string> listed;
  for (const auto& row : rows) {
    for (const auto& name : row.names) {
      const bool scale = name.ends_with("_scale_inv");
      if (scale && !quantized) continue;  // block scales exist only in the FP8 manifest
      listed.insert(name);
      const auto it = made.find(name);
      if (it == made.end()) {
        ADD_FAILURE() << "inventory tensor not generated: " << name;
        continue;
      }
      EXPECT_EQ(shape_text(it->second->shape), row.shape) << name;
      if (quantized || row.dtype != "F8_E4M3") {
        EXPECT_EQ(dtype_name(it->second->dtype), row.dtype) << name;
      }
    }
  }
  for (const auto& [name, t] : made) EXPECT_TRUE(listed.count(name)) << "generated but not in the inventory: " << name;
}

std::uint64_t params_of(const ModelSpec& m, ModuleClass c) {
  std::uint64_t n = 0;
  for (const auto& t : m.manifest.tensors)
    if (t.module == c) n += t.logical_params();
  return n;
}

// ---- DeepSeek-V2-Lite: BF16, q_lora_rank null, no score-correction bias ----

TEST(DeepSeek, V2LiteMatchesItsIndexTotal) {
  const auto m = build(reference_config(kV2Lite));
  EXPECT_EQ(m.family, "deepseek");
  // Index metadata.total_size 31,412,968,448 (TRUTH.md; notes.md of the folder).
  EXPECT_EQ(m.manifest.payload_bytes(), 31'412'968'448u);
  EXPECT_EQ(m.manifest.logical_params(), 15'706'484'224u);
  ASSERT_EQ(m.layers.size(), 27u);
  EXPECT_EQ(m.count_layers(LayerKind::mla), 27u);
  EXPECT_EQ(m.mtp_layers, 0u);
  EXPECT_EQ(m.mla.q_lora_rank, 0u);
  std::map<std::string, std::string> shapes;
  for (const auto& t : m.manifest.tensors) shapes[t.name] = shape_text(t.shape);
  EXPECT_EQ(shapes["model.layers.0.self_attn.q_proj.weight"], "[3072, 2048]");
  EXPECT_EQ(shapes.count("model.layers.0.self_attn.q_a_proj.weight"), 0u);
  EXPECT_EQ(shapes["model.layers.0.mlp.gate_proj.weight"], "[10944, 2048]");
  EXPECT_EQ(shapes["model.layers.1.mlp.shared_experts.gate_proj.weight"], "[2816, 2048]");  // 2 shared x 1408
  EXPECT_EQ(shapes["model.layers.26.mlp.experts.{E}.down_proj.weight"], "[2048, 1408]");
  EXPECT_EQ(shapes.count("model.layers.1.mlp.gate.e_score_correction_bias"), 0u);  // topk_method greedy
  // 27 layers x (512 + 64) x 2 B.
  EXPECT_EQ(mla_cache_per_token(m, 2).bytes, 31'104u);
}

// ---- DeepSeek-V3 / R1 ----

TEST(DeepSeek, V3LogicalShapesMatchTheR1Inventory) {
  const auto m = build_logical(kV3);
  expect_matches_inventory(m, "models/deepseek-ai__DeepSeek-V3/tensor_inventory.R1.md", false);
  // Parameters without weight_scale_inv, MTP layer 61 and its embed/head copies included.
  EXPECT_EQ(m.manifest.logical_params(), 684'489'845'504u);
  ASSERT_EQ(m.layers.size(), 61u);
  EXPECT_EQ(m.mtp_layers, 1u);
  EXPECT_EQ(m.moe.first_dense_layers, 3u);
  EXPECT_EQ(m.moe.shared_experts, 1u);
}

TEST(DeepSeek, V3MlaCacheCountsDecoderLayersOnly) {
  const auto m = build_logical(kV3);
  // 61 x (512 + 64) x 2 B; the MTP layer 61 keeps no cache of its own here.
  const auto c = mla_cache_per_token(m, 2);
  EXPECT_EQ(c.layers, 61u);
  EXPECT_EQ(c.bytes, 70'272u);
}

TEST(DeepSeek, V3ActiveParametersByDefinition) {
  // Active per token: every text parameter except the input embedding, the
  // routed experts and the MTP layer, plus the top-8 experts of each of the 58
  // MoE decoder layers: 16,190,969,344 + 58 x 8 x 44,040,192 (the "37B").
  const auto m = build_logical(kV3);
  std::uint64_t trunk = 0, routed = 0;
  std::set<int> moe_layers;
  for (const auto& t : m.manifest.tensors) {
    if (!t.text || t.module == ModuleClass::embedding || t.module == ModuleClass::mtp) continue;
    if (t.module == ModuleClass::routed_experts) {
      routed += t.logical_params();
      moe_layers.insert(t.layer);
    } else {
      trunk += t.logical_params();
    }
  }
  ASSERT_EQ(moe_layers.size(), 58u);
  const auto per_expert = routed / (58 * 256);
  EXPECT_EQ(per_expert, 44'040'192u);
  EXPECT_EQ(trunk, 16'190'969'344u);
  EXPECT_EQ(trunk + 58 * 8 * per_expert, 36'625'618'432u);
  // The MTP layer (module mtp) holds its own experts and embed/head copies.
  EXPECT_EQ(params_of(m, ModuleClass::mtp), 13'463'426'304u);
  // The inventory fold agrees on the routed experts of the decoder layers.
  const auto inv = build_inventory(m);
  EXPECT_EQ(inv.routed_params, routed);
  EXPECT_EQ(inv.moe_layers, 58u);
}

TEST(DeepSeek, V3Fp8TotalsMatchTheCheckpoint) {
  const auto m = build(reference_config(kV3));
  expect_matches_inventory(m, "models/deepseek-ai__DeepSeek-V3/tensor_inventory.R1.md", true);
  EXPECT_EQ(m.manifest.payload_bytes(), 688'574'839'360u);
  EXPECT_EQ(m.manifest.tensor_count(), 91'991u);
  EXPECT_EQ(m.manifest.logical_params(), 684'489'845'504u);
  const auto inv = build_inventory(m);
  EXPECT_EQ(inv.elements_by_dtype.at("BF16"), 3'918'786'560u);
  EXPECT_EQ(inv.elements_by_dtype.at("F8_E4M3"), 680'571'043'840u);
  EXPECT_EQ(inv.elements_by_dtype.at("F32"), 41'555'600u);  // scale_inv 41,540,496 + bias 15,104
}

// ---- Kimi K2 ----

TEST(DeepSeek, KimiK2LogicalShapesMatchItsInventory) {
  const auto m = build_logical(kK2);
  EXPECT_EQ(m.family, "deepseek");
  expect_matches_inventory(m, "models/moonshotai__Kimi-K2-Instruct/tensor_inventory.md", false);
  // 1,026,408,232,448 parameters + 61 x 56 inv_freq values, as the Hub counts.
  EXPECT_EQ(m.manifest.logical_params(), 1'026'408'235'864u);
  EXPECT_EQ(m.mtp_layers, 0u);
  EXPECT_EQ(m.moe.first_dense_layers, 1u);
  EXPECT_EQ(mla_cache_per_token(m, 2).bytes, 70'272u);
}

TEST(DeepSeek, KimiK2Fp8TotalsMatchTheCheckpoint) {
  const auto m = build(reference_config(kK2));
  expect_matches_inventory(m, "models/moonshotai__Kimi-K2-Instruct/tensor_inventory.md", true);
  EXPECT_EQ(m.manifest.payload_bytes(), 1'029'173'256'720u);
  EXPECT_EQ(m.manifest.tensor_count(), 139'644u);
  const auto inv = build_inventory(m);
  EXPECT_EQ(inv.elements_by_dtype.at("BF16"), 2'514'970'968u);
  EXPECT_EQ(inv.elements_by_dtype.at("F8_E4M3"), 1'023'893'241'856u);
  EXPECT_EQ(inv.elements_by_dtype.at("F32"), 62'518'232u);
}

// ---- DeepSeek-V3.2: indexer per layer (MTP included), F32 norms ----

TEST(DeepSeek, V32IndexerAndLogicalParameters) {
  const auto m = build_logical(kV32);
  std::map<std::string, const StoredTensor*> by_name;
  for (const auto& t : m.manifest.tensors) by_name[t.name] = &t;
  struct Want {
    const char* name;
    const char* shape;
    const char* dtype;
  };
  for (const auto& w :
       {Want{"model.layers.61.self_attn.indexer.wq_b.weight", "[8192, 1536]", "BF16"},
        Want{"model.layers.0.self_attn.indexer.wk.weight", "[128, 7168]", "BF16"},
        Want{"model.layers.0.self_attn.indexer.k_norm.bias", "[128]", "F32"},
        Want{"model.layers.0.self_attn.indexer.weights_proj.weight", "[64, 7168]", "BF16"},
        Want{"model.layers.0.input_layernorm.weight", "[7168]", "F32"},
        Want{"model.layers.61.shared_head.norm.weight", "[7168]", "F32"}, Want{"model.norm.weight", "[7168]", "F32"}}) {
    ASSERT_TRUE(by_name.count(w.name)) << w.name;
    EXPECT_EQ(shape_text(by_name[w.name]->shape), w.shape) << w.name;
    EXPECT_EQ(dtype_name(by_name[w.name]->dtype), w.dtype) << w.name;
  }
  // Header audit: 685,396,921,376 elements incl. 41,591,584 block scales.
  EXPECT_EQ(m.manifest.logical_params(), 685'355'329'792u);
}

TEST(DeepSeek, V32Fp8TotalsMatchTheHeaderAudit) {
  const auto m = build(reference_config(kV32));
  EXPECT_EQ(m.manifest.payload_bytes(), 689'471'107'200u);
  EXPECT_EQ(m.manifest.tensor_count(), 92'425u);
  const auto inv = build_inventory(m);
  EXPECT_EQ(inv.bytes_by_dtype.at("F8_E4M3"), 681'408'069'632u);
  EXPECT_EQ(inv.elements_by_dtype.at("BF16"), 3'946'184'704u);
  // block scales 41,591,584 + norms 1,052,416 + biases 23,040
  EXPECT_EQ(inv.elements_by_dtype.at("F32"), 42'667'040u);
}

// ---- registry and bad configs ----

TEST(DeepSeek, EveryModelTypeReachesTheFamily) {
  for (const char* type : {"deepseek_v2", "deepseek_v3", "deepseek_v32", "kimi_k2"}) {
    auto doc = reference_config(kV2Lite);
    doc["model_type"] = type;
    if (std::string(type) == "deepseek_v32") {
      doc["q_lora_rank"] = 1536;
      doc["index_n_heads"] = 64;
      doc["index_head_dim"] = 128;
    }
    EXPECT_EQ(build(doc).family, "deepseek") << type;
  }
}

TEST(DeepSeek, BadConfigsNameTheField) {
  testing::expect_config_errors(
      reference_config(kV2Lite),
      {
          {"/num_experts_per_tok", "65",
           "config.json: /num_experts_per_tok: 65 selected experts exceed the 64 routed experts"},
          {"/kv_lora_rank", "DELETE", "config.json: /kv_lora_rank: missing positive integer"},
          {"/q_lora_rank", "-1", "config.json: /q_lora_rank: expected a positive integer, got -1"},
          {"/first_k_dense_replace", "28", "config.json: /first_k_dense_replace: 28 exceeds the 27 layers"},
          {"/num_nextn_predict_layers", "-1",
           "config.json: /num_nextn_predict_layers: expected a non-negative integer, got -1"},
          {"/tie_word_embeddings", "\"no\"", "config.json: /tie_word_embeddings: expected true or false, got \"no\""},
          {"/torch_dtype", "\"float128\"", "config.json: /torch_dtype: unknown dtype \"float128\""},
      });
  testing::expect_config_errors(
      reference_config(kV32),
      {
          {"/q_lora_rank", "null",
           "config.json: /q_lora_rank: the V3.2 indexer reads the query latent: q_lora_rank must be set"},
          {"/index_head_dim", "DELETE", "config.json: /index_head_dim: missing positive integer"},
      });
}

}  // namespace
}  // namespace preflight
