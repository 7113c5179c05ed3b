// Fuzzes the config.json readers (every family, quantization rules) and the
// artifact-facts reader: any bytes must give a value or an Error, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/result.h"
#include "model/artifact_facts.h"
#include "model/family_registry.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)preflight::build_model_from_config(text, "fuzz");
  } catch (const preflight::InputError&) {
    // Checked arithmetic refusing absurd sizes is an input error, not a crash.
  }
  (void)preflight::parse_artifact_facts(text, "fuzz");
  return 0;
}
