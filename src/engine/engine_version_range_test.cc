// modelled_releases / summarize_range: the releases whose rules differ
// (data/engines.json), and the spread of what they would log.
#include "engine/engine_version_range.h"

#include <gtest/gtest.h>

#include "engine/engine_profile.h"

namespace preflight {
namespace {

std::vector<std::string> texts(const std::vector<EngineVersion>& v) {
  std::vector<std::string> out;
  for (const auto& e : v) out.push_back(e.str());
  return out;
}

TEST(EngineVersionRange, EveryReleaseWhereARuleChanges) {
  // vLLM: each V1 era, the checkpoint KV-cache rule, ROCm's first V1 MLA backend, the default.
  EXPECT_EQ(texts(modelled_releases(EngineKind::vllm)),
            (std::vector<std::string>{"0.8", "0.9.0", "0.10", "0.10.1", "0.12", "0.13", "0.14", "0.17", "0.21",
                                      engine_profiles().vllm.default_version.str()}));
  const auto sglang = modelled_releases(EngineKind::sglang);
  ASSERT_FALSE(sglang.empty());
  EXPECT_EQ(sglang.front().str(), "0.4.3");
  EXPECT_EQ(sglang.back().str(), engine_profiles().sglang.default_version.str());
  EXPECT_TRUE(modelled_releases(EngineKind::generic).empty());
}

TEST(EngineVersionRange, EndsAreTheFirstReleasesGivingThem) {
  const auto r = summarize_range({{"0.8", 1000, 3.0, ""},
                                  {"0.12", 900, 2.7, ""},
                                  {"0.13", 900, 2.7, ""},
                                  {"0.20", 0, 0, "max_num_seqs (4096) exceeds available Mamba cache blocks (10)"},
                                  {"0.21", 950, 2.9, ""}},
                                 {});
  EXPECT_EQ(r.kv_cache_tokens_min, 900u);
  EXPECT_EQ(r.kv_min_version, "0.12");
  EXPECT_EQ(r.kv_cache_tokens_max, 1000u);
  EXPECT_EQ(r.kv_max_version, "0.8");
  EXPECT_DOUBLE_EQ(r.max_concurrency_min, 2.7);
  EXPECT_EQ(r.concurrency_min_version, "0.12");
  EXPECT_DOUBLE_EQ(r.max_concurrency_max, 3.0);
  EXPECT_EQ(r.points.size(), 5u);  // the refusing release is kept, not counted in the ends
  // Every release refusing: no ends, the points kept.
  const auto none = summarize_range({{"0.8", 0, 0, "no memory left"}, {"0.21", 0, 0, "no memory left"}}, {});
  EXPECT_TRUE(none.kv_min_version.empty());
  EXPECT_EQ(none.kv_cache_tokens_max, 0u);
  EXPECT_EQ(none.points.size(), 2u);
  EXPECT_FALSE(none.ends_from_refusals);
}

TEST(EngineVersionRange, EveryReleaseRefusingTheRequestStillGivesItsCache) {
  // SGLang caps a request at its pool: each release sizes the pool, then refuses a
  // longer context; the log still prints the pool, so the range must too.
  const auto r = summarize_range({{"0.4.3", 842306, 0.80, "the token pool is smaller than one request"},
                                  {"0.5.3", 0, 0, "no memory left"},
                                  {"0.5.17", 850000, 0.81, "the token pool is smaller than one request"}},
                                 {});
  EXPECT_TRUE(r.ends_from_refusals);
  EXPECT_EQ(r.kv_cache_tokens_min, 842306u);
  EXPECT_EQ(r.kv_min_version, "0.4.3");
  EXPECT_EQ(r.kv_cache_tokens_max, 850000u);
  EXPECT_EQ(r.kv_max_version, "0.5.17");
  EXPECT_DOUBLE_EQ(r.max_concurrency_min, 0.80);
}

TEST(EngineVersionRange, TheSizingsOwnErrorWidensTheEnds) {
  // Every release giving the same cache is still a range: the estimate's error.
  const auto r =
      summarize_range({{"0.5.3", 842306, 0.80, ""}, {"0.5.17", 842306, 0.80, ""}}, {0.06, "p90 on rows not tuned on"});
  EXPECT_EQ(r.release_kv_tokens_min, 842306u);
  EXPECT_EQ(r.release_kv_tokens_max, 842306u);
  // An error of e is (planned - logged) / logged: the log may read planned / (1 + e) to planned / (1 - e).
  EXPECT_EQ(r.kv_cache_tokens_min, 794628u);  // floor(842,306 / 1.06)
  EXPECT_EQ(r.kv_cache_tokens_max, 896071u);  // ceil(842,306 / 0.94)
  EXPECT_DOUBLE_EQ(r.max_concurrency_min, 0.80 / 1.06);
  EXPECT_DOUBLE_EQ(r.max_concurrency_max, 0.80 / 0.94);
  EXPECT_EQ(r.band_source, "p90 on rows not tuned on");
  // The embedded band is a fraction with its source.
  EXPECT_GT(engine_profiles().accuracy.kv_tokens_relative, 0);
  EXPECT_LT(engine_profiles().accuracy.kv_tokens_relative, 1);
  EXPECT_FALSE(engine_profiles().accuracy.source.empty());
}

}  // namespace
}  // namespace preflight
