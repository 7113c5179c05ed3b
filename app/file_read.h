// Reading a whole file the user named (a config, an index, a hub listing, a
// --catalogue), with the checks that keep a bad path a one-line error: it must
// exist, be a plain file (a device such as /dev/zero never ends, a FIFO can
// block forever) and be under a size limit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/result.h"

namespace preflight::cli {

inline constexpr std::uint64_t kMaxInputFile = 256ULL * 1024 * 1024;

// Errors name the path: "no such file", "is a folder, not a file", "not a
// regular file (a device, FIFO or socket)", "file is larger than ...".
Result<std::string> read_file(const std::string& path, std::uint64_t limit = kMaxInputFile);

// The same checks without reading: for files read in part (a shard's header).
std::optional<Error> check_regular_file(const std::string& path);

}  // namespace preflight::cli
