// Placeholder until this family's reader lands: a clear error, never a guess.
#include <fmt/format.h>

#include "model/families/families.h"

namespace preflight {

Result<ModelSpec> build_qwen3_next(const nlohmann::json& root, std::string_view origin) {
  return Error{std::string(origin), "/model_type",
               fmt::format("the {} family is not supported yet", root.value("model_type", "qwen3_next"))};
}

}  // namespace preflight
