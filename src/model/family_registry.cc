#include "model/family_registry.h"

#include <fmt/format.h>

#include "model/families/families.h"
#include "core/json_read.h"
#include "model/json_fields.h"

namespace preflight {

const std::vector<FamilyRow>& family_registry() {
  static const std::vector<FamilyRow> kRows = {
      {"kimi_k3", {"kimi_k3"}, build_kimi_k3, "Kimi K3: KDA + MLA, latent MoE with MXFP4 experts, AttnRes, MoonViT"},
      {"kimi_linear", {"kimi_linear"}, build_kimi_linear, "Kimi-Linear: KDA + MLA, MoE"},
      {"deepseek", {"deepseek_v2", "deepseek_v3", "deepseek_v32", "kimi_k2"}, build_deepseek,
       "DeepSeek-V2/V3, Kimi K2: MLA, MoE with shared experts, MTP layers"},
      {"dense_decoder", {"llama", "mistral", "qwen2", "qwen3"}, build_dense_decoder,
       "Llama, Mistral, Qwen2, Qwen3: dense GQA decoders"},
      {"moe_decoder", {"mixtral", "qwen2_moe", "qwen3_moe"}, build_moe_decoder, "Mixtral, Qwen2-MoE, Qwen3-MoE"},
      {"gemma", {"gemma2", "gemma3", "gemma3_text"}, build_gemma, "Gemma 2/3: sliding-window pattern, tied embeddings"},
      {"qwen3_next", {"qwen3_next"}, build_qwen3_next, "Qwen3-Next: Gated DeltaNet + gated attention"},
      {"glm4_moe", {"glm4_moe"}, build_glm4_moe, "GLM-4.5: MoE with MTP layers"},
      {"minimax_m2", {"minimax_m2", "minimax"}, build_minimax_m2, "MiniMax-M2: FP8 MoE"},
      {"gpt_oss", {"gpt_oss"}, build_gpt_oss, "gpt-oss: MXFP4 experts, attention sinks, sliding window"},
  };
  return kRows;
}

Result<ModelSpec> build_model_from_config(std::string_view config_json, std::string_view origin) {
  // config.json is read as transformers reads it (Python's json: a repeated key keeps its last value).
  auto parsed = parse_json(config_json, origin, "", DuplicateKeys::last_wins);
  if (!parsed) return parsed.error();
  const nlohmann::json& doc = *parsed;
  if (!doc.is_object()) return Error{std::string(origin), "", "expected a JSON object at the top level"};
  std::string model_type;
  if (doc.contains("model_type") && doc["model_type"].is_string()) model_type = doc["model_type"].get<std::string>();
  for (const auto& row : family_registry())
    for (auto t : row.model_types)
      if (t == model_type) {
        auto m = row.build(doc, origin);
        if (m) m.value().family = std::string(row.family);
        return m;
      }
  if (doc.contains("text_config") && doc["text_config"].is_object()) {
    const auto& text = doc["text_config"];
    const std::string inner = text.value("model_type", "");
    for (const auto& row : family_registry())
      for (auto t : row.model_types)
        if (t == inner) {
          auto m = row.build(doc, origin);
          if (m) m.value().family = std::string(row.family);
          return m;
        }
  }
  // Unknown architecture: the generic decoder reading, said out loud.
  auto m = build_dense_decoder(doc, origin);
  if (m) {
    m.value().family = "generic_decoder";
    m.value().family_reader = false;
    m.value().notes.push_back(fmt::format(
        "model_type '{}' is not a known family: read as a generic dense decoder (embedding, attention, MLP, head); "
        "verify against the real files",
        model_type));
  }
  return m;
}

}  // namespace preflight
