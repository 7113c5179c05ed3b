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
  h.tensors = {tensor("model.embed_tokens.weight", Dtype::F32, {10, 4}, 0, 160),  // mis-sized: +80
               tensor("model.layers.0.experts.0.w1.weight", Dtype::BF16, {2, 4}, 160, 176),
               tensor("model.layers.0.experts.1.w1.weight", Dtype::BF16, {2, 4}, 176, 192),
               tensor("lm_head.weight", Dtype::BF16, {10, 4}, 192, 272)};  // extra: +80
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
  index.weight_map = {{"model.embed_tokens.weight", "a"},
                      {"model.layers.0.experts.0.w1.weight", "a"},
                      {"model.layers.0.experts.1.w1.weight", "b"},
                      {"model.layers.0.experts.2.w1.weight", "b"},
                      {"rotary.inv_freq", "b"}};
  index.shard_files = {"a", "b"};
  const auto r = reconcile_with_index(two_tensors_and_experts(), index);
  EXPECT_EQ(r.method, ReconciliationMethod::index_names);
  EXPECT_FALSE(r.bytes_known());
  EXPECT_EQ(r.missing_count, 0u);
  EXPECT_EQ(r.extra_count, 1u);
  EXPECT_EQ(r.shard_count, 2u);
  EXPECT_EQ(*r.index_total_size, 999u);
}

// Index + sizes: shard a holds embed (80 B) + expert 0 (16 B), shard b experts 1, 2 (32 B).
SafetensorsIndex two_shard_index() {
  SafetensorsIndex index;
  index.weight_map = {{"model.embed_tokens.weight", "a"},
                      {"model.layers.0.experts.0.w1.weight", "a"},
                      {"model.layers.0.experts.1.w1.weight", "b"},
                      {"model.layers.0.experts.2.w1.weight", "b"}};
  index.shard_files = {"a", "b"};
  return index;
}

struct SizesCase {
  const char* what;
  std::uint64_t payload_a, payload_b;
  std::vector<std::string> needing_headers;
  std::uint64_t mismatched;
  std::int64_t delta;
};

TEST(Reconciliation, IndexAndShardSizesCheckBytesPerShard) {
  const SizesCase cases[] = {
      {"both shards as generated", 96, 32, {}, 0, 0},
      {"shard b 16 B larger", 96, 48, {"b"}, 1, 16},
      {"both differ", 80, 40, {"a", "b"}, 2, -8},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    // header lengths 56 and 24: file = 8 + N + payload
    const std::vector<ShardSize> sizes{{"a", 8 + 56 + c.payload_a, 56}, {"b", 8 + 24 + c.payload_b, 24}};
    const auto manifest = two_tensors_and_experts();
    const auto index = two_shard_index();
    ShardSizeCheck check(manifest, index, sizes);
    EXPECT_EQ(check.shards_needing_headers(), c.needing_headers);
    const auto r = check.reconcile({});
    EXPECT_EQ(r.method, ReconciliationMethod::index_and_shard_sizes);
    EXPECT_EQ(r.mismatched_count, c.mismatched);
    EXPECT_EQ(r.mismatch_delta, c.delta);
    EXPECT_EQ(r.real_bytes, c.payload_a + c.payload_b);
    EXPECT_EQ(r.header_bytes, 8u + 56 + 8 + 24);
    EXPECT_EQ(r.real_tensors, 4u);
    EXPECT_EQ(r.shards_verified_by_size, 2 - c.needing_headers.size());
    EXPECT_EQ(r.exact(), c.needing_headers.empty());
    EXPECT_TRUE(r.adds_up());
  }
}

TEST(Reconciliation, HeaderOfADifferingShardNamesTheTensor) {
  const std::vector<ShardSize> sizes{{"a", 8 + 56 + 96, 56}, {"b", 8 + 24 + 48, 24}};
  SafetensorsHeader b;
  b.header_length = 24;
  b.tensors = {tensor("model.layers.0.experts.1.w1.weight", Dtype::F32, {2, 4}, 0, 32),  // +16
               tensor("model.layers.0.experts.2.w1.weight", Dtype::BF16, {2, 4}, 32, 48)};
  const auto manifest = two_tensors_and_experts();
  const auto index = two_shard_index();
  ShardSizeCheck check(manifest, index, sizes);
  EXPECT_EQ(check.shards_needing_headers(), std::vector<std::string>{"b"});
  const auto r = check.reconcile({{"b", b}});
  EXPECT_EQ(r.shards_read_in_full, 1u);
  EXPECT_EQ(r.shards_verified_by_size, 1u);
  EXPECT_EQ(r.mismatched_count, 1u);
  EXPECT_EQ(r.mismatch_delta, 16);
  EXPECT_EQ(r.real_bytes, 144u);
  EXPECT_TRUE(r.adds_up());
  ASSERT_EQ(r.examples.size(), 1u);
  EXPECT_EQ(r.examples[0].name, "model.layers.0.experts.1.w1.weight");
  EXPECT_EQ(r.examples[0].real, "F32 [2, 4] 32 B");
}

TEST(Reconciliation, ExtraNamesAndMissingShardsStillAddUp) {
  auto index = two_shard_index();
  index.weight_map["lm_head.weight"] = "b";     // not generated: shard b needs its header
  index.weight_map["model.norm.weight"] = "c";  // shard c has no size
  index.shard_files = {"a", "b", "c"};
  const std::vector<ShardSize> sizes{{"a", 8 + 56 + 96, 56}, {"b", 8 + 24 + 112, 24}};
  const auto manifest = two_tensors_and_experts();
  ShardSizeCheck check(manifest, index, sizes);
  EXPECT_EQ(check.shards_needing_headers(), std::vector<std::string>{"b"});
  const auto r = check.reconcile({});
  EXPECT_EQ(r.extra_count, 2u);
  EXPECT_EQ(r.mismatched_count, 2u);  // shard b by +80 (lm_head's bytes), shard c unsized
  EXPECT_EQ(r.mismatch_delta, 80);
  EXPECT_FALSE(r.exact());
  EXPECT_TRUE(r.adds_up());
}

TEST(Reconciliation, EstimatedHeaderBytesIsTheJsonOfEachEntry) {
  // "model.embed_tokens.weight":{"dtype":"BF16","shape":[10,4],"data_offsets":[0,80]}, is 82 characters;
  // the estimate takes 10 digits per offset (+17) and a comma per dimension (+1): 100.
  // Each expert entry: 34-character name, shape [2,4]: 66 + 34 + 4 + 4 = 108.
  EXPECT_EQ(estimated_header_bytes(two_tensors_and_experts()), 100u + 3 * 108u);
}

}  // namespace
}  // namespace preflight
