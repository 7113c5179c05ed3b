#include "options_transfer.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/json_read.h"
#include "option_table.h"

namespace preflight::cli {

std::string options_to_transfer(const Options& o) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& spec : option_table()) {
    const std::string key(spec.flag);
    std::visit([&](auto member) { out[key] = o.*member; }, spec.member);
  }
  return out.dump();
}

Result<Options> options_from_transfer(std::string_view text) {
  auto doc = parse_json(text, "serve options");
  if (!doc) return doc.error();
  if (!doc->is_object()) return Error{"serve options", "", fmt::format("expected an object, got {}", show(*doc))};
  Options o;
  for (const auto& spec : option_table()) {
    const auto it = doc->find(std::string(spec.flag));
    if (it == doc->end()) continue;  // the default
    const std::string pointer = "/" + pointer_token(spec.flag);
    auto read = [&](auto member) -> std::optional<Error> {
      using Field = std::remove_reference_t<decltype(o.*member)>;
      try {
        o.*member = it->template get<Field>();
      } catch (const nlohmann::json::exception&) {
        return Error{"serve options", pointer, fmt::format("unexpected value {}", show(*it))};
      }
      return std::nullopt;
    };
    if (auto e = std::visit(read, spec.member)) return *e;
  }
  return o;
}

}  // namespace preflight::cli
