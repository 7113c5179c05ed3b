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

namespace {

// A string literal of printable ASCII without escapes ("H100") at the start of
// `text`: its characters, and where the literal ends. nullopt for anything else
// (JSON's own reader then decides).
std::optional<std::pair<std::string_view, std::size_t>> plain_literal(std::string_view text) {
  if (text.empty() || text.front() != '"') return std::nullopt;
  for (std::size_t i = 1; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') return std::make_pair(text.substr(1, i - 1), i + 1);
    if (c == '\\' || c < 0x20 || c > 0x7e) return std::nullopt;
  }
  return std::nullopt;
}

// `["a", "b"]` of plain literals, read in place; nullopt for anything else.
std::optional<std::vector<std::string>> plain_list(std::string_view text) {
  std::vector<std::string> out;
  if (text.empty() || text.front() != '[') return std::nullopt;
  std::size_t at = 1;
  const auto skip = [&] {
    while (at < text.size() && text[at] == ' ') ++at;
  };
  skip();
  if (at < text.size() && text[at] == ']') return out;
  while (true) {
    auto lit = plain_literal(text.substr(at));
    if (!lit) return std::nullopt;
    out.emplace_back(lit->first);
    at += lit->second;
    skip();
    if (at >= text.size()) return std::nullopt;
    if (text[at] == ']') return out;
    if (text[at] != ',') return std::nullopt;
    ++at;
    skip();
  }
}

}  // namespace

std::optional<std::string> house_layout_string(std::string_view entry, std::string_view key) {
  const auto start = value_start(entry, key);
  if (start == std::string_view::npos) return std::nullopt;
  if (auto lit = plain_literal(entry.substr(start))) return std::string(lit->first);
  const auto v = house_layout_value(entry, key, '"');
  if (!v || !v->is_string()) return std::nullopt;
  return v->get<std::string>();
}

std::optional<std::vector<std::string>> house_layout_strings(std::string_view entry, std::string_view key) {
  std::vector<std::string> out;
  const auto start = value_start(entry, key);
  if (start == std::string_view::npos) return out;
  // A line of plain names, as the catalogues' aliases are, without a JSON value;
  // anything else through the reader below.
  if (const auto end = entry.find(']', start); end != std::string_view::npos)
    if (auto plain = plain_list(entry.substr(start, end + 1 - start))) return plain;
  const auto list = house_layout_value(entry, key, ']');
  if (!list || !list->is_array()) return std::nullopt;
  for (const auto& item : *list) {
    if (!item.is_string()) return std::nullopt;
    out.push_back(item.get<std::string>());
  }
  return out;
}

}  // namespace preflight
