// GPU architecture of an accelerator (hopper, blackwell, cdna3, ...), so launch
// recipes can say "Hopper override" once instead of naming every part.
//
// The table is data (data/launch/architectures.json, embedded at build time),
// each entry with its label and source (NVIDIA's compute capability table,
// AMD's ROCm hardware specifications). An accelerator's architecture comes
// from its catalogue entry (data/gpus.json "architecture"); accelerators added
// with --catalogue without one are matched by name patterns.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "hardware/accelerator.h"

namespace preflight {

struct GpuArch {
  std::string arch;                        // "hopper"
  std::string label;                       // "NVIDIA Hopper (SM90)"
  std::vector<std::string> ids;            // optional explicit catalogue ids (for --catalogue tables)
  std::vector<std::string> name_patterns;  // lookup keys ("h100") searched in a custom entry's id and name
  std::string source;
};

// Parses an architecture table; errors name `origin` and the JSON pointer.
Result<std::vector<GpuArch>> parse_gpu_archs(std::string_view json_text, std::string_view origin);

// The embedded table (data/launch/architectures.json). Validated by the unit
// tests, so a failure here is a programming error: throws std::logic_error.
const std::vector<GpuArch>& embedded_gpu_archs();

// The architecture of `gpu`: its id first, then the name patterns in table
// order. nullptr when nothing matches (then no architecture recipe applies).
const GpuArch* find_gpu_arch(const std::vector<GpuArch>& table, const Accelerator& gpu);

}  // namespace preflight
