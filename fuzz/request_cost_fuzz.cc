// Fuzzes the classification of raw web requests into cheap and expensive
// (app/request_cost.h): it reads every request's bytes before any parser does.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "request_cost.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view raw(reinterpret_cast<const char*>(data), size);
  (void)preflight::cli::is_heavy_request(raw, true);
  (void)preflight::cli::is_heavy_request(raw, false);
  return 0;
}
