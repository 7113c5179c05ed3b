#include "request_cost.h"

#include "core/text.h"

namespace preflight::cli {

namespace {

// The value of `key` in a query or form text (key=value&...), still encoded.
std::string_view form_value(std::string_view form, std::string_view key) {
  std::size_t at = 0;
  while (at <= form.size()) {
    const auto end = std::min(form.find('&', at), form.size());
    const auto pair = form.substr(at, end - at);
    if (pair.size() > key.size() && pair.substr(0, key.size()) == key && pair[key.size()] == '=')
      return pair.substr(key.size() + 1);
    at = end + 1;
  }
  return {};
}

// The string value of "key" in a JSON text (the first occurrence; escapes kept).
std::string_view json_value(std::string_view json, std::string_view key) {
  for (std::size_t at = json.find(key); at != std::string_view::npos; at = json.find(key, at + 1)) {
    if (at == 0 || json[at - 1] != '"' || at + key.size() >= json.size() || json[at + key.size()] != '"') continue;
    auto i = at + key.size() + 1;
    while (i < json.size() && (json[i] == ' ' || json[i] == '\t' || json[i] == '\r' || json[i] == '\n')) ++i;
    if (i >= json.size() || json[i] != ':') continue;
    ++i;
    while (i < json.size() && (json[i] == ' ' || json[i] == '\t' || json[i] == '\r' || json[i] == '\n')) ++i;
    if (i >= json.size()) return {};
    if (json[i] != '"') return json.substr(i, std::min<std::size_t>(5, json.size() - i));  // true, false, a number
    const auto close = json.find('"', i + 1);
    return json.substr(i + 1, (close == std::string_view::npos ? json.size() : close) - i - 1);
  }
  return {};
}

bool names_a_hub_id(std::string_view value) {
  return value.find('/') != std::string_view::npos || to_lower(value).find("%2f") != std::string::npos;
}

}  // namespace

bool is_heavy_request(std::string_view raw, bool hub_allowed) {
  const auto line_end = raw.find("\r\n");
  const auto line = raw.substr(0, line_end);
  const auto first_space = line.find(' ');
  if (first_space == std::string_view::npos) return false;
  auto target = line.substr(first_space + 1);
  target = target.substr(0, target.find(' '));
  const auto question = target.find('?');
  const auto path = target.substr(0, question);
  const auto query = question == std::string_view::npos ? std::string_view{} : target.substr(question + 1);
  const auto head_end = raw.find("\r\n\r\n");
  const auto body = head_end == std::string_view::npos ? std::string_view{} : raw.substr(head_end + 4);
  const bool json_body = !body.empty() && body.find_first_not_of(" \t\r\n") != std::string_view::npos &&
                         body[body.find_first_not_of(" \t\r\n")] == '{';

  for (const std::string_view solver : {"/api/fit", "/api/max", "/api/sweep"})
    if (path == solver) return true;
  const auto value = [&](std::string_view key) {
    if (auto v = form_value(query, key); !v.empty()) return v;
    return json_body ? json_value(body, key) : form_value(body, key);
  };
  if (path == "/api/inspect") {
    const auto tensors = value("tensors");
    if (tensors.starts_with("true") || tensors == "1") return true;
  }
  if (hub_allowed)
    for (const std::string_view key : {"model", "draft"})
      if (names_a_hub_id(value(key))) return true;
  return false;
}

}  // namespace preflight::cli
