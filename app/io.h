// Where a command writes: the CLI passes std::cout / std::cerr, the web
// server a pair of string streams per request (so the API's payload is the
// CLI's output, byte for byte, and requests never share a stream).
#pragma once

#include <ostream>

namespace preflight::cli {

struct Io {
  std::ostream& out;
  std::ostream& err;
};

}  // namespace preflight::cli
