#include "perf/latency.h"

#include <gtest/gtest.h>

namespace preflight {
namespace {

LatencyBounds bounds(double prefill_s, double step_s, double tokens_per_s, std::uint64_t dp = 1) {
  LatencyBounds b;
  b.prefill_s = prefill_s;
  b.prefill_slowest_stage_s = prefill_s;
  b.decode_step_s = step_s;
  b.decode_tokens_per_s = tokens_per_s;
  b.dp_groups = dp;
  return b;
}

LatencyTargets targets(double ttft, double tpot, double rate, std::uint64_t output = 100) {
  LatencyTargets t;
  t.ttft_s = ttft;
  t.tpot_s = tpot;
  t.rate_per_s = rate;
  t.input_tokens = 1000;
  t.output_tokens = output;
  return t;
}

TEST(Latency, TargetsAgainstTheBounds) {
  struct Case {
    const char* name;
    LatencyTargets t;
    LatencyBounds b;
    const char* binding;
    double ttft, tpot;
  };
  for (const auto& c : std::vector<Case>{
           {"both met, no rate", targets(1.0, 0.05, 0), bounds(0.5, 0.02, 1000), "", 0.5, 0.02},
           {"TPOT below the step", targets(1.0, 0.001, 0), bounds(0.5, 0.004, 1000), "tpot", 0.5, 0.004},
           {"TTFT below the prefill", targets(0.1, 0.05, 0), bounds(0.5, 0.02, 1000), "ttft", 0.5, 0.02},
           // Both missed: the larger factor names the boundary (TTFT 5x, TPOT 2x).
           {"both missed", targets(0.1, 0.01, 0), bounds(0.5, 0.02, 1000), "ttft", 0.5, 0.02},
           // Rate 2/s: prefill share 2 x 0.1 / 1 = 0.2, decode share 2 x 100 / 1000 = 0.2.
           // TTFT = 0.1 / 0.8 = 0.125, TPOT = 0.02 / 0.8 = 0.025.
           {"under load, met", targets(0.2, 0.03, 2), bounds(0.1, 0.02, 1000), "", 0.125, 0.025},
           {"under load, TPOT stretched past", targets(0.2, 0.024, 2), bounds(0.1, 0.02, 1000), "tpot", 0.125, 0.025},
           // Rate 6/s: prefill 0.6 + decode 0.6 >= 1: the queue grows.
           {"saturated", targets(10, 1, 6), bounds(0.1, 0.02, 1000), "ttft", 0.1, 0.02},
           // Four DP groups prefill four prompts at once: share 6 x 0.1 / 4 = 0.15, decode 0.6.
           {"DP groups share prefill", targets(10, 1, 6), bounds(0.1, 0.02, 1000, 4), "", 0.1 / 0.4, 0.02 / 0.85},
       }) {
    const auto check = check_latency(c.t, 8, false, c.b);
    EXPECT_EQ(check.binding, c.binding) << c.name << ": " << check.why;
    EXPECT_NEAR(check.ttft_s, c.ttft, 1e-12) << c.name;
    EXPECT_NEAR(check.tpot_s, c.tpot, 1e-12) << c.name;
    EXPECT_EQ(check.why.empty(), std::string(c.binding).empty()) << c.name;
  }
}

TEST(Latency, FiguresAreLabelledAndTheRateAddsItsShares) {
  const auto without = check_latency(targets(1, 0.05, 0), 8, false, bounds(0.5, 0.02, 1000));
  const auto with = check_latency(targets(1, 0.05, 2), 8, true, bounds(0.5, 0.02, 1000));
  EXPECT_EQ(find_figure(without.figures, "latency.prefill_share"), nullptr);
  ASSERT_NE(find_figure(with.figures, "latency.prefill_share"), nullptr);
  EXPECT_DOUBLE_EQ(find_figure(with.figures, "latency.prefill_share")->value, 100.0);  // 2 x 0.5 s
  ASSERT_NE(find_figure(with.figures, "latency.concurrency_from_rate"), nullptr);
  for (const auto& f : with.figures) EXPECT_FALSE(f.formula.empty()) << f.id;
  EXPECT_TRUE(with.saturated);
}

TEST(Latency, LittlesLawGivesTheRunningRequests) {
  struct Case {
    double rate, ttft, tpot;
    std::uint64_t output, running;
  };
  for (const auto& c : std::vector<Case>{{2, 10, 0.2, 1024, 430},   // 2 x (10 + 204.8) = 429.6
                                         {1, 0, 0.05, 100, 5},      // 1 x 5 s
                                         {0.001, 1, 0.01, 10, 1}})  // below one: still one request
    EXPECT_EQ(concurrency_from_rate(targets(c.ttft, c.tpot, c.rate), c.output).value_or_throw(), c.running);
  auto no_tpot = concurrency_from_rate(targets(1, 0, 2), 100);
  ASSERT_FALSE(no_tpot.ok());
  EXPECT_EQ(no_tpot.error().origin, "--rate");
  EXPECT_FALSE(concurrency_from_rate(targets(1, 3600, 1e6), 1'000'000).ok());
}

TEST(Latency, DefaultTokensSplitTheLength) {
  EXPECT_EQ(default_output_tokens(131072), 1024u);
  EXPECT_EQ(default_input_tokens(131072, 1024), 130048u);
  EXPECT_EQ(default_output_tokens(1000), 500u);
  EXPECT_EQ(default_output_tokens(1), 1u);
  EXPECT_EQ(default_input_tokens(1, 1), 1u);
}

}  // namespace
}  // namespace preflight
