#include "core/plain_json.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/json_read.h"
#include "reference_files.h"

namespace preflight {
namespace {

// The fast path either declines or gives what the full reader gives (which accepts).
void expect_agrees(const std::string& text, const std::string& what) {
  const auto fast = parse_plain_json(text);
  if (!fast) return;
  const auto full = parse_json_full(text, "t.json");
  ASSERT_TRUE(full.ok()) << what
                         << ": the fast path accepted what the full reader refuses: " << full.error().to_string();
  EXPECT_TRUE(identical_json(*fast, *full)) << what;
}

TEST(PlainJson, EachShapeIsReadOrDeclined) {
  struct Case {
    std::string text;
    bool read;  // false: declined to the full reader
  };
  const std::vector<Case> cases = {
      {R"({"a": 1, "b": [true, false, null], "c": {"d": "e"}})", true},
      {R"([0, -1, 18446744073709551615, -9223372036854775808, 1.5, -0.0, 1e3, 2E-2, 0.1])", true},
      {"  {}  ", true},
      {"[]", true},
      {R"("caf\u00e9")", false},  // \u escapes are the full reader's
      {"\"caf\xc3\xa9 \xe2\x80\x93 \xf0\x9f\x98\x80\"", true},
      {R"("a\"b\\c\/d\be\ff\ng\rh\ti")", true},
      {"\"\xc0\xaf\"", false},          // overlong '/'
      {"\"\xed\xa0\x80\"", false},      // a UTF-16 surrogate
      {"\"\xf4\x90\x80\x80\"", false},  // above U+10FFFF
      {"\"\xe2\x80\"", false},          // cut short
      {"\"a\tb\"", false},              // a control byte
      {"-0", false},
      {"[-0]", false},
      {"18446744073709551616", false},  // past uint64: the full reader makes it a double
      {"-9223372036854775809", false},
      {"1e400", false},
      {"01", false},
      {"1.", false},
      {".5", false},
      {"+1", false},
      {"[1,]", false},
      {R"({"a": 1,})", false},
      {R"({"a": 1, "a": 2})", false},  // duplicates: the full reader's policy
      {"\xef\xbb\xbf{}", false},       // BOM
      {"tru", false},
      {"[1] x", false},
      {"", false},
      {std::string(64, '[') + std::string(64, ']'), true},
      {std::string(65, '[') + std::string(65, ']'), false},
      {std::string("[1]\0", 4), false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(parse_plain_json(c.text).has_value(), c.read) << c.text;
    expect_agrees(c.text, c.text);
  }
  // identical_json tells apart what nlohmann's == calls equal.
  EXPECT_FALSE(identical_json(nlohmann::json(1u), nlohmann::json(1)));
  EXPECT_FALSE(identical_json(nlohmann::json(0.0), nlohmann::json(-0.0)));
  EXPECT_TRUE(
      identical_json(nlohmann::json::parse(R"({"a": [1, -2, 0.5]})"), nlohmann::json::parse(R"({"a": [1, -2, 0.5]})")));
  // The types are nlohmann's: unsigned for non-negative integers, signed for negative ones.
  const auto numbers = parse_plain_json("[7, -7, 7.0]");
  ASSERT_TRUE(numbers.has_value());
  EXPECT_TRUE((*numbers)[0].is_number_unsigned());
  EXPECT_TRUE((*numbers)[1].is_number_integer() && !(*numbers)[1].is_number_unsigned());
  EXPECT_TRUE((*numbers)[2].is_number_float());
}

// Every JSON file of the repository (embedded data, test data, fuzz seeds) and of
// tests/data/reference/models: read by the fast path exactly as by the full reader, or declined.
TEST(PlainJson, EveryJsonFileReadsAsTheFullReaderReadsIt) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(PREFLIGHT_SOURCE_DIR);
  std::size_t files = 0, read = 0;
  for (const fs::path& dir :
       {root / "data", root / "tests", root / "fuzz" / "corpus", fs::path(testing::reference_path("models"))})
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      if (!entry.is_regular_file() || entry.file_size() > (64u << 20)) continue;
      const auto name = entry.path().string();
      const bool json_file = entry.path().extension() == ".json";
      if (!json_file && name.find("fuzz/corpus") == std::string::npos) continue;
      const std::string text = testing::read_file(name);
      ++files;
      if (parse_plain_json(text)) ++read;
      expect_agrees(text, name);
    }
  EXPECT_GE(files, 500u);
  EXPECT_GE(read, 400u);  // the real files take the fast path
  // The files every plan reads do.
  for (const char* embedded : {"data/gpus.json", "data/models/catalogue.json", "data/architectures/kimi_linear.json",
                               "data/models/kimi-k3/config.json"})
    EXPECT_TRUE(parse_plain_json(testing::read_file((root / embedded).string())).has_value()) << embedded;
}

}  // namespace
}  // namespace preflight
