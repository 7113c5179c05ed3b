// Byte counts and checked arithmetic.
//
// Every byte figure in preflight is an unsigned 64-bit integer; sums and
// products go through checked_add / checked_mul so an absurd input (a 10^18
// token context) becomes a clear error instead of a silent wrap-around.
// GB (10^9) and GiB (2^30) are different units and are always printed with
// their label (format_gb, format_gib).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace preflight {

using Bytes = std::uint64_t;

inline constexpr Bytes kKiB = 1024ULL;
inline constexpr Bytes kMiB = 1024ULL * 1024;
inline constexpr Bytes kGiB = 1024ULL * 1024 * 1024;
inline constexpr Bytes kTiB = kGiB * 1024;
inline constexpr Bytes kGB = 1000ULL * 1000 * 1000;
inline constexpr Bytes kTB = kGB * 1000;

// Throws InputError naming `what` ("{op} of {a} and {b} overflows 64-bit bytes").
[[noreturn]] void throw_byte_overflow(std::string_view what, std::string_view op, std::uint64_t a, std::uint64_t b);

// Throw InputError naming `what` on overflow. Inline, with the compiler's overflow
// checks: a plan sums every tensor's bytes several times (out of line and checked
// by a division, checked_mul alone is ~1% of a Kimi K3 plan).
inline std::uint64_t checked_add(std::uint64_t a, std::uint64_t b, std::string_view what = "byte total") {
  std::uint64_t sum;
  if (__builtin_add_overflow(a, b, &sum)) throw_byte_overflow(what, "sum", a, b);
  return sum;
}
inline std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, std::string_view what = "byte total") {
  std::uint64_t product;
  if (__builtin_mul_overflow(a, b, &product)) throw_byte_overflow(what, "product", a, b);
  return product;
}
inline std::uint64_t checked_sub(std::uint64_t a, std::uint64_t b, std::string_view what = "byte total") {
  if (b > a) throw_byte_overflow(what, "difference", a, b);
  return a - b;
}
std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b);
// a x b / c through a 128-bit intermediate (a share of a total: params x
// tokens x k / experts); 0 when c is 0; throws like checked_mul when the
// quotient does not fit 64 bits.
std::uint64_t checked_mul_div(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::string_view what = "byte total");

// "1,560,936,091,448"
std::string with_commas(std::uint64_t value);
// "1,560.936 GB" (decimal, 10^9) with the given number of decimals.
std::string format_gb(Bytes bytes, int decimals = 3);
// "1,453.7 GiB" (binary, 2^30).
std::string format_gib(Bytes bytes, int decimals = 2);
std::string format_mib(Bytes bytes, int decimals = 2);
std::string format_tib(Bytes bytes, int decimals = 2);
std::string format_tb(Bytes bytes, int decimals = 3);
// Picks KiB/MiB/GiB/TiB so the number is readable; always binary, always labelled.
std::string format_binary(Bytes bytes, int decimals = 2);

}  // namespace preflight
