// Test helper: reads a file from ../shared (tests may, the tool may not).
#pragma once
#include <fstream>
#include <sstream>
#include <string>

namespace preflight::testing {
inline std::string shared_path(const std::string& rel) { return std::string(PREFLIGHT_SHARED_DIR) + "/" + rel; }
inline std::string read_shared(const std::string& rel) {
  std::ifstream in(shared_path(rel), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace preflight::testing
