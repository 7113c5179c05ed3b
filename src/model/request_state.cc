#include "model/request_state.h"

#include "core/bytes.h"

namespace preflight {

MlaCachePerToken mla_cache_per_token(const ModelSpec& m, std::uint64_t kv_dtype_bytes) {
  MlaCachePerToken c;
  c.layers = m.count_layers(LayerKind::mla);
  c.values_per_layer = m.mla.kv_lora_rank + m.mla.qk_rope_head_dim;
  c.dtype_bytes = kv_dtype_bytes;
  c.bytes = checked_mul(checked_mul(c.layers, c.values_per_layer), kv_dtype_bytes, "MLA cache per token");
  return c;
}

KdaStatePerRequest kda_state_per_request(const ModelSpec& m, std::uint64_t attention_tp,
                                         std::uint64_t state_dtype_bytes) {
  KdaStatePerRequest s;
  s.layers = m.count_layers(LayerKind::kda);
  s.heads_per_rank = attention_tp == 0 ? 0 : m.kda.heads / attention_tp;
  s.state_dtype_bytes = state_dtype_bytes;
  s.conv_dtype_bytes = dtype_bits(m.dtype) / 8;
  const auto d = m.kda.head_dim;
  s.recurrent_bytes = checked_mul(checked_mul(checked_mul(s.layers, s.heads_per_rank), d * d), state_dtype_bytes,
                                  "KDA recurrent state");
  const auto positions = m.kda.conv_kernel > 0 ? m.kda.conv_kernel - 1 : 0;
  s.conv_bytes = checked_mul(checked_mul(checked_mul(s.layers, m.kda.conv_projections), positions),
                             checked_mul(s.heads_per_rank * d, s.conv_dtype_bytes), "KDA conv state");
  s.bytes = checked_add(s.recurrent_bytes, s.conv_bytes);
  return s;
}

}  // namespace preflight
