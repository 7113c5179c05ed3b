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

Result<bool> read_flag(const JsonFields& node, std::string_view key, bool fallback) {
  if (!node.has(key)) return fallback;
  const auto& v = node.node()[std::string(key)];
  if (!v.is_boolean()) return node.error(key, fmt::format("expected true or false, got {}", show(v)));
  return v.get<bool>();
}

namespace {

const nlohmann::json* lookup(const JsonFields& text, const JsonFields& root, const char* key) {
  for (const auto* f : {&text, &root}) {
    const auto& n = f->node();
    if (n.is_object()) {
      auto it = n.find(key);
      if (it != n.end() && !it->is_null()) return &*it;
    }
  }
  return nullptr;
}

double number_or(const nlohmann::json* v, double fallback) {
  return v && v->is_number() && v->get<double>() > 0 ? v->get<double>() : fallback;
}

// Details engines need beyond the weights (tied head, RoPE cache extent). They
// are read leniently: a missing or odd value leaves the engine's default.
void read_engine_details(ModelSpec& m, const JsonFields& text, const JsonFields& root) {
  if (const auto* tie = lookup(text, root, "tie_word_embeddings"); tie && tie->is_boolean())
    m.tied_embeddings = tie->get<bool>();
  const double partial = number_or(lookup(text, root, "partial_rotary_factor"), 1.0);
  m.rotary_dim = m.count_layers(LayerKind::mla) > 0
                     ? m.mla.qk_rope_head_dim
                     : static_cast<std::uint64_t>(static_cast<double>(m.gqa.head_dim) * partial);
  m.rope_cache_positions = m.max_context;
  if (const auto* rs = lookup(text, root, "rope_scaling"); rs && rs->is_object()) {
    std::string type;
    for (const char* k : {"rope_type", "type"})
      if (auto it = rs->find(k); it != rs->end() && it->is_string()) type = it->get<std::string>();
    const double factor = number_or(rs->contains("factor") ? &rs->at("factor") : nullptr, 1.0);
    const double original = number_or(
        rs->contains("original_max_position_embeddings") ? &rs->at("original_max_position_embeddings") : nullptr, 0);
    // YaRN caches original_max_position_embeddings x factor positions
    // (vLLM YaRNScalingRotaryEmbedding / DeepseekScalingRotaryEmbedding).
    if ((type == "yarn" || type == "deepseek_yarn") && original > 0)
      m.rope_cache_positions = static_cast<std::uint64_t>(original * factor);
    // Linear and dynamic NTK scaling cache max_position_embeddings x factor positions
    // (vLLM LinearScalingRotaryEmbedding, DynamicNTKScalingRotaryEmbedding).
    if ((type == "linear" || type == "dynamic") && factor > 1)
      m.rope_cache_positions = static_cast<std::uint64_t>(static_cast<double>(m.max_context) * factor);
  }
}

}  // namespace

Result<ModelSpec> finish_model(ModelSpec model, std::vector<LogicalTensor> tensors, const JsonFields& text,
                               const JsonFields& root) {
  read_engine_details(model, text, root);
  // quantization_config sits in text_config for some wrappers (K3), at the root otherwise.
  const JsonFields& holder = text.has("quantization_config") ? text : root;
  auto quant = parse_quantization(holder);
  if (!quant) return quant.error();
  model.quantization = *quant;
  for (const auto& note : model.quantization.notes) model.notes.push_back(note);
  auto manifest = apply_quantization(std::move(tensors), model.quantization);
  if (!manifest) return manifest.error();
  model.manifest = std::move(manifest).value();
  return model;
}

}  // namespace preflight
