#include "launch/gpu_arch.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "core/json_read.h"
#include "embedded_files.h"
#include "hardware/gpu_catalogue.h"
#include "model/json_fields.h"

namespace preflight {

Result<std::vector<GpuArch>> parse_gpu_archs(std::string_view json_text, std::string_view origin) {
  const std::string where(origin);
  const auto parsed = parse_json(json_text, origin);
  if (!parsed) return parsed.error();
  const nlohmann::json& doc = *parsed;
  if (!doc.is_object()) return Error{where, "", "not a JSON object"};
  if (!doc.contains("architectures") || !doc["architectures"].is_array())
    return Error{where, "/architectures", "missing list"};
  std::vector<GpuArch> out;
  std::set<std::string> ids;
  for (std::size_t i = 0; i < doc["architectures"].size(); ++i) {
    const auto& entry = doc["architectures"][i];
    const auto pointer = fmt::format("/architectures/{}", i);
    if (!entry.is_object()) return Error{where, pointer, "expected an object"};
    JsonFields f(entry, where, pointer);
    GpuArch a;
    for (auto [key, target] :
         {std::pair<std::string_view, std::string*>{"arch", &a.arch}, {"label", &a.label}, {"source", &a.source}}) {
      auto v = f.string(key);
      if (!v) return v.error();
      if (v->empty()) return f.error(key, "expected a non-empty string");
      *target = *v;
    }
    if (f.has("ids")) {
      auto list = f.string_list("ids");
      if (!list) return list.error();
      a.ids = *list;
    }
    for (const auto& id : a.ids)
      if (!ids.insert(id).second) return f.error("ids", fmt::format("accelerator '{}' is listed twice", id));
    auto patterns = f.string_list("name_patterns");
    if (!patterns) return patterns.error();
    for (const auto& p : *patterns) {
      if (GpuCatalogue::lookup_key(p).empty()) return f.error("name_patterns", "expected a non-empty pattern");
      a.name_patterns.push_back(GpuCatalogue::lookup_key(p));
    }
    out.push_back(std::move(a));
  }
  return out;
}

const std::vector<GpuArch>& embedded_gpu_archs() {
  static const std::vector<GpuArch> kTable = [] {
    constexpr std::string_view kPath = "data/launch/architectures.json";
    auto parsed = parse_gpu_archs(embedded::embedded_file(kPath), "data/launch/architectures.json (embedded)");
    if (!parsed) throw std::logic_error("embedded GPU architecture table is invalid: " + parsed.error().to_string());
    return std::move(parsed).value();
  }();
  return kTable;
}

const GpuArch* find_gpu_arch(const std::vector<GpuArch>& table, const Accelerator& gpu) {
  // The GPU catalogue's architecture field is the source of truth.
  for (const auto& a : table)
    if (!gpu.architecture.empty() && a.arch == gpu.architecture) return &a;
  for (const auto& a : table)
    for (const auto& id : a.ids)
      if (id == gpu.id) return &a;
  const auto id_key = GpuCatalogue::lookup_key(gpu.id);
  const auto name_key = GpuCatalogue::lookup_key(gpu.name);
  for (const auto& a : table)
    for (const auto& p : a.name_patterns)
      if (id_key.find(p) != std::string::npos || name_key.find(p) != std::string::npos) return &a;
  return nullptr;
}

}  // namespace preflight
