// The name-matching rules of quantization configs: modules_to_not_convert and
// compressed-tensors ignore / targets as the producers match them, the built-in
// matcher against std::regex, patterns refused before std::regex runs them, and
// per-expert decisions.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <string>
#include <tuple>

#include "model/inventory.h"
#include "model/quantization.h"
#include "model/quantization/quantization_test_support.h"

namespace preflight {
namespace {

using namespace quantization_test;

TEST(QuantPatterns, ModulesToNotConvertMatchLikeTheProducers) {
  const auto s = parse(R"({"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn",
                          "model.layers.*.mlp.router", "lm_head", "gate", "model\\.layers\\.[0-3]\\.mlp"]})")
                     .value_or_throw();
  const auto& p = s.ignore;
  ASSERT_EQ(p.size(), 5u);
  // transformers' re.match (a glob-like regex anchored at the start).
  EXPECT_TRUE(p[0].matches("model.layers.17.self_attn.q_proj"));
  EXPECT_FALSE(p[0].matches("model.layers.17.mlp.experts"));
  EXPECT_TRUE(p[1].matches("model.layers.3.mlp.router"));
  EXPECT_FALSE(p[1].matches("model.layers.3.mlp.experts.gate_up_proj"));
  EXPECT_TRUE(p[2].matches("lm_head"));
  // Substring (AutoAWQ, older transformers): "gate" also reaches gate_proj.
  EXPECT_TRUE(p[3].matches("model.layers.0.block_sparse_moe.gate"));
  EXPECT_TRUE(p[3].matches("model.layers.0.mlp.gate_proj"));
  EXPECT_FALSE(p[3].matches("model.layers.0.mlp.up_proj"));
  // A real regex goes to the regex engine.
  EXPECT_FALSE(p[4].simple);
  EXPECT_TRUE(p[4].matches("model.layers.2.mlp.down_proj"));
  EXPECT_FALSE(p[4].matches("model.layers.7.mlp.down_proj"));
}

TEST(QuantPatterns, CompressedTensorsIgnoreIsExactOrReMatch) {
  const auto s = parse(R"({"quant_method": "compressed-tensors", "format": "int-quantized",
                          "ignore": ["lm_head", "re:.*self_attn.*"],
                          "config_groups": {"g": {"targets": ["Linear"], "weights": {"num_bits": 8}}}})")
                     .value_or_throw();
  EXPECT_TRUE(s.ignore[0].matches("lm_head"));
  EXPECT_FALSE(s.ignore[0].matches("model.lm_head"));  // exact names are not substrings
  EXPECT_TRUE(s.ignore[1].matches("model.layers.0.self_attn.q_proj"));
  EXPECT_FALSE(s.ignore[1].matches("model.layers.0.mlp.up_proj"));
}

TEST(QuantPatterns, TheBuiltInMatcherAgreesWithStdRegex) {
  const char* patterns[] = {R"(re:.*layers\.1\.block_sparse_moe\.experts\.7\..*)",
                            R"(re:.*self_attn.*)",
                            R"(re:model.layers.1.*)",
                            R"(re:.*mlp\.(gate|up)_proj.*)",
                            R"(re:lm_head)",
                            R"(re:.*experts\.[1-3]\..*)",
                            R"(re:a*b.*c)",
                            R"(re:.*\-x)",
                            R"(re:.*mlp\.(gate|up|gate_up|down)_proj.*)",
                            R"(re:(a|b)c)",
                            R"(re:x(ab|cd)*)",
                            R"(re:.*(self|cross)_attn\..*)"};
  const char* names[] = {"model.layers.1.block_sparse_moe.experts.7.w1",
                         "model.layers.1.block_sparse_moe.experts.17.w1",
                         "model.layers.11.self_attn.q_proj",
                         "model.layers.1.mlp.gate_proj",
                         "lm_head",
                         "lm_headx",
                         "model.layers.0.mlp.experts.2.up_proj",
                         "aaabxxc",
                         "bc",
                         "y-x",
                         "model",
                         "model.layers.3.mlp.gate_up_proj",
                         "model.layers.3.mlp.down_proj.weight",
                         "ac",
                         "xababcd",
                         "model.layers.3.cross_attn.o_proj",
                         "model.layers.3.mlp.gate_up_projx"};
  std::string list;
  for (const char* p : patterns) list += std::string(list.empty() ? "" : ", ") + nlohmann::json(p).dump();
  const auto s = parse(R"({"quant_method": "compressed-tensors", "format": "int-quantized", "ignore": [)" + list +
                       R"(], "config_groups": {"g": {"targets": ["Linear"], "weights": {"num_bits": 8}}}})")
                     .value_or_throw();
  ASSERT_EQ(s.ignore.size(), std::size(patterns));
  EXPECT_TRUE(s.ignore[0].simple);
  EXPECT_TRUE(s.ignore[2].simple);
  EXPECT_TRUE(s.ignore[3].simple);  // one literal alternation: a form per alternative (Kimi K3's ignore list)
  EXPECT_EQ(s.ignore[3].forms.size(), 2u);
  EXPECT_TRUE(s.ignore[8].simple);
  EXPECT_FALSE(s.ignore[10].simple);  // a repeated group: std::regex
  EXPECT_FALSE(s.ignore[5].simple);   // a class: std::regex
  for (const auto& p : s.ignore) {
    const std::regex re(p.text.substr(3));
    for (const char* n : names)
      EXPECT_EQ(p.matches(n), std::regex_search(std::string(n), re, std::regex_constants::match_continuous))
          << p.text << " on " << n;
  }
}

// std::regex backtracks without bound: a quantifier on what already repeats is
// refused before it runs (a fuzzed gpt-oss config with "model.layers**...*.self_attn"
// in modules_to_not_convert held the reader for minutes). Python refuses "**" too.
TEST(QuantPatterns, RepeatsOfRepeatsAreRefusedBeforeStdRegexRunsThem) {
  struct Case {
    const char* pattern;
    const char* why;  // "" : accepted
  };
  const Case cases[] = {
      {"re:model.layers**.self_attn", "a repeat of a repeat (Python: multiple repeat)"},
      {"re:a+*b", "a repeat of a repeat (Python: multiple repeat)"},
      {"re:a{2}{3}", "a repeat of a repeat (Python: multiple repeat)"},
      {"re:a*??", "a repeat of a repeat (Python: multiple repeat)"},
      {"re:(a+)+b", "a repeated group that itself repeats (exponential backtracking)"},
      {"re:((ab)*c)*", "a repeated group that itself repeats (exponential backtracking)"},
      {"re:(x|y*)+z", "a repeated group that itself repeats (exponential backtracking)"},
      {"re:.*?self_attn", ""},  // lazy
      {"re:x(ab|cd)*", ""},     // a repeated group of plain text
      {"re:a{2,3}b", ""},
      {"re:[*+]*x", ""},     // quantifier characters inside a class
      {R"(re:\*+x)", ""},    // an escaped star, repeated
      {"re:(a*)b(c+)", ""},  // groups that repeat inside, not repeated
  };
  for (const auto& c : cases) {
    const auto s = parse(R"({"quant_method": "compressed-tensors", "format": "int-quantized", "ignore": [)" +
                         nlohmann::json(c.pattern).dump() +
                         R"(], "config_groups": {"g": {"targets": ["Linear"], "weights": {"num_bits": 8}}}})");
    if (std::string(c.why).empty()) {
      EXPECT_TRUE(s.ok()) << c.pattern << ": " << (s.ok() ? "" : s.error().to_string());
      continue;
    }
    ASSERT_FALSE(s.ok()) << c.pattern;
    EXPECT_EQ(s.error().to_string(), fmt::format("config.json: /quantization_config/ignore/0: regular expression '{}' "
                                                 "is refused: {}",
                                                 c.pattern, c.why));
  }
  // The fuzzed config's shape: an mxfp4 modules_to_not_convert entry.
  const auto m =
      parse(R"({"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers**********.*.self_attn"]})");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(
      m.error().to_string(),
      "config.json: /quantization_config/modules_to_not_convert/0: 'model.layers**********.*.self_attn' is refused "
      "as a regular expression: a repeat of a repeat (Python: multiple repeat)");
}

const std::string kIntGroup = R"("config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 8,
    "type": "int", "strategy": "channel"}}})";

TEST(QuantPatterns, AnIgnoredExpertIsSplitOffItsGroup) {
  const auto m = quantize(R"({"quant_method": "compressed-tensors", "format": "int-quantized",
                          "ignore": ["model.layers.0.mlp.experts.2.down_proj"], )" +
                              kIntGroup + "}",
                          {expert(kL0 + "mlp.experts.{E}.down_proj.weight", {64, 128}, 4)});
  // experts 0-1 quantized (grouped), 2 plain, 3 quantized.
  std::vector<std::tuple<std::string, std::string, std::uint32_t, std::uint32_t>> got;
  for (const auto& t : m.tensors)
    got.emplace_back(t.name, std::string(dtype_name(t.dtype)), t.instances, t.first_instance);
  const decltype(got) want = {
      {kL0 + "mlp.experts.{E}.down_proj.weight", "I8", 2, 0},
      {kL0 + "mlp.experts.{E}.down_proj.weight_scale", "BF16", 2, 0},
      {kL0 + "mlp.experts.2.down_proj.weight", "BF16", 1, 2},
      {kL0 + "mlp.experts.3.down_proj.weight", "I8", 1, 3},
      {kL0 + "mlp.experts.3.down_proj.weight_scale", "BF16", 1, 3},
  };
  EXPECT_EQ(got, want);
}

TEST(QuantPatterns, IgnoringExpertZeroLeavesTheOthersQuantized) {
  const auto m = quantize(R"({"quant_method": "fp8", "weight_block_size": [128, 128],
                          "modules_to_not_convert": ["model.layers.0.mlp.experts.0.down_proj"]})",
                          {expert(kL0 + "mlp.experts.{E}.down_proj.weight", {256, 256}, 4)});
  ASSERT_EQ(m.tensors.size(), 3u);
  EXPECT_EQ(m.tensors[0].name, kL0 + "mlp.experts.0.down_proj.weight");
  EXPECT_EQ(m.tensors[0].dtype, Dtype::BF16);
  EXPECT_EQ(m.tensors[1].dtype, Dtype::F8_E4M3);
  EXPECT_EQ(m.tensors[1].instances, 3u);
  EXPECT_EQ(m.tensors[1].first_instance, 1u);
  EXPECT_EQ(m.tensors[2].name, kL0 + "mlp.experts.{E}.down_proj.weight_scale_inv");
}

TEST(QuantPatterns, ARegexTargetCanSkipExpertZero) {
  const auto m = quantize(R"({"quant_method": "compressed-tensors", "format": "int-quantized",
                          "config_groups": {"g": {"targets": ["re:.*experts\\.[1-3]\\..*"],
                            "weights": {"num_bits": 8, "strategy": "channel"}}}})",
                          {expert(kL0 + "mlp.experts.{E}.w1.weight", {64, 128}, 4)});
  ASSERT_EQ(m.tensors.size(), 3u);
  EXPECT_EQ(m.tensors[0].name, kL0 + "mlp.experts.0.w1.weight");
  EXPECT_EQ(m.tensors[0].dtype, Dtype::BF16);
  EXPECT_EQ(m.tensors[1].name, kL0 + "mlp.experts.{E}.w1.weight");
  EXPECT_EQ(m.tensors[1].dtype, Dtype::I8);
  EXPECT_EQ(m.tensors[1].instances, 3u);
  EXPECT_EQ(m.tensors[1].first_instance, 1u);
}

// The decider keeps an index-insensitive pattern's answer for every name that differs
// only in its digit runs; an index-sensitive one is asked for each name. Each row: an
// ignore pattern, and which of layers 1, 2, 11 and 12 it leaves unquantized.
TEST(QuantPatterns, AnswersKeptAcrossLayersAreThoseOfEachName) {
  struct Row {
    std::string pattern;
    std::vector<bool> ignored;  // layers 1, 2, 11, 12
  };
  const std::vector<Row> rows = {
      {"re:.*self_attn.*", {true, true, true, true}},
      {"re:.*mlp.*", {false, false, false, false}},
      {"re:.*layers\\.1\\..*", {true, false, false, false}},
      {"re:.*layers\\.1.*", {true, false, true, true}},
      {"re:.*layers\\.\\S\\.self.*", {true, true, false, false}},  // one character: 1 and 2, not 11 or 12
      {"re:.*layers\\.\\d\\d\\..*", {false, false, true, true}},
      {"re:.*layers\\..\\.self.*", {true, true, false, false}},
      {"model.layers.12.self_attn.q_proj", {false, false, false, true}},
  };
  const std::vector<int> layers = {1, 2, 11, 12};
  for (const auto& row : rows) {
    std::vector<LogicalTensor> logical;
    for (int l : layers)
      logical.push_back(tensor("model.layers." + std::to_string(l) + ".self_attn.q_proj.weight", {64, 128}));
    const auto m = quantize(R"({"quant_method": "compressed-tensors", "format": "int-quantized", "ignore": [)" +
                                nlohmann::json(row.pattern).dump() + "], " + kIntGroup + "}",
                            logical);
    std::vector<bool> ignored;
    for (int l : layers)
      for (const auto& t : m.tensors)
        if (t.name == "model.layers." + std::to_string(l) + ".self_attn.q_proj.weight")
          ignored.push_back(t.dtype == Dtype::BF16);
    EXPECT_EQ(ignored, row.ignored) << row.pattern;
  }
  EXPECT_TRUE(pattern_is_index_sensitive("experts\\.\\S\\."));
  EXPECT_FALSE(pattern_is_index_sensitive("experts\\.\\s*.*"));
}

TEST(QuantPatterns, TheMostSpecificTargetWinsWhateverTheGroupOrder) {
  // compressed-tensors: an exact name beats a regex, which beats a class name.
  const auto m =
      quantize(R"({"quant_method": "compressed-tensors",
      "config_groups": {
        "group_0": {"format": "int-quantized", "targets": ["Linear"], "weights": {"num_bits": 8, "strategy": "channel"}},
        "group_1": {"format": "float-quantized", "targets": ["re:.*down_proj"],
                    "weights": {"num_bits": 8, "type": "float", "strategy": "channel"}},
        "group_2": {"format": "pack-quantized", "targets": ["model.layers.0.mlp.up_proj"],
                    "weights": {"num_bits": 4, "strategy": "group", "group_size": 64}}}})",
               {tensor(kL0 + "mlp.gate_proj.weight", {128, 256}), tensor(kL0 + "mlp.down_proj.weight", {256, 128}),
                tensor(kL0 + "mlp.up_proj.weight", {128, 256})});
  ASSERT_EQ(m.tensors.size(), 7u);
  EXPECT_EQ(m.tensors[0].dtype, Dtype::I8);                         // gate_proj: Linear
  EXPECT_EQ(m.tensors[2].dtype, Dtype::F8_E4M3);                    // down_proj: regex
  EXPECT_EQ(m.tensors[4].name, kL0 + "mlp.up_proj.weight_packed");  // up_proj: exact name
}

TEST(QuantPatterns, FusedSlicesCountAsOneStoredTensor) {
  const auto m = quantize(R"({"quant_method": "mxfp4"})", {expert(kL0 + "mlp.experts.down_proj", {2880, 2880}, 32),
                                                           expert(kL0 + "mlp.experts.{E}.w2.weight", {64, 64}, 4)});
  ASSERT_EQ(m.tensors.size(), 4u);
  EXPECT_TRUE(is_fused_slice(m.tensors[0]));
  EXPECT_EQ(shape_text(stored_shape(m.tensors[0])), "[32, 2880, 90, 16]");
  EXPECT_EQ(shape_text(stored_shape(m.tensors[1])), "[32, 2880, 90]");
  EXPECT_FALSE(is_fused_slice(m.tensors[2]));
  EXPECT_EQ(shape_text(stored_shape(m.tensors[2])), "[64, 2, 16]");
  EXPECT_EQ(m.tensor_count(), 2u + 8u);  // 2 fused tensors + 4 experts x (blocks, scales)
  std::uint64_t instances = 0;
  for (const auto& t : m.tensors) instances += t.instances;
  EXPECT_EQ(instances, 64u + 8u);  // the instance count placement works with
}

TEST(QuantPatterns, NoQuantizationConfigKeepsEveryTensorPlain) {
  nlohmann::json doc = nlohmann::json::object();
  const auto s = parse_quantization(JsonFields(doc, "config.json")).value_or_throw();
  EXPECT_EQ(s.method, "none");
  const auto m = apply_quantization({tensor(kL0 + "self_attn.q_proj.weight", {64, 128})}, s).value_or_throw();
  ASSERT_EQ(m.tensors.size(), 1u);
  EXPECT_EQ(m.tensors[0].format, StorageFormat::plain);
  EXPECT_EQ(m.tensors[0].bytes_each, 16'384u);
}

// ---------------------------------------------------------------------------

}  // namespace
}  // namespace preflight
