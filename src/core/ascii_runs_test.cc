// The word-at-a-time run finders against a byte-at-a-time definition: every byte
// value at every position of a buffer longer than two words, from every start.
#include "core/ascii_runs.h"

#include <gtest/gtest.h>

#include <string>

namespace preflight {
namespace {

bool printable(unsigned char c) { return c >= 0x20 && c < 0x7F; }
bool json_plain(unsigned char c) { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\'; }
bool non_digit(unsigned char c) { return !(c >= '0' && c <= '9'); }

template <typename Fast, typename Plain>
void check_against_definition(Fast fast, Plain plain) {
  for (int b = 0; b < 256; ++b)
    for (std::size_t at = 0; at < 20; ++at) {
      std::string s(20, 'a');
      s[at] = static_cast<char>(b);
      for (std::size_t from = 0; from <= s.size(); ++from) {
        std::size_t want = from;
        while (want < s.size() && plain(static_cast<unsigned char>(s[want]))) ++want;
        ASSERT_EQ(fast(s.data(), from, s.size()), want) << "byte " << b << " at " << at << " from " << from;
      }
    }
}

TEST(AsciiRuns, EveryByteAtEveryPosition) {
  check_against_definition(printable_ascii_end, printable);
  check_against_definition(json_plain_end, json_plain);
  check_against_definition(non_digit_end, non_digit);
  // Neighbours that could carry or borrow into each other.
  const std::string mixed = std::string("\x7f\xff\x80\x1f\x20\x7e\"\\", 8) + "abcdefgh";
  for (std::size_t from = 0; from <= mixed.size(); ++from) {
    std::size_t p = from, j = from;
    while (p < mixed.size() && printable(static_cast<unsigned char>(mixed[p]))) ++p;
    while (j < mixed.size() && json_plain(static_cast<unsigned char>(mixed[j]))) ++j;
    EXPECT_EQ(printable_ascii_end(mixed.data(), from, mixed.size()), p) << from;
    EXPECT_EQ(json_plain_end(mixed.data(), from, mixed.size()), j) << from;
  }
}

}  // namespace
}  // namespace preflight
