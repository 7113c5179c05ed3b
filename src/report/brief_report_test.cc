// plan --brief: at most 12 lines, none wider than 100 columns, for green and red plans
// with and without an engine.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

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
      {"K3 1M on 8 x B300 with SGLang: red on the KV cache",
       {"kimi-k3", "B300", 8, 1048576, 1, EngineKind::sglang},
       false},
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

// The full plan's text keeps to 100 columns too: figure rows put their evidence tag on
// the next line, long sentences wrap (render_plan's width pass). Every word survives.
TEST(PlanReport, NoLineWiderThanOneHundredColumns) {
  const testing::CataloguePlanCase cases[] = {
      {"kimi-k3", "B300", 8, 1048576},
      {"kimi-k3", "B300", 8, 1048576, 1, EngineKind::vllm},
      {"kimi-k3", "H200", 16, 131072, 8, EngineKind::sglang},
      {"kimi-k3", "H100", 8, 0},
      {"deepseek-v3", "H200", 8, 32768, 16, EngineKind::vllm},
      {"llama-3.1-8b-instruct", "A100-40GB", 1, 8192},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.model << " on " << c.gpus << " x " << c.gpu);
    const auto plan = testing::plan_for(c, true);
    const auto text = render_plan(plan, TextStyle::table);
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) EXPECT_LE(line.size(), 100u) << line;
    // Wrapping moves words, it never drops or splits one: the same words as before the width pass.
    const auto words = [](const std::string& t) {
      std::vector<std::string> out;
      std::istringstream in(t);
      for (std::string w; in >> w;) out.push_back(w);
      return out;
    };
    EXPECT_EQ(words(text), words(render_plan_lines(plan, TextStyle::table)));
  }
}

}  // namespace
}  // namespace preflight
