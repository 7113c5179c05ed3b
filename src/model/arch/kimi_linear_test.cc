// The kimi_linear family against Kimi-Linear-48B-A3B-Instruct (rev e1df551):
// the verbatim inventory of all 20,493 tensors in
// tests/data/reference/models/moonshotai__Kimi-Linear-48B-A3B-Instruct (every layer's
// shape and dtype), the index totals, and the KDA / MLA request state.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "config_error_cases.h"
#include "inventory_table.h"
#include "model/family_registry.h"
#include "model/inventory.h"
#include "model/request_state.h"
#include "reference_files.h"

namespace preflight {
namespace {

constexpr const char* kFolder = "models/moonshotai__Kimi-Linear-48B-A3B-Instruct/";

nlohmann::json config() {
  auto doc = nlohmann::json::parse(testing::read_reference(std::string(kFolder) + "config.json"), nullptr, false);
  if (doc.is_discarded()) ADD_FAILURE() << "config not found: " << testing::reference_path(kFolder);
  return doc;
}

const ModelSpec& kimi_linear() {
  static const ModelSpec m = build_model_from_config(config().dump(), "config.json").value_or_throw();
  return m;
}

// Inventory rows name layer sets such as "0-2,4-6,...,24-25"; each is expanded
// (tests/inventory_table.h) so KDA q_proj [4096, 2304] and MLA q_proj [6144, 2304] are told apart.
TEST(KimiLinear, EveryInventoryTensorHasItsShapeAndDtype) {
  const auto rows = testing::read_inventory_table(std::string(kFolder) + "tensor_inventory.md");
  ASSERT_EQ(rows.size(), 35u) << "inventory not found under " << testing::reference_path(kFolder);
  std::map<std::string, const StoredTensor*> made;
  for (const auto& t : kimi_linear().manifest.tensors) made[t.name] = &t;
  std::set<std::string> listed;
  for (const auto& row : rows)
    for (const auto& name : row.names) {
      listed.insert(name);
      const auto it = made.find(name);
      if (it == made.end()) {
        ADD_FAILURE() << "inventory tensor not generated: " << name;
        continue;
      }
      EXPECT_EQ(shape_text(it->second->shape), row.shape) << name;
      EXPECT_EQ(dtype_name(it->second->dtype), row.dtype) << name;
    }
  for (const auto& [name, t] : made) EXPECT_TRUE(listed.count(name)) << "generated but not in the inventory: " << name;
}

TEST(KimiLinear, TotalsMatchTheIndexExactly) {
  const auto& m = kimi_linear();
  EXPECT_EQ(m.family, "kimi_linear");
  // model.safetensors.index.json: total_size 98,245,528,576; total_parameters 49,122,681,728.
  EXPECT_EQ(m.manifest.payload_bytes(), 98'245'528'576u);
  EXPECT_EQ(m.manifest.logical_params(), 49'122'681'728u);
  EXPECT_EQ(m.manifest.tensor_count(), 20'493u);
  const auto inv = build_inventory(m);
  EXPECT_EQ(inv.elements_by_dtype.at("BF16"), 49'122'599'168u);
  EXPECT_EQ(inv.elements_by_dtype.at("F32"), 82'560u);  // A_log and dt_bias of 20 KDA layers
  EXPECT_EQ(inv.moe_layers, 26u);
  EXPECT_EQ(inv.routed_params_per_expert, 7'077'888u);  // 3 x 1024 x 2304
}

TEST(KimiLinear, LayerKindsComeFromOneIndexedLists) {
  const auto& m = kimi_linear();
  ASSERT_EQ(m.layers.size(), 27u);
  EXPECT_EQ(m.count_layers(LayerKind::kda), 20u);
  EXPECT_EQ(m.count_layers(LayerKind::mla), 7u);
  EXPECT_EQ(m.layers[0], LayerKind::kda);
  EXPECT_EQ(m.layers[3], LayerKind::mla);   // config lists 4
  EXPECT_EQ(m.layers[25], LayerKind::kda);  // 26 is a KDA layer
  EXPECT_EQ(m.layers[26], LayerKind::mla);  // config lists 27: the every-4th pattern breaks
  EXPECT_EQ(m.mla.q_lora_rank, 0u);
  EXPECT_EQ(m.moe.shared_experts, 1u);
  EXPECT_EQ(m.max_context, 1'048'576u);  // model_max_length (no max_position_embeddings)
}

TEST(KimiLinear, RequestStateMatchesTheVllmProfile) {
  const auto& m = kimi_linear();
  // MLA: 7 x (512 + 64) x 2 B per token.
  EXPECT_EQ(mla_cache_per_token(m, 2).bytes, 8'064u);
  // KDA per sequence: FP32 recurrent 20 x 32 x 128 x 128 x 4, BF16 conv 20 x 3 x 3 x 4096 x 2.
  const auto s = kda_state_per_request(m, 1, 4);
  EXPECT_EQ(s.recurrent_bytes, 41'943'040u);
  EXPECT_EQ(s.conv_bytes, 1'474'560u);
}

TEST(KimiLinear, BadConfigsNameTheField) {
  testing::expect_config_errors(
      config(),
      {
          {"/linear_attn_config", "DELETE", "config.json: /linear_attn_config: missing object"},
          {"/linear_attn_config/kda_layers/0", "28",
           "config.json: /linear_attn_config/kda_layers/0: layer 28 is outside 1..27 (these lists are 1-indexed)"},
          {"/linear_attn_config/full_attn_layers/6", "26",
           "config.json: /linear_attn_config/kda_layers: 1 layer(s) are in both kda_layers and full_attn_layers"},
          {"/linear_attn_config/full_attn_layers", "[4, 8, 12, 16, 20, 24]",
           "config.json: /linear_attn_config/kda_layers: kda_layers and full_attn_layers list 26 of the 27 layers: "
           "every "
           "layer must be in one of them (1-indexed)"},
          {"/linear_attn_config/head_dim", "0",
           "config.json: /linear_attn_config/head_dim: expected a positive integer, got 0"},
          {"/num_experts_per_token", "257",
           "config.json: /num_experts_per_token: 257 selected experts exceed the 256 routed experts"},
          {"/num_nextn_predict_layers", "1",
           "config.json: /num_nextn_predict_layers: 1 MTP layers: no Kimi-Linear checkpoint ships them, so their "
           "naming is "
           "unknown"},
      });
}

}  // namespace
}  // namespace preflight
