// plan --brief: at most 12 lines, none wider than 100 columns, for green and red plans
// with and without an engine (issue 17's "short and narrow").
#include <gtest/gtest.h>

#include <sstream>

#include "plan/plan.h"
#include "report/text_report.h"
#include "support/fixtures.h"

namespace preflight {
namespace {

struct BriefCase {
  const char* what;
  const char* model;
  const char* gpu;
  std::uint64_t gpus;
  std::uint64_t context;  // 0: weights only
  EngineKind engine;
  bool fits;
};

TEST(BriefReport, AtMostTwelveLinesOfAtMostOneHundredColumns) {
  const BriefCase cases[] = {
      {"K3 weights only on 8 x H100: red", "kimi-k3", "H100", 8, 0, EngineKind::generic, false},
      {"K3 1M on 8 x B300 with vLLM: green", "kimi-k3", "B300", 8, 1048576, EngineKind::vllm, true},
      {"K3 1M on 8 x B300 with SGLang: red on the KV cache", "kimi-k3", "B300", 8, 1048576, EngineKind::sglang, false},
      {"Kimi-Linear 128K on one H200, generic engine", "kimi-linear-48b", "H200", 1, 131072, EngineKind::generic, true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    PlanRequest req;
    req.gpu_count = c.gpus;
    req.workload.requested = c.context > 0;
    req.workload.context_tokens = c.context;
    req.engine.kind = c.engine;
    req.perf.enabled = true;
    const auto plan = build_plan(testing::catalogue_model(c.model), testing::catalogue_gpu(c.gpu), req).value_or_throw();
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
