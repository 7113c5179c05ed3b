#include "model/model_spec.h"

#include <fmt/format.h>

namespace preflight {

std::string_view manifest_source_key(ManifestSource s) {
  switch (s) {
    case ManifestSource::headers:
      return "headers";
    case ManifestSource::index_and_sizes:
      return "index_and_sizes";
    case ManifestSource::listing:
      return "listing";
    case ManifestSource::config:
      return "config";
  }
  return "config";
}

std::string manifest_source_text(const ModelSpec& model) {
  switch (model.manifest_source) {
    case ManifestSource::headers:
      return "the shard headers: every stored tensor's name, dtype and shape";
    case ManifestSource::index_and_sizes:
      return "the safetensors index and each shard's size (headers of the shards that differ from config.json)";
    case ManifestSource::listing:
      return "the hub listing's element counts by dtype (safetensors.parameters); tensors generated from config.json";
    case ManifestSource::config:
      break;
  }
  return model.family_reader
             ? "tensor manifest generated from config.json (quantization rules applied by name)"
             : "tensor manifest guessed from config.json by the generic decoder reading (no family reader)";
}

std::string_view layer_kind_key(LayerKind k) {
  switch (k) {
    case LayerKind::full_attention:
      return "full_attention";
    case LayerKind::sliding_attention:
      return "sliding_attention";
    case LayerKind::chunked_attention:
      return "chunked_attention";
    case LayerKind::mla:
      return "mla";
    case LayerKind::kda:
      return "kda";
    case LayerKind::gated_deltanet:
      return "gated_deltanet";
    case LayerKind::mamba2:
      return "mamba2";
    case LayerKind::short_conv:
      return "short_conv";
    case LayerKind::lightning:
      return "lightning";
    case LayerKind::stateless:
      return "stateless";
  }
  return "?";
}

std::uint64_t ModelSpec::count_layers(LayerKind kind) const {
  std::uint64_t n = 0;
  for (auto k : layers) n += k == kind;
  return n;
}

std::vector<std::pair<std::uint64_t, std::string>> ModelSpec::tp_divisors() const {
  std::vector<std::pair<std::uint64_t, std::string>> out;
  const bool has_gqa = count_layers(LayerKind::full_attention) + count_layers(LayerKind::sliding_attention) +
                           count_layers(LayerKind::chunked_attention) >
                       0;
  if (count_layers(LayerKind::kda) > 0 && kda.heads > 0)
    out.emplace_back(kda.heads, fmt::format("{} KDA heads", kda.heads));
  if (count_layers(LayerKind::mla) > 0 && mla.heads > 0)
    out.emplace_back(mla.heads, fmt::format("{} attention heads", mla.heads));
  if (has_gqa && gqa.heads > 0) out.emplace_back(gqa.heads, fmt::format("{} attention heads", gqa.heads));
  if (count_layers(LayerKind::gated_deltanet) > 0 && gdn.v_heads > 0)
    out.emplace_back(gdn.v_heads, fmt::format("{} Gated DeltaNet value heads", gdn.v_heads));
  if (count_layers(LayerKind::mamba2) > 0 && mamba.heads > 0)
    out.emplace_back(mamba.heads, fmt::format("{} Mamba-2 heads", mamba.heads));
  if (count_layers(LayerKind::lightning) > 0 && lightning.heads > 0)
    out.emplace_back(lightning.heads, fmt::format("{} lightning-attention heads", lightning.heads));
  return out;
}

}  // namespace preflight
