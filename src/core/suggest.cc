#include "core/suggest.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/text.h"

namespace preflight {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const bool same =
          std::tolower(static_cast<unsigned char>(a[i - 1])) == std::tolower(static_cast<unsigned char>(b[j - 1]));
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

namespace {

bool starts_with_nocase(std::string_view text, std::string_view prefix) {
  if (prefix.size() > text.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[i])) != std::tolower(static_cast<unsigned char>(prefix[i])))
      return false;
  return true;
}

}  // namespace

std::string nearest_name(std::string_view wanted, const std::vector<std::string>& candidates) {
  // A name the user typed the start of ("qwen3-235b" for "qwen3-235b-a22b-2507") beats a
  // nearer spelling of another model ("qwen3-14b"): the shortest such name, then the nearest.
  if (wanted.size() >= 2) {
    std::string best_prefixed;
    for (const auto& c : candidates)
      if (c.size() > wanted.size() && starts_with_nocase(c, wanted) &&
          (best_prefixed.empty() || c.size() < best_prefixed.size()))
        best_prefixed = c;
    if (!best_prefixed.empty()) return best_prefixed;
  }
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(3, wanted.size() / 2) + 1;
  for (const auto& c : candidates) {
    const auto d = edit_distance(wanted, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string unknown_name_message(std::string_view what, std::string_view wanted,
                                 const std::vector<std::string>& candidates, std::string_view list_command) {
  const auto near = nearest_name(wanted, candidates);
  if (near.empty()) return fmt::format("unknown {} {} ({} lists the catalogue)", what, echo(wanted), list_command);
  return fmt::format("unknown {} {}; did you mean '{}'? ({} lists the catalogue)", what, echo(wanted), near,
                     list_command);
}

}  // namespace preflight
