// Where a command writes: the CLI passes std::cout / std::cerr, the web
// server a pair of string streams per request (so the API's payload is the
// CLI's output, byte for byte, and requests never share a stream).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "core/json_write.h"

namespace preflight::cli {

struct Io {
  std::ostream& out;
  std::ostream& err;
};

// A JSON payload as the commands print it (indent 2): nlohmann's dump(2, ' ',
// false, replace), byte for byte, written faster (core/json_write.h). Strings
// that are not valid UTF-8 (a path or argument in another encoding) are replaced
// with U+FFFD rather than making dump() throw.
inline std::string json_text(const nlohmann::json& j) { return write_json(j, 2); }

}  // namespace preflight::cli
