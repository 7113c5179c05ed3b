// vLLM's KV cache layout on hand-built layer specs: page sizes, the hybrid
// block-size alignment, KV cache groups and the two figures vLLM logs. Every
// expected figure is worked out from tests/data/reference/data/engines.md (sections 1.2 to
// 1.4) or from an engine log row of tests/data/reference/data/engine-truth-dev.csv.
#include "engine/vllm_kv_cache.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace preflight {
namespace {

constexpr std::uint64_t kMiB = 1024ULL * 1024;

std::vector<KvLayerSpec> layers(KvSpecKind kind, std::uint64_t n, std::uint64_t per_token, std::uint64_t window = 0) {
  return std::vector<KvLayerSpec>(n, KvLayerSpec{kind, per_token, 0, window});
}

std::vector<KvLayerSpec> states(std::uint64_t n, std::uint64_t state_bytes) {
  return std::vector<KvLayerSpec>(n, KvLayerSpec{KvSpecKind::state, 0, state_bytes, 0});
}

std::vector<KvLayerSpec> concat(std::vector<KvLayerSpec> a, const std::vector<KvLayerSpec>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

KvCacheInputs inputs(std::vector<KvLayerSpec> specs, std::uint64_t block, std::uint64_t kernel, std::uint64_t mml,
                     std::uint64_t mbt = 8192, std::uint64_t dcp = 1) {
  KvCacheInputs in;
  in.layers = std::move(specs);
  in.block_size = block;
  in.kernel_block_multiple = kernel;
  in.max_model_len = mml;
  in.max_num_batched_tokens = mbt;
  in.dcp = dcp;
  return in;
}

// Llama-3.1-8B at TP1: 32 full-attention layers x 8 KV heads x 128 x (K + V) x 2 B
// = 4,096 B per layer per token, 131,072 B per token (engines.md section 3, rows r018-r024).
KvCacheInputs llama_8b_tp1(std::uint64_t mml = 8192, std::uint64_t dcp = 1) {
  return inputs(layers(KvSpecKind::full, 32, 8 * 128 * 2 * 2), 16, 16, mml, 8192, dcp);
}

// gpt-oss-20b at TP2: 24 layers alternating sliding (window 128) and full,
// 8 KV heads / TP2 = 4 per rank x 64 x 2 x 2 B = 1,024 B per layer per token.
KvCacheInputs gpt_oss_20b_tp2() {
  auto specs =
      concat(layers(KvSpecKind::sliding, 12, 4 * 64 * 2 * 2, 128), layers(KvSpecKind::full, 12, 4 * 64 * 2 * 2));
  return inputs(std::move(specs), 16, 16, 8192, 8192);
}

// gemma-3-4b: 29 sliding (window 1,024) + 5 full layers, 4 KV heads x 256 x 2 x 2 B = 4,096 B.
KvCacheInputs gemma_3_4b() {
  auto specs =
      concat(layers(KvSpecKind::sliding, 29, 4 * 256 * 2 * 2, 1024), layers(KvSpecKind::full, 5, 4 * 256 * 2 * 2));
  return inputs(std::move(specs), 16, 16, 8192, 8192);
}

// Kimi K3 at TP8: 24 MLA layers x (512 + 64) values x kv bytes per token, and 69 KDA
// layers whose state per request per rank is 12 heads x 128 x 128 x 4 B (FP32 recurrent)
// + 3 projections x 3 positions x 12 x 128 x 2 B (BF16 short conv) = 786,432 + 27,648
// = 814,080 B (K3 notes; PlanK3Facts.RequestStateAtTp8: 69 x 814,080 = 56,171,520).
constexpr std::uint64_t kK3KdaStateTp8 = 12 * 128 * 128 * 4 + 3 * 3 * 12 * 128 * 2;
static_assert(kK3KdaStateTp8 == 814'080);

KvCacheInputs k3_tp8(std::uint64_t kv_bytes, std::uint64_t mml = 131'072) {
  auto specs = concat(layers(KvSpecKind::mla, 24, 576 * kv_bytes), states(69, kK3KdaStateTp8));
  return inputs(std::move(specs), 64, 64, mml);
}

// ---------------------------------------------------------------------------
// Shapes

struct ShapeCase {
  const char* what;
  KvCacheInputs in;
  std::uint64_t block_size, page_bytes, group_size, groups, token_groups, state_groups, padding_layers;
  std::uint64_t blocks_per_request, state_blocks_per_request, bytes_per_block;
  bool uniform;
};

TEST(VllmKvCacheShape, PagesGroupsAndAlignment) {
  const ShapeCase cases[] = {
      // (a) uniform full attention: one group of 32 layers; a block costs 32 x 16 x 4,096 B
      // = 2 MiB (engines.md: "29,751 blocks x 2 MiB = 58.11 GiB"); 8,192 / 16 = 512 blocks per request.
      {"llama-3.1-8b TP1", llama_8b_tp1(), 16, 65'536, 32, 1, 1, 0, 0, 512, 0, 2 * kMiB, true},
      // (b) gpt-oss-20b TP2: 12 sliding + 12 full, max 12 < 1.5 x min 12 so group_size 12 and
      // 2 groups; page 16 x 1,024 = 16,384 B; a block index costs 12 pages = 196,608 B.
      // Per request: full cdiv(8192, 16) = 512, sliding cdiv(min(127 + 8192, 8192), 16) + 1 = 513.
      {"gpt-oss-20b TP2", gpt_oss_20b_tp2(), 16, 16'384, 12, 2, 2, 0, 0, 512 + 513, 0, 196'608, false},
      // (c) gemma-3-4b: min 5, max 29 >= 1.5 x 5, so group_size 5: 6 sliding groups (one padding
      // layer: 30 - 29) + 1 full group = 7 (engines.md section 1.4). Per request 512 + 6 x 513.
      {"gemma-3-4b", gemma_3_4b(), 16, 65'536, 5, 7, 7, 0, 1, 512 + 6 * 513, 0, 5 * 65'536, false},
      // (d) K3 TP8, BF16 MLA (1,152 B/token/layer): block = 64 x cdiv(814,080, 64 x 1,152) = 64 x 12
      // = 768 tokens; page 768 x 1,152 = 884,736 B (state pages padded to it); 24 MLA vs 69 KDA:
      // 69 >= 1.5 x 24, group_size 24, 1 MLA + cdiv(69, 24) = 3 KDA groups, 3 x 24 - 69 = 3 padding.
      // Per request at 131,072 tokens: cdiv(131072, 768) = 171 MLA blocks + 3 state blocks.
      {"kimi-k3 TP8 bf16", k3_tp8(2), 768, 884'736, 24, 4, 1, 3, 3, 171 + 3, 3, 24 * 884'736, false},
      // (d) FP8 MLA (576 B/token/layer): 64 x cdiv(814,080, 64 x 576) = 64 x 23 = 1,472 tokens,
      // page 1,472 x 576 = 847,872 B; cdiv(131072, 1472) = 90 MLA blocks + 3 state blocks.
      {"kimi-k3 TP8 fp8", k3_tp8(1), 1472, 847'872, 24, 4, 1, 3, 3, 90 + 3, 3, 24 * 847'872, false},
      // Kernel multiple 16 instead of 64: 16 x cdiv(814,080, 16 x 1,152) = 16 x 45 = 720 tokens.
      {"kimi-k3 TP8 bf16, 16-token kernel",
       inputs(concat(layers(KvSpecKind::mla, 24, 1152), states(69, kK3KdaStateTp8)), 16, 16, 131'072), 720, 720 * 1152,
       24, 4, 1, 3, 3, 183 + 3, 3, 24 * 720 * 1152, false},
      // A requested block larger than the alignment needs is kept (max(requested, aligned)).
      {"kimi-k3 TP8 bf16, --block-size 1024",
       inputs(concat(layers(KvSpecKind::mla, 24, 1152), states(69, kK3KdaStateTp8)), 1024, 64, 131'072), 1024,
       1024 * 1152, 24, 4, 1, 3, 3, 128 + 3, 3, 24 * 1024 * 1152, false},
      // Chunked local attention alone (uniform): cdiv(min(8192 + 8192, 32768), 16) = 1,024 blocks.
      {"chunked 8192, mml 32768", inputs(layers(KvSpecKind::chunked, 4, 1000, 8192), 16, 16, 32'768), 16, 16'000, 4, 1,
       1, 0, 0, 1024, 0, 4 * 16'000, true},
      // 13 full + 12 sliding (gpt-oss + EAGLE, vLLM's own comment): 13 < 1.5 x 12, so group_size 13
      // and the sliding group gets one padding layer.
      {"13 full + 12 sliding",
       inputs(concat(layers(KvSpecKind::full, 13, 1024), layers(KvSpecKind::sliding, 12, 1024, 128)), 16, 16, 8192), 16,
       16'384, 13, 2, 2, 0, 1, 1025, 0, 13 * 16'384, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const auto s = vllm_kv_cache_shape(c.in);
    EXPECT_EQ(s.block_size, c.block_size);
    EXPECT_EQ(s.page_bytes, c.page_bytes);
    EXPECT_EQ(s.group_size, c.group_size);
    EXPECT_EQ(s.groups, c.groups);
    EXPECT_EQ(s.token_groups, c.token_groups);
    EXPECT_EQ(s.state_groups, c.state_groups);
    EXPECT_EQ(s.padding_layers, c.padding_layers);
    EXPECT_EQ(s.blocks_per_request, c.blocks_per_request);
    EXPECT_EQ(s.state_blocks_per_request, c.state_blocks_per_request);
    EXPECT_EQ(s.bytes_per_block, c.bytes_per_block);
    EXPECT_EQ(s.uniform, c.uniform);
  }
}

// unify_kv_cache_spec_page_size: Gemma-4-31B's 50 sliding layers (16 x 256, K and V,
// 16,384 B per token in BF16) and 10 global layers (4 x 512: 8,192 B) share one page
// size; the global layers take 32-token blocks. Six groups of ten layers.
TEST(VllmKvCacheShape, SmallerPagesTakeLargerBlocks) {
  const auto in = inputs(concat(layers(KvSpecKind::sliding, 50, 16'384, 1024), layers(KvSpecKind::full, 10, 8'192)), 16,
                         16, 32'768);
  const auto s = vllm_kv_cache_shape(in);
  EXPECT_FALSE(s.uniform);
  EXPECT_EQ(s.page_bytes, 16'384u * 16);
  EXPECT_EQ(s.group_size, 10u);
  EXPECT_EQ(s.groups, 6u);
  // Sliding: ceil((1023 + 8192) / 16) + 1 = 577 blocks each, five groups; global: 32,768 / 32 = 1,024.
  EXPECT_EQ(s.blocks_per_request, 5u * 577 + 1024);
  EXPECT_EQ(s.bytes_per_block, 16'384u * 16 * 10);
  const auto r = vllm_kv_cache_report(s, 100ULL * s.bytes_per_block * 6, in, false);
  EXPECT_EQ(r.kv_cache_tokens, 100u * 16);  // num_blocks // groups x the smallest block size
}

TEST(VllmKvCacheShape, StatePageIsRecordedUnpadded) {
  const auto s = vllm_kv_cache_shape(k3_tp8(2));
  EXPECT_EQ(s.state_page_unpadded, 814'080u);
  // Padding: 884,736 / 814,080 - 1 = 8.7% ("Padding mamba page size by 8.68%").
  EXPECT_GT(s.page_bytes, s.state_page_unpadded);
  EXPECT_EQ(vllm_kv_cache_shape(llama_8b_tp1()).state_page_unpadded, 0u);
}

TEST(VllmKvCacheShape, SpeculativeStateBlocks) {
  // MambaSpec, mode none: page x (1 + num_speculative_blocks) per request (engines.md 1.2).
  auto in = k3_tp8(2);
  in.spec_state_blocks = 2;
  const auto s = vllm_kv_cache_shape(in);
  EXPECT_EQ(s.state_blocks_per_request, 3u * 3);  // 3 KDA groups x (1 + 2)
  EXPECT_EQ(s.blocks_per_request, 171u + 9);
}

TEST(VllmKvCacheShape, EmptyAndStateOnly) {
  const auto empty = vllm_kv_cache_shape(inputs({}, 16, 16, 8192));
  EXPECT_EQ(empty.bytes_per_block, 0u);
  EXPECT_EQ(empty.groups, 0u);
  // No attention layers: no alignment, the state page is the page.
  const auto only_state = vllm_kv_cache_shape(inputs(states(4, 1000), 16, 16, 8192));
  EXPECT_EQ(only_state.block_size, 16u);
  EXPECT_EQ(only_state.groups, 1u);
  EXPECT_EQ(only_state.state_groups, 1u);
  EXPECT_EQ(only_state.token_groups, 0u);
  EXPECT_EQ(only_state.bytes_per_block, 4000u);
  EXPECT_EQ(only_state.blocks_per_request, 1u);
  EXPECT_EQ(only_state.state_blocks_per_request, 1u);
}

// ---------------------------------------------------------------------------
// Reports

struct ReportCase {
  const char* what;
  KvCacheInputs in;
  std::uint64_t available;
  bool from_concurrency;
  std::uint64_t num_blocks, tokens;
  double concurrency;
};

TEST(VllmKvCacheReport, BlocksTokensAndConcurrency) {
  const ReportCase cases[] = {
      // (a) 29,750 blocks of 2 MiB (r018: num_gpu_blocks 29,750, "GPU KV cache size: 476,000 tokens",
      // "Maximum concurrency for 8,192 tokens per request: 58.11x" = 29,750 / 512).
      {"llama TP1, 29,750 blocks", llama_8b_tp1(), 29'750 * 2 * kMiB, false, 29'750, 476'000, 29'750.0 / 512},
      // One byte short of a block drops it (floor).
      {"llama TP1, one byte short", llama_8b_tp1(), 29'751 * 2 * kMiB - 1, false, 29'750, 476'000, 29'750.0 / 512},
      // r022 (max_model_len 2,048): 29,751 blocks, 476,016 tokens, concurrency 29,751 / 128 = 232.43.
      {"llama TP1, mml 2048", llama_8b_tp1(2048), 29'751 * 2 * kMiB, false, 29'751, 476'016, 29'751.0 / 128},
      // (b) r042: 323,972 blocks; tokens = 323,972 // 2 groups x 16 = 2,591,776; concurrency
      // 323,972 / (512 + 513) = 316.07 (logged 316.07).
      {"gpt-oss-20b TP2", gpt_oss_20b_tp2(), 323'972ULL * 196'608, false, 323'972, 2'591'776, 323'972.0 / 1025},
      // (c) engines.md section 3: 204,817 // 7 x 16 = 468,144; concurrency 204,817 / 3,590.
      {"gemma-3-4b", gemma_3_4b(), 204'817ULL * 5 * 65'536, false, 204'817, 468'144, 204'817.0 / 3590},
      // (d) K3 TP8 BF16: 2,202 blocks (what the B300 plan leaves) // 4 groups x 768 = 422,400
      // tokens; concurrency 2,202 / 174.
      {"kimi-k3 TP8 bf16", k3_tp8(2), 2'202ULL * 24 * 884'736, false, 2'202, 550 * 768, 2'202.0 / 174},
      // (e) DCP 8 multiplies the tokens (engines.md 1.4: "multiplied by dcp*pcp") and shrinks a
      // request to cdiv(8192 / 8, 16) = 64 blocks: 29,750 x 16 x 8 = 3,808,000; 29,750 / 64.
      {"llama TP1, DCP 8", llama_8b_tp1(8192, 8), 29'750 * 2 * kMiB, false, 29'750, 3'808'000, 29'750.0 / 64},
      // (f) newer vLLM (vllm#51041): tokens = int(max_concurrency x max_model_len).
      // Uniform: 29,750 / 512 x 8,192 = 476,000, the same as blocks x 16.
      {"llama TP1, from concurrency", llama_8b_tp1(), 29'750 * 2 * kMiB, true, 29'750, 476'000, 29'750.0 / 512},
      // Hybrid: int(323,972 / 1,025 x 8,192) = 2,589,247 (not 2,591,776: a sliding request pays 513 blocks).
      {"gpt-oss-20b TP2, from concurrency", gpt_oss_20b_tp2(), 323'972ULL * 196'608, true, 323'972, 2'589'247,
       323'972.0 / 1025},
      // Nothing available: nothing reported.
      {"llama TP1, no memory", llama_8b_tp1(), 0, false, 0, 0, 0.0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const auto shape = vllm_kv_cache_shape(c.in);
    const auto r = vllm_kv_cache_report(shape, c.available, c.in, c.from_concurrency);
    EXPECT_EQ(r.num_blocks, c.num_blocks);
    EXPECT_EQ(r.kv_cache_tokens, c.tokens);
    EXPECT_DOUBLE_EQ(r.max_concurrency, c.concurrency);
  }
}

TEST(VllmKvCacheReport, LoggedConcurrencyRoundsToTheLogLine) {
  // The figures vLLM prints with two decimals.
  const auto a = llama_8b_tp1();
  EXPECT_NEAR(vllm_kv_cache_report(vllm_kv_cache_shape(a), 29'750 * 2 * kMiB, a, false).max_concurrency, 58.11, 0.005);
  const auto b = gpt_oss_20b_tp2();
  EXPECT_NEAR(vllm_kv_cache_report(vllm_kv_cache_shape(b), 323'972ULL * 196'608, b, false).max_concurrency, 316.07,
              0.005);
}

TEST(VllmKvCacheReport, DcpTokensAreExactMultiples) {
  // Kimi-K2-Thinking (r097/r098): DCP 8 multiplies the logged tokens by 8 for the same blocks.
  // MLA 61 layers x 576 x 2 B, block 64.
  auto in = inputs(layers(KvSpecKind::mla, 61, 1152), 64, 64, 262'144);
  const auto shape = vllm_kv_cache_shape(in);
  const auto available = 11'173ULL * shape.bytes_per_block;  // 715,072 tokens = 11,173 blocks of 64
  const auto one = vllm_kv_cache_report(shape, available, in, false);
  EXPECT_EQ(one.kv_cache_tokens, 715'072u);  // r097 logged 715,072
  in.dcp = 8;
  const auto eight = vllm_kv_cache_report(vllm_kv_cache_shape(in), available, in, false);
  EXPECT_EQ(eight.num_blocks, one.num_blocks);
  EXPECT_EQ(eight.kv_cache_tokens, 8 * 715'072u);  // 5,720,576 (r098 logged 5,721,088)
  // A request needs cdiv(262144 / 8, 64) = 512 blocks instead of 4,096.
  EXPECT_DOUBLE_EQ(eight.max_concurrency, 11'173.0 / 512);
  EXPECT_DOUBLE_EQ(one.max_concurrency, 11'173.0 / 4096);
}

}  // namespace
}  // namespace preflight

namespace preflight {
namespace {

// ---------------------------------------------------------------------------
// vLLM's own unit tests as truth: the figures, not the code,
// of tests/v1/core/test_kv_cache_utils.py (vllm-project/vllm at eaba533a and
// 002f10e0; gathered 2026-12-03). Their default spec is FullAttention with
// block 16, 2 KV heads of 64, float32: 2 x 2 x 64 x 4 = 1,024 B per layer per
// token, a 16,384 B page; the sliding spec is the same with a window.
constexpr std::uint64_t kTestSpecPerToken = 2 * 2 * 64 * 4;

struct VllmTestCase {
  const char* test;  // the vLLM test (and its sub-case)
  std::vector<KvLayerSpec> specs;
  std::uint64_t max_model_len, max_num_batched_tokens, available;
  std::uint64_t num_blocks;  // asserted by the vLLM test
  std::uint64_t groups;      // KV cache groups (0: not asserted)
  std::uint64_t group_size;  // layers per group (0: not asserted)
};

TEST(VllmOwnTests, GetKvCacheConfigOneWorker) {
  const auto full = [](std::uint64_t n) { return layers(KvSpecKind::full, n, kTestSpecPerToken); };
  const auto sliding = [](std::uint64_t n) { return layers(KvSpecKind::sliding, n, kTestSpecPerToken, 1); };
  const VllmTestCase cases[] = {
      // all full: 1,048,576 // (16,384 x 2) = 32 blocks, one group of both layers
      {"test_get_kv_cache_config_one_worker: 2 full", full(2), 16, 8192, 16384 * 2 * 32, 32, 1, 2},
      // all sliding: the same 32 blocks in one group
      {"test_get_kv_cache_config_one_worker: 2 sliding", sliding(2), 16, 8192, 16384 * 2 * 32, 32, 1, 2},
      // 1 full + 1 sliding: groups of one layer each, 1,048,576 // 16,384 = 64 blocks
      {"test_get_kv_cache_config_one_worker: 1 full + 1 sliding", concat(full(1), sliding(1)), 16, 8192, 16384 * 2 * 32,
       64, 2, 1},
      // 2 full + 4 sliding: group size 2 (4 >= 1.25 x 2), groups [1,2] [3,5] [4,6], 32 blocks
      {"test_get_kv_cache_config_one_worker: 2 full + 4 sliding", concat(full(2), sliding(4)), 16, 8192, 16384 * 2 * 32,
       32, 3, 2},
      // 3 full + 7 sliding: group size 3, padded to 3 + 9 (4 groups), 1,572,864 // (16,384 x 3) = 32
      {"test_get_kv_cache_config_one_worker: 3 full + 7 sliding", concat(full(3), sliding(7)), 16, 8192, 16384 * 3 * 32,
       32, 4, 3},
      // 6 full + 5 sliding (gpt-oss with an EAGLE layer): 6 < 1.25 x 5, group size 6, 2 groups, 32 blocks
      {"test_get_kv_cache_config_one_worker: 6 full + 5 sliding", concat(full(6), sliding(5)), 16, 8192, 16384 * 6 * 32,
       32, 2, 6},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.test);
    auto in = inputs(c.specs, 16, 16, c.max_model_len, c.max_num_batched_tokens);
    const auto shape = vllm_kv_cache_shape(in);
    const auto report = vllm_kv_cache_report(shape, c.available, in, false);
    EXPECT_EQ(report.num_blocks, c.num_blocks);
    if (c.groups) {
      EXPECT_EQ(shape.groups, c.groups);
    }
    if (c.group_size) {
      EXPECT_EQ(shape.group_size, c.group_size);
    }
  }
}

// test_get_max_concurrency_for_kv_cache_config: max_model_len 16,384, 1,024 batched tokens,
// 32 KV heads of 128 in FP16 (16,384 B per layer per token). Full attention needs 1,024 blocks
// per request, sliding (window 1,024) 129 = cdiv(min(1,024 - 1 + 1,024, 16,384), 16) + 1, the
// hybrid 1,153; the test fixes the block counts and expects 1.5, 3 and 3 (and, in the newer
// file, a GPU KV cache size of 3 x 16,384 = 49,152 tokens).
TEST(VllmOwnTests, MaxConcurrencyForKvCacheConfig) {
  constexpr std::uint64_t per_token = 2 * 32 * 128 * 2;
  const auto full = layers(KvSpecKind::full, 32, per_token);
  const auto sliding = layers(KvSpecKind::sliding, 32, per_token, 1024);
  struct Case {
    const char* what;
    std::vector<KvLayerSpec> specs;
    std::uint64_t num_blocks;
    double concurrency;
  };
  const Case cases[] = {
      {"full attention, 1,536 blocks", full, 1536, 1.5},
      {"sliding window, 387 blocks", sliding, 387, 3},
      {"full + sliding, 3,459 blocks", concat(full, sliding), 3459, 3},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    auto in = inputs(c.specs, 16, 16, 16384, 1024);
    const auto shape = vllm_kv_cache_shape(in);
    const auto report = vllm_kv_cache_report(shape, c.num_blocks * shape.bytes_per_block, in, false);
    EXPECT_EQ(report.num_blocks, c.num_blocks);
    EXPECT_DOUBLE_EQ(report.max_concurrency, c.concurrency);
    if (std::string(c.what).starts_with("full + sliding")) {
      const auto newer = vllm_kv_cache_report(shape, c.num_blocks * shape.bytes_per_block, in, true);
      EXPECT_EQ(newer.kv_cache_tokens, 49'152u);  // get_kv_cache_capacity: 3 x 16,384
    }
  }
}

}  // namespace
}  // namespace preflight
