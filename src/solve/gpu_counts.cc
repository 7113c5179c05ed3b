#include "solve/gpu_counts.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <string>

namespace preflight {

namespace {

// A plain positive decimal, digits only.
bool parse_count(std::string_view s, std::uint64_t& out) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size() && out >= 1;
}

bool power_of_two(std::uint64_t n) { return n > 0 && (n & (n - 1)) == 0; }

}  // namespace

Result<CountSpec> parse_counts(std::string_view text, std::string_view flag) {
  const auto bad = [&](std::string_view why) {
    return Error{std::string(flag), "",
                 fmt::format("{}: expected a range A..B or a list such as 8,16,32, got '{}'", why, text)};
  };
  if (text.empty()) return bad("empty");
  CountSpec spec;
  if (const auto dots = text.find(".."); dots != std::string_view::npos) {
    std::uint64_t a = 0, b = 0;
    if (!parse_count(text.substr(0, dots), a) || !parse_count(text.substr(dots + 2), b))
      return bad("range ends must be positive integers");
    if (a > b) return bad("range start is above its end");
    if (b > kMaxSolverGpus) return bad(fmt::format("counts above {} are not searched", kMaxSolverGpus));
    spec.first = a;
    spec.last = b;
    return spec;
  }
  spec.range = false;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const auto item = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    std::uint64_t n = 0;
    if (!parse_count(item, n)) return bad("counts must be positive integers");
    if (n > kMaxSolverGpus) return bad(fmt::format("counts above {} are not searched", kMaxSolverGpus));
    spec.list.push_back(n);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  std::sort(spec.list.begin(), spec.list.end());
  spec.list.erase(std::unique(spec.list.begin(), spec.list.end()), spec.list.end());
  return spec;
}

std::vector<std::uint64_t> counts_for(const CountSpec& spec, std::uint64_t node_size) {
  if (!spec.range) return spec.list;
  const auto node = std::max<std::uint64_t>(node_size, 1);
  std::vector<std::uint64_t> out;
  for (auto n = spec.first; n <= spec.last; ++n)
    if ((n <= node && power_of_two(n)) || n % node == 0) out.push_back(n);
  return out;
}

std::vector<std::uint64_t> whole_node_counts(std::uint64_t max_gpus, std::uint64_t node_size) {
  const auto node = std::max<std::uint64_t>(node_size, 1);
  std::vector<std::uint64_t> out;
  // The counts people reserve: power-of-two slices of a node (cloud shapes of
  // 1, 2, 4, 8 GPUs; TP a power of two), then whole nodes. 7 GPUs of an 8-GPU
  // node is never the answer, as sweep's ranges never list it (counts_for).
  for (std::uint64_t n = 1; n <= max_gpus; ++n)
    if ((n <= node && power_of_two(n)) || n % node == 0) out.push_back(n);
  return out;
}

}  // namespace preflight
