#include "launch/disaggregation_flags.h"

#include <fmt/format.h>

#include <stdexcept>

#include "core/json_read.h"
#include "embedded_files.h"

namespace preflight {

namespace {

Result<std::vector<std::pair<std::string, std::string>>> flag_list(const nlohmann::json& entry, const std::string& key,
                                                                   const std::string& origin, const std::string& at) {
  std::vector<std::pair<std::string, std::string>> out;
  const auto it = entry.find(key);
  if (it == entry.end()) return out;
  if (!it->is_array()) return Error{origin, at + "/" + key, "expected a list of [flag, value] pairs"};
  for (const auto& pair : *it) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string() ||
        pair[0].get<std::string>().rfind("--", 0) != 0)
      return Error{origin, at + "/" + key, fmt::format("expected [\"--flag\", \"value\"], got {}", show(pair))};
    out.emplace_back(pair[0].get<std::string>(), pair[1].get<std::string>());
  }
  return out;
}

}  // namespace

Result<DisaggregationFlags> parse_disaggregation_flags(std::string_view text, std::string_view origin,
                                                       EngineKind engine) {
  const std::string o(origin);
  auto doc = parse_json(text, origin);
  if (!doc) return doc.error();
  const std::string key = engine == EngineKind::sglang ? "sglang" : "vllm";
  const auto engines = doc->find("engines");
  if (engines == doc->end() || !engines->is_object() || !engines->contains(key))
    return Error{o, "/engines/" + key, "missing"};
  const auto& e = (*engines)[key];
  const std::string at = "/engines/" + key;
  DisaggregationFlags f;
  auto both = flag_list(e, "both", o, at);
  if (!both) return both.error();
  auto prefill = flag_list(e, "prefill", o, at);
  if (!prefill) return prefill.error();
  auto decode = flag_list(e, "decode", o, at);
  if (!decode) return decode.error();
  f.prefill = *both;
  f.prefill.insert(f.prefill.end(), prefill->begin(), prefill->end());
  f.decode = *both;
  f.decode.insert(f.decode.end(), decode->begin(), decode->end());
  for (const auto& [name, out] : {std::pair<const char*, std::string*>{"front", &f.front}, {"source", &f.source}}) {
    if (!e.contains(name) || !e[name].is_string() || e[name].get<std::string>().empty())
      return Error{o, at + "/" + name, "expected a non-empty string"};
    *out = e[name].get<std::string>();
  }
  return f;
}

const DisaggregationFlags& disaggregation_flags(EngineKind engine) {
  static const auto load = [](EngineKind kind) {
    auto parsed = parse_disaggregation_flags(embedded::embedded_file("data/launch/disaggregation.json"),
                                             "data/launch/disaggregation.json (embedded)", kind);
    if (!parsed) throw std::logic_error("embedded disaggregation flags are invalid: " + parsed.error().to_string());
    return std::move(parsed).value();
  };
  static const DisaggregationFlags vllm = load(EngineKind::vllm);
  static const DisaggregationFlags sglang = load(EngineKind::sglang);
  return engine == EngineKind::sglang ? sglang : vllm;
}

}  // namespace preflight
