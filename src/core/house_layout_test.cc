#include "core/house_layout.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace preflight {
namespace {

constexpr std::string_view kText = R"({
  "schema": "x/1",
  "models": [
    {
      "name": "a", "quantize": "fp8",
      "aliases": ["A1", "a-2"],
      "nested": {
        "name": "not this one"
      }
    },
    {
      "name": "b\"quoted",
      "aliases": []
    }
  ]
})";

TEST(HouseLayout, EntriesAndTheirOwnKeys) {
  auto entries = house_layout_entries(kText, "models");
  ASSERT_TRUE(entries.has_value());
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_TRUE((*entries)[0].starts_with("{\n      \"name\": \"a\""));
  EXPECT_TRUE((*entries)[0].ends_with("\n    }"));
  // Two keys on one line: the value ends at its closing quote.
  EXPECT_EQ(house_layout_value((*entries)[0], "name", '"'), nlohmann::json("a"));
  EXPECT_EQ(house_layout_value((*entries)[0], "aliases", ']'), nlohmann::json({"A1", "a-2"}));
  EXPECT_EQ(house_layout_value((*entries)[1], "aliases", ']'), nlohmann::json::array());
  // An escaped quote is not plain: the caller falls back to the full parse.
  EXPECT_FALSE(house_layout_value((*entries)[1], "name", '"').has_value());
  EXPECT_FALSE(house_layout_value((*entries)[0], "hub_id", '"').has_value());
  // A list of strings: absent is empty, anything but strings declines.
  EXPECT_EQ(house_layout_strings((*entries)[0], "aliases"), (std::vector<std::string>{"A1", "a-2"}));
  EXPECT_EQ(house_layout_strings((*entries)[0], "hub_ids"), std::vector<std::string>{});
  EXPECT_FALSE(house_layout_strings("{\n      \"aliases\": [\"a\", 2]\n    }", "aliases").has_value());
  // One string value: read in place when plain, through the reader otherwise.
  EXPECT_EQ(house_layout_string((*entries)[0], "name"), "a");
  EXPECT_FALSE(house_layout_string((*entries)[0], "quantize").has_value());  // a line's second key is not read
  EXPECT_FALSE(house_layout_string((*entries)[0], "hub_id").has_value());
  EXPECT_FALSE(house_layout_string((*entries)[1], "name").has_value());  // an escape: declined, as above
  EXPECT_FALSE(house_layout_string("{\n      \"name\": 7\n    }", "name").has_value());
  EXPECT_EQ(house_layout_string("{\n      \"name\": \"caf\u00e9\"\n    }", "name"), "caf\u00e9");
  // Lists: the plain fast path and the reader agree on every shape.
  struct Row {
    const char* line;
    std::optional<std::vector<std::string>> want;
  };
  const Row rows[] = {
      {R"(["x", "y" ])", std::vector<std::string>{"x", "y"}},
      {R"([ "x"])", std::vector<std::string>{"x"}},
      {R"([ ])", std::vector<std::string>{}},
      {R"(["a\"b", "c"])", std::vector<std::string>{"a\"b", "c"}},  // an escape: through the reader
      {"[\"caf\u00e9\"]", std::vector<std::string>{"caf\u00e9"}},
      {R"(["a",])", std::nullopt},
      {R"(["a" "b"])", std::nullopt},
      {R"(["a", null])", std::nullopt},
  };
  for (const auto& r : rows)
    EXPECT_EQ(house_layout_strings("{\n      \"aliases\": " + std::string(r.line) + "\n    }", "aliases"), r.want)
        << r.line;
}

TEST(HouseLayout, TextNotInTheLayoutIsDeclined) {
  EXPECT_FALSE(house_layout_entries(kText, "accelerators").has_value());
  EXPECT_FALSE(house_layout_entries(R"({"models": [{"name": "a"}]})", "models").has_value());
  EXPECT_FALSE(house_layout_entries("{\n  \"models\": [\n    {\n      \"name\": \"a\"", "models").has_value());
  EXPECT_FALSE(house_layout_entries("{\n  \"models\": []\n}", "models").has_value());
}

}  // namespace
}  // namespace preflight
