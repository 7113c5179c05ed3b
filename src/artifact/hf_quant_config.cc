#include "artifact/hf_quant_config.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/json_read.h"

namespace preflight {

namespace {

bool declares_quantization(const nlohmann::json& node) {
  return node.is_object() && node.contains("quantization_config") && !node.at("quantization_config").is_null();
}

}  // namespace

Result<MergedConfig> merge_hf_quant_config(const std::string& config_text, const std::string& config_origin,
                                           const std::string& hf_text, const std::string& hf_origin) {
  MergedConfig out;
  out.config = config_text;
  auto hf = parse_json(hf_text, hf_origin, "", DuplicateKeys::last_wins);
  if (!hf) return hf.error();
  if (!hf->is_object()) return Error{hf_origin, "", fmt::format("expected a JSON object, got {}", show(*hf))};
  if (!hf->contains("quantization"))
    return Error{hf_origin, "/quantization", "missing: ModelOpt writes its settings there"};
  const auto& q = (*hf)["quantization"];
  if (!q.is_object()) return Error{hf_origin, "/quantization", fmt::format("expected an object, got {}", show(q))};
  auto config = parse_json(config_text, config_origin, "", DuplicateKeys::last_wins);
  // A config that does not parse is left to the config reader, which names what is wrong.
  if (!config || !config->is_object()) return out;
  if (declares_quantization(*config) ||
      (config->contains("text_config") && declares_quantization(config->at("text_config")))) {
    out.note = fmt::format("{} not read: config.json declares quantization_config, which vLLM and SGLang read first",
                           hf_origin);
    return out;
  }
  if (q.empty() || (q.contains("quant_algo") && q["quant_algo"].is_null())) {
    out.note = fmt::format("{}: no quant_algo, the checkpoint is unquantized", hf_origin);
    return out;
  }
  nlohmann::json merged = q;
  merged["quant_method"] = "modelopt";
  nlohmann::json doc = std::move(config).value();
  doc["quantization_config"] = std::move(merged);
  out.config = doc.dump();
  out.merged = true;
  out.note =
      fmt::format("quantization from {} (ModelOpt's hf_quant_config.json: config.json declares none)", hf_origin);
  return out;
}

std::optional<Error> take_hf_quant_config(ModelFiles& files, const std::string& hf_text, const std::string& hf_origin) {
  auto merged = merge_hf_quant_config(files.config, files.config_origin, hf_text, hf_origin);
  if (!merged) return merged.error();
  if (merged->merged) {
    files.config = std::move(merged->config);
    files.config_origin += " with hf_quant_config.json";
    files.source += " + hf_quant_config.json";
  }
  if (!merged->note.empty()) files.notes.push_back(std::move(merged->note));
  return std::nullopt;
}

}  // namespace preflight
