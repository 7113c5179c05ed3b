// vLLM sizing through build_plan: the figures vLLM would log at start-up for
// catalogue models, against the logged values of tests/data/reference/data/engine-truth-dev.csv
// (llm-d-planner accuracy logs, vLLM 0.19.0 on H100 80GB, 79.19 GiB total).
// Each comparison allows the stated tolerance and also pins the exact predicted
// value as a regression anchor (commented "anchor"): a change to the rules or
// the profile that moves it must update the anchor on purpose.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "core/bytes.h"
#include "engine/engine_profile.h"
#include "engine/engine_version_range.h"
#include "hardware/gpu_catalogue.h"
#include "model/family_registry.h"
#include "model/model_catalogue.h"
#include "plan/plan.h"
#include "reference_files.h"
#include "support/fixtures.h"
#include "support/model_configs.h"

namespace preflight {
namespace {

const ModelSpec& model(const std::string& name) { return testing::catalogue_model(name); }

const Accelerator& gpu(const std::string& name) { return testing::catalogue_gpu(name); }

struct VllmRun {
  std::string model = "llama-3.1-8b-instruct";
  std::string gpu = "H100";
  std::uint64_t gpus = 1;
  double util = 0.95;
  std::uint64_t context = 8192;
  LayoutOptions layout = {};
  std::string version = "0.19.0";  // the llm-d logs' release (the profile default is newer)
  std::string kv_dtype = "auto";
  std::uint64_t concurrency = 1;
  bool enforce_eager = false;
  std::uint64_t max_num_seqs = 0;  // 0: the engine's default
};

// "" : no --engine-version (the profile's default).
std::optional<EngineVersion> version_of(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return parse_engine_version(text, "test").value();
}

PlanRequest request(const VllmRun& r) {
  PlanRequest req;
  req.gpu_count = r.gpus;
  req.layout = r.layout;
  req.workload.requested = true;
  req.workload.context_tokens = r.context;
  req.workload.kv_dtype = parse_kv_dtype(r.kv_dtype, "test").value_or_throw();
  req.workload.concurrency = r.concurrency;
  req.engine.kind = EngineKind::vllm;
  req.engine.gpu_memory_utilization = r.util;
  req.engine.version = version_of(r.version);
  req.engine.enforce_eager = r.enforce_eager;
  req.engine.max_num_seqs = r.max_num_seqs;
  return req;
}

Plan plan(const VllmRun& r) {
  Plan p = build_plan(model(r.model), gpu(r.gpu), request(r)).value_or_throw();
  for (const auto& rank : p.ranks) {
    std::string why;
    EXPECT_TRUE(check_reconciles(rank, &why)) << why;
  }
  EXPECT_TRUE(p.engine.has_value());
  return p;
}

std::uint64_t fig(const Plan& p, const std::string& id) {
  const auto* f = find_figure(p.figures, id);
  EXPECT_NE(f, nullptr) << id;
  return f ? f->exact : 0;
}

double rel(double predicted, double logged) { return std::abs(predicted - logged) / logged; }

// ---------------------------------------------------------------------------
// Against the logs

struct TokenCase {
  const char* what;
  VllmRun run;
  std::uint64_t logged_tokens;     // "GPU KV cache size: N tokens"
  std::uint64_t predicted_tokens;  // anchor
  double tolerance;
};

TEST(VllmSizing, KvCacheTokensAgainstTheLogs) {
  const TokenCase cases[] = {
      // r024: Llama-3.1-8B-Instruct, 1 x H100, util 0.95, mml 8192: 476,016 tokens (29,751 blocks).
      {"llama TP1", {}, 476'016, 476'400, 0.005},
      // r027: TP2: 1,044,688 tokens.
      {"llama TP2", {.gpus = 2, .layout = {.tp = 2}}, 1'044'688, 1'045'664, 0.005},
      // r025: PP2 (TP1): 1,075,312 tokens (blocks = min over the two stages).
      {"llama PP2", {.gpus = 2, .layout = {.tp = 1, .pp = 2}}, 1'075'312, 1'078'272, 0.005},
      // r026: PP4: 2,257,264 tokens.
      {"llama PP4", {.gpus = 4, .layout = {.tp = 1, .pp = 4}}, 2'257'264, 2'263'056, 0.005},
      // r042: gpt-oss-20b, 2 x H100, TP2 EP1, util 0.9: 2,591,776 tokens (323,972 blocks // 2 groups x 16).
      {"gpt-oss-20b TP2 EP1",
       {.model = "gpt-oss-20b", .gpus = 2, .util = 0.9, .layout = {.tp = 2, .ep = 1}},
       2'591'776,
       2'593'488,
       0.005},
      // r040: gpt-oss-20b, 1 x H100, util 0.95: 1,277,184 tokens.
      {"gpt-oss-20b TP1", {.model = "gpt-oss-20b"}, 1'277'184, 1'278'400, 0.005},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const auto p = plan(c.run);
    const auto tokens = fig(p, "engine.kv_cache_tokens");
    EXPECT_EQ(tokens, p.engine->kv_cache_tokens);
    EXPECT_LT(rel(static_cast<double>(tokens), static_cast<double>(c.logged_tokens)), c.tolerance)
        << tokens << " vs logged " << c.logged_tokens;
    EXPECT_EQ(tokens, c.predicted_tokens);  // anchor
  }
}

TEST(VllmSizing, Llama8bOnOneH100) {
  const auto p = plan({});
  const auto& e = *p.engine;
  // r024: "Model loading took 14.99 GiB"; predicted 16,060,522,496 B payload + RoPE cache
  // 131,072 positions x 128 x 2 B = 33,554,432 B = 16,094,076,928 B = 14.989 GiB.
  const auto weights = fig(p, "engine.weights_bytes_per_rank");
  EXPECT_LT(rel(static_cast<double>(weights) / static_cast<double>(kGiB), 14.99), 0.001);
  EXPECT_EQ(weights, 16'094'076'928u);  // anchor
  EXPECT_EQ(weights, 16'060'522'496u + 131'072u * 128 * 2);
  // requested = 85,029,615,043 B (79.19 GiB) x 0.95 (r024: requested 75.23 GiB).
  EXPECT_EQ(fig(p, "engine.requested_bytes"), 80'778'134'290u);
  EXPECT_NEAR(static_cast<double>(fig(p, "engine.requested_bytes")) / static_cast<double>(kGiB), 75.23, 0.005);
  // Non-torch 0.25 GiB at TP1 in the 0.17 era (r024 logs 0.25).
  EXPECT_EQ(fig(p, "engine.non_torch_bytes"), 268'435'456u);
  // KV budget: r024 logs 58.11 GiB; predicted 62,442,726,162 B = 58.15 GiB (anchor).
  const auto budget = fig(p, "engine.kv_budget_bytes");
  EXPECT_EQ(budget, 62'442'726'162u);
  EXPECT_LT(rel(static_cast<double>(budget) / static_cast<double>(kGiB), 58.11), 0.005);
  // 62,442,726,162 // 2 MiB = 29,775 blocks (r024: 29,751); 29,775 x 16 = 476,400 tokens.
  EXPECT_EQ(e.num_blocks, 29'775u);
  EXPECT_EQ(e.num_blocks, budget / (2 * kMiB));
  EXPECT_EQ(e.kv_cache_tokens, e.num_blocks * 16);
  EXPECT_EQ(e.block_size, 16u);
  EXPECT_EQ(e.kv_groups, 1u);
  EXPECT_EQ(e.kv_bytes_per_token, 131'072u);
  // "Maximum concurrency for 8,192 tokens per request": 29,775 / 512 (r024 logged 58.11).
  EXPECT_DOUBLE_EQ(e.max_concurrency, 29'775.0 / 512);
  EXPECT_NEAR(e.max_concurrency, 58.11, 0.1);
  // Defaults on a >= 70 GiB Hopper: 8,192 batched tokens, 1,024 sequences.
  EXPECT_EQ(e.max_num_batched_tokens, 8192u);
  EXPECT_EQ(e.max_num_seqs, 1024u);
  EXPECT_TRUE(e.holds_one_request);
  EXPECT_TRUE(e.failure.empty());
  EXPECT_TRUE(p.verdict.fits);
  EXPECT_EQ(e.version, "0.19.0");
  EXPECT_FALSE(e.version_defaulted);
}

TEST(VllmSizing, VersionDefaultsToTheNewestModelledAndSaysWhenARecipeNeedsNewer) {
  struct Case {
    const char* what;
    std::string asked, required;
    std::string version;
    bool defaulted;
    std::string note;
  };
  const Case cases[] = {
      {"no version: the profile's default", "", "", engine_profiles().vllm.default_version.str(), true, ""},
      {"asked, no recipe", "0.19.0", "", "0.19.0", false, ""},
      {"asked, recipe satisfied", "0.27.1", "0.27.0", "0.27.1", false, ""},
      {"asked older than the recipe", "0.19.0", "0.27.0", "0.19.0", false,
       "the vLLM Kimi-K3 base recipe needs vLLM 0.27.0 or later; this plan applies vLLM 0.19.0's rules, as asked"},
      {"default older than the recipe", "", "9.0.0", engine_profiles().vllm.default_version.str(), true,
       "the vLLM Kimi-K3 base recipe needs vLLM 9.0.0 or later; this plan applies vLLM " +
           engine_profiles().vllm.default_version.str() + "'s rules (the newest modelled)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    auto req = request({.version = c.asked});
    req.engine.required_version = version_of(c.required);
    req.engine.required_by = "vLLM Kimi-K3 base";
    const auto p = build_plan(model("llama-3.1-8b-instruct"), gpu("H100"), req).value_or_throw();
    EXPECT_EQ(p.engine->version, c.version);
    EXPECT_EQ(p.engine->version_defaulted, c.defaulted);
    EXPECT_EQ(p.engine->version_note, c.note);
  }
}

TEST(VllmSizing, PipelineBlocksAreTheMinimumOverStages) {
  const auto p = plan({.gpus = 2, .layout = {.tp = 1, .pp = 2}});
  const auto& e = *p.engine;
  ASSERT_EQ(e.workers.size(), 2u);
  // The last stage runs the sampler, so its activation peak is larger and its budget smaller.
  EXPECT_GT(e.workers[1].activation_peak_bytes, e.workers[0].activation_peak_bytes);
  EXPECT_LT(e.workers[1].kv_budget_bytes, e.workers[0].kv_budget_bytes);
  EXPECT_EQ(e.min_kv_budget_bytes, static_cast<std::uint64_t>(e.workers[1].kv_budget_bytes));
  // 16 layers per stage: 1 MiB per block; blocks from the tighter stage.
  EXPECT_EQ(e.kv_bytes_per_token, 65'536u);
  EXPECT_EQ(e.num_blocks, e.min_kv_budget_bytes / kMiB);
  // PP at TP1: 0.07 GiB non-torch per stage (r025 logs 0.07;0.07).
  EXPECT_EQ(e.workers[0].non_torch_bytes, 75'161'928u);
}

TEST(VllmSizing, GptOss20bTp2Ep1) {
  const auto p = plan({.model = "gpt-oss-20b", .gpus = 2, .util = 0.9, .layout = {.tp = 2, .ep = 1}});
  const auto& e = *p.engine;
  EXPECT_EQ(p.layout.moe_tp, 2u);
  EXPECT_EQ(e.kv_groups, 2u);  // 12 sliding + 12 full: group_size 12, 2 groups
  EXPECT_EQ(e.block_size, 16u);
  EXPECT_EQ(e.page_bytes, 16'384u);   // 16 x 4 KV heads x 64 x 2 x 2 B
  EXPECT_EQ(e.num_blocks, 324'187u);  // anchor (r042: 323,972)
  EXPECT_EQ(e.kv_cache_tokens, e.num_blocks / 2 * 16);
  // r042 logs concurrency 316.07 = 323,972 / 1,025; predicted 324,187 / 1,025.
  EXPECT_DOUBLE_EQ(e.max_concurrency, 324'187.0 / 1025);
  EXPECT_LT(rel(e.max_concurrency, 316.07), 0.005);
  // TP2 non-torch: 2.0 + 0.03 x 2 = 2.06 GiB (r042 logs 2.07).
  EXPECT_EQ(fig(p, "engine.non_torch_bytes"), 2'211'908'157u);
  // Weights: r042 logs 7.01 GiB; predicted 7,599,658,624 B = 7.08 GiB (1.0% high, anchor).
  const auto weights = fig(p, "engine.weights_bytes_per_rank");
  EXPECT_EQ(weights, 7'599'658'624u);
  EXPECT_LT(rel(static_cast<double>(weights) / static_cast<double>(kGiB), 7.01), 0.015);
}

TEST(VllmSizing, KimiK3On8xB300WithFp8Cache) {
  // K3 hybrid: 24 MLA layers (576 FP8 values per token) + 69 KDA layers of 814,080 B state per rank
  // at TP8: block 64 x cdiv(814,080, 64 x 576) = 1,472 tokens; 1 MLA + 3 KDA groups of 24 layers.
  const auto p = plan({.model = "kimi-k3", .gpu = "B300", .gpus = 8, .util = 0, .context = 131'072, .kv_dtype = "fp8"});
  const auto& e = *p.engine;
  EXPECT_EQ(p.layout.tp, 8u);
  EXPECT_DOUBLE_EQ(e.memory_fraction, 0.9);  // the profile default when --gpu-memory-utilization is not given
  EXPECT_EQ(e.block_size, 1472u);
  EXPECT_EQ(e.kv_groups, 4u);
  EXPECT_EQ(e.page_bytes, 1472u * 576);
  // One request's state: 3 state groups x one block index x 24 shared pages.
  EXPECT_EQ(e.state_slot_bytes, 3u * 24 * 1472 * 576);
  EXPECT_EQ(e.num_blocks, 2'312u);  // anchor (the vision tower's attention split over TP 8, its MLP whole)
  EXPECT_EQ(e.kv_cache_tokens, 2'312u / 4 * 1472);
  // A 131,072-token request: cdiv(131072, 1472) = 90 MLA blocks + 3 state blocks.
  EXPECT_DOUBLE_EQ(e.max_concurrency, 2'312.0 / 93);
  EXPECT_TRUE(e.holds_one_request);
  // BF16 cache: 768-token blocks.
  const auto bf16 =
      plan({.model = "kimi-k3", .gpu = "B300", .gpus = 8, .util = 0, .context = 131'072, .kv_dtype = "bf16"});
  EXPECT_EQ(bf16.engine->block_size, 768u);
  EXPECT_EQ(bf16.engine->kv_groups, 4u);
  EXPECT_EQ(bf16.engine->state_slot_bytes, 3u * 24 * 768 * 1152);
}

TEST(VllmSizing, WeightsThatDoNotFitNameTheFailure) {
  // Llama-3.1-70B BF16 (141 GB) on one H100 (79.19 GiB): no memory for the KV cache.
  const auto p = plan({.model = "llama-3.1-70b"});
  const auto& e = *p.engine;
  EXPECT_EQ(e.min_kv_budget_bytes, 0u);
  EXPECT_EQ(e.num_blocks, 0u);
  EXPECT_EQ(e.kv_cache_tokens, 0u);
  EXPECT_FALSE(e.holds_one_request);
  // 80,778,134,290 requested - 141,140,967,424 weights - 2,107,113,472 activations
  // - 268,435,456 non-torch = -62,738,382,062 B = -58.43 GiB.
  EXPECT_EQ(e.workers.at(0).kv_budget_bytes, -62'738'382'062);
  EXPECT_EQ(fig(p, "engine.kv_shortfall_bytes"), 62'738'382'062u);
  EXPECT_EQ(e.failure,
            "no memory left for the KV cache: -58.43 GiB after weights, activations and non-torch memory "
            "(vLLM: 'No available memory for the cache blocks')");
  EXPECT_FALSE(p.verdict.fits);
  EXPECT_EQ(p.verdict.first_boundary, Resource::weights);
}

TEST(VllmSizing, ContextTooLongForThePoolIsRefused) {
  // The same GPU with a context no pool can hold: 29,775 blocks x 16 = 476,400 tokens < 1M.
  const auto p = plan({.context = 1'048'576});
  const auto& e = *p.engine;
  EXPECT_FALSE(e.holds_one_request);
  EXPECT_NE(e.failure.find("cannot hold one 1,048,576-token request"), std::string::npos) << e.failure;
  EXPECT_FALSE(p.verdict.fits);
  EXPECT_EQ(p.verdict.first_boundary, Resource::kv_cache);
}

// ---------------------------------------------------------------------------
// Versions

struct EraCase {
  const char* version;
  std::uint64_t non_torch;       // era non_torch_gib_tp1, in bytes (llround(GiB x 2^30))
  std::uint64_t cuda_graph;      // 1 GiB from 0.21 (cuda_graph_subtracted)
  std::uint64_t batched_tokens;  // V0: chunked prefill off, max(mml, 2048); V1: 8,192 on a large GPU
  std::uint64_t seqs;            // V0: 256; V1 large GPU: 1,024
};

TEST(VllmSizing, EraSelectedByEngineVersion) {
  const EraCase cases[] = {
      {"~0.6.4 (V0; inferred)", 375'809'638, 0, 8192, 256},  // era 0.0: 0.35 GiB (vllm#10517)
      {"0.7.3", 375'809'638, 0, 8192, 256},                  // still V0
      {"0.8.0", 139'586'437, 0, 8192, 1024},                 // era 0.8: 0.13 GiB (llm-d v0.11 docs)
      {"0.11.0 (pod image vllm/vllm-openai:v0.11.0)", 139'586'437, 0, 8192, 1024},
      {"0.12.0", 268'435'456, 0, 8192, 1024},  // era 0.12: 0.25 GiB
      {"0.19", 268'435'456, 0, 8192, 1024},    // era 0.17
      {"0.20.9", 268'435'456, 0, 8192, 1024},
      {"0.21", 268'435'456, 1'073'741'824, 8192, 1024},  // era 0.21: CUDA graphs subtracted
      {"1.0.0", 268'435'456, 1'073'741'824, 8192, 1024},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.version);
    const auto p = plan({.version = c.version});
    const auto& w = p.engine->workers.at(0);
    EXPECT_EQ(w.non_torch_bytes, c.non_torch);
    EXPECT_EQ(w.cuda_graph_bytes, c.cuda_graph);
    EXPECT_EQ(p.engine->max_num_batched_tokens, c.batched_tokens);
    EXPECT_EQ(p.engine->max_num_seqs, c.seqs);
    EXPECT_EQ(p.engine->version, c.version);
  }
}

TEST(VllmSizing, Version021SubtractsCudaGraphs) {
  const auto v19 = plan({.version = "0.19"});
  const auto v21 = plan({.version = "0.21"});
  // Same weights and activations; the 0.21 budget is exactly the 1 GiB graph pool smaller.
  EXPECT_EQ(fig(v19, "engine.weights_bytes_per_rank"), fig(v21, "engine.weights_bytes_per_rank"));
  EXPECT_EQ(fig(v19, "engine.activation_peak_bytes"), fig(v21, "engine.activation_peak_bytes"));
  EXPECT_EQ(fig(v19, "engine.kv_budget_bytes") - fig(v21, "engine.kv_budget_bytes"), kGiB);
  EXPECT_EQ(fig(v21, "engine.cuda_graph_bytes"), kGiB);
  EXPECT_EQ(find_figure(v19.figures, "engine.cuda_graph_bytes"), nullptr);
  // 0.21 reports tokens as int(concurrency x mml): (62,442,726,162 - 2^30) // 2 MiB = 29,263 blocks,
  // 29,263 / 512 x 8,192 = 468,208 (the same as blocks x 16 for one uniform group).
  EXPECT_EQ(v21.engine->num_blocks, 29'263u);
  EXPECT_EQ(v21.engine->kv_cache_tokens, 468'208u);
  EXPECT_EQ(v19.engine->kv_cache_tokens, 476'400u);
  // --enforce-eager: no graph pool to subtract.
  const auto eager = plan({.version = "0.21", .enforce_eager = true});
  EXPECT_EQ(eager.engine->workers.at(0).cuda_graph_bytes, 0u);
  EXPECT_EQ(fig(eager, "engine.kv_budget_bytes"), fig(v19, "engine.kv_budget_bytes"));
}

// ---------------------------------------------------------------------------
// Decode context parallel

TEST(VllmSizing, DcpMultipliesTheTokens) {
  // DeepSeek-V2-Lite-Chat (MLA, 27 layers x 576 x 2 B) on 2 x H100 at TP2: DCP 2 leaves the budget
  // and the blocks alone and doubles the logged tokens (engines.md 1.2: 715,072 -> 5,721,088 at DCP 8).
  const VllmRun base{.model = "deepseek-v2-lite-chat", .gpus = 2, .layout = {.tp = 2}};
  auto with_dcp = base;
  with_dcp.layout.dcp = 2;
  const auto one = plan(base);
  const auto two = plan(with_dcp);
  EXPECT_EQ(one.engine->block_size, 64u);  // MLA kernels: 64-token blocks
  EXPECT_EQ(one.engine->kv_bytes_per_token, 27u * 576 * 2);
  EXPECT_EQ(two.engine->num_blocks, one.engine->num_blocks);
  EXPECT_EQ(two.engine->kv_cache_tokens, 2 * one.engine->kv_cache_tokens);
  EXPECT_EQ(one.engine->kv_cache_tokens, one.engine->num_blocks * 64);
  // A request needs cdiv(8192 / 2, 64) = 64 blocks instead of 128.
  EXPECT_DOUBLE_EQ(one.engine->max_concurrency, static_cast<double>(one.engine->num_blocks) / 128);
  EXPECT_DOUBLE_EQ(two.engine->max_concurrency, static_cast<double>(two.engine->num_blocks) / 64);
  // Kimi K2 on 8 x H200 at a 32K context and 0.92 utilisation (at 0.9 the fused-MoE workspace,
  // 8,192 x 8 x (7,168 + 7,168) x 2 B = 1.75 GiB, leaves no pool): the pool holds 298 blocks, less
  // than one 512-block request without DCP; DCP 8 makes a request 64 blocks and the plan fits (tokens x 8).
  const auto k2 =
      plan({.model = "kimi-k2", .gpu = "H200", .gpus = 8, .util = 0.92, .context = 32'768, .layout = {.tp = 8}});
  const auto k2_dcp = plan(
      {.model = "kimi-k2", .gpu = "H200", .gpus = 8, .util = 0.92, .context = 32'768, .layout = {.tp = 8, .dcp = 8}});
  EXPECT_EQ(k2.engine->num_blocks, 298u);  // anchor
  EXPECT_EQ(k2.engine->kv_cache_tokens, 298u * 64);
  EXPECT_EQ(k2_dcp.engine->kv_cache_tokens, 8u * 298 * 64);
  EXPECT_FALSE(k2.engine->holds_one_request);
  EXPECT_TRUE(k2_dcp.engine->holds_one_request);
  EXPECT_DOUBLE_EQ(k2_dcp.engine->max_concurrency, 298.0 / 64);
}

TEST(VllmSizing, VerdictOnlyPlansAgreeWithFullPlans) {
  // The solvers' fast path sizes the same representative workers.
  const VllmRun run{.gpus = 4, .layout = {.tp = 1, .pp = 4}};
  const PlanContext ctx(model(run.model));
  const auto full = build_plan(ctx, gpu(run.gpu), request(run), PlanDetail::full).value_or_throw();
  const auto fast = build_plan(ctx, gpu(run.gpu), request(run), PlanDetail::verdict_only).value_or_throw();
  EXPECT_EQ(fast.engine->kv_cache_tokens, full.engine->kv_cache_tokens);
  EXPECT_EQ(fast.engine->num_blocks, full.engine->num_blocks);
  EXPECT_TRUE(fast.engine->figures.empty());
  EXPECT_EQ(fast.verdict.fits, full.verdict.fits);
}

}  // namespace
}  // namespace preflight

namespace preflight {
namespace {

// The hybrid KV cache manager by version (data/engines.json eras[].hybrid_kv_manager): Llama 4
// Scout's 36 chunked-local layers keep their 8,192-token chunk from 0.10.0, but from 0.10.1 the
// manager is off for chunked local attention (vLLM PR #21761) and every layer keeps max_model_len
// tokens: one uniform group of 48 layers, 24,576 B per token on each of 8 ranks (1 KV head of 128,
// K and V, BF16).
TEST(VllmSizing, ChunkedLocalAttentionKeepsWholeContextWhereTheHybridManagerIsOff) {
  const auto scout = build_model_from_config(testing::kLlama4ScoutConfig, "config.json").value_or_throw();
  const auto run = [&](const char* version) {
    PlanRequest req;
    req.gpu_count = 8;
    req.layout.tp = 8;
    req.workload.requested = true;
    req.workload.context_tokens = 131072;
    req.engine.kind = EngineKind::vllm;
    req.engine.gpu_memory_utilization = 0.9;
    req.engine.version = version_of(version);
    return build_plan(scout, gpu("H100"), req).value_or_throw();
  };
  const auto with_manager = run("0.10.0");
  const auto without = run("0.19.0");
  EXPECT_EQ(without.engine->kv_groups, 1u);
  EXPECT_EQ(without.engine->kv_bytes_per_token, 48u * 2 * 1 * 128 * 2);
  EXPECT_GT(with_manager.engine->kv_groups, 1u);
  // The chunked layers hold one chunk each with the manager: a 128K request fits more often.
  EXPECT_GT(with_manager.engine->max_concurrency, 2 * without.engine->max_concurrency);
  bool said = false;
  for (const auto& r : without.engine->rules) said = said || r.find("PR #21761") != std::string::npos;
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace preflight

namespace preflight {
namespace {

// vLLM's multimodal profile run (gpu_model_runner.profile_run): Qwen2.5-VL-7B's largest image
// is max_pixels 12,845,056 = 65,536 patches of 14 x 14, merged 2 x 2 into 16,384 tokens; the
// encoder budget max(8,192 batched tokens, 16,384) holds one such item. Its encoder peak is
// 65,536 x 2 B x (3 x 3,420 + 4 x 1,280) = 2,015,887,360 B, below the sampler's, so the peak is
// the sampler's plus the kept encoder outputs, 16,384 tokens x 3,584 x 2 B = 117,440,512 B.
TEST(VllmSizing, MultimodalProfileEncodesOneMaximumImageAndKeepsItsOutputs) {
  const auto config =
      testing::read_file(std::string(PREFLIGHT_TEST_DATA_DIR) + "/arch_corpus/qwen2.5-vl-7b-lexiq/config.json");
  const auto vl = build_model_from_config(config, "config.json").value_or_throw();
  EXPECT_EQ(vl.mm.patches_per_item, 65'536u);
  EXPECT_EQ(vl.mm.tokens_per_item, 16'384u);
  PlanRequest req;
  req.gpu_count = 1;
  req.workload.requested = true;
  req.workload.context_tokens = 32768;
  req.engine.kind = EngineKind::vllm;
  req.engine.version = version_of("0.19.0");
  const auto with = build_plan(vl, gpu("H100"), req).value_or_throw();
  ModelSpec text_only = vl;
  text_only.mm = {};
  const auto without = build_plan(text_only, gpu("H100"), req).value_or_throw();
  EXPECT_EQ(with.engine->workers.at(0).activation_peak_bytes - without.engine->workers.at(0).activation_peak_bytes,
            16'384u * 3'584 * 2);
  bool said = false;
  for (const auto& e : with.engine->estimates)
    said = said || e.find("multimodal profile: 1 dummy item") != std::string::npos;
  EXPECT_TRUE(said);
}

// The bytes of a ledger row of rank 0 (0 when the row is absent).
std::uint64_t rank0_row(const Plan& p, std::string_view id) {
  for (const auto& r : p.ranks.front().rows)
    if (r.id == id) return r.bytes;
  return 0;
}

TEST(VllmSizing, TheMainModelSkipsMtpLayersUnlessTheyDraft) {
  // vLLM's DeepseekV2ForCausalLM.load_weights skips "spec decode layers for main
  // model" (and qwen3_next / qwen3_5 skip "mtp."): DeepSeek-V3's MTP layer loads
  // only as the draft of MTP speculative decoding (--spec-tokens, no --draft).
  const VllmRun run{
      .model = "deepseek-v3", .gpu = "H200", .gpus = 8, .util = 0.9, .context = 32768, .layout = {.tp = 8}};
  const Plan plain = plan(run);
  auto req = request(run);
  req.workload.spec_tokens = 1;
  const Plan drafting = build_plan(model(run.model), gpu(run.gpu), req).value_or_throw();
  const auto mtp = rank0_row(drafting, "weights.mtp");  // placement's share of the MTP layer on rank 0
  EXPECT_GT(mtp, 100'000'000u);
  EXPECT_EQ(rank0_row(plain, "weights.mtp"), 0u);
  EXPECT_EQ(drafting.engine->workers.front().weights_bytes - plain.engine->workers.front().weights_bytes, mtp);
}

// vLLM's FULL CUDA-graph capture needs a state block per running sequence
// (resolve_cudagraph_mode_and_sizes, from 0.20): more --max-num-seqs than state
// blocks is a start-up error, not a plan that fits (vllm#49064).
TEST(VllmSizing, HybridSequencesBeyondTheStateBlocksAreRefusedFrom020) {
  VllmRun r{.model = "kimi-linear-48b", .gpu = "H200", .util = 0.9, .context = 1'048'576, .max_num_seqs = 4096};
  r.version = "0.20";
  const auto refused = plan(r);
  EXPECT_NE(refused.engine->failure.find("max_num_seqs (4096) exceeds available Mamba cache blocks ("),
            std::string::npos)
      << refused.engine->failure;
  EXPECT_LT(refused.engine->num_blocks, 4096u);
  EXPECT_FALSE(refused.verdict.fits);
  r.version = "0.19";
  EXPECT_EQ(plan(r).engine->failure, "");
  r.version = "0.20";
  r.enforce_eager = true;  // no CUDA graphs, no check
  EXPECT_EQ(plan(r).engine->failure, "");
}

// V1 on ROCm before 0.9.0 has no MLA backend: DeepSeek-V3 caches every head's
// K and V (16 heads per rank at TP 8, 192 wide, V padded): 61 x 16 x 2 x 192 x 2 B.
TEST(VllmSizing, RocmBeforeItsMlaBackendCachesEveryHead) {
  VllmRun r{.model = "deepseek-v3", .gpu = "mi308x", .gpus = 8, .util = 0.9, .context = 32768};
  r.version = "0.8.3";
  const auto off = plan(r);
  EXPECT_TRUE(off.engine->mla_disabled);
  EXPECT_EQ(off.engine->kv_bytes_per_token, 61u * 16 * 2 * 192 * 2);
  r.version = "0.9.0";
  const auto on = plan(r);
  EXPECT_FALSE(on.engine->mla_disabled);
  EXPECT_EQ(on.engine->kv_bytes_per_token, 61u * (512 + 64) * 2);
  r.gpu = "H100";  // CUDA had MLA on V1 all along
  r.version = "0.8.3";
  EXPECT_FALSE(plan(r).engine->mla_disabled);
}

// Without --engine-version the plan sizes every release whose rules differ;
// the default release's figures are one of its points.
TEST(VllmSizing, AnUnknownReleaseGivesTheRangeItSpans) {
  VllmRun r;
  r.version = "";
  const auto p = plan(r);
  ASSERT_TRUE(p.engine->range.has_value());
  const auto& range = *p.engine->range;
  EXPECT_EQ(range.points.size(), modelled_releases(EngineKind::vllm).size());
  EXPECT_EQ(range.points.back().kv_cache_tokens, p.engine->kv_cache_tokens);
  EXPECT_LE(range.kv_cache_tokens_min, p.engine->kv_cache_tokens);
  EXPECT_GE(range.kv_cache_tokens_max, p.engine->kv_cache_tokens);
  EXPECT_LT(range.kv_cache_tokens_min, range.kv_cache_tokens_max);  // the eras' non-torch and sampler rules differ
  r.version = "0.19.0";
  EXPECT_FALSE(plan(r).engine->range.has_value());  // a release given: no range
}

// Non-torch memory at TP >= 2 follows the links (custom_all_reduce.py, symm_mem.py):
// NVLS switches hold the symmetric-memory buffers, all-pairs NVLink the custom
// all-reduce only, more than two PCIe GPUs neither (the TP 1 figure).
TEST(VllmSizing, NonTorchMemoryFollowsTheLinks) {
  const auto gib = [](double g) { return static_cast<std::uint64_t>(std::llround(g * 1073741824.0)); };
  struct Case {
    const char* gpu;
    std::uint64_t tp;
    double non_torch_gib;  // era 0.17: tp 2.0 (NVLS) | 0.55 (no NVLS) | tp1 0.25; + 0.03 per TP rank
  };
  const Case cases[] = {
      {"H100", 4, 2.0 + 0.12},
      {"a100-80gb", 4, 0.55 + 0.12},
      {"L40S", 4, 0.25 + 0.12},
      {"L40S", 2, 0.55 + 0.06},  // two PCIe GPUs keep custom all-reduce
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.gpu) + " TP " + std::to_string(c.tp));
    VllmRun r{.model = "qwen3-14b", .gpu = c.gpu, .gpus = c.tp, .util = 0.9, .context = 8192};
    r.layout.tp = c.tp;
    const auto p = plan(r);
    EXPECT_EQ(p.engine->workers.at(0).non_torch_bytes, gib(c.non_torch_gib));
  }
}

}  // namespace
}  // namespace preflight
