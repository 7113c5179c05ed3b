// Fuzzes the request-mix readers: --mix text and --mix-file CSV (as a mix and as a trace) (trace files
// come from other tools; a malformed one must be a one-line error).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "workload/request_mix.h"
#include "workload/request_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto mix = preflight::parse_mix(text, "fuzz")) {
    (void)preflight::heaviest_group(*mix, 1000, 7);
    (void)preflight::describe_mix(*mix);
  }
  if (auto mix = preflight::parse_mix_file(text, "fuzz")) (void)preflight::heaviest_group(*mix, (1u << 24), 3);
  if (auto trace = preflight::parse_request_trace(text, "fuzz")) {
    (void)trace->rate_per_s();
    for (std::size_t i = 1; i < trace->requests.size(); ++i)
      if (trace->requests[i].arrival_s < trace->requests[i - 1].arrival_s) __builtin_trap();  // sorted, always
  }
  return 0;
}
