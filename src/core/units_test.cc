#include "core/units.h"

#include <gtest/gtest.h>

#include "core/bytes.h"

namespace preflight {
namespace {

struct TokenCase {
  const char* text;
  std::uint64_t tokens;
};

TEST(Units, TokenCounts) {
  const TokenCase cases[] = {{"131072", 131072}, {"128K", 131072},       {"128k", 131072}, {"1M", 1048576},
                             {"0.5M", 524288},   {"1,000,000", 1000000}, {" 32K ", 32768}};
  for (const auto& c : cases) EXPECT_EQ(parse_token_count(c.text, "--context").value(), c.tokens) << c.text;
}

struct ErrorCase {
  const char* text;
  const char* error;
};

TEST(Units, TokenCountErrors) {
  const ErrorCase cases[] = {
      {"-5", "--context: token count must be positive, got '-5'"},
      {"0", "--context: token count must be at least 1, got '0'"},
      {"abc", "--context: expected a token count such as 131072, 128K or 1M, got 'abc'"},
      {"12Q", "--context: unknown suffix 'Q' in '12Q' (use K = 1,024 or M = 1,048,576 tokens)"},
      {"1.5", "--context: token count '1.5' is not a whole number"},
      {"99999999999999999999999M", "--context: token count '99999999999999999999999M' is too large"},
  };
  for (const auto& c : cases) EXPECT_EQ(parse_token_count(c.text, "--context").error().to_string(), c.error);
}

TEST(Units, ByteSizesAndReserve) {
  EXPECT_EQ(parse_byte_size("8GiB", "--reserve").value(), 8 * kGiB);
  EXPECT_EQ(parse_byte_size("20GB", "--reserve").value(), 20 * kGB);
  EXPECT_EQ(parse_byte_size("512 MiB", "--reserve").value(), 512 * kMiB);
  EXPECT_EQ(parse_byte_size("4TB", "--reserve").value(), 4 * kTB);
  const auto pct = parse_reserve("12.5%", "--reserve").value();
  EXPECT_TRUE(pct.is_percent);
  EXPECT_DOUBLE_EQ(pct.percent, 12.5);
  const auto bytes = parse_reserve("8GiB", "--reserve").value();
  EXPECT_FALSE(bytes.is_percent);
  EXPECT_EQ(bytes.bytes, 8 * kGiB);
  EXPECT_EQ(parse_reserve("150%", "--reserve").error().to_string(),
            "--reserve: percentage must be in [0, 100), got '150%'");
  EXPECT_EQ(parse_reserve("8XB", "--reserve").error().to_string(),
            "--reserve: unknown unit 'XB' in '8XB' (use B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)");
}

TEST(Units, Durations) {
  struct Case {
    const char* text;
    double seconds;
  };
  for (const auto& c : std::vector<Case>{
           {"2s", 2.0}, {"50ms", 0.05}, {"250us", 250e-6}, {"1.5", 1.5}, {" 200 ms ", 0.2}, {"3600s", 3600.0}})
    EXPECT_DOUBLE_EQ(parse_duration(c.text, "--tpot").value_or_throw(), c.seconds) << c.text;
  for (const char* bad : {"", "-1s", "0ms", "2 minutes", "ms", "3601s", "1e999s", "nan"}) {
    auto d = parse_duration(bad, "--tpot");
    ASSERT_FALSE(d.ok()) << bad;
    EXPECT_EQ(d.error().origin, "--tpot");
  }
}

TEST(Units, GpuSpecs) {
  const auto s = parse_gpu_spec("8xH100", "--gpus").value();
  EXPECT_EQ(s.count, 8u);
  EXPECT_EQ(s.family, "H100");
  EXPECT_EQ(parse_gpu_spec("16XB300", "--gpus").value().family, "B300");
  const ErrorCase cases[] = {
      {"0xH100", "--gpus: GPU count must be at least 1, got '0xH100'"},
      {"-8xH100", "--gpus: GPU count must be at least 1, got '-8xH100'"},
      {"H100", "--gpus: expected COUNTxFAMILY such as 8xH100, got 'H100'"},
      {"8x", "--gpus: expected COUNTxFAMILY such as 8xH100, got '8x'"},
      {"eightxH100", "--gpus: expected COUNTxFAMILY such as 8xH100, got 'eightxH100'"},
      {"100000xH100", "--gpus: GPU count 100000 is beyond 65,536"},
  };
  for (const auto& c : cases) EXPECT_EQ(parse_gpu_spec(c.text, "--gpus").error().to_string(), c.error) << c.text;
}

TEST(Bytes, CheckedArithmeticAndLabels) {
  EXPECT_THROW(checked_mul(1ULL << 40, 1ULL << 40), InputError);
  EXPECT_THROW(checked_add(~0ULL, 1), InputError);
  EXPECT_EQ(ceil_div(10, 3), 4u);
  EXPECT_EQ(with_commas(1560936091448), "1,560,936,091,448");
  EXPECT_EQ(format_gb(1560936091448, 1), "1,560.9 GB");
  EXPECT_EQ(format_gib(1560936091448, 1), "1,453.7 GiB");
  EXPECT_EQ(format_tib(1560936091448, 2), "1.42 TiB");
  EXPECT_EQ(format_binary(27648), "27.00 KiB");
}

}  // namespace
}  // namespace preflight
