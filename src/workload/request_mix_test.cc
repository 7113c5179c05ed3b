#include "workload/request_mix.h"

#include <gtest/gtest.h>

#include <numeric>

namespace preflight {
namespace {

TEST(RequestMix, ParsesLengthsAndSharesSortedByLength) {
  auto mix = parse_mix("1M:5%, 2K:70%,32K:25%", "--mix");
  ASSERT_TRUE(mix.ok()) << mix.error().to_string();
  ASSERT_EQ(mix->size(), 3u);
  EXPECT_EQ((*mix)[0].tokens, 2048u);
  EXPECT_EQ((*mix)[0].weight, 700000u);
  EXPECT_EQ((*mix)[1].tokens, 32768u);
  EXPECT_EQ((*mix)[2].tokens, 1048576u);
  EXPECT_EQ((*mix)[2].weight, 50000u);
  EXPECT_EQ(longest(*mix), 1048576u);
  // 0.70 x 2,048 + 0.25 x 32,768 + 0.05 x 1,048,576 = 1,433.6 + 8,192 + 52,428.8 = 62,054.4, rounded up.
  EXPECT_EQ(mean_tokens(*mix), 62055u);
  EXPECT_EQ(describe_mix(*mix), "2,048:70%, 32,768:25%, 1,048,576:5%");
}

TEST(RequestMix, EqualLengthsMerge) {
  auto mix = parse_mix("8K:50%,8192:50%", "--mix");
  ASSERT_TRUE(mix.ok());
  ASSERT_EQ(mix->size(), 1u);
  EXPECT_EQ((*mix)[0].weight, 1000000u);
}

TEST(RequestMix, BadMembersNameTheFlagAndTheMember) {
  struct Case {
    const char* text;
    const char* says;
  };
  for (const auto& c : std::vector<Case>{{"2K:70%,32K:20%", "add up to 90%"},
                                         {"2K:70", "needs a % sign"},
                                         {"2K", "is not LENGTH:SHARE%"},
                                         {"0:100%", "at least 1"},
                                         {"2K:-5%,4K:105%", "above 0 and at most 100"},
                                         {"2K:abc%", "above 0"},
                                         {"", "expected LENGTH:SHARE%"},
                                         {"lots:100%", "token count"}}) {
    auto mix = parse_mix(c.text, "--mix");
    ASSERT_FALSE(mix.ok()) << c.text;
    EXPECT_EQ(mix.error().origin, "--mix") << c.text;
    EXPECT_NE(mix.error().to_string().find(c.says), std::string::npos) << mix.error().to_string();
  }
}

TEST(RequestMix, ApportionSumsToTheRequestsTiesToTheLonger) {
  struct Case {
    const char* mix;
    std::uint64_t requests;
    std::vector<std::uint64_t> counts;
  };
  for (const auto& c : std::vector<Case>{
           {"2K:70%,32K:25%,1M:5%", 100, {70, 25, 5}},
           {"2K:70%,32K:25%,1M:5%", 10, {7, 2, 1}},  // quotas 7, 2.5, 0.5: the tie goes to the longer
           {"2K:70%,32K:25%,1M:5%", 1, {1, 0, 0}},   // 0.7 is the largest remainder
           {"2K:50%,1M:50%", 1, {0, 1}},             // a tie: the longer
           {"2K:50%,1M:50%", 3, {1, 2}},
           {"1M:100%", 7, {7}},
           {"2K:70%,32K:25%,1M:5%", 0, {0, 0, 0}},
       }) {
    auto mix = parse_mix(c.mix, "--mix");
    ASSERT_TRUE(mix.ok());
    const auto counts = apportion(*mix, c.requests);
    EXPECT_EQ(counts, c.counts) << c.mix << " x " << c.requests;
    EXPECT_EQ(std::accumulate(counts.begin(), counts.end(), std::uint64_t{0}), c.requests);
  }
}

TEST(RequestMix, HeaviestGroupTakesEachClassRoundedUpLongestFirst) {
  struct Case {
    const char* mix;
    std::uint64_t total, groups;
    std::vector<std::uint64_t> counts;
  };
  for (const auto& c : std::vector<Case>{
           // 64 over 8 groups: 45, 16, 3 overall (3.2 -> 3); a group holds 8: one 128K, two 32K, five 2K.
           {"2K:70%,32K:25%,128K:5%", 64, 8, {5, 2, 1}},
           {"2K:70%,32K:25%,128K:5%", 64, 1, {45, 16, 3}},
           {"2K:50%,1M:50%", 2, 2, {0, 1}},
           {"2K:90%,1M:10%", 100, 4, {22, 3}},
           {"1M:100%", 9, 4, {3}},
       }) {
    auto mix = parse_mix(c.mix, "--mix");
    ASSERT_TRUE(mix.ok());
    const auto counts = heaviest_group(*mix, c.total, c.groups);
    EXPECT_EQ(counts, c.counts) << c.mix << " x " << c.total << " / " << c.groups;
    EXPECT_EQ(std::accumulate(counts.begin(), counts.end(), std::uint64_t{0}), (c.total + c.groups - 1) / c.groups);
  }
}

TEST(RequestMix, FileOfLengthsCountsEachLineOnce) {
  auto mix = parse_mix_file("tokens\n2048\n2048\n# a comment\n\n32K\n2048\n", "trace.csv");
  ASSERT_TRUE(mix.ok()) << mix.error().to_string();
  ASSERT_EQ(mix->size(), 2u);
  EXPECT_EQ((*mix)[0].tokens, 2048u);
  EXPECT_EQ((*mix)[0].weight, 3u);
  EXPECT_EQ((*mix)[1].tokens, 32768u);
  EXPECT_EQ((*mix)[1].weight, 1u);
}

TEST(RequestMix, FileOfArrivalsWeighsByOutputTokens) {
  // Little's law: a request that decodes 4x as many tokens runs 4x as long,
  // so it is running 4x as often.
  auto mix = parse_mix_file("input,output\n1000,100\n8000,400\n1000,100\n", "trace.csv");
  ASSERT_TRUE(mix.ok()) << mix.error().to_string();
  ASSERT_EQ(mix->size(), 2u);
  EXPECT_EQ((*mix)[0].tokens, 1100u);
  EXPECT_EQ((*mix)[0].weight, 200u);
  EXPECT_EQ((*mix)[1].tokens, 8400u);
  EXPECT_EQ((*mix)[1].weight, 400u);
  EXPECT_NEAR(share_percent(*mix, 1), 66.67, 0.01);
}

TEST(RequestMix, ManyLengthsAreBucketedUpwardByAtMostAQuarter) {
  std::string csv;
  for (int i = 1000; i < 1200; ++i) csv += std::to_string(i) + "\n";
  auto mix = parse_mix_file(csv, "trace.csv");
  ASSERT_TRUE(mix.ok());
  EXPECT_LE(mix->size(), 64u);
  std::uint64_t total = 0;
  for (const auto& c : *mix) total += c.weight;
  EXPECT_EQ(total, 200u);
  // 1000..1023 round up to 1024 (step 128 in the octave of 512), 1024 stays, 1025..1199 go to 1280 (step 256).
  ASSERT_EQ(mix->size(), 2u);
  EXPECT_EQ((*mix)[0].tokens, 1024u);
  EXPECT_EQ((*mix)[0].weight, 25u);
  EXPECT_EQ((*mix)[1].tokens, 1280u);
  EXPECT_EQ((*mix)[1].weight, 175u);
}

// The first line is a header only when it names columns; a byte-order mark is
// dropped. Each case's requests are all counted, so none flips a verdict.
TEST(RequestMix, OnlyNamedColumnsMakeAHeader) {
  struct Case {
    const char* text;
    std::uint64_t requests;
  };
  for (const auto& c : std::vector<Case>{{"\xEF\xBB\xBF"
                                          "1048576\n2048\n",
                                          2},
                                         {"\xEF\xBB\xBF"
                                          "tokens\n1048576\n2048\n",
                                          2},
                                         {"Input_Tokens,Output_Tokens\n1000,1\n8000,1\n", 2},
                                         {"length\n10\n", 1},
                                         {"2048\n", 1}}) {
    auto mix = parse_mix_file(c.text, "trace.csv");
    ASSERT_TRUE(mix.ok()) << c.text << ": " << mix.error().to_string();
    std::uint64_t total = 0;
    for (const auto& m : *mix) total += m.weight;
    EXPECT_EQ(total, c.requests) << c.text;
  }
  auto with_bom = parse_mix_file(
      "\xEF\xBB\xBF"
      "1048576\n2048\n",
      "trace.csv");
  ASSERT_TRUE(with_bom.ok());
  EXPECT_EQ(with_bom->back().tokens, 1048576u);
}

// A line of a million commas is refused by counting them, never split into cells.
TEST(RequestMix, ALineOfManyCommasIsRefusedBeforeItIsSplit) {
  const std::string line = "2048" + std::string(1'000'000, ',') + "\n";
  auto mix = parse_mix_file(line, "trace.csv");
  ASSERT_FALSE(mix.ok());
  EXPECT_NE(mix.error().to_string().find("trace.csv: line 1: expected the columns tokens, or input,output"),
            std::string::npos)
      << mix.error().to_string();
  EXPECT_LT(mix.error().to_string().size(), 400u);
}

TEST(RequestMix, BadFilesNameTheLine) {
  struct Case {
    const char* text;
    const char* says;
  };
  for (const auto& c : std::vector<Case>{{"", "no requests"},
                                         {"tokens\n", "no requests"},
                                         {"100\n100,5\n", "line 2"},
                                         {"a,b,c\n", "line 1"},
                                         {"100\nxyz\n", "line 2"},
                                         {"100\n0\n", "line 2"},
                                         {"-5\n2048\n", "line 1"},
                                         {"nan\n2048\n", "line 1"},
                                         {"inf\n", "line 1"},
                                         {"\xEF\xBC\x91\xEF\xBC\x90\n2048\n", "line 1"},  // full-width 10
                                         {"prompt,reply\n100,10\n", "line 1"}}) {
    auto mix = parse_mix_file(c.text, "trace.csv");
    ASSERT_FALSE(mix.ok()) << c.text;
    EXPECT_NE(mix.error().to_string().find(c.says), std::string::npos) << mix.error().to_string();
    EXPECT_NE(mix.error().to_string().find("trace.csv"), std::string::npos);
  }
}

}  // namespace
}  // namespace preflight
