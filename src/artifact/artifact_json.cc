#include "artifact/artifact_json.h"

#include <limits>

namespace preflight::artifact {

using nlohmann::json;

std::optional<std::uint64_t> as_count(const json& value) {
  if (value.is_number_unsigned()) return value.get<std::uint64_t>();
  if (value.is_number_integer() && value.get<std::int64_t>() == 0) return 0;  // "-0"
  return std::nullopt;
}

std::optional<std::uint64_t> count_from_digits(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::uint64_t n = 0;
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (n > (kMax - digit) / 10) return std::nullopt;
    n = n * 10 + digit;
  }
  return n;
}

std::string relative_path_problem(std::string_view path) {
  if (path.empty()) return "is empty";
  if (path.front() == '/') return "is an absolute path";
  for (char c : path) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\\') return "contains a backslash";
    if (u < 0x20 || u == 0x7F) return "contains a control character";
  }
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (path.substr(start, slash - start) == "..") return "has a \"..\" component";
    start = slash + 1;
  }
  return "";
}

}  // namespace preflight::artifact
