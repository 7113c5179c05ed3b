// Throughput, cost and cold start as a plan carries them: the library's
// figures reach the plan, speculative decoding changes the ledger, and the
// bound stays above a published production measurement.
#include <gtest/gtest.h>

#include "plan/plan.h"
#include "support/fixtures.h"

namespace preflight {
namespace {

using testing::catalogue_gpu;
using testing::catalogue_model;

const Figure& fig(const Plan& p, const std::string& id) {
  const auto* f = find_figure(p.figures, id);
  if (f == nullptr) throw std::runtime_error("missing figure " + id);
  return *f;
}

const LedgerRow* row(const RankLedger& l, const std::string& id) {
  for (const auto& r : l.rows)
    if (r.id == id) return &r;
  return nullptr;
}

Plan plan(const std::string& model, const Accelerator& g, std::uint64_t count, PlanRequest req = {}) {
  req.gpu_count = count;
  return build_plan(catalogue_model(model), g, req).value_or_throw();
}

// The roofline's hand-computed Llama-3.1-8B case (roofline_test.cc) reaches the
// plan unchanged: 15,026,634,752 B per token at context 128 on one H100,
// 3.35 TB/s -> 222.94 tokens/s.
TEST(PlanPerf, Llama8BOnOneH100CarriesTheRoofline) {
  PlanRequest req;
  req.workload.requested = true;
  req.workload.context_tokens = 128;
  const auto p = plan("llama-3.1-8b-instruct", catalogue_gpu("H100"), 1, req);
  ASSERT_TRUE(p.perf.has_value());
  ASSERT_TRUE(p.perf->available);
  EXPECT_EQ(fig(p, "perf.bytes_per_token").exact, 15'026'634'752u);
  EXPECT_NEAR(p.perf->decode_tokens_per_s_bound, 3.35e12 / 15'026'634'752.0, 1e-6);
  EXPECT_EQ(binding_term_key(p.perf->decode.batch1.binding.binding), "memory_bandwidth");
  // Catalogue price (H100 SXM 3.78 USD/h): 3.78 / (222.94 x 3600) x 10^6 = 4.71 USD/M tokens.
  ASSERT_TRUE(p.perf->cost.priced);
  EXPECT_NEAR(p.perf->cost.usd_per_m_at_bound, 3.78 / (p.perf->decode_tokens_per_s_bound * 3600) * 1e6, 1e-9);
  EXPECT_NEAR(p.perf->cost.usd_per_m_at_bound, 4.7098, 1e-3);
  // Prefill at the 128-token context (the default prompt is min(context, 8192)).
  EXPECT_EQ(p.perf->prefill.prompt_tokens, 128u);
  // Every throughput and time figure is an estimate or a hypothesis (bytes of a
  // dense model on one GPU are exact arithmetic, so derived).
  for (const auto& f : p.figures) {
    if (f.id.starts_with("perf.") && (f.unit == "tokens/s" || f.unit == "s")) {
      EXPECT_TRUE(f.evidence == Evidence::estimate || f.evidence == Evidence::hypothesis) << f.id;
    }
  }
}

// Kimi K3 on 8 x B300: the seeds argue whether MXFP4 cuts traffic 4x. Of the
// weight bytes a token reads, the always-on BF16 trunk (attention, KDA, shared
// experts, dense layers, LM head) dominates; the MXFP4 experts a token selects
// (16 of 896 per layer) are about a tenth.
TEST(PlanPerf, KimiK3WeightBytesByPrecision) {
  PlanRequest req;
  req.workload.requested = true;
  req.workload.context_tokens = 8192;
  const auto p = plan("kimi-k3", catalogue_gpu("B300"), 8, req);
  ASSERT_TRUE(p.perf && p.perf->available);
  const double bf16 = fig(p, "perf.weight_bytes_share.bf16").value;
  const double mxfp4 = fig(p, "perf.weight_bytes_share.mxfp4").value;
  EXPECT_GT(bf16, 85.0);
  EXPECT_LT(mxfp4, 15.0);
  double total = 0;
  for (const auto& [key, share] : p.perf->weight_bytes_share) total += share;
  EXPECT_NEAR(total, 100.0, 1e-9);
  // bytes_per_token_by_dtype is the JSON contract: it sums to bytes per token (up to the per-format division).
  std::uint64_t sum = 0;
  for (const auto& [key, bytes] : p.perf->bytes_per_token_by_dtype) sum += bytes;
  EXPECT_LE(fig(p, "perf.bytes_per_token").exact - sum, p.perf->bytes_per_token_by_dtype.size());
  // No catalogue price for B300: no cost figures, and the plan says so.
  EXPECT_FALSE(p.perf->cost.priced);
}

// Published measurement (cited): DeepSeek, "Day 6: DeepSeek-V3/R1 Inference
// System Overview", github.com/deepseek-ai/open-infra-index,
// 202502OpenSourceWeek/day_6_one_more_thing_deepseekV3R1_inference_system_overview.md
// (2025-03-01): decode ran routed experts EP144 with MLA and shared experts
// DP144 over 18 nodes of 8 H800; "each H800 node delivers ... ~14.8k tokens/s
// output during decoding" at an average 20-22 tokens/s per request and an
// average KV length of 4,989 tokens. That is 1,850 tokens/s per GPU, so about
// 1,850 / 22 = 84 requests per GPU.
//
// The H800 is an H100 SXM with NVLink cut to 400 GB/s; its HBM (3.35 TB/s) and
// tensor rates are the H100's. We plan 16 such nodes (EP128 / DP128: 256
// experts do not deal evenly over 144 GPUs without DeepSeek's 32 redundant
// ones) with 84 requests per GPU, BF16 cache, 400 Gb/s per GPU between nodes.
// The bound must not fall below what production measured.
TEST(PlanPerfPublished, NotBelowDeepSeekV3ProductionDecode) {
  Accelerator h800 = catalogue_gpu("H100");
  h800.id = "nvidia-h800-sxm-80gb";
  h800.interconnect_gb_s = 400;
  PlanRequest req;
  req.workload.requested = true;
  req.workload.context_tokens = 4989;
  req.workload.concurrency = 128 * 84;
  req.workload.kv_dtype = KvDtype::bf16;
  req.layout.tp = 1;
  req.layout.dp = 128;
  req.layout.ep = 128;
  req.perf.scale_out_gb_s = 50;
  const auto p = plan("deepseek-v3", h800, 128, req);
  ASSERT_TRUE(p.perf && p.perf->available);
  EXPECT_EQ(p.perf->decode.concurrency, 128u * 84u);
  const double measured_per_gpu = 14'800.0 / 8;
  EXPECT_GE(p.perf->decode.tokens_per_s_per_gpu_at_batch, measured_per_gpu);
  EXPECT_GE(p.perf->decode.tokens_per_s_per_request_at_batch, 22.0);
}

// --spec-tokens: each speculative position keeps a recurrent state (generic:
// state slots + N), and the bound with speculation is a hypothesis.
TEST(PlanPerfSpeculative, StateSlotsGrowAndTheBoundIsAHypothesis) {
  PlanRequest base;
  base.workload.requested = true;
  base.workload.context_tokens = 131072;
  base.workload.concurrency = 8;
  auto spec = base;
  spec.workload.spec_tokens = 3;
  const auto& g = catalogue_gpu("B300");
  const auto p0 = plan("kimi-k3", g, 8, base);
  const auto p3 = plan("kimi-k3", g, 8, spec);
  const auto* s0 = row(p0.ranks.front(), "state.recurrent");
  const auto* s3 = row(p3.ranks.front(), "state.recurrent");
  ASSERT_TRUE(s0 && s3);
  EXPECT_EQ(s3->bytes * 5, s0->bytes * 8);  // (5 + 3) slots against 5
  ASSERT_TRUE(p3.perf && p3.perf->available);
  EXPECT_EQ(fig(p3, "perf.spec.decode_tokens_per_s_bound").evidence, Evidence::hypothesis);
  EXPECT_NEAR(p3.perf->spec.tokens_per_step, (1 - 0.7 * 0.7 * 0.7 * 0.7) / 0.3, 1e-12);
  // Verifying 4 positions per request never reads fewer bytes than decoding 1.
  EXPECT_GE(p3.perf->spec.verify.step_seconds, p3.perf->decode.batch1.step_seconds);
}

// vLLM keeps 1 + N state blocks per request for Mamba-like layers
// (MambaSpec.num_speculative_blocks): fewer requests fit.
TEST(PlanPerfSpeculative, VllmStateBlocksPerRequest) {
  PlanRequest req;
  req.workload.requested = true;
  req.workload.context_tokens = 131072;
  req.workload.kv_dtype = KvDtype::fp8;
  req.engine.kind = EngineKind::vllm;
  auto spec = req;
  spec.workload.spec_tokens = 7;
  const auto& g = catalogue_gpu("B300");
  const auto p0 = plan("kimi-k3", g, 8, req);
  const auto p7 = plan("kimi-k3", g, 8, spec);
  ASSERT_TRUE(p0.engine && p7.engine);
  EXPECT_LT(p7.engine->max_concurrency, p0.engine->max_concurrency);
}

// --draft: the draft's weights and cache join the ledger on every rank.
TEST(PlanPerfSpeculative, DraftModelJoinsTheLedger) {
  PlanRequest req;
  req.workload.requested = true;
  req.workload.context_tokens = 8192;
  req.workload.concurrency = 4;
  req.workload.spec_tokens = 4;
  req.draft = std::make_shared<const ModelSpec>(catalogue_model("qwen3-0.6b"));
  const auto p = plan("llama-3.1-8b-instruct", catalogue_gpu("H100"), 2, req);
  EXPECT_EQ(p.draft_tp, 2u);  // 16 q / 8 kv heads accept TP 2
  const auto& l = p.ranks.front();
  const auto* w = row(l, "weights.draft");
  const auto* kv = row(l, "kv.draft");
  ASSERT_TRUE(w && kv);
  EXPECT_EQ(w->bytes, p.draft_weights_per_rank);
  // Qwen3-0.6B at TP 2: 28 layers x 4 kv heads x 128 x 2 (K, V) x 2 B = 57,344 B per token,
  // x (8192 + 4 lookahead) tokens x 4 requests.
  EXPECT_EQ(kv->bytes, 28u * 4 * 128 * 2 * 2 * (8192 + 4) * 4);
  ASSERT_TRUE(p.perf && p.perf->available);
  EXPECT_GT(p.perf->spec.draft_seconds, 0.0);
  std::string why;
  for (const auto& r : p.ranks) EXPECT_TRUE(check_reconciles(r, &why)) << why;
}

TEST(PlanPerfSpeculative, DraftWithoutSpecTokensIsAnError) {
  PlanRequest req;
  req.draft = std::make_shared<const ModelSpec>(catalogue_model("qwen3-0.6b"));
  req.gpu_count = 1;
  const auto p = build_plan(catalogue_model("llama-3.1-8b-instruct"), catalogue_gpu("H100"), req);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().origin, "--draft");
}

// Cold start: a node reads what its ranks hold, a replicated tensor once.
TEST(PlanPerfColdStart, NodeLoadNeverExceedsThePayload) {
  const auto p = plan("kimi-k3", catalogue_gpu("H100"), 32);
  ASSERT_TRUE(p.perf.has_value());
  const auto& c = p.perf->cold_start;
  EXPECT_LE(c.max_node_bytes, p.checkpoint_bytes);
  EXPECT_GT(c.max_node_bytes, p.checkpoint_bytes / 5);  // four nodes share the experts
  EXPECT_DOUBLE_EQ(c.load_s, static_cast<double>(c.max_node_bytes) / 2e9);
  ASSERT_EQ(c.total_s.size(), 2u);
  EXPECT_EQ(fig(p, "coldstart.artifact_bytes").evidence, Evidence::official);
}

// An accelerator without bandwidth figures gets a reason, not a number.
TEST(PlanPerf, UnavailableWithoutBandwidth) {
  Accelerator g = catalogue_gpu("H100");
  g.memory_bandwidth_tb_s = 0;
  const auto p = plan("llama-3.1-8b-instruct", g, 1);
  ASSERT_TRUE(p.perf.has_value());
  EXPECT_FALSE(p.perf->available);
  EXPECT_NE(p.perf->unavailable.find("memory bandwidth"), std::string::npos);
  EXPECT_EQ(find_figure(p.figures, "perf.decode_tokens_per_s_bound"), nullptr);
}

}  // namespace
}  // namespace preflight
