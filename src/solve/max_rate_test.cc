#include "solve/max_rate.h"

#include <gtest/gtest.h>

#include <cmath>

#include "model/model_catalogue.h"
#include "perf/latency.h"
#include "support/fixtures.h"

namespace preflight {
namespace {

const ModelSpec& llama_8b() {
  static const ModelSpec m = load_catalogue_model("llama-3.1-8b", "test").value_or_throw();
  return m;
}

const Accelerator& gpu(const std::string& name) { return testing::catalogue_gpu(name); }

// Memory holds `max_running` requests; the bounds always pass.
PlanEvaluator memory_for(std::uint64_t max_running) {
  return [=](const Accelerator&, const PlanRequest& r) -> Result<ProbeResult> {
    ProbeResult p;
    p.layout.world = r.gpu_count;
    p.layout.tp = r.gpu_count;
    p.layout.dp = 1;
    p.verdict.headroom_bytes =
        static_cast<std::int64_t>(max_running) - static_cast<std::int64_t>(r.workload.concurrency);
    p.verdict.fits = p.verdict.headroom_bytes >= 0;
    p.verdict.first_boundary = p.verdict.fits ? Resource::none : Resource::kv_cache;
    p.binding = Resource::kv_cache;
    return p;
  };
}

// The estimate meets the targets up to `max_rate` requests/s.
EstimateCheck estimate_up_to(double max_rate) {
  return [=](const Accelerator&, const PlanRequest& r, const Layout&) -> std::optional<EstimateMiss> {
    if (r.latency.rate_per_s <= max_rate) return std::nullopt;
    return EstimateMiss{Resource::tpot, "estimated p90 time per output token above the target"};
  };
}

// TTFT 1 s, TPOT 50 ms, 100 output tokens: each request runs 6 s, so
// Little's law puts ceil(6 R) requests in the system at R requests/s.
PlanRequest targets() {
  PlanRequest r;
  r.gpu_count = 8;
  r.layout.tp = 8;  // one layout: one evaluator call per probe
  r.workload.context_tokens = 1200;
  r.latency.ttft_s = 1;
  r.latency.tpot_s = 0.05;
  r.latency.input_tokens = 1000;
  r.latency.output_tokens = 100;
  return r;
}

TEST(MaxRate, RequestAtRateFollowsLittlesLaw) {
  auto r = request_at_rate(llama_8b(), targets(), 2.5);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->workload.concurrency, 15u);  // ceil(2.5 x (1 + 100 x 0.05))
  EXPECT_TRUE(r->concurrency_from_rate);
  EXPECT_DOUBLE_EQ(r->latency.rate_per_s, 2.5);
  EXPECT_EQ(request_at_rate(llama_8b(), targets(), 2.0)->workload.concurrency, 12u);
}

TEST(MaxRate, FindsTheBindingLimitWithinThePrecision) {
  struct Case {
    const char* what;
    std::uint64_t max_running;  // memory
    double max_rate;            // the estimate
    double want;                // the boundary
    Resource beyond;
  };
  const Case cases[] = {
      {"the estimate binds", 600, 7.3, 7.3, Resource::tpot},
      {"memory binds: 30 running requests at 6 s each", 30, 100, 5.0, Resource::kv_cache},
      {"below one request/s: the search halves", 600, 0.2, 0.2, Resource::tpot},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    MaxRateOptions options;
    options.estimate_check = estimate_up_to(c.max_rate);
    options.estimate_percentile = 90;
    auto r = solve_max_rate(llama_8b(), memory_for(c.max_running), gpu("H100"), targets(), options);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    ASSERT_TRUE(r->found);
    EXPECT_FALSE(r->at_ceiling);
    EXPECT_LE(r->rate_per_s, c.want);
    EXPECT_GE(r->rate_per_s, c.want / 1.01);
    EXPECT_GT(r->beyond_rate_per_s, c.want);
    EXPECT_LE(r->beyond_rate_per_s / r->rate_per_s, 1.01 + 1e-12);
    EXPECT_EQ(r->concurrency, static_cast<std::uint64_t>(std::ceil(r->rate_per_s * 6 - 1e-9)));
    ASSERT_TRUE(r->beyond.has_value());
    EXPECT_EQ(r->beyond->binding, c.beyond);
    EXPECT_EQ(r->estimate_percentile, 90u);
  }
}

TEST(MaxRate, CeilingAndFloor) {
  MaxRateOptions options;
  options.estimate_check = estimate_up_to(100);
  options.ceiling_per_s = 3;  // --rate 3
  auto capped = solve_max_rate(llama_8b(), memory_for(1000), gpu("H100"), targets(), options);
  ASSERT_TRUE(capped.ok());
  EXPECT_TRUE(capped->found);
  EXPECT_TRUE(capped->at_ceiling);
  EXPECT_DOUBLE_EQ(capped->rate_per_s, 3);
  EXPECT_FALSE(capped->beyond.has_value());

  options.ceiling_per_s = 0;
  auto none = solve_max_rate(llama_8b(), memory_for(0), gpu("H100"), targets(), options);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->found);
  EXPECT_EQ(none->at_value.binding, Resource::kv_cache);
  EXPECT_EQ(none->concurrency, 1u);  // the floor still has one request running
}

TEST(MaxRate, RefusesWhatHasNoRate) {
  auto no_tpot = targets();
  no_tpot.latency.tpot_s = 0;
  auto r = solve_max_rate(llama_8b(), memory_for(10), gpu("H100"), no_tpot, MaxRateOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().origin, "--tpot");
  auto burst = targets();
  burst.latency.burst = true;
  EXPECT_EQ(solve_max_rate(llama_8b(), memory_for(10), gpu("H100"), burst, MaxRateOptions{}).error().origin, "--rate");
}

// On the real plan: the answer's own plan meets the targets at the simulated
// p90, and the rate just above misses one (or runs out of memory), each
// re-planned from scratch.
TEST(MaxRate, RealPlanMeetsTheTargetsAtTheAnswerAndNotBeyond) {
  const PlanContext context(llama_8b());
  PlanRequest request = targets();
  request.gpu_count = 1;
  request.layout = {};
  request.engine.kind = EngineKind::vllm;
  request.latency.ttft_s = 0.5;
  request.latency.tpot_s = 0.02;
  MaxRateOptions options;
  options.estimate_check = latency_estimate_check(context, 90);
  options.estimate_percentile = 90;
  auto r = solve_max_rate(llama_8b(), verdict_plan_evaluator(context), gpu("H100"), request, options);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(r->found);
  EXPECT_GT(r->rate_per_s, 1.0);  // an 8B model on an H100 serves more than one such request a second
  const auto replan = [&](double rate) {
    auto at = request_at_rate(llama_8b(), request, rate).value_or_throw();
    return build_plan(context, gpu("H100"), at, PlanDetail::full).value_or_throw();
  };
  const auto at = replan(r->rate_per_s);
  EXPECT_TRUE(at.verdict.fits);
  ASSERT_TRUE(at.latency && at.latency->estimate);
  EXPECT_LE(at.latency->estimate->tpot_p90_s, request.latency.tpot_s);
  EXPECT_LE(at.latency->estimate->ttft_p90_s, request.latency.ttft_s);
  const auto beyond = replan(r->beyond_rate_per_s);
  const bool misses = !beyond.verdict.fits || beyond.latency->estimate->tpot_p90_s > request.latency.tpot_s ||
                      beyond.latency->estimate->ttft_p90_s > request.latency.ttft_s;
  EXPECT_TRUE(misses);
  add_rate_estimate(r.value(), context, gpu("H100"), request);
  ASSERT_TRUE(r->estimate.has_value());
  EXPECT_DOUBLE_EQ(r->estimate->tpot_p90_s, at.latency->estimate->tpot_p90_s);
  EXPECT_TRUE(r->bound.known);
  EXPECT_LE(r->bound.tpot_s, r->estimate->tpot_p50_s);  // the bound lies below the estimate
}

}  // namespace
}  // namespace preflight
