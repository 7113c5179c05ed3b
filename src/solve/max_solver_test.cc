#include "solve/max_solver.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/bytes.h"
#include "hardware/gpu_catalogue.h"
#include "model/model_catalogue.h"
#include "solve/plan_probe.h"
#include "support/fixtures.h"

namespace preflight {
namespace {

const ModelSpec& k3() {
  static const ModelSpec m = load_catalogue_model("kimi-k3", "test").value_or_throw();
  return m;
}

const Accelerator& gpu(const std::string& name) { return testing::catalogue_gpu(name); }

// A cluster with `free` bytes after the weights; each token of each request
// costs `per_token` bytes of cache. Monotone in both context and concurrency.
PlanEvaluator budget(std::int64_t free, std::int64_t per_token, std::uint64_t* calls = nullptr) {
  return [=](const Accelerator&, const PlanRequest& r) -> Result<ProbeResult> {
    if (calls) ++*calls;
    ProbeResult p;
    p.layout.world = r.gpu_count;
    p.layout.tp = r.gpu_count;
    p.layout.dp = 1;
    const auto demand = static_cast<std::int64_t>(r.workload.context_tokens * r.workload.concurrency) * per_token;
    p.verdict.headroom_bytes = free - demand;
    p.verdict.fits = p.verdict.headroom_bytes >= 0;
    p.verdict.first_boundary = p.verdict.fits ? Resource::none : (free < 0 ? Resource::weights : Resource::kv_cache);
    p.binding = p.verdict.fits ? Resource::kv_cache : p.verdict.first_boundary;
    return p;
  };
}

PlanRequest on(std::uint64_t gpus, std::uint64_t context = 0, std::uint64_t concurrency = 1) {
  PlanRequest r;
  r.gpu_count = gpus;
  r.workload.context_tokens = context;
  r.workload.concurrency = concurrency;
  // One layout only, so the synthetic evaluator is called once per probe.
  r.layout.tp = gpus;
  return r;
}

TEST(MaxSolver, FindsTheBoundaryExactly) {
  struct Case {
    const char* what;
    SolveFor solve;
    std::int64_t free, per_token;
    std::uint64_t context, concurrency, ceiling;
    bool found;
    std::uint64_t value;
    bool at_ceiling;
  };
  const Case cases[] = {
      {"context, boundary inside the window", SolveFor::context, 1'000'000, 7, 0, 1, 0, true, 142'857, false},
      {"context with 4 requests", SolveFor::context, 1'000'000, 7, 0, 4, 0, true, 35'714, false},
      {"context: the whole window fits", SolveFor::context, 1'000'000'000'000, 7, 0, 1, 0, true, 1'048'576, true},
      {"context: a given ceiling", SolveFor::context, 1'000'000, 7, 0, 1, 1000, true, 1000, true},
      {"context: exactly one token", SolveFor::context, 7, 7, 0, 1, 0, true, 1, false},
      {"context: weights do not fit", SolveFor::context, -5, 7, 0, 1, 0, false, 0, false},
      {"concurrency at 128K", SolveFor::concurrency, 10'000'000'000, 70, 131'072, 1, 0, true, 1'089, false},
      {"concurrency at the model window", SolveFor::concurrency, 10'000'000'000, 70, 0, 1, 0, true, 136, false},
      {"concurrency: search limit", SolveFor::concurrency, INT64_MAX / 2, 1, 1, 1, 0, true, kMaxConcurrencyCeiling,
       true},
  };
  for (const auto& c : cases) {
    std::uint64_t calls = 0;
    auto r = solve_max(k3(), budget(c.free, c.per_token, &calls), gpu("B300"), on(8, c.context, c.concurrency),
                       MaxOptions{c.solve, c.ceiling});
    ASSERT_TRUE(r.ok()) << c.what << ": " << r.error().to_string();
    EXPECT_EQ(r->found, c.found) << c.what;
    EXPECT_EQ(r->value, c.value) << c.what;
    EXPECT_EQ(r->at_ceiling, c.at_ceiling) << c.what;
    EXPECT_EQ(r->evaluations, calls) << c.what;
    // Binary search: a few probes per bit of the ceiling.
    EXPECT_LE(calls, 2 * static_cast<std::uint64_t>(std::log2(static_cast<double>(r->ceiling)) + 2)) << c.what;
    if (c.found && !c.at_ceiling) {
      ASSERT_TRUE(r->beyond.has_value()) << c.what;
      EXPECT_FALSE(r->beyond->verdict.fits) << c.what;
      EXPECT_EQ(r->beyond->binding, Resource::kv_cache) << c.what;
      EXPECT_TRUE(r->at_value.verdict.fits) << c.what;
    }
    if (!c.found) {
      EXPECT_EQ(r->at_value.binding, Resource::weights) << c.what;
    }
  }
}

TEST(MaxSolver, ReportsTheWorkloadInForce) {
  auto r = solve_max(k3(), budget(1'000'000, 7), gpu("B300"), on(8, 0, 4), MaxOptions{SolveFor::context, 0});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->context_tokens, 35'714u);
  EXPECT_EQ(r->concurrency, 4u);
  auto q = solve_max(k3(), budget(10'000'000'000, 70), gpu("B300"), on(8, 0), MaxOptions{SolveFor::concurrency, 0});
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->context_tokens, k3().max_context);  // 0 asked: the model's window
  EXPECT_EQ(q->concurrency, 136u);
}

TEST(MaxSolver, UnplannableValuesBeyondTheAnswerCountAsRed) {
  // Above 1,000 tokens the planner refuses (as an overflow would).
  const auto inner = budget(1'000'000'000, 1);
  const PlanEvaluator refusing = [&](const Accelerator& g, const PlanRequest& r) -> Result<ProbeResult> {
    if (r.workload.context_tokens > 1000) return Error{"--context", "", "overflow"};
    return inner(g, r);
  };
  auto r = solve_max(k3(), refusing, gpu("B300"), on(8), MaxOptions{SolveFor::context, 0});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->value, 1000u);
  EXPECT_FALSE(r->beyond.has_value());
  EXPECT_NE(r->beyond_note.find("overflow"), std::string::npos);
}

TEST(MaxSolver, InvalidInputsAreErrors) {
  PlanRequest zero = on(8);
  zero.gpu_count = 0;
  auto r = solve_max(k3(), full_plan_evaluator(k3()), gpu("B300"), zero, MaxOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().origin, "--gpus");
  // A layout the model cannot take fails at the smallest value: an error, not "does not fit".
  PlanRequest bad_tp = on(8);
  bad_tp.layout.tp = 7;
  auto b = solve_max(k3(), full_plan_evaluator(k3()), gpu("B300"), bad_tp, MaxOptions{});
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().origin, "--tp");
  EXPECT_FALSE(parse_solve("tokens", "--solve").ok());
  EXPECT_EQ(parse_solve("tokens", "--solve").error().origin, "--solve");
  EXPECT_EQ(*parse_solve("concurrency", "--solve"), SolveFor::concurrency);
}

// The real planner: the answer plans green, one more does not (monotone).
TEST(MaxSolver, KimiK3OnRealPlans) {
  struct Case {
    const char* gpu;
    std::uint64_t gpus;
    SolveFor solve;
    std::uint64_t context;
  };
  const Case cases[] = {
      {"B300", 8, SolveFor::context, 0},
      {"H200", 16, SolveFor::concurrency, 131'072},
      {"H100", 32, SolveFor::concurrency, 0},
  };
  const auto evaluate = full_plan_evaluator(k3());
  for (const auto& c : cases) {
    PlanRequest req;
    req.gpu_count = c.gpus;
    req.workload.context_tokens = c.context;
    auto r = solve_max(k3(), evaluate, gpu(c.gpu), req, MaxOptions{c.solve, 0});
    ASSERT_TRUE(r.ok()) << c.gpu << ": " << r.error().to_string();
    ASSERT_TRUE(r->found) << c.gpu;
    EXPECT_TRUE(r->at_value.verdict.fits) << c.gpu;
    EXPECT_GE(r->at_value.verdict.headroom_bytes, 0) << c.gpu;
    if (r->at_ceiling) continue;
    ASSERT_TRUE(r->beyond.has_value()) << c.gpu;
    EXPECT_FALSE(r->beyond->verdict.fits) << c.gpu;
    // Re-plan both sides of the boundary with the layout found.
    PlanRequest at = req;
    at.workload.requested = true;
    at.workload.context_tokens = r->context_tokens;
    at.workload.concurrency = r->concurrency;
    at.layout = layout_options_of(r->at_value.layout);
    EXPECT_TRUE(evaluate(gpu(c.gpu), at)->verdict.fits) << c.gpu;
    auto& slot = c.solve == SolveFor::context ? at.workload.context_tokens : at.workload.concurrency;
    ++slot;
    at.layout = layout_options_of(r->beyond->layout);
    EXPECT_FALSE(evaluate(gpu(c.gpu), at)->verdict.fits) << c.gpu;
  }
}

// With an estimate check, a value green on memory counts only when the
// estimate meets the targets: the concurrency answer moves down to the
// check's own limit, and the value beyond names the missed target.
TEST(MaxSolver, EstimateCheckBoundsTheAnswer) {
  MaxOptions options{SolveFor::concurrency, 0};
  options.estimate_percentile = 90;
  options.estimate_check = [](const Accelerator&, const PlanRequest& r, const Layout&) -> std::optional<EstimateMiss> {
    if (r.workload.concurrency <= 37) return std::nullopt;
    return EstimateMiss{Resource::tpot, "estimated p90 time per output token 51 ms above the 50 ms target"};
  };
  // Memory alone allows 100 requests of 1,000 tokens.
  auto r = solve_max(k3(), budget(100'000, 1), gpu("H100"), on(8, 1000), options);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(r->found);
  EXPECT_EQ(r->value, 37u);
  EXPECT_EQ(r->estimate_percentile, 90u);
  ASSERT_TRUE(r->beyond.has_value());
  EXPECT_EQ(r->beyond->binding, Resource::tpot);
  EXPECT_EQ(r->beyond->verdict.evidence, Evidence::estimate);
  options.estimate_check = nullptr;
  EXPECT_EQ(solve_max(k3(), budget(100'000, 1), gpu("H100"), on(8, 1000), options)->value, 100u);
}

TEST(MaxSolver, RateIsTheRateSolversQuestion) {
  EXPECT_EQ(parse_solve("rate", "--solve").value(), SolveFor::rate);
  EXPECT_EQ(solve_key(SolveFor::rate), "rate");
  EXPECT_FALSE(solve_max(k3(), budget(1, 1), gpu("H100"), on(8, 1000), MaxOptions{SolveFor::rate, 0}).ok());
}

}  // namespace
}  // namespace preflight
