// Fuzzes the command-line quantity parsers (tokens, sizes, reserve, GPU specs).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/units.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)preflight::parse_token_count(text, "fuzz");
  (void)preflight::parse_byte_size(text, "fuzz");
  (void)preflight::parse_reserve(text, "fuzz");
  (void)preflight::parse_gpu_spec(text, "fuzz");
  (void)preflight::parse_positive_integer(text, "fuzz");
  (void)preflight::parse_duration(text, "fuzz");
  return 0;
}
