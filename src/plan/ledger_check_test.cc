#include "plan/ledger_check.h"

#include <gtest/gtest.h>

#include "model/model_catalogue.h"
#include "support/fixtures.h"

namespace preflight {
namespace {

// Every catalogue model, several layouts, both engines' ledgers: the weight
// rows hold exactly the manifest's copies.
TEST(LedgerCheck, WeightRowsHoldTheManifestsCopies) {
  std::size_t checked = 0;
  for (const auto& entry : model_catalogue()) {
    const auto& model = testing::catalogue_model(entry.name);
    for (std::uint64_t gpus : {1, 8, 16, 32})
      for (auto engine : {EngineKind::generic, EngineKind::vllm}) {
        PlanRequest request;
        request.gpu_count = gpus;
        request.engine.kind = engine;
        request.perf.enabled = false;
        const auto plan = build_plan(model, testing::catalogue_gpu("H200"), request);
        if (!plan) continue;  // a count the model cannot be split over (said by the planner)
        EXPECT_EQ(weights_disagreement(*plan, model), "") << entry.name << " on " << gpus << " GPUs";
        ++checked;
      }
  }
  EXPECT_GT(checked, 100u);
}

// vLLM plans of every catalogue model whose cache grows with the context:
// the KV rows equal the config's bytes per token x the blocks of max_model_len.
TEST(LedgerCheck, KvRowsAreTheBlocksOfTheRequests) {
  std::size_t checked = 0;
  for (const auto& entry : model_catalogue()) {
    const auto& model = testing::catalogue_model(entry.name);
    for (std::uint64_t gpus : {1, 8})
      for (const char* kv : {"auto", "fp8"}) {
        PlanRequest request;
        request.gpu_count = gpus;
        request.engine.kind = EngineKind::vllm;
        request.workload.requested = true;
        request.workload.context_tokens = 8192;
        request.workload.concurrency = 3;
        request.workload.kv_dtype = parse_kv_dtype(kv, "test").value_or_throw();
        request.perf.enabled = false;
        const auto plan = build_plan(model, testing::catalogue_gpu("H200"), request);
        if (!plan) continue;
        EXPECT_EQ(kv_disagreement(*plan, model), "") << entry.name << " on " << gpus << " GPUs, KV " << kv;
        bool has_kv_row = false;
        for (const auto& row : plan->ranks.front().rows) has_kv_row = has_kv_row || row.id == "kv.cache";
        if (has_kv_row) ++checked;
      }
  }
  EXPECT_GT(checked, 40u);
}

TEST(LedgerCheck, ADisagreementIsNamed) {
  const auto& model = testing::catalogue_model("llama-3.1-8b");
  PlanRequest request;
  request.gpu_count = 2;
  request.perf.enabled = false;
  auto plan = build_plan(model, testing::catalogue_gpu("H100"), request).value_or_throw();
  for (auto& row : plan.ranks[1].rows)
    if (row.id == "weights.dense_mlp") row.bytes -= 1;
  const auto why = weights_disagreement(plan, model);
  EXPECT_NE(why.find("weights.dense_mlp: the ranks' rows sum to"), std::string::npos) << why;
}

// The one check every printing command runs: "" on a plan as built; each kind of
// tampering named (a row changed with its total: the manifest disagrees; a total
// changed alone: the ledger does not add up).
TEST(LedgerCheck, EveryInvariantInOneCall) {
  const auto& model = testing::catalogue_model("llama-3.1-8b");
  PlanRequest request;
  request.gpu_count = 2;
  request.engine.kind = EngineKind::vllm;
  request.perf.enabled = false;
  const auto plan = build_plan(model, testing::catalogue_gpu("H100"), request).value_or_throw();
  EXPECT_EQ(plan_invariant_violation(plan, model), "");

  auto rows_changed = plan;
  for (auto& row : rows_changed.ranks[0].rows)
    if (row.id == "weights.dense_mlp") row.bytes += 2;
  rows_changed.ranks[0].demand += 2;
  rows_changed.ranks[0].free -= std::min<std::uint64_t>(rows_changed.ranks[0].free, 2);
  const auto manifest = plan_invariant_violation(rows_changed, model);
  EXPECT_FALSE(manifest.empty());

  auto total_changed = plan;
  total_changed.ranks[1].demand += 1;
  EXPECT_NE(plan_invariant_violation(total_changed, model).find("ledger does not reconcile"), std::string::npos);
}

}  // namespace
}  // namespace preflight
