#include "core/house_layout.h"

#include <string>

#include "core/plain_json.h"

namespace preflight {

std::optional<std::vector<std::string_view>> house_layout_entries(std::string_view text, std::string_view key) {
  const std::string list = "\n  \"" + std::string(key) + "\": [";
  constexpr std::string_view kOpen = "\n    {", kClose = "\n    }";
  auto at = text.find(list);
  if (at == std::string_view::npos) return std::nullopt;
  at += list.size();
  std::vector<std::string_view> entries;
  while (true) {
    const auto open = text.find(kOpen, at);
    if (open == std::string_view::npos) break;
    const auto close = text.find(kClose, open + kOpen.size());
    if (close == std::string_view::npos) return std::nullopt;
    const auto start = open + kOpen.size() - 1;  // the '{'
    entries.push_back(text.substr(start, close + kClose.size() - start));
    at = close + kClose.size();
  }
  if (entries.empty()) return std::nullopt;
  return entries;
}

std::optional<nlohmann::json> house_layout_value(std::string_view entry, std::string_view key, char close) {
  const std::string marker = "\n      \"" + std::string(key) + "\": ";
  const auto at = entry.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  const auto start = at + marker.size();
  const auto end = entry.find(close, start + 1);
  if (end == std::string_view::npos) return std::nullopt;
  return parse_plain_json(entry.substr(start, end + 1 - start));
}

}  // namespace preflight
