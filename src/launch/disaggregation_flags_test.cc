#include "launch/disaggregation_flags.h"

#include <gtest/gtest.h>

namespace preflight {
namespace {

TEST(DisaggregationFlags, EmbeddedEnginesNameTheirSides) {
  const auto& vllm = disaggregation_flags(EngineKind::vllm);
  ASSERT_EQ(vllm.prefill.size(), 1u);
  EXPECT_EQ(vllm.prefill[0].first, "--kv-transfer-config");
  EXPECT_NE(vllm.prefill[0].second.find("NixlConnector"), std::string::npos);
  EXPECT_EQ(vllm.decode, vllm.prefill);  // kv_both on both sides
  const auto& sglang = disaggregation_flags(EngineKind::sglang);
  ASSERT_EQ(sglang.prefill.size(), 1u);
  EXPECT_EQ(sglang.prefill[0], std::make_pair(std::string("--disaggregation-mode"), std::string("prefill")));
  EXPECT_EQ(sglang.decode[0].second, "decode");
  EXPECT_NE(sglang.front.find("--pd-disaggregation"), std::string::npos);
  for (const auto* f : {&vllm, &sglang}) EXPECT_FALSE(f->source.empty());
}

TEST(DisaggregationFlags, BadEntriesNameTheField) {
  struct Case {
    const char* text;
    const char* field;
  };
  for (const auto& c : std::vector<Case>{
           {R"({"engines": {}})", "/engines/vllm"},
           {R"({"engines": {"vllm": {"both": [["kv", "x"]], "front": "a", "source": "b"}}})", "/engines/vllm/both"},
           {R"({"engines": {"vllm": {"prefill": "--x", "front": "a", "source": "b"}}})", "/engines/vllm/prefill"},
           {R"({"engines": {"vllm": {"front": "a"}}})", "/engines/vllm/source"},
       }) {
    auto f = parse_disaggregation_flags(c.text, "d.json", EngineKind::vllm);
    ASSERT_FALSE(f.ok()) << c.text;
    EXPECT_EQ(f.error().field, c.field) << f.error().to_string();
  }
}

}  // namespace
}  // namespace preflight
