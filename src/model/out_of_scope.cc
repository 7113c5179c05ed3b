#include "model/out_of_scope.h"

#include <fmt/format.h>

#include <stdexcept>

#include "core/json_read.h"
#include "core/text.h"
#include "embedded_files.h"

namespace preflight {

namespace {

const nlohmann::json& table() {
  static const nlohmann::json t = [] {
    auto parsed =
        parse_json(embedded::data_out_of_scope_json, "data/out_of_scope.json (embedded)", "", DuplicateKeys::reject);
    if (!parsed || !parsed->is_object()) throw std::logic_error("the embedded out-of-scope table is invalid");
    return std::move(parsed).value();
  }();
  return t;
}

constexpr std::string_view kWhat = "preflight sizes decoder LLMs and vision-language models for serving";

}  // namespace

std::optional<std::string> pooling_reason(std::string_view architecture) {
  const auto& t = table();
  const auto it = t.find("pooling architectures");
  if (it == t.end() || !it->is_array() || architecture.empty()) return std::nullopt;
  for (const auto& suffix : *it)
    if (suffix.is_string() && architecture.ends_with(suffix.get<std::string>()))
      return fmt::format(
          "architecture {} is a pooling model (an embedding, reranker or classifier head, no LM head): "
          "{}; its trunk's memory is not planned yet",
          echo(architecture), kWhat);
  return std::nullopt;
}

std::optional<std::string> out_of_scope_reason(const nlohmann::json& config, std::string_view model_type) {
  for (const auto& [kind, types] : table().items()) {
    if (!types.is_array() || kind == "pooling architectures") continue;
    for (const auto& t : types)
      if (t.is_string() && t.get<std::string>() == model_type)
        return fmt::format("model_type {} is {} {} model: {}", echo(model_type), kind.front() == 'e' ? "an" : "a", kind,
                           kWhat);
  }
  if (auto it = config.find("is_encoder_decoder"); it != config.end() && it->is_boolean() && it->get<bool>())
    return fmt::format("model_type {} is an encoder-decoder model (is_encoder_decoder is true): {}", echo(model_type),
                       kWhat);
  return std::nullopt;
}

}  // namespace preflight
