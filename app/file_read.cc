#include "file_read.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace preflight::cli {

namespace fs = std::filesystem;

std::optional<Error> check_regular_file(const std::string& path) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (!fs::exists(status)) return Error{path, "", "no such file"};
  if (fs::is_directory(status)) return Error{path, "", "is a folder, not a file"};
  if (!fs::is_regular_file(status)) return Error{path, "", "not a regular file (a device, FIFO or socket)"};
  return std::nullopt;
}

Result<std::string> read_file(const std::string& path, std::uint64_t limit) {
  if (auto e = check_regular_file(path)) return *e;
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return Error{path, "", "cannot read the file size"};
  if (size > limit) return Error{path, "", fmt::format("file is larger than {} bytes", limit)};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path, "", "cannot open the file"};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace preflight::cli
