// Suggestions for red plans: every one, applied to the request as its flags say,
// plans green with the full build_plan (not the solvers' fast path that found it).
#include "solve/fixes.h"

#include <gtest/gtest.h>

#include <sstream>

#include "support/catalogue_plan.h"

namespace preflight {
namespace {

struct FixCase {
  const char* what;
  testing::CataloguePlanCase plan;
  std::vector<std::string> expected_flags;  // the flag names suggested, in order
};

// The request with one suggestion's flags applied ("--kv-dtype fp8", "--context 946K", ...).
PlanRequest applied(PlanRequest r, const std::string& flags) {
  std::istringstream in(flags);
  std::string flag, value;
  in >> flag >> value;
  if (flag == "--kv-dtype")
    r.workload.kv_dtype = parse_kv_dtype(value, "test").value_or_throw();
  else if (flag == "--concurrency")
    r.workload.concurrency = std::stoull(value);
  else if (flag == "--context")
    r.workload.context_tokens =
        value.back() == 'K' ? std::stoull(value.substr(0, value.size() - 1)) * 1024 : std::stoull(value);
  else if (flag == "--gpus")
    r.gpu_count = std::stoull(value.substr(0, value.find('x')));
  else
    ADD_FAILURE() << "unexpected suggestion " << flags;
  return r;
}

TEST(Fixes, EverySuggestionPlansGreenAsWritten) {
  const FixCase cases[] = {
      {"K3 weights only on 8 x H100 (the issue's acceptance case)", {"kimi-k3", "H100", 8, 0}, {"--gpus"}},
      {"K3 1M on 8 x B300, SGLang: red on the KV cache",
       {"kimi-k3", "B300", 8, 1048576, 1, EngineKind::sglang},
       {"--kv-dtype", "--context", "--gpus"}},
      {"DeepSeek-V3 32K x 64 on 8 x H200",
       {"deepseek-v3", "H200", 8, 32768, 64},
       {"--concurrency", "--context", "--gpus"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const auto& model = testing::catalogue_model(c.plan.model);
    const auto& gpu = testing::catalogue_gpu(c.plan.gpu);
    const auto req = testing::request_for(c.plan, false);
    const auto plan = build_plan(model, gpu, req).value_or_throw();
    ASSERT_FALSE(plan.verdict.fits);
    const PlanContext context(model);
    const auto fixes = find_fixes(verdict_plan_evaluator(context), gpu, req, plan);
    std::vector<std::string> flags;
    for (const auto& f : fixes) {
      flags.push_back(f.flags.substr(0, f.flags.find(' ')));
      const auto green = build_plan(model, gpu, applied(req, f.flags)).value_or_throw();
      EXPECT_TRUE(green.verdict.fits) << f.flags << ": " << green.verdict.summary;
      EXPECT_EQ(green.verdict.headroom_bytes, f.headroom_bytes) << f.flags;
    }
    EXPECT_EQ(flags, c.expected_flags);
  }
}

TEST(Fixes, GreenPlansGetNone) {
  const auto& model = testing::catalogue_model("kimi-k3");
  const auto& gpu = testing::catalogue_gpu("B300");
  PlanRequest req;
  req.gpu_count = 8;
  const auto plan = build_plan(model, gpu, req).value_or_throw();
  ASSERT_TRUE(plan.verdict.fits);
  const PlanContext context(model);
  EXPECT_TRUE(find_fixes(verdict_plan_evaluator(context), gpu, req, plan).empty());
}

}  // namespace
}  // namespace preflight
