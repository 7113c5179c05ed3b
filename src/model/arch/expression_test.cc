// The description language (expression.h), table-driven: values, precedence,
// absent fields and their errors.
#include "model/arch/expression.h"

#include <gtest/gtest.h>

#include "architecture_claims.h"
#include "embedded_files.h"
#include "model/arch/architecture.h"
#include "model/family_registry.h"

namespace preflight::arch {
namespace {

const nlohmann::json kRoot = nlohmann::json::parse(R"({
  "hidden_size": 4096, "tie_word_embeddings": true, "layer_types": ["sliding_attention", "full_attention"],
  "kda": [1, 2, 4, 5, 2], "full": [3, 6, 1], "signed": [-1, 1],
  "text_config": {"num_attention_heads": 32, "head_dim": null, "vision": {"depth": 3}}})");

Result<Value> eval(const std::string& text, double i = 0) {
  auto e = Expression::parse(text, "test", "/x");
  if (!e) return e.error();
  Scope scope;
  scope.root = &kRoot;
  scope.text = &kRoot["text_config"];
  scope.text_pointer = "/text_config";
  scope.config_origin = "config.json";
  scope.variable = [i](std::string_view name) -> std::optional<Result<Value>> {
    if (name == "i") return Result<Value>(Value::of(i));
    return std::nullopt;
  };
  return Evaluator::evaluate(*e, scope);
}

TEST(ArchExpression, Values) {
  struct Case {
    const char* text;
    nlohmann::json want;
  };
  const Case cases[] = {
      {"1 + 2 * 3", 7},
      {"(1 + 2) * 3", 9},
      {"7 // 2", 3},
      {"7 / 2", 3.5},
      {"-7 % 3", 2},                                  // Python's modulo
      {"$hidden_size // $num_attention_heads", 128},  // $ falls back to the root
      {"$head_dim ?? 4096 // 32", 128},               // null reads as absent; ?? binds loosest
      {"@text_config.vision.depth", 3},
      {"$vision.depth * 2", 6},
      {"has($head_dim)", false},
      {"$tie_word_embeddings && 1 < 2", true},
      {"@layer_types[i] == 'full_attention' ? 'full' : 'local'", "local"},
      {"len(@layer_types)", 2},
      {"contains([1, 2, 3], 2)", true},
      {"ceil_div(10, 4) + round_up(10, 4) + min(3, 4) + max(3, 4)", 3 + 12 + 3 + 4},
      {"version('4.57.0.dev0')", 4057000},  // release strings compare as numbers
      {"version('4.31.0') < version('4.32')", true},
      {"version('4.9.1') < version('4.31')", true},  // not a string comparison
      {"version('5.5.0.dev0') > version('4.57.1')", true},
      {"item([8, 9, 10], 1) + item(7, 1)", 16},
      {"'M-M*'[3]", "*"},                                                    // a pattern string indexes its characters
      {"@text_config['vision'].depth + (@text_config['no-such'] ?? 1)", 4},  // a member by string key
      {"numbers('4, 5,6')", nlohmann::json::array({4, 5, 6})},               // Step3's moe_layers_enum
      {"contains(numbers([1, 2]), 2) && union_size([1, 2], [2, 3]) == 3", true},
      {"union_size(@kda, @full)", 6},  // config lists of layer numbers: sorted, counted
      {"union_size(@kda, [])", 4},
      {"union_size(@kda, @signed)", 5},                 // -1 is not unsigned: compared pairwise
      {"union_size([1, 2.0, 'a'], [2, 'a', 1.5])", 4},  // 1, 2 (= 2.0), 'a', 1.5
  };
  for (const auto& c : cases) {
    auto v = eval(c.text);
    ASSERT_TRUE(v.ok()) << c.text << ": " << v.error().to_string();
    if (c.want.is_number())
      EXPECT_DOUBLE_EQ(v->json.get<double>(), c.want.get<double>()) << c.text;
    else
      EXPECT_EQ(v->json, c.want) << c.text;
  }
  EXPECT_EQ(eval("@layer_types[i]", 1)->json, "full_attention");
}

TEST(ArchExpression, ErrorsNameTheFieldOrTheText) {
  struct Case {
    const char* text;
    const char* error;
  };
  const Case cases[] = {
      {"$vocab_size * 2", "config.json: /text_config/vocab_size: missing field"},
      {"@layer_types[5]", "config.json: /layer_types: has 2 entries; entry 5 is needed"},
      {"1 // 0", "config.json: division by zero in \"1 // 0\""},
      {"width", "config.json: architecture description: unknown name 'width' in \"width\""},
      {"1 +", "test: /x: unexpected end at offset 3 of expression \"1 +\""},
      {"frob(1)", "test: /x: unknown function frob() at offset 7 of expression \"frob(1)\""},
  };
  // Deep nesting is refused, not recursed into.
  const std::string deep = std::string(100'000, '(') + "1" + std::string(100'000, ')');
  auto d = Expression::parse(deep, "test", "/x");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("nested too deeply"), std::string::npos);
  for (const auto& c : cases) {
    auto v = eval(c.text);
    ASSERT_FALSE(v.ok()) << c.text;
    EXPECT_EQ(v.error().to_string(), c.error);
  }
}

TEST(ArchTable, EveryEmbeddedDescriptionParsesAndClaimsItsTypesOnce) {
  const auto& table = ArchitectureTable::embedded();
  // The embedded table reads only each file's name and claims at start (one line
  // each); the full parse of the same files, which builds and checks every
  // description, must find the same claims.
  std::vector<std::pair<std::string, std::string>> files;
  for (auto path : embedded::embedded_paths())
    if (path.starts_with("data/architectures/"))
      files.emplace_back(std::string(path), std::string(embedded::embedded_file(path)));
  auto full = ArchitectureTable::parse(files);
  ASSERT_TRUE(full.ok()) << full.error().to_string();
  EXPECT_EQ(table.claims(), full.value().claims());
  // The build read every description's claims (cmake/architecture_claims.cmake):
  // the table above came from it, not from the fallback scan.
  std::size_t read = 0;
  for (const auto& c : embedded::architecture_claims())
    if (c.read) {
      ++read;
      EXPECT_TRUE(c.path.starts_with("data/architectures/")) << c.path;
    }
  EXPECT_EQ(read, files.size());
  EXPECT_EQ(table.all().size(), files.size());
  EXPECT_GE(table.all().size(), 30u);
  EXPECT_EQ(table.for_config("phi3", "")->name, "phi3");
  EXPECT_EQ(table.for_config("", "QWenLMHeadModel")->name, "qwen");
  EXPECT_TRUE(table.by_name("clip_vision")->component);
  // A description that extends an unknown one, or claims a type twice, is refused with its file.
  auto bad = ArchitectureTable::parse({{"a.json", R"({"name": "a", "extends": "nothing"})"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().to_string(), "a.json: /extends: no description named \"nothing\"");
  auto twice = ArchitectureTable::parse(
      {{"a.json", R"({"name": "a", "model_types": ["x"]})"}, {"b.json", R"({"name": "b", "model_types": ["x"]})"}});
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().message.find("claimed by"), std::string::npos);
  // An include names a description with tensors; one that includes itself stops at the depth bound.
  auto missing = ArchitectureTable::parse({{"a.json", R"({"name": "a", "tensors": [{"include": "mixer"}]})"}});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().to_string(), "a.json: /tensors/0/include: no description named \"mixer\" with tensors");
  auto loop = ArchitectureTable::parse({{"a.json", R"({"name": "a", "tensors": [{"include": "a"}]})"}});
  ASSERT_FALSE(loop.ok());
  EXPECT_NE(loop.error().message.find("nest deeper than 8"), std::string::npos);
  // Wrong shapes are one-line errors naming the file and field (the fuzzer's finding: a string
  // "checks" was indexed as a list and threw).
  struct Malformed {
    const char* json;
    const char* error;
  };
  const Malformed malformed[] = {
      {R"({"name": "a", "checks": "transformers models"})", "a.json: /checks: expected a list"},
      {R"({"name": "a", "notes": {"x": 1}})", "a.json: /notes: expected a list"},
      {R"({"name": "a", "summary": 3})", "a.json: /summary: expected a string"},
      {R"({"name": "a", "parts": [7]})", "a.json: /parts/0: expected an object"},
      {R"({"name": "a", "parts": [{"use": 1}]})", "a.json: /parts/0/use: expected a string"},
      {R"({"name": "a", "component": "yes"})", "a.json: /component: expected true or false"},
  };
  for (const auto& m : malformed) {
    auto r = ArchitectureTable::parse({{"a.json", m.json}});
    ASSERT_FALSE(r.ok()) << m.json;
    EXPECT_EQ(r.error().to_string(), m.error);
  }
  // The five Mamba-2 hybrids include one mixer (SsmDescriptions checks what it expands to).
  EXPECT_TRUE(table.by_name("mamba2_mixer")->component);
}

TEST(ArchOutOfScope, EncodersGetOneLine) {
  auto bert = build_model_from_config(R"({"model_type": "bert", "hidden_size": 768})", "config.json");
  ASSERT_FALSE(bert.ok());
  EXPECT_EQ(bert.error().to_string(),
            "config.json: /model_type: model_type 'bert' is an encoder-only model: preflight sizes decoder LLMs and "
            "vision-language models for serving");
  auto t5 = build_model_from_config(R"({"model_type": "my_t5", "is_encoder_decoder": true})", "config.json");
  ASSERT_FALSE(t5.ok());
  EXPECT_NE(t5.error().message.find("encoder-decoder"), std::string::npos);
}

}  // namespace
}  // namespace preflight::arch

namespace preflight::arch {
namespace {

TEST(ArchFallback, UnknownLayerKindsAndUnknownLanguageModelsAreReadGenerically) {
  // An unknown model_type whose layer_types name kinds nobody reads (LFM2's "conv").
  auto lfm = build_model_from_config(
      R"({"model_type": "lfm_like", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
          "intermediate_size": 128, "vocab_size": 100, "layer_types": ["conv", "full_attention"]})",
      "config.json");
  ASSERT_TRUE(lfm.ok()) << lfm.error().to_string();
  EXPECT_FALSE(lfm->family_reader);
  EXPECT_EQ(lfm->count_layers(LayerKind::full_attention), 2u);
  EXPECT_NE(lfm->notes.front().find("\"conv\""), std::string::npos) << lfm->notes.front();
  // A known wrapper (mistral3) around an unknown language model: the generic
  // reading inside the wrapper, and no reader claimed.
  auto wrapped = build_model_from_config(
      R"({"model_type": "mistral3", "text_config": {"model_type": "mistral9", "hidden_size": 64,
          "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100}})",
      "config.json");
  ASSERT_TRUE(wrapped.ok()) << wrapped.error().to_string();
  EXPECT_EQ(wrapped->family, "mistral3");
  EXPECT_FALSE(wrapped->family_reader);
}

}  // namespace
}  // namespace preflight::arch
