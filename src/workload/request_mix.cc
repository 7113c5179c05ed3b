#include "workload/request_mix.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>

#include "core/bytes.h"
#include "core/text.h"
#include "core/units.h"

namespace preflight {

namespace {

constexpr std::uint64_t kPpm = 1'000'000;
constexpr std::size_t kBucketAbove = 64;
constexpr std::size_t kMaxFileRows = 10'000'000;
// --context's own bound; with it no sum of lengths or weights can overflow.
constexpr std::uint64_t kMaxLength = 1ULL << 30;

// Requests (< 2^24) times a file's weights (< 2^54) need more than 64 bits.
__extension__ typedef unsigned __int128 Wide;

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.push_back(trimmed(s.substr(start, i - start)));
      start = i + 1;
    }
  return out;
}

// Merges equal lengths and sorts by length.
RequestMix merged(const std::map<std::uint64_t, std::uint64_t>& by_length) {
  RequestMix mix;
  for (const auto& [tokens, weight] : by_length)
    if (weight > 0) mix.push_back(MixClass{tokens, weight});
  return mix;
}

// At most +25%: the next multiple of a quarter of the length's octave.
std::uint64_t bucketed(std::uint64_t tokens) {
  const int octave = static_cast<int>(std::bit_width(tokens)) - 1;
  if (octave < 2) return tokens;
  const std::uint64_t step = std::uint64_t{1} << (octave - 2);
  return ceil_div(tokens, step) * step;
}

Result<std::uint64_t> file_tokens(std::string_view cell, std::string_view origin, std::size_t line, bool allow_zero) {
  if (allow_zero && cell == "0") return std::uint64_t{0};
  auto v = parse_token_count(cell, fmt::format("{}: line {}", origin, line));
  if (!v) return v.error();
  if (*v == 0 || *v > kMaxLength)
    return Error{fmt::format("{}: line {}", origin, line), "",
                 fmt::format("a length must be 1 to {} tokens, got {}", with_commas(kMaxLength), echo(cell))};
  return *v;
}

// A header names its columns: every cell one of these (any case). Anything else
// on the first line is data and must parse as a length, so a stray first value
// ("-5", "nan", a byte-order mark an editor added) is an error, not a request
// silently dropped as a header.
bool is_header(const std::vector<std::string_view>& cells) {
  static constexpr std::string_view kNames[] = {"tokens",       "length",        "input",         "output",
                                                "input_tokens", "output_tokens", "prompt_tokens", "completion_tokens",
                                                "arrival",      "arrival_s",     "timestamp",     "time"};
  for (const auto cell : cells) {
    if (std::find(std::begin(kNames), std::end(kNames), to_lower(cell)) == std::end(kNames)) return false;
  }
  return !cells.empty();
}

// An arrival time: seconds from the trace's start, a plain decimal (no sign,
// NaN or infinity), at most a year.
Result<double> file_seconds(std::string_view cell, std::string_view origin, std::size_t line) {
  constexpr double kMaxSeconds = 366.0 * 86400.0;
  double v = -1;
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v, std::chars_format::fixed);
  if (cell.empty() || cell.front() == '-' || cell.front() == '+' || ec != std::errc() ||
      end != cell.data() + cell.size() || !std::isfinite(v) || v < 0 || v > kMaxSeconds)
    return Error{fmt::format("{}: line {}", origin, line), "",
                 fmt::format("an arrival time must be seconds from 0 to {:.0f}, got {}", kMaxSeconds, echo(cell))};
  return v;
}

}  // namespace

Result<RequestMix> parse_mix(std::string_view text, std::string_view origin) {
  const std::string o(origin);
  if (trimmed(text).empty()) return Error{o, "", "expected LENGTH:SHARE% pairs such as 2K:70%,32K:25%,1M:5%"};
  std::map<std::uint64_t, std::uint64_t> by_length;
  std::uint64_t total = 0;
  const auto members = split(text, ',');
  if (members.size() > kMaxMixClasses)
    return Error{o, "", fmt::format("{} members; at most {}", members.size(), kMaxMixClasses)};
  for (const auto member : members) {
    const auto colon = member.find(':');
    if (colon == std::string_view::npos)
      return Error{o, "", fmt::format("member {} is not LENGTH:SHARE% (e.g. 32K:25%)", echo(member))};
    auto tokens = parse_token_count(member.substr(0, colon), o);
    if (!tokens) return tokens.error();
    if (*tokens == 0 || *tokens > kMaxLength)
      return Error{o, "",
                   fmt::format("member {}: the length must be 1 to {} tokens", echo(member), with_commas(kMaxLength))};
    auto share = trimmed(member.substr(colon + 1));
    if (share.empty() || share.back() != '%')
      return Error{o, "", fmt::format("member {}: the share needs a % sign (e.g. 25%)", echo(member))};
    share = trimmed(share.substr(0, share.size() - 1));
    double percent = 0;
    const auto [end, ec] = std::from_chars(share.data(), share.data() + share.size(), percent);
    if (ec != std::errc() || end != share.data() + share.size() || !std::isfinite(percent) || percent <= 0 ||
        percent > 100)
      return Error{o, "",
                   fmt::format("member {}: the share must be a percentage above 0 and at most 100", echo(member))};
    const auto ppm = static_cast<std::uint64_t>(std::llround(percent * 10'000.0));
    if (ppm == 0) return Error{o, "", fmt::format("member {}: a share below 0.0001% is no share", echo(member))};
    by_length[*tokens] += ppm;
    total += ppm;
  }
  if (total + 100 < kPpm || total > kPpm + 100)
    return Error{o, "", fmt::format("the shares add up to {:.4g}%, not 100%", static_cast<double>(total) / 10'000.0)};
  return merged(by_length);
}

std::optional<Error> for_each_mix_file_row(std::string_view text, std::string_view origin,
                                           const std::function<std::optional<Error>(const MixFileRow&)>& visit) {
  const std::string o(origin);
  std::size_t line_number = 0, rows = 0;
  int columns = 0;
  std::size_t start = 0;
  // A UTF-8 byte-order mark (Excel's "CSV UTF-8") is not part of the first line.
  if (text.starts_with("\xEF\xBB\xBF")) start = 3;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const auto line = trimmed(text.substr(start, end - start));
    start = end + 1;
    ++line_number;
    if (line.empty() || line.front() == '#') continue;
    // At most three columns: a line of many commas is refused before it is split
    // (a 100 MB line of commas would be 10^8 cells).
    if (std::count(line.begin(), line.end(), ',') > 2)
      return Error{
          o, fmt::format("line {}", line_number),
          fmt::format("expected the columns tokens, or input,output, or input,output,arrival, got {}", echo(line))};
    const auto cells = split(line, ',');
    if (rows == 0 && columns == 0 && is_header(cells)) {
      columns = static_cast<int>(cells.size());
      continue;
    }
    if (columns != 0 && static_cast<int>(cells.size()) != columns)
      return Error{o, fmt::format("line {}", line_number),
                   fmt::format("expected {} column(s) (tokens, or input,output, or input,output,arrival), got {}",
                               columns, echo(line))};
    columns = static_cast<int>(cells.size());
    if (++rows > kMaxFileRows) return Error{o, "", fmt::format("more than {} requests", kMaxFileRows)};
    MixFileRow row;
    row.line = line_number;
    if (columns == 1) {
      auto t = file_tokens(cells[0], o, line_number, false);
      if (!t) return t.error();
      row.input = *t;
    } else {
      auto input = file_tokens(cells[0], o, line_number, false);
      if (!input) return input.error();
      auto output = file_tokens(cells[1], o, line_number, true);
      if (!output) return output.error();
      row.input = *input;
      row.output = *output;
      row.split = true;
      if (columns == 3) {
        auto at = file_seconds(cells[2], o, line_number);
        if (!at) return at.error();
        row.arrival_s = *at;
      }
    }
    if (auto e = visit(row)) return e;
  }
  return std::nullopt;
}

Result<RequestMix> parse_mix_file(std::string_view text, std::string_view origin) {
  std::map<std::uint64_t, std::uint64_t> by_length;
  // A request reaches input + output tokens; with an output column it is running
  // in proportion to how long it decodes (Little's law): weight = output tokens.
  auto e = for_each_mix_file_row(text, origin, [&](const MixFileRow& row) -> std::optional<Error> {
    by_length[row.input + row.output] +=
        row.split ? std::max<std::uint64_t>(row.output, 1) : 1;  // at most 10^7 rows x 2^30
    return std::nullopt;
  });
  if (e) return *e;
  if (by_length.empty())
    return Error{std::string(origin), "", "no requests: expected one length per line, or input,output pairs"};
  if (by_length.size() > kBucketAbove) {
    std::map<std::uint64_t, std::uint64_t> buckets;
    for (const auto& [tokens, weight] : by_length) {
      buckets[bucketed(tokens)] += weight;
    }
    by_length = std::move(buckets);
  }
  return merged(by_length);
}

std::vector<std::uint64_t> apportion(const RequestMix& mix, std::uint64_t requests) {
  std::vector<std::uint64_t> counts(mix.size(), 0);
  if (mix.empty()) return counts;
  Wide total = 0;
  for (const auto& c : mix) total += c.weight;
  std::vector<std::pair<Wide, std::size_t>> remainders;
  std::uint64_t given = 0;
  for (std::size_t i = 0; i < mix.size(); ++i) {
    const Wide quota = static_cast<Wide>(requests) * mix[i].weight;
    counts[i] = static_cast<std::uint64_t>(quota / total);
    given += counts[i];
    remainders.emplace_back(quota % total, i);
  }
  // Largest remainder first; among equal remainders the longer class (larger index).
  std::sort(remainders.begin(), remainders.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second > b.second; });
  for (std::size_t k = 0; given < requests; ++k, ++given) ++counts[remainders[k].second];
  return counts;
}

std::vector<std::uint64_t> heaviest_group(const RequestMix& mix, std::uint64_t total, std::uint64_t groups) {
  groups = std::max<std::uint64_t>(groups, 1);
  const auto overall = apportion(mix, total);
  std::vector<std::uint64_t> counts(mix.size(), 0);
  auto left = ceil_div(total, groups);
  for (std::size_t i = mix.size(); i-- > 0 && left > 0;) {
    counts[i] = std::min(ceil_div(overall[i], groups), left);
    left -= counts[i];
  }
  return counts;
}

std::uint64_t longest(const RequestMix& mix) {
  std::uint64_t most = 0;
  for (const auto& c : mix) most = std::max(most, c.tokens);
  return most;
}

std::uint64_t mean_tokens(const RequestMix& mix) {
  Wide weighted = 0, total = 0;
  for (const auto& c : mix) {
    weighted += static_cast<Wide>(c.tokens) * c.weight;
    total += c.weight;
  }
  return total > 0 ? static_cast<std::uint64_t>((weighted + total - 1) / total) : 0;
}

double share_percent(const RequestMix& mix, std::size_t i) {
  double total = 0;
  for (const auto& c : mix) total += static_cast<double>(c.weight);
  return total > 0 ? 100.0 * static_cast<double>(mix[i].weight) / total : 0;
}

std::string describe_mix(const RequestMix& mix) {
  std::string out;
  for (std::size_t i = 0; i < mix.size(); ++i) {
    const auto pct = share_percent(mix, i);
    const auto share =
        std::abs(pct - std::round(pct)) < 0.005 ? fmt::format("{:.0f}", pct) : fmt::format("{:.2f}", pct);
    out += fmt::format("{}{}:{}%", i == 0 ? "" : ", ", with_commas(mix[i].tokens), share);
  }
  return out;
}

}  // namespace preflight
