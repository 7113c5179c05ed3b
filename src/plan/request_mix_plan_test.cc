// A request mix through the whole plan: one member of 100%
// is the plain workload to the byte, and a mix's headroom lies between its
// shortest and longest members' under every engine's rules.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "plan/plan.h"
#include "support/fixtures.h"
#include "workload/request_mix.h"

namespace preflight {
namespace {

using testing::catalogue_gpu;
using testing::catalogue_model;

struct MixCase {
  const char* model;
  const char* gpu;
  std::uint64_t gpus;
  std::uint64_t tp;  // 0: the default layout
  EngineKind engine;
  const char* mix;
  std::uint64_t concurrency;
};

PlanRequest base_request(const MixCase& c) {
  PlanRequest r;
  r.gpu_count = c.gpus;
  r.layout.tp = c.tp;
  r.workload.requested = true;
  r.workload.concurrency = c.concurrency;
  r.engine.kind = c.engine;
  r.perf.enabled = false;
  return r;
}

Plan plan_with_mix(const MixCase& c, const RequestMix& mix) {
  auto r = base_request(c);
  r.workload.mix = mix;
  return build_plan(catalogue_model(c.model), catalogue_gpu(c.gpu), r).value_or_throw();
}

Plan plan_with_context(const MixCase& c, std::uint64_t context) {
  auto r = base_request(c);
  r.workload.context_tokens = context;
  return build_plan(catalogue_model(c.model), catalogue_gpu(c.gpu), r).value_or_throw();
}

const std::vector<MixCase>& cases() {
  static const std::vector<MixCase> table = {
      {"kimi-k3", "B300", 8, 8, EngineKind::generic, "2K:70%,32K:25%,1M:5%", 16},
      {"kimi-k3", "B300", 8, 2, EngineKind::generic, "2K:70%,32K:25%,1M:5%", 64},
      {"kimi-k3", "B300", 8, 8, EngineKind::vllm, "2K:70%,32K:25%,256K:5%", 8},
      {"kimi-k3", "B300", 8, 8, EngineKind::sglang, "2K:70%,32K:25%,256K:5%", 8},
      {"deepseek-v3", "H200", 8, 1, EngineKind::vllm, "2K:70%,32K:25%,128K:5%", 64},
      {"deepseek-v3", "H200", 16, 8, EngineKind::sglang, "4K:60%,16K:30%,128K:10%", 32},
      {"llama-3.1-70b", "H100", 4, 4, EngineKind::vllm, "1K:50%,8K:40%,128K:10%", 12},
      {"gpt-oss-120b", "H100", 2, 2, EngineKind::vllm, "1K:50%,8K:40%,128K:10%",
       24},  // sliding layers capped per request
  };
  return table;
}

std::vector<std::pair<std::string, std::uint64_t>> rows_of(const Plan& p) {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  for (const auto& r : p.ranks)
    for (const auto& row : r.rows) out.emplace_back(fmt::format("{}/{}", r.rank, row.id), row.bytes);
  return out;
}

TEST(RequestMixPlan, OneMemberAtAHundredPercentIsThePlainWorkloadToTheByte) {
  for (const auto& c : cases()) {
    const auto mix = parse_mix(c.mix, "--mix").value_or_throw();
    const auto tokens = longest(mix);
    for (std::uint64_t concurrency : {std::uint64_t{1}, c.concurrency}) {
      auto with = c;
      with.concurrency = concurrency;
      const auto a = plan_with_mix(with, RequestMix{MixClass{tokens, 1'000'000}});
      const auto b = plan_with_context(with, tokens);
      EXPECT_EQ(rows_of(a), rows_of(b)) << c.model << " " << c.mix << " x " << concurrency;
      EXPECT_EQ(a.verdict.headroom_bytes, b.verdict.headroom_bytes);
      EXPECT_EQ(a.verdict.fits, b.verdict.fits);
      EXPECT_EQ(a.workload.context_tokens, tokens);
    }
  }
}

TEST(RequestMixPlan, HeadroomLiesBetweenTheShortestAndLongestMembers) {
  for (const auto& c : cases()) {
    const auto mix = parse_mix(c.mix, "--mix").value_or_throw();
    const auto mixed = plan_with_mix(c, mix);
    const auto shortest = plan_with_context(c, mix.front().tokens);
    const auto longest_only = plan_with_context(c, mix.back().tokens);
    EXPECT_LE(mixed.verdict.headroom_bytes, shortest.verdict.headroom_bytes) << c.model << " " << c.mix;
    EXPECT_GE(mixed.verdict.headroom_bytes, longest_only.verdict.headroom_bytes) << c.model << " " << c.mix;
    // Strictly between when the members differ in cache: the mix is neither.
    EXPECT_LT(mixed.verdict.headroom_bytes, shortest.verdict.headroom_bytes) << c.model << " " << c.mix;
    EXPECT_GT(mixed.verdict.headroom_bytes, longest_only.verdict.headroom_bytes) << c.model << " " << c.mix;
  }
}

// The KV row against the cache computed here from the per-token rows: the
// heaviest group's requests, each at its own length (window layers capped).
TEST(RequestMixPlan, GenericKvRowIsEachLengthsCacheSummed) {
  const MixCase c{"gpt-oss-120b", "H100", 2, 2, EngineKind::generic, "1K:50%,8K:40%,128K:10%", 24};
  const auto mix = parse_mix(c.mix, "--mix").value_or_throw();
  const auto plan = plan_with_mix(c, mix);
  const auto& model = catalogue_model(c.model);
  const auto rows = token_cache_per_rank(model, kv_dtype_bytes(plan.workload.kv_dtype), 2);
  std::uint64_t window_capped = 0;
  for (const auto& r : rows) window_capped += r.token_cap > 0;
  ASSERT_GT(window_capped, 0u) << "gpt-oss has sliding layers: the case must exercise the cap";
  const auto counts = heaviest_group(mix, 24, plan.layout.dp);
  std::uint64_t expected = 0;
  for (std::size_t i = 0; i < mix.size(); ++i) {
    std::uint64_t one = 0;
    for (const auto& r : rows)
      one += r.bytes_per_token * (r.token_cap > 0 ? std::min(r.token_cap, mix[i].tokens) : mix[i].tokens);
    expected += counts[i] * one;
  }
  std::uint64_t kv_rows = 0;
  for (const auto& rank : plan.ranks) {
    for (const auto& row : rank.rows) {
      if (row.id != "kv.cache") continue;
      ++kv_rows;
      EXPECT_EQ(row.bytes, expected) << rank.rank;
    }
  }
  EXPECT_EQ(kv_rows, plan.ranks.size());
}

}  // namespace
}  // namespace preflight
