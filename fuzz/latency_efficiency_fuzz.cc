// Fuzzes the latency efficiency table (--latency-efficiency FILE): any text
// gives a table whose entries are in range, or a one-line Error, never a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "perf/latency_efficiency.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto table = preflight::LatencyEfficiencyTable::parse(text, "latency_efficiency.json");
  if (!table.ok()) {
    if (table.error().to_string().find('\n') != std::string::npos) std::abort();
    return 0;
  }
  const auto& e = table->find("nvidia-h100-sxm-80gb");
  if (!(e.step.memory > 0 && e.step.memory <= 1 && e.step.compute > 0 && e.step.compute <= 1)) std::abort();
  if (e.step.per_layer_s < 0 || e.step.per_seq_s < 0 || e.band < 0) std::abort();
  return 0;
}
