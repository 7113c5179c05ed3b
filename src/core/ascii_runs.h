// Runs of bytes found eight bytes at a time: what a writer copies as it is (a
// Kimi K3 JSON plan is ~93 KB, scanned by the JSON writer and then by the
// terminal-safe filter; a byte-at-a-time loop costs ~8 instructions a byte),
// and the non-digits between a tensor name's digit runs.
//
// A word w holds a byte below k (k <= 0x80) exactly when
// (w - k*0x0101..) & ~w & 0x8080.. is non-zero ("hasless" of Bit Twiddling
// Hacks), and a byte equal to c when w ^ c*0x0101.. holds a zero byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace preflight {

namespace ascii_runs_detail {
constexpr std::uint64_t kOnes = 0x0101010101010101ull;
constexpr std::uint64_t kHighs = 0x8080808080808080ull;
inline std::uint64_t has_less(std::uint64_t w, unsigned k) { return (w - kOnes * k) & ~w & kHighs; }
inline std::uint64_t has_byte(std::uint64_t w, unsigned c) { return has_less(w ^ (kOnes * c), 1); }
inline std::uint64_t load(const char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
}  // namespace ascii_runs_detail

// The end of the run of printable ASCII (0x20..0x7E) starting at `at`.
inline std::size_t printable_ascii_end(const char* s, std::size_t at, std::size_t n) {
  using namespace ascii_runs_detail;
  // A byte of 0x7F or more: adding 1 to each byte sets its high bit (or it was set).
  while (at + 8 <= n) {
    const std::uint64_t w = load(s + at);
    if ((has_less(w, 0x20) | ((w + kOnes) & kHighs) | (w & kHighs)) != 0) break;
    at += 8;
  }
  while (at < n && static_cast<unsigned char>(s[at]) >= 0x20 && static_cast<unsigned char>(s[at]) < 0x7F) ++at;
  return at;
}

// The end of the run of non-digits starting at `at`: the first ASCII digit, or n
// (the quantization decider folds each tensor name's digit runs).
inline std::size_t non_digit_end(const char* s, std::size_t at, std::size_t n) {
  using namespace ascii_runs_detail;
  // A byte b is a digit when b ^ '0' is below 10.
  while (at + 8 <= n && has_less(load(s + at) ^ (kOnes * '0'), 10) == 0) at += 8;
  while (at < n && !(s[at] >= '0' && s[at] <= '9')) ++at;
  return at;
}

// The end of the run starting at `at` that a JSON string holds as it is: ASCII
// from 0x20 up, but for '"' and '\\' (0x7F included, as nlohmann writes it).
inline std::size_t json_plain_end(const char* s, std::size_t at, std::size_t n) {
  using namespace ascii_runs_detail;
  while (at + 8 <= n) {
    const std::uint64_t w = load(s + at);
    if ((has_less(w, 0x20) | (w & kHighs) | has_byte(w, '"') | has_byte(w, '\\')) != 0) break;
    at += 8;
  }
  while (at < n) {
    const auto c = static_cast<unsigned char>(s[at]);
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') break;
    ++at;
  }
  return at;
}

}  // namespace preflight
