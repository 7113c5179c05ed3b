#include "model/family_registry.h"

#include <fmt/format.h>

#include "core/json_read.h"
#include "model/json_fields.h"
#include "model/arch/architecture.h"
#include "model/out_of_scope.h"

namespace preflight {

namespace {

std::string string_at(const nlohmann::json& node, const char* key) {
  auto it = node.find(key);
  return it != node.end() && it->is_string() ? it->get<std::string>() : std::string();
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
  if (auto why = out_of_scope_reason(doc, model_type))
    return Error{std::string(origin), "/model_type", *why};
  // Unknown architecture: the generic decoder reading (the Llama description), said out loud.
  const auto* generic = table.by_name("llama");
  if (!generic) return Error{std::string(origin), "", "the embedded architecture table has no llama description"};
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
    m.value().notes.push_back("layer_types " + unknown_kinds +
                              " names kinds the generic reader does not know: every layer is counted as full attention");
  if (m) {
    m.value().family = "generic_decoder";
    if (auto w = doc.find("sliding_window"); w != doc.end() && !w->is_null() && !doc.contains("layer_types"))
      m.value().notes.push_back("sliding_window is set but the generic reader cannot tell which layers use it: "
                                "every layer is counted as full attention");
    m.value().family_reader = false;
    m.value().notes.push_back(fmt::format(
        "model_type '{}' is not a known family: read as a generic dense decoder (embedding, attention, MLP, head); "
        "verify against the real files",
        model_type));
  }
  return m;
}

}  // namespace preflight
