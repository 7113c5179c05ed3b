#include "perf/latency_efficiency.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace preflight {
namespace {

// The embedded table: every GPU with public rows has its own fit, others the default.
TEST(LatencyEfficiency, EmbeddedTableHasFitsAndADefault) {
  const auto& t = LatencyEfficiencyTable::embedded();
  const auto& h100 = t.find("nvidia-h100-sxm-80gb");
  EXPECT_EQ(h100.fitted_on, "nvidia-h100-sxm-80gb");
  EXPECT_GT(h100.fitted_rows, 100u);
  EXPECT_GT(h100.serving_rows, 100u);
  EXPECT_GT(h100.band, 0.0);
  const auto& other = t.find("amd-mi300x");
  EXPECT_EQ(other.fitted_on, "default");
  EXPECT_GT(other.fitted_rows, h100.fitted_rows);  // the default is fitted on every GPU's rows
}

TEST(LatencyEfficiency, BadTablesAreOneLineErrorsNamingThePointer) {
  const std::string ok = R"("memory": 1, "compute": 0.5, "per_layer_s": 0, "per_collective_s": 0, "per_step_s": 0,
                             "per_seq_s": 0, "band": 0.3, "fitted_rows": 1, "serving_rows": 0)";
  struct Case {
    std::string text;
    const char* error;  // "" when accepted
  };
  for (const auto& c : std::vector<Case>{
           {"{\"default\": {" + ok + "}}", ""},
           {"{\"default\": {" + ok + "}, \"gpus\": {\"x\": {" + ok + "}}}", ""},
           {"[]", "t.json: expected a JSON object"},
           {"{}", "t.json: /default: missing"},
           {R"({"default": {"memory": 2}})", "t.json: /default/compute: expected a number"},
           {"{\"default\": {" + ok + "}, \"gpus\": {\"x\": {\"memory\": -1}}}",
            "t.json: /gpus/x/memory: expected a finite number >= 0"},
           {"{\"default\": {" + ok + "}, \"gpus\": []}", "t.json: /gpus: expected an object"},
       }) {
    const auto r = LatencyEfficiencyTable::parse(c.text, "t.json");
    if (std::string(c.error).empty()) {
      EXPECT_TRUE(r.ok()) << c.text << ": " << r.error().to_string();
    } else {
      ASSERT_FALSE(r.ok()) << c.text;
      EXPECT_EQ(r.error().to_string(), c.error);
    }
  }
  const auto too_fast = LatencyEfficiencyTable::parse(
      R"({"default": {"memory": 2, "compute": 0.5, "per_layer_s": 0, "per_collective_s": 0, "per_step_s": 0,
          "per_seq_s": 0, "band": 0.3, "fitted_rows": 1, "serving_rows": 0}})",
      "t.json");
  ASSERT_FALSE(too_fast.ok());
  EXPECT_EQ(too_fast.error().to_string(), "t.json: /default: memory and compute efficiencies must lie in (0, 1]");
}

}  // namespace
}  // namespace preflight
