#include "model/pooling_runner.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/bytes.h"

namespace preflight {

Result<Runner> parse_runner(std::string_view text) {
  if (text.empty() || text == "auto") return Runner::automatic;
  if (text == "generate") return Runner::generate;
  if (text == "pooling") return Runner::pooling;
  return Error{"--runner", "", fmt::format("unknown runner '{}' (expected auto, generate or pooling)", text)};
}

Runner resolve_runner(Runner asked, bool has_sentence_transformers_config) {
  if (asked != Runner::automatic) return asked;
  return has_sentence_transformers_config ? Runner::pooling : Runner::generate;
}

void serve_as_pooling(ModelSpec& model, std::string_view why) {
  model.pooling_runner = true;
  auto& tensors = model.manifest.tensors;
  std::uint64_t dropped = 0;
  for (const auto& t : tensors)
    if (t.module == ModuleClass::lm_head) dropped = checked_add(dropped, t.bytes());
  std::erase_if(tensors, [](const StoredTensor& t) { return t.module == ModuleClass::lm_head; });
  model.notes.push_back(fmt::format(
      "served by a pooling runner ({}): the LM head is not loaded ({} B left out, {}) and the profile run pools "
      "instead of sampling (vLLM adapters.py deletes lm_head; gpu_model_runner runs _dummy_pooler_run)",
      why, with_commas(dropped), format_gib(dropped, 2)));
}

}  // namespace preflight
