// build_inventory on a small hand-made manifest: rows per module in the enum's
// order, bytes per named bucket (two keys naming one bucket add up, a zero-byte
// tensor still names its bucket in its row), elements per dtype and the MoE
// layer count, each against figures worked out by hand below.
#include "model/inventory.h"

#include <gtest/gtest.h>

#include "model/model_spec.h"

namespace preflight {
namespace {

using MC = ModuleClass;

StoredTensor stored(std::string name, std::vector<std::uint64_t> shape, Dtype dtype, StorageFormat format,
                    std::uint64_t bytes_each, std::uint64_t params_each, MC module, int layer,
                    std::uint32_t instances = 1) {
  StoredTensor t;
  t.name = std::move(name);
  t.shape = std::move(shape);
  t.dtype = dtype;
  t.format = format;
  t.bytes_each = bytes_each;
  t.logical_params_each = params_each;
  t.module = module;
  t.layer = layer;
  t.instances = instances;
  return t;
}

TEST(Inventory, RowsBucketsAndLayersFromAHandMadeManifest) {
  ModelSpec model;
  model.moe.routed_experts = 4;
  model.moe.experts_per_token = 2;
  auto& t = model.manifest.tensors;
  // Interleaved modules and buckets; MoE layers 1, 3, then 1 again.
  t.push_back(stored("emb", {10, 8}, Dtype::BF16, StorageFormat::plain, 160, 80, MC::embedding, kNoLayer));
  t.push_back(stored("l1.e.{E}.w", {8, 8}, Dtype::U8, StorageFormat::mxfp4_packed, 32, 64, MC::routed_experts, 1, 4));
  t.push_back(stored("l1.e.{E}.s", {8, 2}, Dtype::U8, StorageFormat::mxfp4_scale, 2, 0, MC::routed_experts, 1, 4));
  t.push_back(stored("l1.q", {8, 8}, Dtype::BF16, StorageFormat::fp8, 128, 64, MC::gqa_attention, 1));
  t.push_back(stored("l3.e.{E}.w", {8, 8}, Dtype::U8, StorageFormat::mxfp4_packed, 32, 64, MC::routed_experts, 3, 4));
  t.push_back(stored("l1.e2.{E}.w", {8, 8}, Dtype::U8, StorageFormat::mxfp4_packed, 32, 64, MC::routed_experts, 1, 4));
  t.push_back(stored("l1.empty", {0}, Dtype::F32, StorageFormat::plain, 0, 0, MC::gqa_attention, 1));
  t.push_back(stored("head", {10, 8}, Dtype::BF16, StorageFormat::plain, 160, 80, MC::lm_head, kNoLayer));

  const auto inv = build_inventory(model);
  EXPECT_EQ(inv.tensors, 1u + 4 + 4 + 1 + 4 + 4 + 1 + 1);
  EXPECT_EQ(inv.payload_bytes, 160u + 128 + 8 + 128 + 128 + 128 + 0 + 160);
  EXPECT_EQ(inv.logical_params, 80u + 256 + 0 + 64 + 256 + 256 + 0 + 80);
  EXPECT_EQ(inv.quantized_bytes, 128u + 8 + 128 + 128 + 128);
  EXPECT_EQ(inv.unquantized_bytes, 320u);
  EXPECT_EQ(inv.moe_layers, 2u);  // layers 1 and 3
  EXPECT_EQ(inv.routed_params, 768u);
  EXPECT_EQ(inv.routed_params_per_expert, 768u / (4 * 2));
  EXPECT_EQ(inv.active_trunk_params, 64u + 80);      // attention and head; not the embedding
  EXPECT_EQ(inv.active_routed_params, 96u * 2 * 2);  // per expert x top-2 x 2 layers
  EXPECT_EQ(inv.active_params, 144u + 384);

  // Plain BF16 and fp8-declared BF16 name one bucket.
  const std::map<std::string, std::uint64_t> by_dtype = {
      {"BF16", 160 + 128 + 160}, {"F32", 0}, {"U8 (E8M0 scales)", 8}, {"U8 (MXFP4 codes)", 384}};
  EXPECT_EQ(inv.bytes_by_dtype, by_dtype);
  const std::map<std::string, std::uint64_t> elements = {{"BF16", 80 + 64 + 80}, {"F32", 0}, {"U8", 64 * 12 + 16 * 4}};
  EXPECT_EQ(inv.elements_by_dtype, elements);

  ASSERT_EQ(inv.by_module.size(), 4u);  // enum order: embedding, lm_head, gqa_attention, routed_experts
  EXPECT_EQ(inv.by_module[0].module, MC::embedding);
  EXPECT_EQ(inv.by_module[1].module, MC::lm_head);
  EXPECT_EQ(inv.by_module[2].module, MC::gqa_attention);
  EXPECT_EQ(inv.by_module[3].module, MC::routed_experts);
  const std::map<std::string, std::uint64_t> attention = {{"BF16", 128}, {"F32", 0}};
  EXPECT_EQ(inv.by_module[2].bytes_by_dtype, attention);
  EXPECT_EQ(inv.by_module[2].tensors, 2u);
  const std::map<std::string, std::uint64_t> experts = {{"U8 (E8M0 scales)", 8}, {"U8 (MXFP4 codes)", 384}};
  EXPECT_EQ(inv.by_module[3].bytes_by_dtype, experts);
  EXPECT_EQ(inv.by_module[3].tensors, 16u);
  EXPECT_EQ(inv.by_module[3].bytes, 392u);
}

}  // namespace
}  // namespace preflight
