#include "model/family_registry.h"

#include <fmt/format.h>

#include "core/json_read.h"
#include "model/arch/architecture.h"
#include "model/json_fields.h"
#include "model/out_of_scope.h"

namespace preflight {

namespace {

std::string string_at(const nlohmann::json& node, const char* key) {
  auto it = node.find(key);
  return it != node.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Whether a config names more than one routed expert under one of the common keys
// (DeepSeek n_routed_experts, Qwen num_experts, Mixtral num_local_experts).
bool names_routed_experts(const nlohmann::json& doc) {
  for (const char* key : {"n_routed_experts", "num_experts", "num_local_experts"}) {
    auto it = doc.find(key);
    if (it != doc.end() && it->is_number_integer() && it->get<std::int64_t>() > 1) return true;
  }
  return false;
}

}  // namespace

Result<ModelSpec> build_model_from_config(std::string_view config_json, std::string_view origin) {
  // config.json is read as transformers reads it (Python's json: a repeated key keeps its last value).
  auto parsed = parse_json(config_json, origin, "", DuplicateKeys::last_wins);
  if (!parsed) return parsed.error();
  const nlohmann::json& doc = *parsed;
  if (!doc.is_object()) return Error{std::string(origin), "", "expected a JSON object at the top level"};
  const std::string model_type = string_at(doc, "model_type");
  std::string architecture;
  if (auto it = doc.find("architectures"); it != doc.end() && it->is_array() && !it->empty() && (*it)[0].is_string())
    architecture = (*it)[0].get<std::string>();
  // An embedding, reranker or classifier head on a decoder trunk (Qwen3ForSequenceClassification,
  // NVEmbedModel): no LM head and a pooled output, which the decoder readings would miscount.
  if (auto why = pooling_reason(architecture)) return Error{std::string(origin), "/architectures/0", *why};
  // The architecture's description (data/architectures/), parsed on first use.
  const auto& table = arch::ArchitectureTable::embedded();
  if (const auto* d = table.for_config(model_type, architecture); d && !d->component)
    return arch::build_described(table, *d, doc, origin);
  // A wrapper nobody describes: its language model's reader (the vision tower is then missing, said in the notes).
  if (auto text = doc.find("text_config"); text != doc.end() && text->is_object()) {
    const std::string inner = string_at(*text, "model_type");
    Result<ModelSpec> m = Error{};
    bool found = false;
    if (const auto* d = table.for_config(inner, ""); d && !d->component) {
      m = arch::build_described(table, *d, doc, origin);
      found = true;
    }
    if (found) {
      if (m && model_type != inner && !model_type.empty())
        m.value().notes.push_back(fmt::format(
            "model_type '{}' is read through its language model '{}': modules outside text_config (a vision tower, "
            "a projector) are not counted",
            model_type, inner));
      return m;
    }
  }
  if (auto why = out_of_scope_reason(doc, model_type)) return Error{std::string(origin), "/model_type", *why};
  // Unknown architecture: the generic decoder reading, said out loud. A config that
  // names routed experts is read as a generic MoE decoder: the dense Llama reading
  // would count one MLP per layer where the model stores dozens or hundreds.
  const bool moe = names_routed_experts(doc);
  const auto* generic = table.by_name(moe ? "generic_moe" : "llama");
  if (!generic)
    return Error{std::string(origin), "",
                 fmt::format("the embedded architecture table has no {} description", moe ? "generic_moe" : "llama")};
  auto m = arch::build_described(table, *generic, doc, origin);
  // Layer kinds the generic reading does not know (LFM2's "conv", a hybrid's
  // "linear_attention"): read again with every layer as full attention, which
  // over-states the cache rather than refusing the model, and say so.
  std::string unknown_kinds;
  if (!m && m.error().message.starts_with("unknown layer type") && doc.contains("layer_types")) {
    nlohmann::json plain = doc;
    unknown_kinds = show(plain["layer_types"]);
    plain.erase("layer_types");
    m = arch::build_described(table, *generic, plain, origin);
  }
  if (m && !unknown_kinds.empty())
    m.value().notes.push_back(
        "layer_types " + unknown_kinds +
        " names kinds the generic reader does not know: every layer is counted as full attention");
  if (!m)
    return Error{m.error().origin, m.error().field,
                 fmt::format("{} (model_type '{}' has no family reader, and the generic {} reading needs it)",
                             m.error().message, model_type, moe ? "MoE decoder" : "dense decoder")};
  if (m) {
    m.value().family = moe ? "generic_moe" : "generic_decoder";
    if (auto w = doc.find("sliding_window"); w != doc.end() && !w->is_null() && !doc.contains("layer_types"))
      m.value().notes.push_back(
          "sliding_window is set but the generic reader cannot tell which layers use it: "
          "every layer is counted as full attention");
    m.value().family_reader = false;
    m.value().notes.push_back(
        fmt::format("model_type '{}' is not a known family: read as a generic {} (embedding, attention, {}, head); "
                    "verify against the real files",
                    model_type, moe ? "MoE decoder" : "dense decoder", moe ? "routed and shared experts" : "MLP"));
  }
  return m;
}

}  // namespace preflight
