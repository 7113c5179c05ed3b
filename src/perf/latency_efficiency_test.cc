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
  const auto& other = t.find("nvidia-l4");
  EXPECT_EQ(other.fitted_on, "default");
  EXPECT_GT(other.fitted_rows, h100.fitted_rows);  // the default is fitted on every GPU's rows
  // From the public vLLM/SGLang runs: a MoE share below 1, SGLang's front end.
  EXPECT_LT(t.find("nvidia-b200-hgx").step.moe_memory, 1.0);
  EXPECT_GT(t.find("nvidia-b200-hgx").step.moe_memory, 0.0);
  EXPECT_GT(t.front_end("sglang").per_request_s, 0.0);
  EXPECT_GT(t.front_end("sglang").rows, 0u);
  EXPECT_EQ(t.front_end("generic").per_request_s, 0.0);
}

// moe_memory and engines are optional: absent, no loss and no front end.
TEST(LatencyEfficiency, MoeShareAndFrontEndsAreOptional) {
  const std::string ok = R"("memory": 1, "compute": 0.5, "per_layer_s": 0, "per_collective_s": 0, "per_step_s": 0,
                             "per_seq_s": 0, "band": 0.3, "fitted_rows": 1, "serving_rows": 0)";
  const auto plain = LatencyEfficiencyTable::parse("{\"default\": {" + ok + "}}", "t.json").value_or_throw();
  EXPECT_EQ(plain.find("x").step.moe_memory, 1.0);
  EXPECT_EQ(plain.front_end("vllm").per_request_s, 0.0);
  const auto with = LatencyEfficiencyTable::parse(
                        "{\"default\": {" + ok +
                            ", \"moe_memory\": 0.4}, \"engines\": {\"vllm\": {\"per_request_s\": 0.05, \"rows\": 3}}}",
                        "t.json")
                        .value_or_throw();
  EXPECT_DOUBLE_EQ(with.find("x").step.moe_memory, 0.4);
  EXPECT_DOUBLE_EQ(with.front_end("vllm").per_request_s, 0.05);
  EXPECT_EQ(with.front_end("vllm").rows, 3u);
  EXPECT_EQ(with.front_end("sglang").per_request_s, 0.0);
  for (const auto& [text, error] : std::vector<std::pair<std::string, std::string>>{
           {"{\"default\": {" + ok + ", \"moe_memory\": 0}}",
            "t.json: /default: memory, moe_memory and compute efficiencies must lie in (0, 1]"},
           {"{\"default\": {" + ok + "}, \"engines\": []}", "t.json: /engines: expected an object"},
           {"{\"default\": {" + ok + "}, \"engines\": {\"vllm\": {\"per_request_s\": -1}}}",
            "t.json: /engines/vllm/per_request_s: expected seconds from 0 to 60"}}) {
    const auto r = LatencyEfficiencyTable::parse(text, "t.json");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error().to_string(), error);
  }
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
  EXPECT_EQ(too_fast.error().to_string(),
            "t.json: /default: memory, moe_memory and compute efficiencies must lie in (0, 1]");
}

}  // namespace
}  // namespace preflight
