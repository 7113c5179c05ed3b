#include "model/artifact_facts.h"

#include <nlohmann/json.hpp>

#include "core/json_read.h"
#include "model/json_fields.h"

namespace preflight {

Result<ArtifactFacts> parse_artifact_facts(std::string_view json_text, std::string_view origin) {
  auto parsed = parse_json(json_text, origin);
  if (!parsed) return parsed.error();
  const nlohmann::json& doc = *parsed;
  if (!doc.is_object()) return Error{std::string(origin), "", "not a JSON object"};
  JsonFields root(doc, std::string(origin));
  ArtifactFacts f;
  auto str = [&](std::string_view key, std::string& out) -> std::optional<Error> {
    auto v = root.string_or(key, "");
    if (!v) return v.error();
    out = *v;
    return std::nullopt;
  };
  auto num = [&](std::string_view key, std::uint64_t& out) -> std::optional<Error> {
    if (!root.has(key)) return std::nullopt;
    auto v = root.non_negative_integer(key);
    if (!v) return v.error();
    out = *v;
    return std::nullopt;
  };
  for (auto [key, out] : {std::pair<std::string_view, std::string*>{"hub_id", &f.hub_id},
                          {"revision", &f.revision},
                          {"checked_on", &f.checked_on},
                          {"activated_parameters_card", &f.activated_parameters_card},
                          {"source", &f.source}})
    if (auto e = str(key, *out)) return *e;
  for (auto [key, out] : {std::pair<std::string_view, std::uint64_t*>{"shard_count", &f.shard_count},
                          {"shard_bytes", &f.shard_bytes},
                          {"file_count", &f.file_count},
                          {"file_bytes", &f.file_bytes},
                          {"used_storage_bytes", &f.used_storage_bytes},
                          {"logical_parameters", &f.logical_parameters},
                          {"tensor_count", &f.tensor_count},
                          {"tensor_payload_bytes", &f.tensor_payload_bytes},
                          {"recipe_vram_minimum_gb", &f.recipe_vram_minimum_gb}})
    if (auto e = num(key, *out)) return *e;
  if (root.has("license")) {
    auto lic = root.object("license");
    if (!lic) return lic.error();
    auto name = lic->string_or("name", "");
    if (!name) return name.error();
    f.license.name = *name;
    auto clauses = lic->string_list("clauses");
    if (!clauses) return clauses.error();
    f.license.clauses = *clauses;
    auto src = lic->string_or("source", "");
    if (!src) return src.error();
    f.license.source = *src;
  }
  auto notes = root.string_list("recipe_notes");
  if (!notes) return notes.error();
  f.recipe_notes = *notes;
  return f;
}

}  // namespace preflight
