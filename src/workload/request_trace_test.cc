#include "workload/request_trace.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "workload/request_mix.h"

namespace preflight {
namespace {

// Arrivals are sorted (stable) and counted from the first; the rate is the
// gaps' inverse mean; the mix of the same file ignores the arrival column.
TEST(RequestTrace, ArrivalsAreSortedAndCountedFromTheFirst) {
  const std::string csv = "input,output,arrival\n1000,100,12.5\n8000,0,10\n2000,300,14\n500,50,10\n";
  auto t = parse_request_trace(csv, "trace.csv");
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  EXPECT_TRUE(t->has_arrivals);
  ASSERT_EQ(t->requests.size(), 4u);
  EXPECT_EQ(t->rows, 4u);
  const std::vector<std::uint64_t> inputs = {8000, 500, 1000, 2000};  // equal times keep file order
  const std::vector<double> at = {0, 0, 2.5, 4};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(t->requests[i].input, inputs[i]);
    EXPECT_DOUBLE_EQ(t->requests[i].arrival_s, at[i]);
  }
  EXPECT_EQ(t->requests[0].output, 1u);  // no output still yields one token
  EXPECT_DOUBLE_EQ(t->span_s(), 4);
  EXPECT_DOUBLE_EQ(t->rate_per_s(), 0.75);
  EXPECT_EQ(t->mean_input_tokens(), 2875u);  // (8,000 + 500 + 1,000 + 2,000) / 4
  EXPECT_EQ(t->mean_output_tokens(), 113u);  // (1 + 50 + 100 + 300) / 4 = 112.75
  auto mix = parse_mix_file(csv, "trace.csv");
  ASSERT_TRUE(mix.ok()) << mix.error().to_string();
  auto without = parse_mix_file("input,output\n1000,100\n8000,0\n2000,300\n500,50\n", "trace.csv");
  ASSERT_TRUE(without.ok());
  ASSERT_EQ(mix->size(), without->size());
  for (std::size_t i = 0; i < mix->size(); ++i) {
    EXPECT_EQ((*mix)[i].tokens, (*without)[i].tokens);
    EXPECT_EQ((*mix)[i].weight, (*without)[i].weight);
  }
}

TEST(RequestTrace, LengthsWithoutArrivalsAndOneColumnFiles) {
  auto pairs = parse_request_trace("1000,100\n2000,200\n", "trace.csv");
  ASSERT_TRUE(pairs.ok());
  EXPECT_FALSE(pairs->has_arrivals);
  ASSERT_EQ(pairs->requests.size(), 2u);
  EXPECT_EQ(pairs->requests[1].input, 2000u);
  EXPECT_DOUBLE_EQ(pairs->rate_per_s(), 0);
  auto lengths = parse_request_trace("tokens\n2048\n32K\n", "trace.csv");
  ASSERT_TRUE(lengths.ok());
  EXPECT_TRUE(lengths->requests.empty());  // nothing to replay: the mix alone
  auto headerless = parse_request_trace("100,10,0.5\n100,10,1.5\n", "trace.csv");
  ASSERT_TRUE(headerless.ok());
  EXPECT_TRUE(headerless->has_arrivals);
  EXPECT_DOUBLE_EQ(headerless->requests[1].arrival_s, 1.0);
  auto named = parse_request_trace("Prompt_Tokens,Completion_Tokens,Timestamp\n100,10,3\n", "trace.csv");
  ASSERT_TRUE(named.ok()) << named.error().to_string();
  EXPECT_TRUE(named->has_arrivals);
}

TEST(RequestTrace, BadArrivalsNameTheLine) {
  for (const char* text :
       {"input,output,arrival\n100,10,-1\n", "input,output,arrival\n100,10,nan\n", "input,output,arrival\n100,10,inf\n",
        "input,output,arrival\n100,10,1e3\n", "input,output,arrival\n100,10,\n",
        "input,output,arrival\n100,10,99999999999\n", "input,output,arrival\n100,10,1\n100,10\n", "100,10,1,2\n"}) {
    auto t = parse_request_trace(text, "trace.csv");
    ASSERT_FALSE(t.ok()) << text;
    EXPECT_NE(t.error().to_string().find("trace.csv: line"), std::string::npos) << t.error().to_string();
    EXPECT_FALSE(parse_mix_file(text, "trace.csv").ok()) << text;
  }
}

}  // namespace
}  // namespace preflight
