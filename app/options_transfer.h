// Options as one JSON string, for the serve module's boundary (serve_module.h).
// The binary and the module each link their own C++ runtime (for start-up time),
// so no C++ object crosses between them: only this C string, written and read by
// the option table's members. Fields the command line never sets (the
// disaggregated plan's latency_phase) are not carried.
#pragma once

#include <string>
#include <string_view>

#include "cli_options.h"
#include "core/result.h"

namespace preflight::cli {

std::string options_to_transfer(const Options& o);
Result<Options> options_from_transfer(std::string_view text);

}  // namespace preflight::cli
