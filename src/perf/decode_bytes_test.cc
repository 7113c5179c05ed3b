// Decode bytes per rank: hand-computed cases (Llama-3.1-8B on one H100, a tied
// head, Kimi K3 on 8 x B300), the routing fraction, and agreement with the
// plan's placement.
#include "perf/decode_bytes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "hardware/gpu_catalogue.h"
#include "model/model_catalogue.h"
#include "perf/traffic_format.h"
#include "placement/placement.h"
#include "support/fixtures.h"

namespace preflight {
namespace {

const ModelSpec& model(const std::string& name) { return testing::catalogue_model(name); }

const Accelerator& gpu(const std::string& name) { return testing::catalogue_gpu(name); }

Layout layout_for(const ModelSpec& m, const Accelerator& g, std::uint64_t world, LayoutOptions o = {}) {
  if (o.gpus_per_node == 0) o.gpus_per_node = g.gpus_per_node;
  return choose_layout(m, world, o).value_or_throw();
}

std::uint64_t at(const std::map<std::string, std::uint64_t>& m, const std::string& key) {
  const auto it = m.find(key);
  return it == m.end() ? 0 : it->second;
}

TEST(DecodeBytesRouting, ExpertTouchFraction) {
  struct Case {
    std::uint64_t k, experts, tokens;
    double expected;  // 1 - (1 - k/E)^T, by hand
  };
  const Case cases[] = {
      {16, 896, 1, 16.0 / 896},           // K3, one token: k/E = 1/56
      {16, 896, 64, 0.6843699099436721},  // 1 - (55/56)^64
      {8, 256, 1, 8.0 / 256},             // DeepSeek-V3, one token: 1/32
      {8, 256, 2, 0.0615234375},          // 1 - (31/32)^2 = 63/1024
      {8, 256, 64, 0.8689159675215249},   // 1 - (31/32)^64
      {4, 8, 3, 0.875},                   // 1 - (1/2)^3
      {8, 8, 5, 1.0},                     // every expert every token
      {0, 0, 5, 0.0},                     // dense model
      {8, 256, 0, 0.0},                   // no tokens
  };
  for (const auto& c : cases)
    EXPECT_NEAR(expert_touch_fraction(c.k, c.experts, c.tokens), c.expected, 1e-15)
        << c.k << "/" << c.experts << " x " << c.tokens;
}

TEST(DecodeBytesFormat, TrafficFormatKeys) {
  struct Case {
    StorageFormat format;
    Dtype dtype;
    std::uint64_t bytes_each, params_each;
    std::string key;
  };
  const Case cases[] = {
      {StorageFormat::plain, Dtype::BF16, 2, 1, "bf16"},
      {StorageFormat::plain, Dtype::F32, 4, 1, "f32"},
      {StorageFormat::fp8, Dtype::F8_E4M3, 1, 1, "fp8"},
      {StorageFormat::int8, Dtype::I8, 1, 1, "int8"},
      {StorageFormat::mxfp4_packed, Dtype::U8, 1, 2, "mxfp4"},
      {StorageFormat::mxfp4_scale, Dtype::U8, 1, 0, "mxfp4_scale"},
      {StorageFormat::nvfp4_packed, Dtype::U8, 1, 2, "nvfp4"},
      {StorageFormat::int_packed, Dtype::I32, 4, 8, "int4"},  // eight 4-bit values per I32
      {StorageFormat::weight_scale, Dtype::F32, 4, 0, "weight_scale"},
  };
  for (const auto& c : cases) {
    StoredTensor t;
    t.format = c.format;
    t.dtype = c.dtype;
    t.bytes_each = c.bytes_each;
    t.logical_params_each = c.params_each;
    EXPECT_EQ(traffic_format_key(t), c.key);
  }
}

TEST(DecodeBytesFormat, RateByFormatAndArchitecture) {
  // H100 SXM (data/gpus.json): BF16 989.4, FP8 1,978.9 dense TFLOPS, no FP4 tensor cores.
  // B300: BF16 2,250, FP8 4,500, FP4 13,125 dense TFLOPS.
  struct Case {
    std::string gpu, format;
    RateClass rate;
    double tflops;
  };
  const Case cases[] = {
      {"H100", "bf16", RateClass::bf16, 989.4},  {"H100", "fp8", RateClass::fp8, 1978.9},
      {"H100", "mxfp4", RateClass::bf16, 989.4},  // Hopper: Marlin W4A16, BF16 math
      {"H100", "int4", RateClass::bf16, 989.4},  {"B300", "mxfp4", RateClass::fp4, 13125},
      {"B300", "nvfp4", RateClass::fp4, 13125},  {"B300", "fp8", RateClass::fp8, 4500},
      {"B300", "bf16", RateClass::bf16, 2250},
  };
  for (const auto& c : cases) {
    const auto r = format_rate(gpu(c.gpu), c.format);
    EXPECT_EQ(r.rate, c.rate) << c.gpu << " " << c.format;
    EXPECT_DOUBLE_EQ(r.dense_tflops, c.tflops) << c.gpu << " " << c.format;
  }
}

// Llama-3.1-8B-Instruct (hidden 4,096, 32 layers, 32 q / 8 KV heads x 128,
// intermediate 14,336, vocab 128,256, untied, BF16) on one H100, batch 1, context 128.
//   embedding = LM head = 128,256 x 4,096 = 525,336,576 params = 1,050,673,152 B
//   per layer: q 4,096^2 + k 1,024 x 4,096 + v 1,024 x 4,096 + o 4,096^2 = 41,943,040
//              + MLP 3 x 14,336 x 4,096 = 176,160,768 + 2 norms x 4,096 = 218,112,000 params
//   32 layers = 6,979,584,000; final norm 4,096; total 8,030,261,248 params = 16,060,522,496 B
// A decode step reads all of it but the embedding table: 16,060,522,496 - 1,050,673,152
//   = 15,009,849,344 B, plus one gathered row 4,096 x 2 = 8,192 B -> 15,009,857,536 B of weights.
// KV: 32 layers x 8 heads x (128 + 128) x 2 B = 131,072 B per token x 128 tokens = 16,777,216 B.
TEST(DecodeBytesLlama8B, OneH100BatchOneExact) {
  const auto& m = model("llama-3.1-8b-instruct");
  const auto& g = gpu("H100");
  const auto l = layout_for(m, g, 1);
  const PerfInputs in{&m, &g, &l, 1, 128, 2, 4, 0, 0};
  const FormatPlacement placement(m);
  const auto ranks = decode_bytes(in, placement).value();
  ASSERT_EQ(ranks.size(), 1u);
  const auto& r = ranks[0];
  EXPECT_EQ(r.trunk, 15'009'849'344u);
  EXPECT_EQ(r.embedding_rows, 8'192u);
  EXPECT_EQ(r.routed, 0u);
  EXPECT_EQ(r.kv, 16'777'216u);
  EXPECT_EQ(r.state, 0u);
  EXPECT_EQ(at(r.by_format, "bf16"), 15'009'857'536u);
  EXPECT_EQ(at(r.by_format, kKvCacheKey), 16'777'216u);
  EXPECT_EQ(r.total, 15'026'634'752u);
}

TEST(DecodeBytesLlama8B, BatchAndContextScaleOnlyTheirTerms) {
  // Batch 8 at context 160: rows 8 x 8,192 = 65,536 B; KV 8 x 160 x 131,072 = 167,772,160 B.
  const auto& m = model("llama-3.1-8b-instruct");
  const auto& g = gpu("H200");
  const auto l = layout_for(m, g, 1);
  const PerfInputs in{&m, &g, &l, 8, 160, 2, 4, 0, 0};
  const auto r = decode_bytes(in, FormatPlacement(m)).value()[0];
  EXPECT_EQ(r.trunk, 15'009'849'344u);
  EXPECT_EQ(r.embedding_rows, 65'536u);
  EXPECT_EQ(r.kv, 167'772'160u);
  EXPECT_EQ(r.total, 15'177'687'040u);
  // FP8 KV halves the cache read: 83,886,080 B.
  const PerfInputs fp8{&m, &g, &l, 8, 160, 1, 4, 0, 0};
  EXPECT_EQ(decode_bytes(fp8, FormatPlacement(m)).value()[0].kv, 83'886'080u);
}

// A tied head with no lm_head tensor (Llama-style tie_word_embeddings: true):
// the LM head matmul reads the embedding table in full, vocab-split by TP.
// Toy config: hidden 256, 2 layers, 4 q / 2 KV heads x 64, intermediate 512, vocab 1,000.
//   embedding 1,000 x 256 x 2 B = 512,000 B; per layer q 65,536 + k 32,768 + v 32,768 +
//   o 65,536 + MLP 3 x 512 x 256 = 393,216 + norms 512 = 590,336 params; 2 layers +
//   final norm 256 = 1,180,928 params = 2,361,856 B.
//   TP 1, batch 1, context 10: 2,361,856 + head 512,000 = 2,873,856 B always-on,
//   + one row 512 B + KV 2 layers x 2 heads x (64 + 64) x 2 B x 10 = 10,240 B.
//   TP 2: head slice 500 rows x 512 B = 256,000 B per rank.
TEST(DecodeBytesTiedHead, ReadsTheEmbeddingAsTheHead) {
  const std::string config = R"({
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 256,
    "intermediate_size": 512, "num_hidden_layers": 2, "num_attention_heads": 4,
    "num_key_value_heads": 2, "head_dim": 64, "vocab_size": 1000, "max_position_embeddings": 4096,
    "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "tie_word_embeddings": true, "torch_dtype": "bfloat16"})";
  const auto m = load_config_model(config, "toy").value_or_throw();
  const auto& g = gpu("H100");
  const FormatPlacement placement(m);
  ASSERT_TRUE(placement.tied_head());
  const auto l1 = layout_for(m, g, 1);
  const auto r1 = decode_bytes(PerfInputs{&m, &g, &l1, 1, 10, 2, 4, 0, 0}, placement).value()[0];
  EXPECT_EQ(r1.trunk, 2'873'856u);
  EXPECT_EQ(r1.embedding_rows, 512u);
  EXPECT_EQ(r1.kv, 10'240u);
  EXPECT_EQ(r1.total, 2'884'608u);
  const auto l2 = layout_for(m, g, 2, LayoutOptions{.tp = 2});
  const auto r2 = decode_bytes(PerfInputs{&m, &g, &l2, 1, 10, 2, 4, 0, 0}, placement).value();
  EXPECT_EQ(placement.tied_head_bytes(l2, 0).at("bf16"), 256'000u);
  EXPECT_EQ(r2[0].trunk, r2[1].trunk);
}

// Kimi K3 on 8 x B300 (TP 8, EP 8, MoE-TP 1), batch 1, context 8,192, BF16 KV, FP32 state.
//   routed experts: 1,446,456,066,048 B (codes 1,361,370,415,104 + E8M0 scales
//   85,085,650,944) / 8 ranks = 180,807,008,256 B resident, 112 of 896 experts per layer.
//   One token touches 16/896 = 1/56 of them: 3,228,696,576 B, 2 experts per layer.
//   Over the 8 ranks: codes 1,361,370,415,104 / 56 = 24,310,185,984 B and scales
//   85,085,650,944 / 56 = 1,519,386,624 B per token.
//   MLA cache: 24 layers x (512 + 64) x 2 B x 8,192 = 226,492,416 B (replicated on every TP rank).
//   KDA state: 449,372,160 B per request at TP 1 (inspect) / 8 = 56,171,520 B, read and
//   written: 112,343,040 B. Embedding row: 7,168 x 2 = 14,336 B.
// The always-on part is whatever the plan's placement puts on rank 0 but the
// embedding, routed experts, vision tower and projector: checked against PlacementIndex.
TEST(DecodeBytesK3, EightB300BatchOne) {
  const auto& m = model("kimi-k3");
  const auto& g = gpu("B300");
  const auto l = layout_for(m, g, 8);
  ASSERT_EQ(l.tp, 8u);
  ASSERT_EQ(l.ep, 8u);
  const PerfInputs in{&m, &g, &l, 1, 8192, 2, 4, 0, 0};
  const FormatPlacement placement(m);
  const auto ranks = decode_bytes(in, placement).value();
  ASSERT_EQ(ranks.size(), 8u);

  const PlacementIndex plan_index(m.manifest, m.layers.size(), m.moe.routed_experts);
  for (const auto& r : ranks) {
    const auto rw = plan_index.rank_weights(l, r.rank);
    std::uint64_t trunk = 0;
    for (const auto& [module, bytes] : rw.bytes_by_module)
      if (read_in_full(module)) trunk += bytes;
    EXPECT_EQ(r.trunk, trunk) << "rank " << r.rank;
    EXPECT_EQ(r.routed_resident, rw.expert_bytes);
    EXPECT_EQ(r.routed_resident, 180'807'008'256u);
    EXPECT_EQ(r.routed, 3'228'696'576u);
    EXPECT_EQ(r.experts_on_rank, 112u);
    EXPECT_DOUBLE_EQ(r.experts_touched, 2.0);
    EXPECT_EQ(r.kv, 226'492'416u);
    EXPECT_EQ(r.state, 112'343'040u);
    EXPECT_EQ(r.embedding_rows, 14'336u);
    EXPECT_EQ(r.total, r.trunk + 14'336u + 3'228'696'576u + 226'492'416u + 112'343'040u);
  }
  std::map<std::string, std::uint64_t> cluster;
  for (const auto& r : ranks)
    for (const auto& [k, v] : r.by_format) cluster[k] += v;
  EXPECT_EQ(at(cluster, "mxfp4"), 24'310'185'984u);
  EXPECT_EQ(at(cluster, "mxfp4_scale"), 1'519'386'624u);
}

// The format split is the plan's placement: summed over formats, every rank's
// weights equal PlacementIndex::rank_weights up to the odd bytes of uneven
// MoE-TP splits (at most one per format and module).
TEST(DecodeBytesPlacement, FormatSplitMatchesThePlan) {
  struct Case {
    std::string model, gpu;
    std::uint64_t world;
    LayoutOptions options;
  };
  const Case cases[] = {
      {"llama-3.1-8b-instruct", "H100", 1, {}},
      {"kimi-k3", "B300", 8, {}},
      {"kimi-k3", "H100", 32, {.tp = 8, .pp = 4}},
      {"deepseek-v3", "H200", 8, {}},
      {"deepseek-v3", "H200", 16, {.tp = 8, .ep = 4}},  // MoE-TP 4
      {"gpt-oss-120b", "H100", 2, {}},
  };
  for (const auto& c : cases) {
    const auto& m = model(c.model);
    const auto l = layout_for(m, gpu(c.gpu), c.world, c.options);
    const FormatPlacement placement(m);
    const PlacementIndex plan_index(m.manifest, m.layers.size(), m.moe.routed_experts);
    for (std::uint64_t r = 0; r < l.world; ++r) {
      const auto mine = placement.rank_weights(l, r);
      const auto plan = plan_index.rank_weights(l, r);
      const auto slack = placement.formats().size() * 16;
      EXPECT_LE(mine.total > plan.total ? mine.total - plan.total : plan.total - mine.total, slack)
          << c.model << " rank " << r;
      EXPECT_EQ(mine.experts_per_moe_layer, plan.experts_per_moe_layer);
    }
  }
}

TEST(DecodeBytesInputs, RejectsIncompleteInputs) {
  const auto& m = model("llama-3.1-8b-instruct");
  const auto& g = gpu("H100");
  const auto l = layout_for(m, g, 1);
  const FormatPlacement placement(m);
  EXPECT_FALSE(decode_bytes(PerfInputs{nullptr, &g, &l, 1, 128, 2, 4, 0, 0}, placement).ok());
  EXPECT_FALSE(decode_bytes(PerfInputs{&m, &g, &l, 0, 128, 2, 4, 0, 0}, placement).ok());
  EXPECT_FALSE(decode_bytes(PerfInputs{&m, &g, &l, 1, 128, 0, 4, 0, 0}, placement).ok());
  const auto e = validate_perf_inputs(PerfInputs{&m, &g, &l, 0, 128, 2, 4, 0, 0});
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->to_string(), "perf: batch_per_group: the batch must be at least 1 request");
}

}  // namespace
}  // namespace preflight
