#include "core/bytes.h"

#include <fmt/format.h>

#include <limits>

#include "core/result.h"

namespace preflight {

void throw_byte_overflow(std::string_view what, std::string_view op, std::uint64_t a, std::uint64_t b) {
  throw InputError(
      Error{"arithmetic", std::string(what), fmt::format("{} of {} and {} overflows 64-bit bytes", op, a, b)});
}

namespace {

std::string group_thousands(std::string digits) {
  std::string out;
  const auto n = digits.size();
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(digits[i]);
    if ((n - i - 1) % 3 == 0 && i + 1 < n) out.push_back(',');
  }
  return out;
}

// Formats value / unit with thousands separators in the integer part.
std::string scaled(Bytes bytes, double unit, int decimals, std::string_view label) {
  const double v = static_cast<double>(bytes) / unit;
  std::string text = fmt::format("{:.{}f}", v, decimals);
  const auto dot = text.find('.');
  std::string integer = text.substr(0, dot);
  std::string rest = dot == std::string::npos ? "" : text.substr(dot);
  return group_thousands(integer) + rest + " " + std::string(label);
}
}  // namespace

std::uint64_t checked_mul_div(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::string_view what) {
  if (c == 0) return 0;
  __extension__ typedef unsigned __int128 u128;
  const u128 v = static_cast<u128>(a) * b / c;
  if (v > std::numeric_limits<std::uint64_t>::max()) throw_byte_overflow(what, "product over divisor", a, b);
  return static_cast<std::uint64_t>(v);
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return b == 0 ? 0 : a / b + (a % b != 0); }

std::string with_commas(std::uint64_t value) { return group_thousands(std::to_string(value)); }

std::string format_gb(Bytes bytes, int decimals) { return scaled(bytes, 1e9, decimals, "GB"); }
std::string format_tb(Bytes bytes, int decimals) { return scaled(bytes, 1e12, decimals, "TB"); }
std::string format_gib(Bytes bytes, int decimals) { return scaled(bytes, static_cast<double>(kGiB), decimals, "GiB"); }
std::string format_mib(Bytes bytes, int decimals) { return scaled(bytes, static_cast<double>(kMiB), decimals, "MiB"); }
std::string format_tib(Bytes bytes, int decimals) { return scaled(bytes, static_cast<double>(kTiB), decimals, "TiB"); }

std::string format_binary(Bytes bytes, int decimals) {
  if (bytes >= kTiB) return format_tib(bytes, decimals);
  if (bytes >= kGiB) return format_gib(bytes, decimals);
  if (bytes >= kMiB) return format_mib(bytes, decimals);
  if (bytes >= kKiB) return scaled(bytes, static_cast<double>(kKiB), decimals, "KiB");
  return fmt::format("{} B", bytes);
}

}  // namespace preflight
