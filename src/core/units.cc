#include "core/units.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>

#include "core/bytes.h"
#include "core/text.h"

namespace preflight {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits "12.5GiB" into number "12.5" and suffix "GiB".
void split_number(std::string_view s, std::string_view& number, std::string_view& suffix) {
  std::size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.' || s[i] == '_' || s[i] == ','))
    ++i;
  number = s.substr(0, i);
  suffix = trim(s.substr(i));
}

Result<double> parse_decimal(std::string_view number, std::string_view text, std::string_view origin,
                             std::string_view what) {
  std::string digits;
  for (char c : number)
    if (c != '_' && c != ',') digits.push_back(c);
  if (digits.empty() || digits == ".")
    return Error{std::string(origin), "", fmt::format("expected {}, got {}", what, echo(text))};
  double v = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || ptr != digits.data() + digits.size() || !std::isfinite(v))
    return Error{std::string(origin), "", fmt::format("expected {}, got {}", what, echo(text))};
  return v;
}

Result<std::uint64_t> scale_to_integer(double v, double multiplier, std::string_view text, std::string_view origin,
                                       std::string_view what) {
  const double scaled = v * multiplier;
  if (scaled >= 1.8e19) return Error{std::string(origin), "", fmt::format("{} {} is too large", what, echo(text))};
  if (scaled != std::floor(scaled))
    return Error{std::string(origin), "", fmt::format("{} {} is not a whole number", what, echo(text))};
  return static_cast<std::uint64_t>(scaled);
}

}  // namespace

Result<std::uint64_t> parse_positive_integer(std::string_view text, std::string_view origin) {
  auto t = trim(text);
  if (!t.empty() && t.front() == '-')
    return Error{std::string(origin), "", fmt::format("must be a positive integer, got {}", echo(text))};
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || ptr != t.data() + t.size())
    return Error{std::string(origin), "", fmt::format("expected a positive integer, got {}", echo(text))};
  if (v == 0) return Error{std::string(origin), "", fmt::format("must be at least 1, got {}", echo(text))};
  return v;
}

Result<std::uint64_t> parse_token_count(std::string_view text, std::string_view origin) {
  auto t = trim(text);
  if (!t.empty() && t.front() == '-')
    return Error{std::string(origin), "", fmt::format("token count must be positive, got {}", echo(text))};
  std::string_view number, suffix;
  split_number(t, number, suffix);
  auto v = parse_decimal(number, text, origin, "a token count such as 131072, 128K or 1M");
  if (!v) return v.error();
  const std::string s = to_lower(suffix);
  double mult = 1;
  if (s.empty())
    mult = 1;
  else if (s == "k")
    mult = 1024.0;
  else if (s == "m")
    mult = 1048576.0;
  else if (s == "g")
    mult = 1073741824.0;
  else
    return Error{
        std::string(origin), "",
        fmt::format("unknown suffix {} in {} (use K = 1,024 or M = 1,048,576 tokens)", echo(suffix), echo(text))};
  auto n = scale_to_integer(*v, mult, text, origin, "token count");
  if (!n) return n;
  if (*n == 0) return Error{std::string(origin), "", fmt::format("token count must be at least 1, got {}", echo(text))};
  return n;
}

Result<std::uint64_t> parse_byte_size(std::string_view text, std::string_view origin) {
  auto t = trim(text);
  if (!t.empty() && t.front() == '-')
    return Error{std::string(origin), "", fmt::format("size must be positive, got {}", echo(text))};
  std::string_view number, suffix;
  split_number(t, number, suffix);
  auto v = parse_decimal(number, text, origin, "a size such as 8GiB or 20GB");
  if (!v) return v.error();
  const std::string s = to_lower(suffix);
  double mult = 0;
  if (s.empty() || s == "b")
    mult = 1;
  else if (s == "kib")
    mult = static_cast<double>(kKiB);
  else if (s == "mib")
    mult = static_cast<double>(kMiB);
  else if (s == "gib")
    mult = static_cast<double>(kGiB);
  else if (s == "tib")
    mult = static_cast<double>(kTiB);
  else if (s == "kb")
    mult = 1e3;
  else if (s == "mb")
    mult = 1e6;
  else if (s == "gb")
    mult = 1e9;
  else if (s == "tb")
    mult = 1e12;
  else
    return Error{
        std::string(origin), "",
        fmt::format("unknown unit {} in {} (use B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)", echo(suffix), echo(text))};
  return scale_to_integer(std::round(*v * mult), 1, text, origin, "size");
}

Result<double> parse_duration(std::string_view text, std::string_view origin) {
  auto t = trim(text);
  if (!t.empty() && t.front() == '-')
    return Error{std::string(origin), "", fmt::format("a duration must be positive, got {}", echo(text))};
  std::string_view number, suffix;
  split_number(t, number, suffix);
  auto v = parse_decimal(number, text, origin, "a duration such as 2s, 50ms or 250us");
  if (!v) return v.error();
  const std::string s = to_lower(suffix);
  double mult = 0;
  if (s.empty() || s == "s")
    mult = 1;
  else if (s == "ms")
    mult = 1e-3;
  else if (s == "us")
    mult = 1e-6;
  else
    return Error{std::string(origin), "",
                 fmt::format("unknown unit {} in {} (use s, ms or us)", echo(suffix), echo(text))};
  const double seconds = *v * mult;
  if (!(seconds > 0) || seconds > 3600)
    return Error{std::string(origin), "",
                 fmt::format("expected a duration above 0 and at most 1 hour, got {}", echo(text))};
  return seconds;
}

Result<ReserveSpec> parse_reserve(std::string_view text, std::string_view origin) {
  auto t = trim(text);
  if (!t.empty() && t.back() == '%') {
    auto v = parse_decimal(t.substr(0, t.size() - 1), text, origin, "a percentage such as 10%");
    if (!v) return v.error();
    if (*v < 0 || *v >= 100)
      return Error{std::string(origin), "", fmt::format("percentage must be in [0, 100), got {}", echo(text))};
    ReserveSpec r;
    r.is_percent = true;
    r.percent = *v;
    return r;
  }
  auto b = parse_byte_size(t, origin);
  if (!b) return b.error();
  ReserveSpec r;
  r.is_percent = false;
  r.bytes = *b;
  return r;
}

Result<GpuSpec> parse_gpu_spec(std::string_view text, std::string_view origin) {
  auto t = trim(text);
  const auto x = t.find_first_of("xX");
  if (x == std::string_view::npos || x == 0 || x + 1 >= t.size())
    return Error{std::string(origin), "", fmt::format("expected COUNTxFAMILY such as 8xH100, got {}", echo(text))};
  auto count_text = t.substr(0, x);
  if (count_text.front() == '-')
    return Error{std::string(origin), "", fmt::format("GPU count must be at least 1, got {}", echo(text))};
  std::uint64_t count = 0;
  auto [ptr, ec] = std::from_chars(count_text.data(), count_text.data() + count_text.size(), count);
  if (ec != std::errc() || ptr != count_text.data() + count_text.size())
    return Error{std::string(origin), "", fmt::format("expected COUNTxFAMILY such as 8xH100, got {}", echo(text))};
  if (count == 0)
    return Error{std::string(origin), "", fmt::format("GPU count must be at least 1, got {}", echo(text))};
  if (count > 65536) return Error{std::string(origin), "", fmt::format("GPU count {} is beyond 65,536", count)};
  return GpuSpec{count, std::string(trim(t.substr(x + 1)))};
}

}  // namespace preflight
