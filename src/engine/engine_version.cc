#include "engine/engine_version.h"

#include <fmt/format.h>

#include <charconv>

#include "core/json_read.h"

namespace preflight {

std::string EngineVersion::str() const {
  if (!text.empty()) return text;
  return post > 0 ? fmt::format("{}.{}.{}.post{}", major, minor, patch, post)
                  : fmt::format("{}.{}.{}", major, minor, patch);
}

Result<EngineVersion> parse_engine_version(const std::string& text, const std::string& origin) {
  std::size_t i = 0;
  while (i < text.size() && !(text[i] >= '0' && text[i] <= '9')) ++i;
  EngineVersion v;
  int* parts[3] = {&v.major, &v.minor, &v.patch};
  int n = 0;
  while (n < 3 && i < text.size()) {
    int value = 0;
    auto [ptr, ec] = std::from_chars(text.data() + i, text.data() + text.size(), value);
    if (ec != std::errc()) break;
    *parts[n++] = value;
    i = static_cast<std::size_t>(ptr - text.data());
    if (i < text.size() && text[i] == '.')
      ++i;
    else
      break;
  }
  // A post release after major.minor.patch: "0.5.3.post1" (the '.' is consumed above) or "0.5.3post1".
  if (n == 3 && text.compare(i, 4, "post") == 0) {
    int post = 0;
    auto [ptr, ec] = std::from_chars(text.data() + i + 4, text.data() + text.size(), post);
    if (ec == std::errc()) v.post = post;
  }
  if (n < 2) return Error{origin, "", fmt::format("expected a version such as 0.19.0, got {}", quote(text))};
  v.text = text;
  return v;
}

}  // namespace preflight
