// SGLang sizing through build_plan: the default mem_fraction_static
// (ServerArgs._handle_gpu_memory_settings), max_total_num_tokens with its page
// rounding, max_running_requests (_resolve_max_num_reqs) and the Mamba-like
// state pool (_handle_max_mamba_cache), as tests/data/reference/data/engines.md section 2
// writes them. Device totals come from data/gpus.json: H100 SXM 85,029,615,043 B
// (81,090.56 MiB), H200 150,109,106,995 B (143,155.2 MiB), B200 191,501,854,310 B
// (182,630.4 MiB), A100-40GB 42,405,462,016 B, L4 23,654,532,383 B.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "core/bytes.h"
#include "engine/size_engine.h"
#include "hardware/gpu_catalogue.h"
#include "model/model_catalogue.h"
#include "placement/placement.h"
#include "plan/plan.h"
#include "support/fixtures.h"

namespace preflight {
namespace {

const ModelSpec& model(const std::string& name) { return testing::catalogue_model(name); }

const Accelerator& gpu(const std::string& name) { return testing::catalogue_gpu(name); }

struct SglangRun {
  std::string model = "llama-3.1-8b-instruct";
  std::string gpu = "H100";
  std::uint64_t gpus = 1;
  LayoutOptions layout = {};
  std::uint64_t context = 8192;
  double mem_fraction_static = 0;
  std::uint64_t page = 0;
  std::string radix = "on";
  std::uint64_t max_running_requests = 0;
  double mamba_ratio = 0;
  std::uint64_t concurrency = 1;
  std::uint64_t spec_tokens = 0;
  std::string engine_version = "";  // "": the profile's default (newest modelled)
  KvDtype kv_dtype = KvDtype::automatic;
};

Plan plan(const SglangRun& r) {
  PlanRequest req;
  req.gpu_count = r.gpus;
  req.layout = r.layout;
  req.workload.requested = true;
  req.workload.context_tokens = r.context;
  req.workload.concurrency = r.concurrency;
  req.workload.spec_tokens = r.spec_tokens;
  req.engine.kind = EngineKind::sglang;
  req.engine.mem_fraction_static = r.mem_fraction_static;
  req.engine.block_size = r.page;
  req.engine.radix_cache = r.radix;
  req.engine.max_num_seqs = r.max_running_requests;
  req.engine.mamba_full_memory_ratio = r.mamba_ratio;
  req.workload.kv_dtype = r.kv_dtype;
  if (!r.engine_version.empty()) req.engine.version = parse_engine_version(r.engine_version, "test").value_or_throw();
  Plan p = build_plan(model(r.model), gpu(r.gpu), req).value_or_throw();
  for (const auto& rank : p.ranks) {
    std::string why;
    EXPECT_TRUE(check_reconciles(rank, &why)) << why;
  }
  EXPECT_TRUE(p.engine.has_value());
  EXPECT_EQ(p.engine->kind, EngineKind::sglang);
  return p;
}

std::uint64_t fig(const Plan& p, const std::string& id) {
  const auto* f = find_figure(p.figures, id);
  EXPECT_NE(f, nullptr) << id;
  return f ? f->exact : 0;
}

// SGLang's formula written out independently (server_args.py, engines.md 2.1), for the rows
// below: reserved (MB) = 512 + max(chunked_prefill, 2048) x 1.5 + graph_bs x 2 + tp x pp / 8 x 1024
// (+ graph_bs x dp x 3 with DP attention), at least 10,240 above 60 GB.
double reference_mfs(double gpu_mem_mb, std::uint64_t tp_size, std::uint64_t pp, std::uint64_t dp) {
  std::uint64_t chunk = 0, bs = 0;
  if (gpu_mem_mb < 20 * 1024)
    chunk = 2048, bs = 8;
  else if (gpu_mem_mb < 35 * 1024)
    chunk = 2048, bs = tp_size < 4 ? 24 : 80;
  else if (gpu_mem_mb < 60 * 1024)
    chunk = 4096, bs = tp_size < 4 ? 32 : 160;
  else if (gpu_mem_mb < 160 * 1024)
    chunk = 8192, bs = tp_size < 4 ? 256 : 512;
  else
    chunk = 16384, bs = 512;
  double reserved = 512 + static_cast<double>(std::max<std::uint64_t>(chunk, 2048)) * 1.5 +
                    static_cast<double>(bs) * 2 + static_cast<double>(tp_size * pp) / 8 * 1024;
  if (dp > 1) reserved += static_cast<double>(bs * dp) * 3;
  if (gpu_mem_mb > 60 * 1024) reserved = std::max(reserved, 10240.0);
  return std::round((gpu_mem_mb - reserved) / gpu_mem_mb * 1000) / 1000;
}

// ---------------------------------------------------------------------------
// mem_fraction_static

struct MfsCase {
  const char* what;
  SglangRun run;
  std::uint64_t tp_size, pp, dp;  // SGLang's --tp (attention TP x DP), --pp, --dp
  double expected;
};

TEST(SglangSizing, DefaultMemFractionStatic) {
  const MfsCase cases[] = {
      // H100 81,090.56 MB, tier < 160 GB (8,192 / 256): reserved 512 + 12,288 + 512 + 128 = 13,440;
      // (81,090.56 - 13,440) / 81,090.56 = 0.8343 -> 0.834.
      {"H100 TP1", {}, 1, 1, 1, 0.834},
      // TP8: graph bs 512, reserved 512 + 12,288 + 1,024 + 1,024 = 14,848 -> 0.8169 -> 0.817.
      {"H100 TP8", {.gpus = 8, .layout = {.tp = 8}}, 8, 1, 1, 0.817},
      // PP2: tp x pp / 8 x 1,024 = 256: reserved 13,568 -> 0.8327 -> 0.833.
      {"H100 PP2", {.gpus = 2, .layout = {.tp = 1, .pp = 2}}, 1, 2, 1, 0.833},
      // DP attention 2 (TP1 x DP2, SGLang --tp 2 --dp 2): graph bs 256 (tp_size 2 < 4), reserved
      // 512 + 12,288 + 512 + 256 + 256 x 2 x 3 = 15,104 -> 0.8137 -> 0.814.
      {"H100 DP2 attention", {.gpus = 2, .layout = {.tp = 1, .dp = 2}}, 2, 1, 2, 0.814},
      // B200 182,630.4 MB, tier >= 160 GB (16,384 / 512): reserved 512 + 24,576 + 1,024 + 1,024
      // = 27,136 -> 0.8514 -> 0.851.
      {"B200 TP8", {.gpu = "B200", .gpus = 8, .layout = {.tp = 8}}, 8, 1, 1, 0.851},
      // H200 143,155.2 MB, tier < 160 GB: reserved 13,440 -> 0.9061 -> 0.906.
      {"H200 TP1", {.model = "kimi-linear-48b", .gpu = "H200"}, 1, 1, 1, 0.906},
      // L4 22,558.7 MB, tier < 35 GB (2,048 / 24): reserved 512 + 3,072 + 48 + 128 = 3,760, no
      // 10 GB floor below 60 GB -> 0.8333 -> 0.833.
      {"L4 TP1", {.model = "qwen3-0.6b", .gpu = "L4"}, 1, 1, 1, 0.833},
      // A100-40GB 40,441 MB, tier < 60 GB (4,096 / 32): reserved 512 + 6,144 + 64 + 128 = 6,848 -> 0.831.
      {"A100-40GB TP1", {.model = "qwen3-0.6b", .gpu = "a100-40gb"}, 1, 1, 1, 0.831},
      // TP4 there: graph bs 160, reserved 512 + 6,144 + 320 + 512 = 7,488 -> 0.8148 -> 0.815.
      {"A100-40GB TP4", {.model = "qwen3-0.6b", .gpu = "a100-40gb", .gpus = 4, .layout = {.tp = 4}}, 4, 1, 1, 0.815},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const auto p = plan(c.run);
    const double gpu_mem_mb = static_cast<double>(gpu(c.run.gpu).device_total_bytes) / 1048576.0;
    EXPECT_DOUBLE_EQ(reference_mfs(gpu_mem_mb, c.tp_size, c.pp, c.dp), c.expected);
    EXPECT_DOUBLE_EQ(p.engine->memory_fraction, c.expected);
    const auto* f = find_figure(p.figures, "engine.mem_fraction_static");
    ASSERT_NE(f, nullptr);
    EXPECT_DOUBLE_EQ(f->value, c.expected);
    EXPECT_EQ(f->evidence, Evidence::derived);
  }
}

TEST(SglangSizing, DpAttentionWithLargeGraphBatchReservesMore) {
  // SGLang's DP-attention reserve has a second term for large graph batches. server_args.py
  // _handle_gpu_memory_settings:
  //   if self.enable_dp_attention:
  //       reserved_mem += self.cuda_graph_max_bs * self.dp_size * 3
  //       if self.cuda_graph_max_bs > 300:
  //           reserved_mem += self.cuda_graph_max_bs * self.dp_size * 1.5
  // (engines.md 2.1 lists it as "[+1.5*...]"; data/engines.json has no field for it.)
  // B200, --tp 8 --dp 8 --enable-dp-attention: graph bs 512 > 300, reserved
  // 512 + 24,576 + 1,024 + 1,024 + 512 x 8 x 3 + 512 x 8 x 1.5 = 45,568 MB;
  // (182,630.4 - 45,568) / 182,630.4 = 0.7505 -> 0.750.
  const auto p = plan({.gpu = "B200", .gpus = 8, .layout = {.tp = 1, .dp = 8}});
  EXPECT_DOUBLE_EQ(p.engine->memory_fraction, 0.750);
}

// DeepSeek-V3.2 (DSA) by SGLang release (engines.json dsa_eras; sglang PR #11309):
// 0.5.3 forces mem_fraction_static 0.8 (over --mem-fraction-static too) and budgets
// the latents only; from 0.5.3.post1 the GPU-size formula applies and the indexer
// keys count. The pools allocate fp8_ds_mla's 656 B + 132 B indexer per layer
// whatever the budget counted. 61 layers; page size 64.
struct DsaCase {
  const char* name;
  const char* version;
  KvDtype kv;
  double asked_fraction;
  double fraction;
  std::uint64_t budget_per_layer;  // B per token per layer the budget divides by
  std::uint64_t alloc_per_layer;   // B per token per layer the pools allocate
};

TEST(SglangSizing, DsaRulesFollowTheRelease) {
  const DsaCase cases[] = {
      // 0.5.3: 576 = (512 + 64) x 1 B; allocated 656 + 132 = 788.
      {"0.5.3, fp8", "0.5.3", KvDtype::fp8, 0, 0.8, 576, 788},
      {"0.5.3 ignores --mem-fraction-static", "0.5.3", KvDtype::fp8, 0.85, 0.8, 576, 788},
      {"0.5.3, bf16", "0.5.3", KvDtype::bf16, 0, 0.8, 1152, 1152 + 132},
      // 0.5.3.post1: 576 + 132 = 708 counted, 788 allocated; B200 at TP 8 DP 8 -> 0.750 (formula).
      {"0.5.3.post1, fp8", "0.5.3.post1", KvDtype::fp8, 0, 0.750, 708, 788},
      {"0.5.3.post1, --mem-fraction-static wins", "0.5.3.post1", KvDtype::fp8, 0.85, 0.85, 708, 788},
      {"0.5.3.post1, bf16: budget equals allocation", "0.5.3.post1", KvDtype::bf16, 0, 0.750, 1284, 1284},
      {"the default release (newest)", "", KvDtype::fp8, 0, 0.750, 708, 788},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto p = plan({.model = "deepseek-v3.2-exp",
                         .gpu = "B200",
                         .gpus = 8,
                         .layout = {.tp = 1, .dp = 8},
                         .mem_fraction_static = c.asked_fraction,
                         .engine_version = c.version,
                         .kv_dtype = c.kv});
    const auto& e = *p.engine;
    EXPECT_DOUBLE_EQ(e.memory_fraction, c.fraction);
    EXPECT_EQ(e.block_size, 64u);
    EXPECT_EQ(e.kv_bytes_per_token, 61u * c.alloc_per_layer);
    // Tokens: the budget (rest) over the budget's bytes per token, in whole pages.
    const auto rest = fig(p, "engine.kv_budget_bytes");
    EXPECT_EQ(e.kv_cache_tokens, rest / (61u * c.budget_per_layer) / 64 * 64);
    // The pool holds what it allocates: tokens x the allocation's bytes.
    EXPECT_EQ(e.workers.at(0).kv_pool_bytes, e.kv_cache_tokens * 61u * c.alloc_per_layer);
  }
}

// SGLang's MLA keeps kv_b_proj and adds w_kc / w_vc, BF16 copies of it for the absorbed
// decode path (deepseek_v2.py post_load_weights): 61 MLA layers x 128 heads / attention TP
// x (128 + 128) x 512 x 2 B on each rank, beside the placed tensors (MTP layer not loaded).
TEST(SglangSizing, MlaKeepsBf16CopiesOfKvBProj) {
  const auto& m = model("deepseek-v3.2-exp");
  const PlacementIndex index(m.manifest, m.layers.size(), m.moe.routed_experts);
  for (const auto& [tp, dp] : {std::pair<std::uint64_t, std::uint64_t>{1, 8}, {8, 1}}) {
    SCOPED_TRACE(tp);
    const auto p = plan({.model = "deepseek-v3.2-exp", .gpu = "B200", .gpus = 8, .layout = {.tp = tp, .dp = dp}});
    const auto placed = index.rank_weights(p.layout, 0);
    const std::uint64_t copies = 61ULL * (128 / tp) * (128 + 128) * 512 * 2;
    EXPECT_EQ(p.engine->workers.at(0).weights_bytes, placed.total - placed.mtp_bytes + copies);
    // The ledger shows them as their own row.
    const auto& rows = p.ranks.at(0).rows;
    const auto it =
        std::find_if(rows.begin(), rows.end(), [](const auto& r) { return r.id == "weights.engine_tensors"; });
    ASSERT_NE(it, rows.end());
    EXPECT_EQ(it->bytes, copies);
  }
  EXPECT_EQ(61ULL * 128 * 256 * 512 * 2, 2'046'820'352u);  // 1.91 GiB per rank at attention TP 1
}

TEST(SglangSizing, MemFractionStaticOverride) {
  const auto p = plan({.mem_fraction_static = 0.7});
  const auto& e = *p.engine;
  EXPECT_DOUBLE_EQ(e.memory_fraction, 0.7);
  EXPECT_EQ(find_figure(p.figures, "engine.mem_fraction_static")->evidence, Evidence::hypothesis);
  // pre-load free = 85,029,615,043 - 0.5 GiB context = 84,492,744,131 B; x 0.7 = 59,144,920,891 B;
  // rest = 59,144,920,891 - 16,060,522,496 B weights = 43,084,398,395 B.
  EXPECT_EQ(e.workers.at(0).requested_bytes, 59'144'920'891u);
  EXPECT_EQ(fig(p, "engine.kv_budget_bytes"), 43'084'398'395u);
  // 43,084,398,395 // 131,072 B per token = 328,707 tokens.
  EXPECT_EQ(e.kv_cache_tokens, 328'707u);
}

TEST(SglangSizing, DistributedSetUpBeforeLoadingGrowsWithTpAndNvls) {
  // SGLang snapshots free memory after init_torch_distributed: the CUDA context (0.5 GiB) plus, with
  // TP > 1, 0.25 GiB per TP rank inside an NVLS switch domain and 0.1 GiB per rank beyond it or
  // on GPUs without NVLS (engines.json, from gathered start-up logs). Requested = (total - in use) x mfs.
  struct Case {
    const char* what;
    SglangRun run;
    double in_use_gib;
  };
  const Case cases[] = {
      {"TP 1: context only", {.mem_fraction_static = 0.7}, 0.5},
      {"TP 8 on H100 SXM (NVLS domain 8)",
       {.gpus = 8, .layout = {.tp = 8}, .mem_fraction_static = 0.7},
       0.5 + 8 * 0.25},
      {"TP 16 on H100 SXM: 8 ranks in the domain, 8 beyond",
       {.gpus = 16, .layout = {.tp = 16}, .mem_fraction_static = 0.7},
       0.5 + 8 * 0.25 + 8 * 0.1},
      {"TP 2 on L4 (PCIe, no NVLS)",
       {.gpu = "L4", .gpus = 2, .layout = {.tp = 2}, .mem_fraction_static = 0.7},
       0.5 + 2 * 0.1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const auto p = plan(c.run);
    const auto total = gpu(c.run.gpu).device_total_bytes;
    const auto in_use = static_cast<std::uint64_t>(std::llround(c.in_use_gib * 1073741824.0));
    EXPECT_EQ(p.engine->workers.at(0).non_torch_bytes, in_use);
    EXPECT_EQ(p.engine->workers.at(0).requested_bytes,
              static_cast<std::uint64_t>(static_cast<double>(total - in_use) * 0.7));
  }
}

// ---------------------------------------------------------------------------
// max_total_num_tokens

struct TokensCase {
  const char* what;
  SglangRun run;
  std::uint64_t page;
  std::uint64_t tokens;
};

TEST(SglangSizing, MaxTotalNumTokensRoundsToPages) {
  // Llama-3.1-8B TP1 on H100 at mfs 0.834: rest = 84,492,744,131 x 0.834 - 16,060,522,496
  // = 54,406,426,109 B; cell = 32 x 8 x (128 + 128) x 2 = 131,072 B; 54,406,426,109 // 131,072 = 415,088.
  const TokensCase cases[] = {
      {"page 1", {}, 1, 415'088},
      {"page 16", {.page = 16}, 16, 415'088},     // 25,943 x 16
      {"page 64", {.page = 64}, 64, 415'040},     // 6,485 x 64
      {"page 256", {.page = 256}, 256, 414'976},  // 1,621 x 256
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const auto p = plan(c.run);
    const auto& e = *p.engine;
    EXPECT_EQ(e.block_size, c.page);
    EXPECT_EQ(fig(p, "engine.kv_budget_bytes"), 54'406'426'109u);
    EXPECT_EQ(e.kv_bytes_per_token, 131'072u);
    EXPECT_EQ(e.kv_cache_tokens, c.tokens);
    EXPECT_EQ(e.kv_cache_tokens, 54'406'426'109u / 131'072 / c.page * c.page);
    EXPECT_EQ(fig(p, "engine.kv_cache_tokens"), c.tokens);
  }
}

TEST(SglangSizing, TiedLmHeadIsNotLoaded) {
  // Qwen3-0.6B ties its LM head to the embedding: SGLang loads the placed weights less the head.
  const auto& m = model("qwen3-0.6b");
  ASSERT_TRUE(m.tied_embeddings);
  const auto p = plan({.model = "qwen3-0.6b"});
  const PlacementIndex index(m.manifest, m.layers.size(), m.moe.routed_experts);
  const auto rw = index.rank_weights(p.layout, 0);
  const auto head = rw.bytes_by_module.count(ModuleClass::lm_head) ? rw.bytes_by_module.at(ModuleClass::lm_head) : 0;
  EXPECT_GT(head, 0u);
  EXPECT_EQ(p.engine->workers.at(0).weights_bytes, rw.total - head);
  EXPECT_EQ(p.engine->workers.at(0).weights_bytes, 1'192'099'840u);  // anchor
}

TEST(SglangSizing, WeightsBeyondTheStaticShare) {
  // Llama-3.1-70B on one H100: 141 GB of weights against 84,492,744,131 x 0.834 B.
  const auto p = plan({.model = "llama-3.1-70b"});
  EXPECT_EQ(p.engine->kv_cache_tokens, 0u);
  EXPECT_EQ(p.engine->min_kv_budget_bytes, 0u);
  EXPECT_NE(p.engine->failure.find("Loaded weights leave no GPU memory for the KV cache"), std::string::npos);
  EXPECT_GT(fig(p, "engine.kv_shortfall_bytes"), 0u);
  EXPECT_FALSE(p.verdict.fits);
}

// ---------------------------------------------------------------------------
// max_running_requests

struct MrrCase {
  const char* what;
  SglangRun run;
  std::uint64_t tokens;
  std::uint64_t expected;
};

TEST(SglangSizing, MaxRunningRequestsFormula) {
  // min(clamp(int(tokens / context x 512), 2048, 4096), tokens // 2) (_resolve_max_num_reqs).
  const MrrCase cases[] = {
      // 415,088 / 8,192 x 512 = 25,943 -> clamped to 4,096; tokens / 2 = 207,544.
      {"upper clamp", {}, 415'088, 4096},
      // 415,088 / 65,536 x 512 = 3,242.875 -> 3,242 (inside the clamp).
      {"inside the clamp", {.context = 65'536}, 415'088, 3242},
      // 415,088 / 131,072 x 512 = 1,621 -> 2,048.
      {"lower clamp", {.context = 131'072}, 415'088, 2048},
      // mfs 0.194: rest = 16,391,592,361 - 16,060,522,496 = 331,069,865 B -> 2,525 tokens;
      // clamp(631) = 2,048 but tokens // 2 = 1,262.
      {"half the tokens", {.context = 2048, .mem_fraction_static = 0.194}, 2'525, 1262},
      // --max-running-requests replaces the default.
      {"--max-running-requests", {.max_running_requests = 100}, 415'088, 100},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const auto p = plan(c.run);
    const auto& e = *p.engine;
    EXPECT_EQ(e.kv_cache_tokens, c.tokens);
    EXPECT_EQ(e.max_running_requests, c.expected);
    EXPECT_EQ(fig(p, "engine.max_running_requests"), c.expected);
    // Concurrency: min(tokens / context, max_running_requests).
    EXPECT_DOUBLE_EQ(e.max_concurrency, std::min(static_cast<double>(c.tokens) / static_cast<double>(c.run.context),
                                                 static_cast<double>(c.expected)));
  }
}

// ---------------------------------------------------------------------------
// State pools (Kimi-Linear-48B: 20 KDA + 7 MLA layers, BF16; 1 x H200, mfs 0.906)

// One request's KDA state at TP1: 20 layers x (32 heads x 128 x 128 x 4 B + 3 x 3 x 32 x 128 x 2 B)
// = 20 x 2,170,880 = 43,417,600 B.
constexpr std::uint64_t kKimiLinearState = 20ULL * (32 * 128 * 128 * 4 + 3 * 3 * 32 * 128 * 2);
static_assert(kKimiLinearState == 43'417'600);
// rest = 150,109,106,995 - 0.5 GiB = 149,572,236,083 x 0.906 - 98,245,528,576 B weights
// - 58,720,256 B of MLA w_kc / w_vc copies (7 MLA layers x 32 heads x (128 + 128) x 512 x 2 B).
constexpr std::uint64_t kKimiLinearRest = 37'266'917'315 - 58'720'256;
static_assert(kKimiLinearRest == 37'208'197'059);

struct SlotsCase {
  const char* what;
  SglangRun run;
  std::uint64_t slots_per_request;
  std::uint64_t state_slots;
  std::uint64_t max_running_requests;
};

TEST(SglangSizing, StateSlotsForKimiLinear) {
  // Default ratio 0.9: state budget = rest x 0.9 / 1.9 = 17,624,935,449 B; (budget - 43,417,600) // 43,417,600
  // = 404 slots (max_mamba_cache_size), and 405 allocated with the pool's padding slot.
  const SlotsCase cases[] = {
      // radix on: 5 slots per running request -> 404 // 5 = 80.
      {"radix on", {.model = "kimi-linear-48b", .gpu = "H200"}, 5, 404, 80},
      // extra_buffer_lazy: 4 -> 101.
      {"radix lazy", {.model = "kimi-linear-48b", .gpu = "H200", .radix = "lazy"}, 4, 404, 101},
      // radix off: 1 -> 404.
      {"radix off", {.model = "kimi-linear-48b", .gpu = "H200", .radix = "off"}, 1, 404, 404},
      // radix off with --max-running-requests 64: the state pool is 64 slots.
      {"radix off, --max-running-requests 64",
       {.model = "kimi-linear-48b", .gpu = "H200", .radix = "off", .max_running_requests = 64},
       1,
       64,
       64},
      // --mamba-full-memory-ratio 3: (rest x 3 / 4 - 43,417,600) = 27,862,730,194 // 43,417,600 = 641 slots,
      // 641 // 5 = 128.
      {"ratio 3", {.model = "kimi-linear-48b", .gpu = "H200", .mamba_ratio = 3.0}, 5, 641, 128},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const auto p = plan(c.run);
    const auto& e = *p.engine;
    const auto& w = e.workers.at(0);
    EXPECT_DOUBLE_EQ(e.memory_fraction, 0.906);
    EXPECT_EQ(fig(p, "engine.kv_budget_bytes"), kKimiLinearRest);
    EXPECT_EQ(e.state_slot_bytes, kKimiLinearState);
    EXPECT_EQ(w.state_request_bytes, c.slots_per_request * kKimiLinearState);
    EXPECT_EQ(e.state_slots, c.state_slots);
    EXPECT_EQ(fig(p, "engine.state_slots"), c.state_slots);
    EXPECT_EQ(w.state_pool_bytes, (c.state_slots + 1) * kKimiLinearState);  // the padding slot
    EXPECT_EQ(e.max_running_requests, c.max_running_requests);
    // The rest goes to the MLA cache: 7 layers x 576 x 2 B = 8,064 B per token.
    EXPECT_EQ(e.kv_bytes_per_token, 8'064u);
    EXPECT_EQ(e.kv_cache_tokens, (kKimiLinearRest - w.state_pool_bytes) / 8'064);
  }
  // The default-ratio rows, spelled out: 404 = floor((37,208,197,059 x 0.9 / 1.9 - 43,417,600) / 43,417,600),
  // tokens = (37,208,197,059 - (404 + 1) x 43,417,600) // 8,064 = 2,433,540.
  EXPECT_EQ((static_cast<std::uint64_t>(static_cast<double>(kKimiLinearRest) * 0.9 / 1.9) - kKimiLinearState) /
                kKimiLinearState,
            404u);
  EXPECT_EQ(plan({.model = "kimi-linear-48b", .gpu = "H200"}).engine->kv_cache_tokens, 2'433'540u);
}

TEST(SglangSizing, ConcurrencyBeyondTheStatePoolNamesRecurrentState) {
  // 80 requests x 5 slots = 400 <= 404: fits.
  const auto fits = plan({.model = "kimi-linear-48b", .gpu = "H200", .concurrency = 80});
  EXPECT_TRUE(fits.verdict.fits) << fits.verdict.summary;
  // 82 x 5 = 410 slots: more than the pool's 404 + 1 (81 x 5 = 405 is caught by max_running_requests 80).
  const auto over = plan({.model = "kimi-linear-48b", .gpu = "H200", .concurrency = 82});
  EXPECT_FALSE(over.verdict.fits);
  EXPECT_EQ(over.verdict.first_boundary, Resource::recurrent_state);
  EXPECT_EQ(over.verdict.summary,
            "does not fit: first boundary crossed: recurrent_state; 82 requests need 410 state slots; "
            "SGLang's state pool holds 404 (--mamba-full-memory-ratio)");
  // 100 requests with the radix cache off need 100 slots of the 404: fit.
  const auto off = plan({.model = "kimi-linear-48b", .gpu = "H200", .radix = "off", .concurrency = 100});
  EXPECT_TRUE(off.verdict.fits) << off.verdict.summary;
  // A dense model has no state pool: more requests than max_running_requests name the KV cache.
  const auto dense = plan({.max_running_requests = 8, .concurrency = 9});
  EXPECT_FALSE(dense.verdict.fits);
  EXPECT_EQ(dense.verdict.first_boundary, Resource::kv_cache);
  EXPECT_NE(dense.verdict.summary.find("9 running requests exceed max_running_requests 8"), std::string::npos)
      << dense.verdict.summary;
}

TEST(SglangSizing, SpeculativeDecodingReservesIntermediateStatesPerRequest) {
  // _handle_max_mamba_cache with D draft tokens: (K + 1) x s + (K / ratio + 1) x D x s = budget, so
  // K = (budget - s (1 + D)) // (s (1 + D / ratio)) and the intermediate states of K // ratio + 1
  // requests are allocated beside the pool. Budget 17,624,935,449 B (above), s = 43,417,600, D = 3,
  // ratio 5: K = (17,624,935,449 - 173,670,400) // 69,468,160 = 251; 251 // 5 = 50 requests.
  const auto p = plan({.model = "kimi-linear-48b", .gpu = "H200", .spec_tokens = 3});
  const auto& e = *p.engine;
  EXPECT_EQ(e.state_slots, 251u);
  EXPECT_EQ(e.max_running_requests, 50u);
  EXPECT_EQ(e.workers.at(0).state_pool_bytes, (251u + 1) * kKimiLinearState + (50u + 1) * 3 * kKimiLinearState);
}

TEST(SglangSizing, MultimodalModelsReserveTheEmbeddingCacheOutOfTheRest) {
  // mm_runtime_reservation_gb: SGLANG_VLM_CACHE_SIZE_MB (100) leaves the rest before the pools
  // are split. Kimi K3 has a vision tower; on 8 x GB300 at 0.85, radix cache off:
  const auto p = plan({.model = "kimi-k3",
                       .gpu = "GB300",
                       .gpus = 8,
                       .layout = {.tp = 8},
                       .context = 131072,
                       .mem_fraction_static = 0.85,
                       .radix = "off"});
  const auto& e = *p.engine;
  const auto& w = e.workers.at(0);
  const std::uint64_t rest = fig(p, "engine.kv_budget_bytes") - 100ULL * 1048576;
  // One slot: 69 KDA layers x (12 heads x 128 x 128 x 4 B + 3 x 1,536 channels x 3 x 2 B) at TP 8.
  const std::uint64_t slot = 69ULL * (12 * 128 * 128 * 4 + 3 * 1536 * 3 * 2);
  ASSERT_EQ(slot, 56'171'520u);
  const auto k = static_cast<std::uint64_t>(std::floor((static_cast<double>(rest) * 0.9 / 1.9 - slot) / slot));
  EXPECT_EQ(e.state_slots, k);
  EXPECT_EQ(w.state_pool_bytes, (k + 1) * slot);
  // 24 MLA layers x 576 x 2 B per token.
  EXPECT_EQ(e.kv_cache_tokens, (rest - (k + 1) * slot) / 27'648);
  // A text-only model reserves nothing: Kimi-Linear's tokens above use the whole rest.
}

TEST(SglangSizing, KimiK3OnEightGb300IsWithinOnePercentOfTheLoggedCapacity) {
  // Dev row r120 (tests/data/reference/data/engine-truth-dev.csv): SGLang, Kimi K3, 8 GPUs whose capacities
  // fit GB300, --mem-fraction-static 0.85, radix cache off: max_total_num_tokens=838048,
  // max_running_requests=370. Both within 1% thanks to the GB300's CUDA total (276.50 GiB,
  // data/gpus.json); nvidia-smi's total minus 0.5 GiB would give +1.2%.
  const auto p = plan({.model = "kimi-k3",
                       .gpu = "GB300",
                       .gpus = 8,
                       .layout = {.tp = 8},
                       .context = 131072,
                       .mem_fraction_static = 0.85,
                       .radix = "off"});
  const auto& e = *p.engine;
  EXPECT_NEAR(static_cast<double>(e.kv_cache_tokens), 838'048.0, 0.01 * 838'048.0);
  EXPECT_NEAR(static_cast<double>(e.max_running_requests), 370.0, 0.01 * 370.0);
}

TEST(SglangSizing, TheMainModelSkipsMtpLayersUnlessTheyDraft) {
  // SGLang's DeepseekV2ForCausalLM loads layers [start_layer, end_layer) of the
  // decoder only; the NextN (MTP) layer loads in the draft worker of MTP speculation.
  const Plan plain = plan({.model = "deepseek-v3", .gpu = "H200", .gpus = 8, .layout = {.tp = 8}, .context = 32768});
  const Plan drafting =
      plan({.model = "deepseek-v3", .gpu = "H200", .gpus = 8, .layout = {.tp = 8}, .context = 32768, .spec_tokens = 1});
  std::uint64_t mtp = 0, plain_mtp = 0;
  for (const auto& r : drafting.ranks.front().rows)
    if (r.id == "weights.mtp") mtp = r.bytes;
  for (const auto& r : plain.ranks.front().rows)
    if (r.id == "weights.mtp") plain_mtp = r.bytes;
  EXPECT_GT(mtp, 100'000'000u);
  EXPECT_EQ(plain_mtp, 0u);
  EXPECT_EQ(drafting.engine->workers.front().weights_bytes - plain.engine->workers.front().weights_bytes, mtp);
}

TEST(SglangSizing, MaxRunningRequestsSizeTheStatePoolPerDpRank) {
  // --max-running-requests sizes the state pool per attention DP rank. engines.md 2.3: "elif radix cache disabled and
  // --max-running-requests given: max_mamba_cache_size = max_running_requests // attn_dp_size" (SGLang
  // KVCacheConfigurator._handle_max_mamba_cache: `server_args.max_running_requests //
  // self.ps.attn_dp_size`). Kimi-Linear on 2 x H200, --tp 2 --dp 2 --enable-dp-attention,
  // --disable-radix-cache --max-running-requests 64: each DP rank gets 32 state slots.
  const auto p = plan({.model = "kimi-linear-48b",
                       .gpu = "H200",
                       .gpus = 2,
                       .layout = {.tp = 1, .dp = 2},
                       .radix = "off",
                       .max_running_requests = 64});
  EXPECT_EQ(p.engine->state_slots, 32u);
}

}  // namespace
}  // namespace preflight

namespace preflight {
namespace {

// SGLang's own unit tests as truth: the figures, not the code,
// of test/registered/unit/model_executor/test_pool_configurator.py (sgl-project/sglang
// at 023d5640; gathered 2026-12-03). The mock: 4 KV heads x (64 + 64) x 2 B = 1,024 B
// per layer per token, 10,000,000 B available. Figures the test only bounds (at least
// 99% of the memory used, swa == int(full x ratio)) are worked from pool_configurator.py.
TEST(SglangOwnTests, PoolConfigurator) {
  constexpr std::uint64_t F = 1024;
  struct Case {
    const char* test;
    std::uint64_t full_layers, swa_layers;
    double ratio;
    std::uint64_t page, available;
    std::uint64_t full_tokens, swa_tokens, max_total;
  };
  const Case cases[] = {
      {"TestDefaultConfigurator, 32 layers, page 1", 32, 0, 0.8, 1, 10'000'000, 305, 0, 305},
      {"TestDefaultConfigurator, page 128", 32, 0, 0.8, 128, 10'000'000, 256, 0, 256},
      {"TestHybridSWAConfigurator 16 + 16, ratio 0.5", 16, 16, 0.5, 1, 10'000'000, 406, 203, 406},
      {"ratio 0.25", 16, 16, 0.25, 1, 10'000'000, 488, 122, 488},
      {"ratio 0.75", 16, 16, 0.75, 1, 10'000'000, 348, 261, 348},
      {"ratio 1.0", 16, 16, 1.0, 1, 10'000'000, 305, 305, 305},
      {"HybridSWA page 128, ratio 0.5", 16, 16, 0.5, 128, 10'000'000, 384, 128, 384},
      {"HybridSWA 24 full + 8 SWA, ratio 0.5", 24, 8, 0.5, 1, 10'000'000, 348, 174, 348},
      {"TestAllSWAConfigurator: 32 SWA, the ratio ignored", 0, 32, 0.5, 1, 10'000'000, 0, 305, 305},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.test);
    const auto p = sglang_token_pool(c.available, c.full_layers * F, c.swa_layers * F, c.ratio, c.page);
    EXPECT_EQ(p.full_tokens, c.full_tokens);
    EXPECT_EQ(p.swa_tokens, c.swa_tokens);
    EXPECT_EQ(p.max_total_tokens, c.max_total);
    // The test's own invariants: memory used within the budget and above 99% of it (page 1).
    const auto used = p.full_tokens * c.full_layers * F + p.swa_tokens * c.swa_layers * F;
    EXPECT_LE(used, c.available);
    if (c.page == 1) {
      EXPECT_GT(used * 100, c.available * 99);
    }
  }
}

}  // namespace
}  // namespace preflight
