// Fuzzes the hf_quant_config.json merge: any text as the file (and as config.json)
// gives the config unchanged, a merged config that parses, or a one-line Error,
// never a crash; a merged config's quantization_config is ModelOpt's.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "artifact/hf_quant_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // The input as hf_quant_config.json beside a plain config, then as the config beside a real file.
  const auto merged =
      preflight::merge_hf_quant_config(R"({"model_type": "llama"})", "config.json", text, "hf_quant_config.json");
  if (!merged.ok() && merged.error().to_string().find('\n') != std::string::npos) std::abort();
  if (merged.ok() && merged->merged) {
    const auto doc = nlohmann::json::parse(merged->config, nullptr, false);
    if (doc.is_discarded() || doc["quantization_config"]["quant_method"] != "modelopt") std::abort();
  }
  const auto other = preflight::merge_hf_quant_config(
      text, "config.json", R"({"quantization": {"quant_algo": "NVFP4", "exclude_modules": ["lm_head"]}})",
      "hf_quant_config.json");
  if (!other.ok()) std::abort();  // a config that does not parse is left to the config reader
  return 0;
}
