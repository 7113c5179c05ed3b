// Cache per token and state per request for each layer kind, on hand-computed cases.
#include "model/request_state.h"

#include <gtest/gtest.h>

namespace preflight {
namespace {

ModelSpec with_layers(std::vector<LayerKind> layers) {
  ModelSpec m;
  m.dtype = Dtype::BF16;
  m.layers = std::move(layers);
  return m;
}

TEST(RequestState, GqaFullAndSlidingLayers) {
  auto m = with_layers({LayerKind::full_attention, LayerKind::sliding_attention, LayerKind::sliding_attention});
  m.gqa = {64, 8, 64, 64, 128, 0};  // gpt-oss-like: 8 KV heads x 64, window 128
  const auto rows = token_cache_per_rank(m, 2, 1);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].bytes_per_token, 1u * 8 * (64 + 64) * 2);
  EXPECT_EQ(rows[1].bytes_per_token, 2u * 8 * (64 + 64) * 2);
  EXPECT_EQ(rows[1].token_cap, 128u);
  // One 1,000-token request: full layer grows, sliding layers stop at 128 tokens.
  EXPECT_EQ(cache_bytes_for_context(rows, 1000), 2048u * 1000 + 4096u * 128);
  // TP 16 > 8 KV heads: each rank keeps one KV head (replicated).
  const auto tp16 = token_cache_per_rank(m, 2, 16);
  EXPECT_TRUE(tp16[0].replicated_over_tp);
  EXPECT_EQ(tp16[0].bytes_per_token, 1u * 1 * 128 * 2);
  EXPECT_EQ(token_cache_per_rank(m, 2, 4)[0].bytes_per_token, 1u * 2 * 128 * 2);
}

TEST(RequestState, KvHeadDimAndValueDimDiffer) {
  auto m = with_layers({LayerKind::full_attention});
  m.gqa = {16, 4, 192, 128, 0, 0};
  EXPECT_EQ(token_cache_per_rank(m, 1, 1)[0].bytes_per_token, 4u * (192 + 128));
}

TEST(RequestState, MlaIsReplicatedOverTp) {
  auto m = with_layers(std::vector<LayerKind>(61, LayerKind::mla));
  m.mla.kv_lora_rank = 512;
  m.mla.qk_rope_head_dim = 64;
  EXPECT_EQ(token_cache_per_rank(m, 2, 1)[0].bytes_per_token, 70'272u);  // DeepSeek-V3: 61 x 576 x 2
  EXPECT_EQ(token_cache_per_rank(m, 2, 8)[0].bytes_per_token, 70'272u);
}

TEST(RequestState, GatedDeltaNetState) {
  auto m = with_layers({LayerKind::gated_deltanet, LayerKind::gated_deltanet, LayerKind::full_attention});
  m.gdn = {16, 32, 128, 128, 4};
  m.gqa = {16, 2, 256, 256, 0, 0};
  const auto rows = recurrent_state_per_rank(m, 1, 4);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].recurrent_bytes, 2u * 32 * 128 * 128 * 4);
  EXPECT_EQ(rows[0].conv_bytes, 2u * (2 * 16 * 128 + 32 * 128) * 3 * 2);
  const auto tp2 = recurrent_state_per_rank(m, 2, 4);
  EXPECT_EQ(tp2[0].bytes * 2, rows[0].bytes);  // sharded by heads
}

TEST(RequestState, Mamba2State) {
  auto m = with_layers({LayerKind::mamba2});
  m.mamba = {128, 64, 128, 8, 4};
  const auto rows = recurrent_state_per_rank(m, 1, 4);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].recurrent_bytes, 128u * 64 * 128 * 4);
  EXPECT_EQ(rows[0].conv_bytes, (128u * 64 + 2 * 8 * 128) * 3 * 2);
}

// LFM2-1.2B: 10 conv layers over 2,048 channels, conv_L_cache 3 -> 2 positions kept.
TEST(RequestState, ShortConvKeepsOnlyTheConvWindow) {
  std::vector<LayerKind> layers(10, LayerKind::short_conv);
  layers.push_back(LayerKind::full_attention);
  auto m = with_layers(layers);
  m.short_conv = {2048, 3};
  const auto rows = recurrent_state_per_rank(m, 1, 4);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].recurrent_bytes, 0u);
  EXPECT_EQ(rows[0].conv_bytes, 10u * 2048 * 2 * 2);  // BF16 conv state
  EXPECT_EQ(recurrent_state_per_rank(m, 2, 4)[0].bytes, 10u * 1024 * 2 * 2);
}

// MiniMax-M1: 70 lightning layers x 64 heads x 128 x 128 float32.
TEST(RequestState, LightningAttentionState) {
  std::vector<LayerKind> layers(70, LayerKind::lightning);
  auto m = with_layers(layers);
  m.lightning = {64, 128};
  const auto rows = recurrent_state_per_rank(m, 1, 4);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].bytes, 70u * 64 * 128 * 128 * 4);  // 293,601,280 B per request
  EXPECT_EQ(recurrent_state_per_rank(m, 8, 4)[0].bytes, 70u * 8 * 128 * 128 * 4);
  EXPECT_EQ(m.tp_divisors().front().first, 64u);
}

}  // namespace
}  // namespace preflight
