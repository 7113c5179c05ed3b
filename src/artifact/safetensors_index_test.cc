// model.safetensors.index.json: the real gpt-oss-20b index and the
// metadata-only copies in tests/data/reference, and a table of bad inputs each with its
// exact one-line error.
#include "artifact/safetensors_index.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reference_files.h"

namespace preflight {
namespace {

std::string shared_text(const std::string& rel) {
  std::string text = testing::read_reference(rel);
  EXPECT_FALSE(text.empty()) << "could not read " << testing::reference_path(rel);
  return text;
}

TEST(IndexReal, GptOss20bHasThreeShardsNumberedFromZero) {
  const std::string rel = "models/openai__gpt-oss-20b/model.safetensors.index.json";
  auto index = parse_safetensors_index(shared_text(rel), rel);
  ASSERT_TRUE(index.ok()) << index.error().to_string();
  // Counted from the map's values: "-of-00002" would say 2.
  EXPECT_EQ(index->shard_files,
            (std::vector<std::string>{"model-00000-of-00002.safetensors", "model-00001-of-00002.safetensors",
                                      "model-00002-of-00002.safetensors"}));
  ASSERT_TRUE(index->total_size.has_value());
  EXPECT_EQ(*index->total_size, 13'761'264'768u);
  EXPECT_FALSE(index->total_parameters.has_value());
  EXPECT_EQ(index->weight_map.size(), 459u);
  EXPECT_EQ(index->weight_map.at("model.layers.0.input_layernorm.weight"), "model-00000-of-00002.safetensors");
}

TEST(IndexReal, DeepSeekV3MetadataOnlyKeepsTheAnomalousTotal) {
  // total_size is 2 x the element count here, not bytes; the reader reports it as is.
  const std::string rel = "models/deepseek-ai__DeepSeek-V3/model.safetensors.index.metadata.json";
  auto index = parse_safetensors_index(shared_text(rel), rel);
  ASSERT_TRUE(index.ok()) << index.error().to_string();
  ASSERT_TRUE(index->total_size.has_value());
  EXPECT_EQ(*index->total_size, 1'369'062'772'000u);
  EXPECT_FALSE(index->total_parameters.has_value());
  EXPECT_TRUE(index->weight_map.empty());
  EXPECT_TRUE(index->shard_files.empty());
}

TEST(IndexReal, KimiLinearMetadataOnlyHasSizeAndParameters) {
  const std::string rel = "models/moonshotai__Kimi-Linear-48B-A3B-Instruct/model.safetensors.index.metadata.json";
  auto index = parse_safetensors_index(shared_text(rel), rel);
  ASSERT_TRUE(index.ok()) << index.error().to_string();
  EXPECT_EQ(index->total_size, std::optional<std::uint64_t>(98'245'528'576u));
  EXPECT_EQ(index->total_parameters, std::optional<std::uint64_t>(49'122'681'728u));
  EXPECT_TRUE(index->shard_files.empty());
}

TEST(IndexFormat, NumericStringsSubfoldersAndUnknownKeys) {
  auto index = parse_safetensors_index(
      R"({"metadata": {"total_size": "13761264768", "format": "pt"},
          "_note": ["anything"],
          "weight_map": {"b": "sub/model-00002-of-00002.safetensors",
                         "a": "model-00001-of-00002.safetensors",
                         "c": "model-00001-of-00002.safetensors"}})",
      "i.json");
  ASSERT_TRUE(index.ok()) << index.error().to_string();
  EXPECT_EQ(index->total_size, std::optional<std::uint64_t>(13'761'264'768u));
  EXPECT_EQ(index->shard_files,
            (std::vector<std::string>{"model-00001-of-00002.safetensors", "sub/model-00002-of-00002.safetensors"}));
  EXPECT_EQ(index->weight_map.size(), 3u);

  // No metadata at all is fine when the map is there.
  auto bare = parse_safetensors_index(R"({"weight_map": {"w": "model.safetensors"}})", "i.json");
  ASSERT_TRUE(bare.ok()) << bare.error().to_string();
  EXPECT_FALSE(bare->total_size.has_value());
  EXPECT_EQ(bare->shard_files, std::vector<std::string>{"model.safetensors"});

  // Only the root's weight_map is the index; one nested elsewhere is an unknown key.
  auto nested = parse_safetensors_index(
      R"({"metadata": {"weight_map": {"x": 5}}, "weight_map": {"w": "model.safetensors"}})", "i.json");
  ASSERT_TRUE(nested.ok()) << nested.error().to_string();
  EXPECT_EQ(nested->weight_map, (std::map<std::string_view, std::string_view>{{"w", "model.safetensors"}}));
}

struct BadIndex {
  const char* label;
  std::string text;
  const char* error;
};

TEST(IndexBadInput, EachProblemIsOneLocatedLine) {
  const std::vector<BadIndex> cases = {
      {"empty file", "",
       "i.json: invalid JSON: parse error at line 1, column 1: syntax error while parsing value - "
       "unexpected end of input; expected '[', '{', or a literal"},
      {"not JSON", "{\"weight_map\": {",
       "i.json: invalid JSON: parse error at line 1, column 17: syntax error while parsing object "
       "key - unexpected end of input; expected string literal"},
      {"NUL inside", std::string("{\"metadata\": {}}\0{}", 19), "i.json: invalid JSON: NUL byte at offset 16"},
      {"not an object", "[\"model.safetensors\"]",
       "i.json: expected a JSON object with \"weight_map\" and \"metadata\", got [\"model.safetensors\"]"},
      {"neither key", "{\"weights\": {}}",
       "i.json: expected \"weight_map\" (tensor name -> shard file) or \"metadata\", found neither"},
      {"metadata not an object", R"({"metadata": 5})", "i.json: /metadata: expected an object, got 5"},
      {"total_size negative", R"({"metadata": {"total_size": -5}})",
       "i.json: /metadata/total_size: expected a non-negative integer (or a string of digits) below "
       "2^64, got -5"},
      {"total_size fractional", R"({"metadata": {"total_size": 1.5e10}})",
       "i.json: /metadata/total_size: expected a non-negative integer (or a string of digits) below "
       "2^64, got 15000000000.0"},
      {"total_size with a unit", R"({"metadata": {"total_size": "12GB"}})",
       "i.json: /metadata/total_size: expected a non-negative integer (or a string of digits) below "
       "2^64, got \"12GB\""},
      {"total_size past 2^64", R"({"metadata": {"total_size": "18446744073709551616"}})",
       "i.json: /metadata/total_size: expected a non-negative integer (or a string of digits) below "
       "2^64, got \"18446744073709551616\""},
      {"total_size null", R"({"metadata": {"total_size": null}})",
       "i.json: /metadata/total_size: expected a non-negative integer (or a string of digits) below "
       "2^64, got null"},
      {"total_parameters boolean", R"({"metadata": {"total_parameters": true}})",
       "i.json: /metadata/total_parameters: expected a non-negative integer (or a string of digits) "
       "below 2^64, got true"},
      {"weight_map not an object", R"({"weight_map": ["model.safetensors"]})",
       "i.json: /weight_map: expected an object of tensor name -> shard file, got [\"model.safetensors\"]"},
      {"weight_map empty", R"({"metadata": {}, "weight_map": {}})",
       "i.json: /weight_map: is empty; expected tensor name -> shard file entries"},
      {"value not a string", R"({"weight_map": {"lm_head.weight": 3}})",
       "i.json: /weight_map/lm_head.weight: expected a shard file name, got 3"},
      {"value empty", R"({"weight_map": {"w": ""}})",
       "i.json: /weight_map/w: shard file \"\" is empty; expected a path inside the model folder"},
      {"value leaves the folder", R"({"weight_map": {"w": "../other/model.safetensors"}})",
       "i.json: /weight_map/w: shard file \"../other/model.safetensors\" has a \"..\" component; "
       "expected a path inside the model folder"},
      {"value absolute", R"({"weight_map": {"w": "/etc/model.safetensors"}})",
       "i.json: /weight_map/w: shard file \"/etc/model.safetensors\" is an absolute path; expected "
       "a path inside the model folder"},
      {"value with a backslash", R"({"weight_map": {"w": "sub\\model.safetensors"}})",
       "i.json: /weight_map/w: shard file \"sub\\\\model.safetensors\" contains a backslash; "
       "expected a path inside the model folder"},
      {"duplicate tensor", R"({"weight_map": {"w": "a.safetensors", "w": "b.safetensors"}})",
       "i.json: /weight_map/w: duplicate key (a second value would silently replace the first)"},
      // The names are streamed out of the parser; what is not a string stays for the check.
      {"value an object", R"({"weight_map": {"a": "a.safetensors", "w": {"file": "b"}}})",
       "i.json: /weight_map/w: expected a shard file name, got {\"file\":\"b\"}"},
      {"value null after good names", R"({"weight_map": {"a": "a.safetensors", "b": null, "c": "c.safetensors"}})",
       "i.json: /weight_map/b: expected a shard file name, got null"},
      {"duplicate, the second not a string", R"({"weight_map": {"w": "a.safetensors", "w": [1]}})",
       "i.json: /weight_map/w: expected a shard file name, got [1]"},
      {"duplicate after other names",
       R"({"weight_map": {"w": "a.safetensors", "x": "a.safetensors", "w": "a.safetensors"}})",
       "i.json: /weight_map/w: duplicate key (a second value would silently replace the first)"},
      {"duplicate weight_map", R"({"weight_map": {"w": "a.safetensors"}, "weight_map": {"x": "a.safetensors"}})",
       "i.json: /weight_map: duplicate key (a second value would silently replace the first)"},
      {"nested too deep", std::string(600, '['), "i.json: invalid JSON: nested deeper than 512 levels"},
      {"duplicate metadata", R"({"metadata": {}, "metadata": {"total_size": 1}})",
       "i.json: /metadata: duplicate key (a second value would silently replace the first)"},
  };
  ASSERT_GE(cases.size(), 20u);
  for (const auto& c : cases) {
    auto result = parse_safetensors_index(c.text, "i.json");
    ASSERT_FALSE(result.ok()) << c.label;
    EXPECT_EQ(result.error().to_string(), c.error) << c.label;
    EXPECT_EQ(result.error().to_string().find('\n'), std::string::npos) << c.label;
  }
}

TEST(ShardSelection, TheIndexDecidesWhichFilesAreTheCheckpoint) {
  SafetensorsIndex index;
  index.weight_map = {{"a", "model-00001-of-00002.safetensors"}, {"b", "model-00002-of-00002.safetensors"}};
  index.shard_files = {"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"};
  const std::vector<std::string> mistral{"model-00002-of-00002.safetensors", "consolidated.safetensors",
                                         "model-00001-of-00002.safetensors"};
  const auto s = select_checkpoint_shards(mistral, &index);
  EXPECT_EQ(s.shards,
            (std::vector<std::string>{"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}));
  EXPECT_EQ(s.ignored, std::vector<std::string>{"consolidated.safetensors"});
  EXPECT_TRUE(s.absent.empty());
  EXPECT_EQ(s.ignored_note(),
            "not read: consolidated.safetensors (1 file(s) the index does not name: the same weights "
            "saved another way)");

  const auto partial = select_checkpoint_shards({"model-00001-of-00002.safetensors"}, &index);
  EXPECT_EQ(partial.absent, std::vector<std::string>{"model-00002-of-00002.safetensors"});

  const auto no_index = select_checkpoint_shards(mistral, nullptr);
  EXPECT_EQ(no_index.shards.size(), 3u);
  SafetensorsIndex metadata_only;
  metadata_only.total_size = 10;
  EXPECT_EQ(select_checkpoint_shards(mistral, &metadata_only).shards.size(), 3u);
}

}  // namespace
}  // namespace preflight
