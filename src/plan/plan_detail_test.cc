// The solvers' fast path (PlanDetail::verdict_only: representative ranks, no
// figures) must give the same verdict as the full plan: same fit, same first
// boundary, same headroom on the tightest rank, for every candidate layout.
#include <gtest/gtest.h>

#include "hardware/gpu_catalogue.h"
#include "model/model_catalogue.h"
#include "plan/plan.h"

namespace preflight {
namespace {

struct Case {
  const char* model;
  const char* gpu;
  std::uint64_t count;
  EngineKind engine;
  bool workload;  // second pass
};

TEST(PlanDetail, VerdictOnlyMatchesTheFullPlanOnEveryCandidateLayout) {
  const Case cases[] = {
      {"kimi-k3", "H100", 32, EngineKind::generic, false},  // weights only
      {"kimi-k3", "B300", 8, EngineKind::generic, true},    // KDA state + MLA cache
      {"kimi-k3", "H200", 16, EngineKind::vllm, true},      // hybrid pages
      {"kimi-k3", "H200", 16, EngineKind::sglang, true},    // split pools
      {"deepseek-v3", "H200", 16, EngineKind::generic, true},
      {"mixtral-8x7b-instruct", "H100", 4, EngineKind::vllm, true},  // uneven PP over 32 layers
      {"gpt-oss-20b", "H100", 4, EngineKind::vllm, true},            // sliding + full groups
      {"llama-3.1-8b-instruct", "A100-40GB", 4, EngineKind::generic, true},
  };
  for (const auto& c : cases) {
    const auto model = load_catalogue_model(c.model, "test").value_or_throw();
    const PlanContext context(model);
    const auto& gpu = **GpuCatalogue::embedded().find(c.gpu, "test");
    int compared = 0;
    for (const auto& layout : practical_layouts(model, c.count, gpu.gpus_per_node)) {
      PlanRequest req;
      req.gpu_count = c.count;
      req.layout = layout;
      req.engine.kind = c.engine;
      req.workload.requested = c.workload;
      if (c.workload) req.workload.context_tokens = 32768;
      auto full = build_plan(context, gpu, req, PlanDetail::full);
      auto fast = build_plan(context, gpu, req, PlanDetail::verdict_only);
      ASSERT_EQ(full.ok(), fast.ok()) << c.model;
      if (!full.ok()) continue;
      const auto where = ::testing::Message() << c.model << " on " << c.count << "x" << c.gpu << " TP " << layout.tp
                                              << " PP " << layout.pp << " DP " << layout.dp;
      EXPECT_EQ(full->verdict.fits, fast->verdict.fits) << where;
      EXPECT_EQ(full->verdict.first_boundary, fast->verdict.first_boundary) << where;
      EXPECT_EQ(full->verdict.headroom_bytes, fast->verdict.headroom_bytes) << where;
      EXPECT_EQ(full->verdict.worst_rank, fast->verdict.worst_rank) << where;
      EXPECT_LE(fast->ranks.size(), full->ranks.size()) << where;
      ++compared;
    }
    EXPECT_GT(compared, 0) << c.model;
  }
}

}  // namespace
}  // namespace preflight
