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

namespace {

// Where the value of an entry's own `key` starts; npos when the entry has no such line.
std::size_t value_start(std::string_view entry, std::string_view key) {
  const std::string marker = "\n      \"" + std::string(key) + "\": ";
  const auto at = entry.find(marker);
  return at == std::string_view::npos ? at : at + marker.size();
}

}  // namespace

std::optional<nlohmann::json> house_layout_value(std::string_view entry, std::string_view key, char close) {
  const auto start = value_start(entry, key);
  if (start == std::string_view::npos) return std::nullopt;
  const auto end = entry.find(close, start + 1);
  if (end == std::string_view::npos) return std::nullopt;
  return parse_plain_json(entry.substr(start, end + 1 - start));
}

std::optional<std::vector<std::string>> house_layout_strings(std::string_view entry, std::string_view key) {
  std::vector<std::string> out;
  if (value_start(entry, key) == std::string_view::npos) return out;
  const auto list = house_layout_value(entry, key, ']');
  if (!list || !list->is_array()) return std::nullopt;
  for (const auto& item : *list) {
    if (!item.is_string()) return std::nullopt;
    out.push_back(item.get<std::string>());
  }
  return out;
}

}  // namespace preflight
