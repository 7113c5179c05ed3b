#include "core/suggest.h"

#include <gtest/gtest.h>

namespace preflight {
namespace {

TEST(Suggest, NearestNamePrefersANameTheUserTypedTheStartOf) {
  const std::vector<std::string> models = {"qwen3-0.6b", "qwen3-14b", "qwen3-235b-a22b-2507", "kimi-k3", "kimi-k2"};
  struct Case {
    const char* wanted;
    const char* expected;
  };
  const Case cases[] = {
      {"qwen3-235b", "qwen3-235b-a22b-2507"},  // a prefix, though qwen3-14b is 2 edits away
      {"QWEN3-235B", "qwen3-235b-a22b-2507"},  // case-insensitive
      {"qwen3-1", "qwen3-14b"},                // the shortest name with that start
      {"kimi-k4", "kimi-k3"},                  // no prefix: the nearest by edit distance (first on ties)
      {"llama-3.1-8b", ""},                    // nothing close
      {"k", ""},                               // one character: no prefix rule, and nothing within reach
  };
  for (const auto& c : cases) EXPECT_EQ(nearest_name(c.wanted, models), c.expected) << c.wanted;
}

TEST(Suggest, EditDistanceIsCaseInsensitive) {
  EXPECT_EQ(edit_distance("H100", "h100"), 0u);
  EXPECT_EQ(edit_distance("h1oo", "h100"), 2u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
}

}  // namespace
}  // namespace preflight
