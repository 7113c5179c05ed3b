// plan --brief: at most 12 lines, none wider than 100 columns, for green and red plans
// with and without an engine (issue 17's "short and narrow").
#include <gtest/gtest.h>

#include <sstream>

#include "report/text_report.h"
#include "support/catalogue_plan.h"

namespace preflight {
namespace {

struct BriefCase {
  const char* what;
  testing::CataloguePlanCase plan;
  bool fits;
};

TEST(BriefReport, AtMostTwelveLinesOfAtMostOneHundredColumns) {
  const BriefCase cases[] = {
      {"K3 weights only on 8 x H100: red", {"kimi-k3", "H100", 8, 0}, false},
      {"K3 1M on 8 x B300 with vLLM: green", {"kimi-k3", "B300", 8, 1048576, 1, EngineKind::vllm}, true},
      {"K3 1M on 8 x B300 with SGLang: red on the KV cache", {"kimi-k3", "B300", 8, 1048576, 1, EngineKind::sglang}, false},
      {"Kimi-Linear 128K on one H200, generic engine", {"kimi-linear-48b", "H200", 1, 131072}, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const auto plan = testing::plan_for(c.plan, true);
    EXPECT_EQ(plan.verdict.fits, c.fits);
    const auto text = render_brief(plan);
    std::istringstream lines(text);
    std::string line;
    int n = 0;
    while (std::getline(lines, line)) {
      ++n;
      EXPECT_LE(line.size(), 100u) << line;
    }
    EXPECT_LE(n, 12) << text;
    EXPECT_NE(text.find(c.fits ? "Verdict: GREEN" : "Verdict: RED"), std::string::npos) << text;
    // A red plan prints no throughput bound (it describes a deployment that would not start).
    if (!c.fits) {
      EXPECT_EQ(text.find("tokens/s"), std::string::npos) << text;
    }
  }
}

}  // namespace
}  // namespace preflight
