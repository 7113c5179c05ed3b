// Small text helpers shared by the parsers.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace preflight {

inline std::string to_lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace preflight
