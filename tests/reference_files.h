// Test helpers: read a file whole, from anywhere or from tests/data/reference (the released files tests check against).
#pragma once
#include <fstream>
#include <sstream>
#include <string>

namespace preflight::testing {
inline std::string reference_path(const std::string& rel) { return std::string(PREFLIGHT_REFERENCE_DIR) + "/" + rel; }
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
inline std::string read_reference(const std::string& rel) { return read_file(reference_path(rel)); }
}  // namespace preflight::testing
