// The K3 fact ledger (tests/data/reference/design/K3_FACTS.md), reproduced by the general
// computation: each derived figure is asserted exactly, and every ledger in
// every plan here reconciles.
#include "plan/plan.h"

#include <gtest/gtest.h>

#include "core/bytes.h"
#include "hardware/gpu_catalogue.h"
#include "model/model_catalogue.h"
#include "support/fixtures.h"

namespace preflight {
namespace {

const ModelSpec& k3() { return testing::catalogue_model("kimi-k3"); }

const Accelerator& gpu(const std::string& name) { return testing::catalogue_gpu(name); }

void expect_reconciles(const Plan& plan) {
  for (const auto& r : plan.ranks) {
    std::string why;
    EXPECT_TRUE(check_reconciles(r, &why)) << why;
  }
}

Plan make(const std::string& family, std::uint64_t count, WorkloadOptions w = {}, LayoutOptions l = {}) {
  PlanRequest req;
  req.gpu_count = count;
  req.workload = w;
  req.layout = l;
  Plan p = build_plan(k3(), gpu(family), req).value_or_throw();
  expect_reconciles(p);
  return p;
}

WorkloadOptions second_pass(std::uint64_t context, std::string kv = "bf16") {
  WorkloadOptions w;
  w.requested = true;
  w.context_tokens = context;
  w.kv_dtype = parse_kv_dtype(kv, "test").value_or_throw();
  return w;
}

std::uint64_t fig(const Plan& p, const std::string& id) {
  const auto* f = find_figure(p.figures, id);
  EXPECT_NE(f, nullptr) << id;
  return f ? f->exact : 0;
}

TEST(PlanK3Facts, FirstPassBoundsOn8xH100) {
  const auto p = make("H100", 8);
  EXPECT_EQ(fig(p, "weights.nominal_shortfall"), 920'936'091'448u);  // 1,560.936 GB - 640 GB
  EXPECT_EQ(fig(p, "weights.flat_4bit_bound"), 1'389'965'918'592u);
  EXPECT_EQ(fig(p, "model.tensor_payload"), 1'560'860'324'864u);
  EXPECT_EQ(fig(p, "model.active_parameters"), 104'189'614'848u);
  EXPECT_EQ(fig(p, "model.logical_parameters"), 2'779'931'837'184u);
  EXPECT_EQ(fig(p, "weights.recipe_minimum_left"), 119'063'908'552u);  // 1,680 GB - 1,560.9 GB = 119.1 GB
  EXPECT_EQ(fig(p, "artifact.header_bytes"), 75'766'584u);
  EXPECT_EQ(fig(p, "weights.even_share_per_rank"), ceil_div(1'560'860'324'864u, 8));
  EXPECT_DOUBLE_EQ(find_figure(p.figures, "cluster.nominal_aggregate_gb")->value, 640.0);
  EXPECT_FALSE(p.verdict.fits);
  EXPECT_EQ(p.verdict.first_boundary, Resource::weights);
  EXPECT_FALSE(p.second_pass);
}

TEST(PlanK3Facts, DiskAndDownload) {
  const auto p = make("H100", 8);
  EXPECT_EQ(find_figure(p.figures, "disk.shard_bytes")->display,
            "1,560,936,091,448 B = 1,560.9 GB = 1,453.7 GiB = 1.42 TiB");
  EXPECT_EQ(find_figure(p.figures, "disk.average_shard_bytes")->display, "16,259,750,952 B = 16.3 GB");
  EXPECT_EQ(find_figure(p.figures, "disk.download_s_at_1gbps")->display, "3.47 h");
  EXPECT_EQ(find_figure(p.figures, "disk.download_s_at_10gbps")->display, "20.8 min");
  EXPECT_EQ(find_figure(p.figures, "disk.download_s_at_100gbps")->display, "125 s");
}

TEST(PlanK3Facts, RequestStateAtTp8) {
  const auto p = make("B300", 8, second_pass(1'048'576));
  EXPECT_EQ(p.layout.tp, 8u);
  EXPECT_EQ(fig(p, "state.slot_per_rank"), 56'171'520u);             // 53.6 MiB
  EXPECT_EQ(fig(p, "state.pool_per_rank"), 5u * 56'171'520u);        // about 268 MiB
  EXPECT_EQ(fig(p, "state.per_request_whole_model"), 449'372'160u);  // 428.55 MiB
  EXPECT_EQ(fig(p, "state.kda_recurrent_elements"), 108'527'616u);
  EXPECT_EQ(fig(p, "kv.per_token_per_rank"), 27'648u);         // 27 KiB
  EXPECT_EQ(fig(p, "kv.per_request_per_rank"), 27ULL * kGiB);  // 1M tokens, BF16
  EXPECT_EQ(fig(p, "activations.hidden_buffer"), 224ULL * kMiB);
  EXPECT_EQ(fig(p, "activations.attn_res_sources"), 9ULL * 224 * kMiB);  // 1.969 GiB
  EXPECT_EQ(fig(p, "activations.ffn_payload"), 1792ULL * kMiB);          // 1.750 GiB
}

TEST(PlanK3Facts, BfloatStateAndFp8CacheAndDcp) {
  auto w = second_pass(1'048'576, "fp8");
  w.state_dtype = StateDtype::bf16;
  const auto p = make("B300", 8, w, LayoutOptions{.tp = 8, .dcp = 8});
  EXPECT_EQ(fig(p, "state.per_request_whole_model"), 232'316'928u);
  EXPECT_EQ(fig(p, "kv.per_request_per_rank"), 27ULL * kGiB / 2);  // 13.5 GiB FP8
  EXPECT_EQ(fig(p, "kv.pool_per_rank"), 27ULL * kGiB / 2 / 8);     // FP8 with DCP8
  const auto bf16_dcp8 = make("B300", 8, second_pass(1'048'576), LayoutOptions{.tp = 8, .dcp = 8});
  EXPECT_EQ(fig(bf16_dcp8, "kv.pool_per_rank"), 3ULL * kGiB + 3 * kGiB / 8);  // 3.375 GiB
  const auto k128 = make("B300", 8, second_pass(131'072));
  EXPECT_EQ(fig(k128, "kv.per_request_per_rank"), 3ULL * kGiB + 3 * kGiB / 8);  // 3.375 GiB at 128K
}

// Verdicts come from the ledger, not from a rule about GPU counts.
struct VerdictCase {
  const char* gpu;
  std::uint64_t count;
  std::uint64_t context;
  const char* kv;
  bool fits;
  Resource boundary;
};

TEST(PlanVerdicts, JudgedByTheLedger) {
  const VerdictCase cases[] = {
      {"H100", 8, 1'048'576, "bf16", false, Resource::weights},
      {"H100", 16, 131'072, "bf16", false, Resource::weights},
      {"H100", 32, 1'048'576, "bf16", false, Resource::kv_cache},
      {"H100", 32, 131'072, "fp8", true, Resource::none},
      {"H200", 16, 1'048'576, "bf16", false, Resource::kv_cache},
      {"H200", 16, 1'048'576, "fp8", true, Resource::none},
      {"B300", 8, 1'048'576, "bf16", true, Resource::none},
      {"B200", 8, 131'072, "bf16", false, Resource::weights},
  };
  for (const auto& c : cases) {
    const auto p = make(c.gpu, c.count, second_pass(c.context, c.kv));
    EXPECT_EQ(p.verdict.fits, c.fits) << c.count << "x" << c.gpu << " " << c.context << " " << c.kv;
    EXPECT_EQ(p.verdict.first_boundary, c.boundary) << c.count << "x" << c.gpu;
    EXPECT_EQ(p.verdict.evidence, c.fits ? Evidence::hypothesis : Evidence::derived);
  }
}

TEST(PlanVerdicts, ConcurrencyFillsTheStatePoolAndCache) {
  auto w = second_pass(131'072, "fp8");
  w.concurrency = 4096;
  const auto p = make("B300", 8, w);
  EXPECT_FALSE(p.verdict.fits);
  EXPECT_EQ(p.verdict.first_boundary, Resource::recurrent_state);
}

TEST(PlanLayout, RejectsImpossibleLayoutsWithTheReason) {
  PlanRequest req;
  req.gpu_count = 10;
  req.layout.tp = 5;
  EXPECT_EQ(build_plan(k3(), gpu("H100"), req).error().to_string(), "--tp: TP 5 does not divide the 96 KDA heads");
  req.layout.tp = 16;
  EXPECT_EQ(build_plan(k3(), gpu("H100"), req).error().to_string(),
            "--tp: TP 16 x PP 1 needs more ranks than the 10 GPUs");
  req.gpu_count = 16;
  req.layout.tp = 8;
  req.layout.dcp = 3;
  EXPECT_EQ(build_plan(k3(), gpu("H100"), req).error().to_string(),
            "--dcp: DCP 3 does not divide TP 8 (DCP splits a TP group)");
  req = PlanRequest{};
  req.gpu_count = 1024;
  EXPECT_EQ(build_plan(k3(), gpu("H100"), req).error().to_string(),
            "--gpus: expert parallelism over 1024 GPUs exceeds the 896 routed experts");
}

TEST(PlanLayout, ChoosesDataParallelAttentionWhenHeadsDoNotDivide) {
  const auto p = make("H100", 64);
  EXPECT_EQ(p.layout.tp, 32u);
  EXPECT_EQ(p.layout.dp, 2u);
  EXPECT_EQ(p.layout.ep, 64u);
}

TEST(PlanPlacement, UnevenExpertsMakeTheFirstRanksHeaviest) {
  // 896 experts over 48 GPUs: 18.67 per rank, so 32 ranks hold 19 and 16 hold 18.
  const auto p = make("H100", 48);
  EXPECT_GT(p.ranks[0].demand, p.ranks[47].demand);
  EXPECT_EQ(p.verdict.worst_rank, 0u);
  std::uint64_t experts_total = 0;
  for (const auto& r : p.ranks)
    for (const auto& row : r.rows)
      if (row.id == "weights.routed_experts") experts_total += row.bytes;
  EXPECT_EQ(experts_total, 1'446'456'066'048u);  // every expert byte placed exactly once
}

TEST(PlanPlacement, ShardedTensorsAddUpAcrossTheTpGroup) {
  const auto p = make("B300", 8);
  std::uint64_t total = 0;
  for (const auto& r : p.ranks) total += r.demand;
  // Replicated tensors count once per rank; everything else exactly once.
  std::uint64_t replicated = 0;
  for (const auto& t : k3().manifest.tensors)
    if (t.role == ParallelRole::replicated) replicated += t.bytes();
  EXPECT_EQ(total, 1'560'860'324'864u + 7 * replicated);
}

}  // namespace
}  // namespace preflight
