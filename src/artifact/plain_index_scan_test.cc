// The index fast path: which texts it scans and which it leaves to the full
// reader, and that parse_safetensors_index (fast path first) gives exactly what
// the full reader gives on every index file the repository holds, the fuzz
// seeds included (fuzz/safetensors_index_fuzz.cc checks the same on any text).
#include "artifact/plain_index_scan.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "artifact/safetensors_index.h"
#include "reference_files.h"

namespace preflight {
namespace {

// The scan with a sink that keeps every member.
std::optional<PlainIndexScan> scan(std::string_view text,
                                   std::vector<std::pair<std::string_view, std::string_view>>* members = nullptr) {
  return scan_plain_index(text, [members](std::string_view name, std::string_view file) {
    if (members != nullptr) members->emplace_back(name, file);
    return true;
  });
}

void expect_same_as_full(const std::string& text, const std::string& what) {
  const auto fast = parse_safetensors_index(text, "i.json");
  const auto full = parse_safetensors_index_full(text, "i.json");
  ASSERT_EQ(fast.ok(), full.ok()) << what;
  if (!fast.ok()) {
    EXPECT_EQ(fast.error().to_string(), full.error().to_string()) << what;
    return;
  }
  EXPECT_EQ(fast->weight_map, full->weight_map) << what;
  EXPECT_EQ(fast->shard_files, full->shard_files) << what;
  EXPECT_EQ(fast->total_size, full->total_size) << what;
  EXPECT_EQ(fast->total_parameters, full->total_parameters) << what;
}

TEST(PlainIndexScan, ScansThePlainShapeAndDeclinesTheRest) {
  struct Case {
    const char* what;
    std::string text;
    bool scanned;
  };
  const std::vector<Case> cases = {
      {"writer's shape", R"({"metadata": {"total_size": 10}, "weight_map": {"a.weight": "m-1.safetensors"}})", true},
      {"no spaces, weight_map first", R"({"weight_map":{"a":"x.safetensors","b":"y.safetensors"},"metadata":{}})",
       true},
      {"metadata only", R"({"metadata": {"total_size": "12", "format": "pt"}})", true},
      {"unknown members kept as text",
       "{\n\t\"_note\": [1, 2.5e3, null],\r\n \"weight_map\": {\"w\": \"m.safetensors\"}\n}\n", true},
      {"empty object", "{}", true},  // scanned; the full reader's checks then decline it
      {"an escape in a name", R"({"weight_map": {"a\u0041": "m.safetensors"}})", false},
      {"a non-ASCII name", "{\"weight_map\": {\"\xc3\xa9\": \"m.safetensors\"}}", false},
      {"a value that is not a string", R"({"weight_map": {"w": 3}})", false},
      {"metadata nested two levels", R"({"metadata": {"a": {"b": 1}}, "weight_map": {"w": "m"}})", false},
      {"a repeated member", R"({"metadata": {}, "metadata": {}})", false},
      {"two weight_maps", R"({"weight_map": {"w": "m"}, "weight_map": {"x": "m"}})", false},
      {"text after the object", R"({"metadata": {}} x)", false},
      {"a NUL after the object", std::string("{\"metadata\": {}}\0", 17), false},
      {"not an object", R"(["m.safetensors"])", false},
      {"unterminated", R"({"weight_map": {"w": "m)", false},
      {"a trailing comma", R"({"weight_map": {"w": "m",}})", false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(scan(c.text).has_value(), c.scanned) << c.what;
    expect_same_as_full(c.text, c.what);
  }
}

TEST(PlainIndexScan, KeepsFileOrderAndViews) {
  const std::string text =
      R"({"weight_map": {"b": "2.safetensors", "a": "1.safetensors"}, "metadata": {"total_size": 7}})";
  std::vector<std::pair<std::string_view, std::string_view>> members;
  const auto scanned = scan(text, &members);
  ASSERT_TRUE(scanned.has_value());
  ASSERT_EQ(members.size(), 2u);
  EXPECT_EQ(scanned->weight_map_entries, 2u);
  EXPECT_EQ(members[0].first, "b");
  EXPECT_EQ(members[1].second, "1.safetensors");
  ASSERT_EQ(scanned->others.size(), 1u);
  EXPECT_EQ(scanned->others[0].second, R"({"total_size": 7})");
  // A sink that says no declines the scan.
  EXPECT_FALSE(scan_plain_index(text, [](std::string_view, std::string_view) { return false; }).has_value());
}

// Every index file in the repository (tests/data/reference included), and every fuzz seed.
TEST(PlainIndexScan, EveryIndexFileReadsAsTheFullReaderReadsIt) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(PREFLIGHT_SOURCE_DIR);
  std::vector<fs::path> files;
  for (const fs::path& dir :
       {root / "tests", root / "fuzz" / "corpus" / "safetensors_index", fs::path(testing::reference_path("models"))})
    for (const auto& entry : fs::recursive_directory_iterator(dir))
      if (entry.is_regular_file() && (entry.path().filename().string().find("index") != std::string::npos ||
                                      entry.path().parent_path().filename() == "safetensors_index"))
        files.push_back(entry.path());
  ASSERT_GE(files.size(), 30u);
  std::size_t scanned = 0;
  for (const auto& path : files) {
    const std::string text = testing::read_file(path.string());
    if (scan(text)) ++scanned;
    expect_same_as_full(text, path.string());
  }
  EXPECT_GE(scanned, 20u);  // the real indexes take the fast path
}

// A large index, as Kimi K3's (497,220 names in 96 shards) is shaped.
TEST(PlainIndexScan, ALargeGeneratedIndex) {
  std::string text = R"({"metadata": {"total_size": 1560936091448}, "weight_map": {)";
  for (int i = 0; i < 20000; ++i)
    text += (i ? ", " : "") + std::string("\"language_model.model.layers.") + std::to_string(i / 200) +
            ".mlp.experts." + std::to_string(i % 200) + ".weight\": \"model-" + std::to_string(1 + i % 96) +
            "-of-00096.safetensors\"";
  text += "}}";
  ASSERT_TRUE(scan(text).has_value());
  expect_same_as_full(text, "generated");
  EXPECT_EQ(parse_safetensors_index(text, "i.json")->shard_files.size(), 96u);
}

}  // namespace
}  // namespace preflight
