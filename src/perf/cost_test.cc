// Cost, cold start and speculative decoding: hand-computed cases.
#include "perf/cost.h"

#include <gtest/gtest.h>

#include "perf/cold_start.h"
#include "perf/speculative.h"

namespace preflight {
namespace {

const Figure& fig(const std::vector<Figure>& figures, const std::string& id) {
  const auto* f = find_figure(figures, id);
  if (f == nullptr) throw std::runtime_error("missing figure " + id);
  return *f;
}

// 8 GPUs at 2 USD/h = 16 USD/h. At 1,000 tokens/s: 3.6 M tokens/h, so
// 16 / 3.6 = 4.4444 USD per million; at 50% of the bound 8.8889. Against an
// API at 2.19 USD/M: break-even utilisation 4.4444 / 2.19 = 202.9% (the API is
// cheaper even at the bound), break-even volume 16 x 24 / 2.19 x 10^6 = 175.34 M tokens/day.
TEST(CostEstimate, HandComputed) {
  CostInputs in;
  in.price_usd_per_gpu_hour = 2.0;
  in.price_source = "--price";
  in.gpus = 8;
  in.cluster_tokens_per_s_bound = 1000;
  in.request_tokens_per_s_bound = 100;
  in.concurrency = 64;
  in.utilisation = 0.5;
  in.api_usd_per_m = 2.19;
  const auto c = estimate_cost(in);
  ASSERT_TRUE(c.priced);
  EXPECT_DOUBLE_EQ(c.cluster_usd_per_hour, 16.0);
  EXPECT_NEAR(c.usd_per_m_at_bound, 4.444444, 1e-6);
  EXPECT_NEAR(c.usd_per_m_at_utilisation, 8.888889, 1e-6);
  EXPECT_NEAR(c.usd_per_m_single_request, 44.44444, 1e-5);
  EXPECT_NEAR(c.break_even_utilisation, 4.444444 / 2.19, 1e-6);
  EXPECT_NEAR(c.break_even_tokens_per_day, 175'342'465.75, 1);
  EXPECT_NE(fig(c.figures, "cost.break_even_utilisation").formula.find("the API is cheaper even at the bound"),
            std::string::npos);
  for (const auto& f : c.figures) EXPECT_EQ(f.evidence, Evidence::estimate) << f.id;
}

TEST(CostEstimate, NoPriceNoFigures) {
  CostInputs in;
  in.gpus = 8;
  in.cluster_tokens_per_s_bound = 1000;
  const auto c = estimate_cost(in);
  EXPECT_FALSE(c.priced);
  EXPECT_TRUE(c.figures.empty());
}

// 10^12 B artifact, 3 staged copies = 3 x 10^12 B. At 10 Gb/s: 8 x 10^12 / 10^10 =
// 800 s; the heaviest of two nodes holds 5 x 10^11 B, at 2 GB/s 250 s to load:
// cold start 1,050 s. At 100 Gb/s: 80 + 250 = 330 s. One node back: 250 s.
TEST(ColdStart, HandComputed) {
  ColdStartInputs in;
  in.artifact_bytes = 1'000'000'000'000;
  in.artifact_evidence = Evidence::official;
  in.staging_copies = 3;
  in.rates_gbps = {10, 100, 2.5};
  in.read_gb_s = 2.0;
  in.node_bytes = {500'000'000'000, 400'000'000'000};
  const auto c = estimate_cold_start(in);
  EXPECT_EQ(c.staging_bytes, 3'000'000'000'000u);
  EXPECT_EQ(c.max_node_bytes, 500'000'000'000u);
  EXPECT_DOUBLE_EQ(c.load_s, 250.0);
  ASSERT_EQ(c.total_s.size(), 3u);
  EXPECT_DOUBLE_EQ(c.total_s[0].second, 1050.0);
  EXPECT_DOUBLE_EQ(c.total_s[1].second, 330.0);
  EXPECT_DOUBLE_EQ(c.total_s[2].second, 3450.0);  // 8 x 10^12 / 2.5 x 10^9 = 3,200 s + 250
  EXPECT_DOUBLE_EQ(c.recover_node_s, 250.0);
  EXPECT_EQ(fig(c.figures, "coldstart.total_s_at_10gbps").display, "17.5 min");
  EXPECT_EQ(fig(c.figures, "coldstart.total_s_at_2p5gbps").display, "57.5 min");
  EXPECT_EQ(fig(c.figures, "disk.staging_bytes").exact, 3'000'000'000'000u);
  EXPECT_EQ(fig(c.figures, "coldstart.artifact_bytes").evidence, Evidence::official);
}

TEST(ColdStart, NoNodesNoLoadTerm) {
  ColdStartInputs in;
  in.artifact_bytes = 1'000'000'000;
  in.rates_gbps = {10};
  const auto c = estimate_cold_start(in);
  EXPECT_DOUBLE_EQ(c.load_s, 0.0);
  EXPECT_EQ(find_figure(c.figures, "coldstart.load_s"), nullptr);
  EXPECT_DOUBLE_EQ(c.total_s.at(0).second, 0.8);
}

// E = (1 - a^(N+1)) / (1 - a): N = 7 at 0.7 -> (1 - 0.05764801) / 0.3 = 3.14117330.
TEST(Speculative, ExpectedTokensPerVerify) {
  struct Case {
    std::uint64_t n;
    double a;
    double expected;
  };
  for (const auto& c : std::vector<Case>{
           {0, 0.7, 1.0}, {1, 0.0, 1.0}, {3, 1.0, 4.0}, {1, 0.5, 1.5}, {7, 0.7, 3.1411733}, {4, 0.8, 3.36160}})
    EXPECT_NEAR(expected_tokens_per_verify(c.n, c.a), c.expected, 1e-6) << c.n << " at " << c.a;
}

}  // namespace
}  // namespace preflight
