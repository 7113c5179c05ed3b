// Test helpers: read a file whole, from anywhere or from ../shared (tests may, the tool may not).
#pragma once
#include <fstream>
#include <sstream>
#include <string>

namespace preflight::testing {
inline std::string shared_path(const std::string& rel) { return std::string(PREFLIGHT_SHARED_DIR) + "/" + rel; }
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
inline std::string read_shared(const std::string& rel) { return read_file(shared_path(rel)); }
}  // namespace preflight::testing
