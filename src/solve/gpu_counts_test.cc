#include "solve/gpu_counts.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace preflight {
namespace {

using Counts = std::vector<std::uint64_t>;

struct CountsCase {
  std::string text;
  std::uint64_t node;
  Counts want;
};

TEST(SolveGpuCounts, ParsesRangesAndLists) {
  const CountsCase cases[] = {
      {"1..256", 8, {1,   2,   4,   8,   16,  24,  32,  40,  48,  56,  64,  72,  80,  88,  96,  104, 112, 120,
                     128, 136, 144, 152, 160, 168, 176, 184, 192, 200, 208, 216, 224, 232, 240, 248, 256}},
      {"8..64", 8, {8, 16, 24, 32, 40, 48, 56, 64}},
      {"1..16", 4, {1, 2, 4, 8, 12, 16}},
      {"1..8", 16, {1, 2, 4, 8}},
      {"1..6", 1, {1, 2, 3, 4, 5, 6}},
      {"3..7", 8, {4}},
      {"9..15", 8, {}},
      {"64", 8, {64}},
      {"32,8,16,8", 8, {8, 16, 32}},  // sorted, duplicates dropped
      {"12", 8, {12}},                // a list is taken as given, whole nodes or not
  };
  for (const auto& c : cases) {
    auto spec = parse_counts(c.text, "--counts");
    ASSERT_TRUE(spec.ok()) << c.text << ": " << spec.error().to_string();
    EXPECT_EQ(counts_for(*spec, c.node), c.want) << c.text << " on " << c.node << "-GPU nodes";
  }
}

TEST(SolveGpuCounts, RejectsBadCountsNamingTheFlagAndValue) {
  const std::string bad[] = {"",    "0..8", "8..4", "a..b", "1..",   "..8",     "1...8", "8,,16",
                             "8,x", "-8",   "1.5",  "0",    "8,16,", "1..5000", "9999",  " 8"};
  for (const auto& text : bad) {
    auto spec = parse_counts(text, "--counts");
    ASSERT_FALSE(spec.ok()) << "'" << text << "' was accepted";
    EXPECT_EQ(spec.error().origin, "--counts");
    EXPECT_NE(spec.error().message.find("'" + text + "'"), std::string::npos) << spec.error().message;
  }
}

TEST(SolveGpuCounts, WholeNodeCountsAboveOneNode) {
  struct Case {
    std::uint64_t max, node;
    Counts want;
  };
  const Case cases[] = {
      // Power-of-two slices of a node, then whole nodes: sweep's 1..N ranges (counts_for) list the same.
      {32, 8, {1, 2, 4, 8, 16, 24, 32}},
      {10, 4, {1, 2, 4, 8}},
      {5, 1, {1, 2, 3, 4, 5}},
      {4, 8, {1, 2, 4}},
      {40, 16, {1, 2, 4, 8, 16, 32}},
      {150, 72, {1, 2, 4, 8, 16, 32, 64, 72, 144}},  // an NVL72 rack as the node
      {3, 0, {1, 2, 3}},                             // an unknown node size counts as 1
  };
  for (const auto& c : cases) EXPECT_EQ(whole_node_counts(c.max, c.node), c.want) << c.max << "/" << c.node;
}

}  // namespace
}  // namespace preflight
