#include "engine/engine_common.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/bytes.h"
#include "engine/engine_profile.h"

namespace preflight::engine_detail {

EngineVersion resolve_version(EngineSizing& s, const EngineOptions& o, const EngineVersion& default_version) {
  s.version_defaulted = !o.version.has_value();
  const EngineVersion& applied = o.version ? *o.version : default_version;
  s.version = applied.str();
  s.version_note.clear();
  if (!o.auto_dtype_rule.empty()) s.rules.push_back(o.auto_dtype_rule);
  if (o.required_version && applied < *o.required_version)
    s.version_note = fmt::format("the {} recipe needs {} {} or later; this plan applies {} {}'s rules{}",
                                 o.required_by.empty() ? "model's" : o.required_by, s.name, o.required_version->str(),
                                 s.name, s.version, s.version_defaulted ? " (the newest modelled)" : ", as asked");
  return applied;
}

StageCache stage_cache(const ModelSpec& m, std::uint64_t tp, std::uint64_t kv, std::uint64_t state, LayerRange range) {
  StageCache c;
  for (const auto& row : token_cache_per_rank(m, kv, tp, range)) {
    const auto per_layer = row.layers ? row.bytes_per_token / row.layers : 0;
    switch (row.kind) {
      case LayerKind::full_attention:
        c.full_layers = row.layers;
        c.full_per_token = per_layer;
        break;
      case LayerKind::sliding_attention:
        c.sliding_layers = row.layers;
        c.sliding_per_token = per_layer;
        break;
      case LayerKind::chunked_attention:
        c.chunked_layers = row.layers;
        c.chunked_per_token = per_layer;
        break;
      case LayerKind::mla:
        c.mla_layers = row.layers;
        c.mla_per_token = per_layer;
        c.mla_latent_rope_per_token = per_layer;
        break;
      default:
        break;
    }
  }
  if (c.mla_layers > 0 && m.mla.index_head_dim > 0) {
    // DeepSeek-V3.2 (DSA): FP8 latents are stored as fp8_ds_mla, one FP32
    // scale per 128 FP8 values and the rope part in BF16 (656 B for 512 + 64);
    // the indexer keeps FP8 keys plus one FP32 scale per 128 values.
    if (kv == 1) c.mla_per_token = m.mla.kv_lora_rank + m.mla.kv_lora_rank / 128 * 4 + m.mla.qk_rope_head_dim * 2;
    c.indexer_per_token = m.mla.index_head_dim + m.mla.index_head_dim / 128 * 4;
  }
  for (const auto& row : recurrent_state_per_rank(m, tp, state, range)) {
    c.state_layers += row.layers;
    c.state_total = checked_add(c.state_total, row.bytes);
    if (row.layers) c.state_per_layer = std::max(c.state_per_layer, row.bytes / row.layers);
  }
  return c;
}

}  // namespace preflight::engine_detail
