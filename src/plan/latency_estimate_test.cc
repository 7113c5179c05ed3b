// The latency estimate a full plan carries (plan/verdict.cc estimate_latency):
// it sits above the bound, its energy follows from the GPU's board power and
// the simulation's busy share, and it is the same for the same seed.
#include <gtest/gtest.h>

#include "plan/plan.h"
#include "support/fixtures.h"

namespace preflight {
namespace {

PlanRequest request(double rate, std::uint64_t seed) {
  PlanRequest r;
  r.gpu_count = 1;
  r.workload.requested = true;
  r.workload.context_tokens = 1200;
  r.workload.concurrency = 32;
  r.latency.input_tokens = 1000;
  r.latency.output_tokens = 200;
  r.latency.rate_per_s = rate;
  r.latency.seed = seed;
  r.latency.pue = 1.25;
  r.latency.power_price_usd_per_kwh = 0.10;
  return r;
}

TEST(LatencyEstimate, AboveTheBoundWithEnergyFromBoardPower) {
  const auto& model = testing::catalogue_model("llama-3.1-8b");
  const auto& gpu = testing::catalogue_gpu("H100");
  const auto plan = build_plan(model, gpu, request(0, 1)).value_or_throw();
  ASSERT_TRUE(plan.latency && plan.latency->estimate);
  const auto& e = *plan.latency->estimate;
  // Efficiencies <= 1 and fixed costs >= 0: the estimate is never below the bound.
  EXPECT_GE(e.tpot_p50_s, plan.latency->bounds.decode_step_s);
  EXPECT_GE(e.ttft_p50_s, plan.latency->bounds.prefill_s);
  EXPECT_LE(e.tpot_p50_s, e.tpot_p90_s);
  EXPECT_LE(e.tpot_p90_s, e.tpot_p99_s);
  ASSERT_GT(gpu.tdp_w, 0u);
  EXPECT_GT(e.busy_share, 0.5);  // a closed loop keeps the GPU busy
  EXPECT_LE(e.busy_share, 1.0);
  EXPECT_NEAR(e.joules_per_output_token, gpu.tdp_w * e.busy_share * 1.25 / e.output_tokens_per_s, 1e-12);
  EXPECT_NEAR(e.kwh_per_million_output_tokens, e.joules_per_output_token / 3.6, 1e-12);
  EXPECT_NEAR(e.energy_usd_per_million_output_tokens, e.kwh_per_million_output_tokens * 0.10, 1e-12);
}

TEST(LatencyEstimate, SameSeedSameEstimate) {
  const auto& model = testing::catalogue_model("llama-3.1-8b");
  const auto& gpu = testing::catalogue_gpu("H100");
  const auto a = build_plan(model, gpu, request(4, 7)).value_or_throw();
  const auto b = build_plan(model, gpu, request(4, 7)).value_or_throw();
  const auto c = build_plan(model, gpu, request(4, 8)).value_or_throw();
  ASSERT_TRUE(a.latency->estimate && b.latency->estimate && c.latency->estimate);
  EXPECT_EQ(a.latency->estimate->ttft_p99_s, b.latency->estimate->ttft_p99_s);
  EXPECT_NE(a.latency->estimate->ttft_p99_s, c.latency->estimate->ttft_p99_s);
}

}  // namespace
}  // namespace preflight
