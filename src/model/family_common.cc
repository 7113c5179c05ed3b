#include "model/family_common.h"

#include <fmt/format.h>

#include "model/quantization.h"

namespace preflight {

Result<JsonFields> text_fields(const JsonFields& root) {
  for (const char* key : {"text_config", "llm_config", "language_config"})
    if (root.has(key)) return root.object(key);
  return root;
}

Result<Dtype> read_model_dtype(const JsonFields& text, const JsonFields& root) {
  for (const JsonFields* node : {&text, &root}) {
    for (const char* key : {"dtype", "torch_dtype"}) {
      if (!node->has(key)) continue;
      auto name = node->string(key);
      if (!name) return name.error();
      auto d = dtype_from_torch(*name);
      if (!d) return node->error(key, fmt::format("unknown dtype \"{}\"", *name));
      return *d;
    }
  }
  return Dtype::BF16;
}

Result<std::string> read_architecture(const JsonFields& root) {
  auto archs = root.string_list("architectures");
  if (!archs) return archs.error();
  return archs->empty() ? std::string() : archs->front();
}

std::optional<Error> read_positive_integers(const JsonFields& node, std::initializer_list<CountField> fields) {
  for (const auto& f : fields) {
    auto n = (f.node ? *f.node : node).positive_integer(f.key);
    if (!n) return n.error();
    *f.out = *n;
  }
  return std::nullopt;
}

Result<bool> read_flag(const JsonFields& node, std::string_view key, bool fallback) {
  if (!node.has(key)) return fallback;
  const auto& v = node.node()[std::string(key)];
  if (!v.is_boolean()) return node.error(key, fmt::format("expected true or false, got {}", json_brief(v)));
  return v.get<bool>();
}

Result<ModelSpec> finish_model(ModelSpec model, std::vector<LogicalTensor> tensors, const JsonFields& text,
                               const JsonFields& root) {
  // quantization_config sits in text_config for some wrappers (K3), at the root otherwise.
  const JsonFields& holder = text.has("quantization_config") ? text : root;
  auto quant = parse_quantization(holder);
  if (!quant) return quant.error();
  model.quantization = *quant;
  for (const auto& note : model.quantization.notes) model.notes.push_back(note);
  auto manifest = apply_quantization(tensors, model.quantization);
  if (!manifest) return manifest.error();
  model.manifest = std::move(manifest).value();
  return model;
}

}  // namespace preflight
