// Parsing of the quantities users type: token counts ("128K", "1M", "1000000"),
// byte sizes ("8GiB", "20GB", "512MiB"), percentages ("10%") and GPU specs
// ("8xH100"). Token suffixes are binary (K = 1,024, M = 1,048,576) because
// context windows are quoted that way (K3's 1M window is 1,048,576 tokens).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace preflight {

// `origin` names the flag for the error message ("--context").
Result<std::uint64_t> parse_token_count(std::string_view text, std::string_view origin);
Result<std::uint64_t> parse_byte_size(std::string_view text, std::string_view origin);
Result<std::uint64_t> parse_positive_integer(std::string_view text, std::string_view origin);

// "2s", "50ms", "250us", "1.5" (seconds): a positive duration in seconds, at
// most an hour (latency targets).
Result<double> parse_duration(std::string_view text, std::string_view origin);

// "10%" -> percent; "8GiB" -> bytes. Exactly one of the two is set.
struct ReserveSpec {
  bool is_percent = true;
  double percent = 10.0;    // of the device-reported capacity
  std::uint64_t bytes = 0;  // per GPU
};
Result<ReserveSpec> parse_reserve(std::string_view text, std::string_view origin);

// "8xH100" -> {8, "H100"}. Count must be >= 1.
struct GpuSpec {
  std::uint64_t count = 0;
  std::string family;
};
Result<GpuSpec> parse_gpu_spec(std::string_view text, std::string_view origin);

}  // namespace preflight
