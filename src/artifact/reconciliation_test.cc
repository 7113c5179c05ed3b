#include "artifact/reconciliation.h"

#include <gtest/gtest.h>

namespace preflight {
namespace {

TensorManifest two_tensors_and_experts() {
  TensorManifest m;
  StoredTensor a;
  a.name = "model.embed_tokens.weight";
  a.shape = {10, 4};
  a.dtype = Dtype::BF16;
  a.bytes_each = 80;
  StoredTensor e;
  e.name = "model.layers.0.experts.{E}.w1.weight";
  e.shape = {2, 4};
  e.dtype = Dtype::BF16;
  e.bytes_each = 16;
  e.instances = 3;
  m.tensors = {a, e};
  return m;
}

HeaderTensor tensor(std::string name, Dtype d, std::vector<std::uint64_t> shape, std::uint64_t begin,
                    std::uint64_t end) {
  HeaderTensor t;
  t.name = std::move(name);
  t.dtype = d;
  t.shape = std::move(shape);
  t.begin = begin;
  t.end = end;
  return t;
}

TEST(Reconciliation, ExactWhenHeadersMatch) {
  SafetensorsHeader h;
  h.header_length = 120;
  h.tensors = {tensor("model.embed_tokens.weight", Dtype::BF16, {10, 4}, 0, 80),
               tensor("model.layers.0.experts.0.w1.weight", Dtype::BF16, {2, 4}, 80, 96),
               tensor("model.layers.0.experts.1.w1.weight", Dtype::BF16, {2, 4}, 96, 112),
               tensor("model.layers.0.experts.2.w1.weight", Dtype::BF16, {2, 4}, 112, 128)};
  const auto r = reconcile_with_headers(two_tensors_and_experts(), {{"a.safetensors", h}});
  EXPECT_TRUE(r.exact());
  EXPECT_TRUE(r.adds_up());
  EXPECT_EQ(r.real_bytes, 128u);
  EXPECT_EQ(r.generated_bytes, 128u);
  EXPECT_EQ(r.header_bytes, 128u);  // 8 + 120
  EXPECT_EQ(r.real_tensors, 4u);
}

TEST(Reconciliation, MissingExtraAndMisSizedAddUp) {
  SafetensorsHeader h;
  h.header_length = 64;
  h.tensors = {tensor("model.embed_tokens.weight", Dtype::F32, {10, 4}, 0, 160),     // mis-sized: +80
               tensor("model.layers.0.experts.0.w1.weight", Dtype::BF16, {2, 4}, 160, 176),
               tensor("model.layers.0.experts.1.w1.weight", Dtype::BF16, {2, 4}, 176, 192),
               tensor("lm_head.weight", Dtype::BF16, {10, 4}, 192, 272)};           // extra: +80
  const auto r = reconcile_with_headers(two_tensors_and_experts(), {{"a.safetensors", h}});
  EXPECT_FALSE(r.exact());
  EXPECT_EQ(r.missing_count, 1u);  // expert 2
  EXPECT_EQ(r.missing_bytes, 16u);
  EXPECT_EQ(r.extra_count, 1u);
  EXPECT_EQ(r.extra_bytes, 80u);
  EXPECT_EQ(r.mismatched_count, 1u);
  EXPECT_EQ(r.mismatch_delta, 80);
  EXPECT_EQ(r.real_bytes, 272u);
  EXPECT_TRUE(r.adds_up());  // 128 - 16 + 80 + 80 = 272
  ASSERT_FALSE(r.examples.empty());
  EXPECT_EQ(r.examples[0].name, "model.embed_tokens.weight");
  EXPECT_EQ(r.examples[0].generated, "BF16 [10, 4] 80 B");
  EXPECT_EQ(r.examples[0].real, "F32 [10, 4] 160 B");
}

TEST(Reconciliation, IndexGivesNamesOnly) {
  SafetensorsIndex index;
  index.total_size = 999;
  index.weight_map = {{"model.embed_tokens.weight", "a"}, {"model.layers.0.experts.0.w1.weight", "a"},
                      {"model.layers.0.experts.1.w1.weight", "b"}, {"model.layers.0.experts.2.w1.weight", "b"},
                      {"rotary.inv_freq", "b"}};
  index.shard_files = {"a", "b"};
  const auto r = reconcile_with_index(two_tensors_and_experts(), index);
  EXPECT_FALSE(r.from_headers);
  EXPECT_EQ(r.missing_count, 0u);
  EXPECT_EQ(r.extra_count, 1u);
  EXPECT_EQ(r.shard_count, 2u);
  EXPECT_EQ(*r.index_total_size, 999u);
}

}  // namespace
}  // namespace preflight
