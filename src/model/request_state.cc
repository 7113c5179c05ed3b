#include "model/request_state.h"

#include <fmt/format.h>

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
                                         std::uint64_t state_dtype_bytes, std::uint64_t layers) {
  KdaStatePerRequest s;
  s.layers = layers == UINT64_MAX ? m.count_layers(LayerKind::kda) : layers;
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

namespace preflight {

namespace {
std::uint64_t per_rank(std::uint64_t heads, std::uint64_t tp) { return heads >= tp ? heads / tp : 1; }
}  // namespace

std::uint64_t LayerRange::count_kind(const ModelSpec& m, LayerKind kind) const {
  std::uint64_t n = 0;
  const auto end =
      count > m.layers.size() - std::min<std::uint64_t>(first, m.layers.size()) ? m.layers.size() : first + count;
  for (auto i = first; i < end; ++i) n += m.layers[i] == kind;
  return n;
}

std::vector<TokenCacheRow> token_cache_per_rank(const ModelSpec& m, std::uint64_t kv, std::uint64_t tp,
                                                LayerRange range) {
  std::vector<TokenCacheRow> rows;
  const auto& g = m.gqa;
  const auto v_dim = g.v_head_dim > 0 ? g.v_head_dim : g.head_dim;
  for (auto kind : {LayerKind::full_attention, LayerKind::sliding_attention, LayerKind::chunked_attention}) {
    const auto n = range.count_kind(m, kind);
    if (n == 0) continue;
    TokenCacheRow r;
    r.kind = kind;
    r.layers = n;
    const bool own_shape = kind == LayerKind::full_attention && g.full_kv_heads > 0;
    const auto kv_heads = own_shape ? g.full_kv_heads : g.kv_heads;
    const auto k_dim = own_shape && g.full_head_dim > 0 ? g.full_head_dim : g.head_dim;
    const auto layer_v_dim = own_shape && g.full_head_dim > 0 ? g.full_head_dim : v_dim;
    const auto heads = per_rank(kv_heads, tp);
    r.replicated_over_tp = kv_heads < tp;
    r.bytes_per_token = checked_mul(checked_mul(n, heads), checked_mul(k_dim + layer_v_dim, kv), "KV cache per token");
    r.token_cap = kind == LayerKind::sliding_attention   ? g.sliding_window
                  : kind == LayerKind::chunked_attention ? g.attention_chunk
                                                         : 0;
    r.formula =
        fmt::format("{} {} layers x {} KV heads{} x ({} + {}) x {} B", n, layer_kind_key(kind), heads,
                    r.replicated_over_tp ? " (replicated: fewer KV heads than TP)" : "", k_dim, layer_v_dim, kv);
    if (r.token_cap > 0) r.formula += fmt::format(", capped at {} tokens", r.token_cap);
    rows.push_back(r);
  }
  if (const auto n = range.count_kind(m, LayerKind::mla); n > 0) {
    TokenCacheRow r;
    r.kind = LayerKind::mla;
    r.layers = n;
    r.replicated_over_tp = true;
    const auto values = m.mla.kv_lora_rank + m.mla.qk_rope_head_dim;
    r.bytes_per_token = checked_mul(checked_mul(n, values), kv, "MLA cache per token");
    r.formula = fmt::format("{} MLA layers x ({} + {}) values x {} B (one latent per layer, on every TP rank)", n,
                            m.mla.kv_lora_rank, m.mla.qk_rope_head_dim, kv);
    rows.push_back(r);
  }
  return rows;
}

std::vector<StateRow> recurrent_state_per_rank(const ModelSpec& m, std::uint64_t tp, std::uint64_t state,
                                               LayerRange range) {
  std::vector<StateRow> rows;
  const auto conv = dtype_bits(m.dtype) / 8;
  if (range.count_kind(m, LayerKind::kda) > 0) {
    const auto k = kda_state_per_request(m, tp, state, range.count_kind(m, LayerKind::kda));
    StateRow r{LayerKind::kda, k.layers, k.recurrent_bytes, k.conv_bytes, k.bytes, ""};
    r.formula =
        fmt::format("{} KDA layers x {} heads x {} x {} x {} B + {} x {} projections x {} positions x {} x {} x {} B",
                    k.layers, k.heads_per_rank, m.kda.head_dim, m.kda.head_dim, state, k.layers, m.kda.conv_projections,
                    m.kda.conv_kernel - 1, k.heads_per_rank, m.kda.head_dim, conv);
    rows.push_back(r);
  }
  if (const auto n = range.count_kind(m, LayerKind::gated_deltanet); n > 0) {
    const auto& g = m.gdn;
    const auto vh = per_rank(g.v_heads, tp);
    const auto kh = per_rank(g.k_heads, tp);
    StateRow r;
    r.kind = LayerKind::gated_deltanet;
    r.layers = n;
    r.recurrent_bytes = checked_mul(checked_mul(n, vh), checked_mul(g.k_head_dim * g.v_head_dim, state));
    const auto channels = 2 * kh * g.k_head_dim + vh * g.v_head_dim;
    const auto positions = g.conv_kernel > 0 ? g.conv_kernel - 1 : 0;
    r.conv_bytes = checked_mul(checked_mul(n, channels), checked_mul(positions, conv));
    r.bytes = checked_add(r.recurrent_bytes, r.conv_bytes);
    r.formula = fmt::format(
        "{} Gated DeltaNet layers x {} value heads x {} x {} x {} B + {} x (2 x {} x {} + {} x {}) channels x {} "
        "positions x {} B",
        n, vh, g.k_head_dim, g.v_head_dim, state, n, kh, g.k_head_dim, vh, g.v_head_dim, positions, conv);
    rows.push_back(r);
  }
  if (const auto n = range.count_kind(m, LayerKind::mamba2); n > 0) {
    const auto& g = m.mamba;
    const auto h = per_rank(g.heads, tp);
    StateRow r;
    r.kind = LayerKind::mamba2;
    r.layers = n;
    r.recurrent_bytes = checked_mul(checked_mul(n, h), checked_mul(g.head_dim * g.state_size, state));
    const auto channels = h * g.head_dim + 2 * g.groups * g.state_size;
    const auto positions = g.conv_kernel > 0 ? g.conv_kernel - 1 : 0;
    r.conv_bytes = checked_mul(checked_mul(n, channels), checked_mul(positions, conv));
    r.bytes = checked_add(r.recurrent_bytes, r.conv_bytes);
    r.formula = fmt::format(
        "{} Mamba-2 layers x {} heads x {} x {} x {} B + {} x ({} x {} + 2 x {} x {}) channels x {} positions x {} B",
        n, h, g.head_dim, g.state_size, state, n, h, g.head_dim, g.groups, g.state_size, positions, conv);
    rows.push_back(r);
  }
  // LFM2 short convolution: no recurrent state, only the last kernel - 1 inputs
  // of each channel (vLLM ShortConv: conv_state [kernel - 1, dim / tp]).
  if (const auto n = range.count_kind(m, LayerKind::short_conv); n > 0) {
    const auto& g = m.short_conv;
    const auto channels = per_rank(g.dim, tp);
    const auto positions = g.kernel > 0 ? g.kernel - 1 : 0;
    StateRow r;
    r.kind = LayerKind::short_conv;
    r.layers = n;
    r.conv_bytes = checked_mul(checked_mul(n, channels), checked_mul(positions, conv));
    r.bytes = r.conv_bytes;
    r.formula = fmt::format("{} short-conv layers x {} channels x {} positions x {} B", n, channels, positions, conv);
    rows.push_back(r);
  }
  // MiniMax lightning attention: a head_dim x head_dim state per head
  // (vLLM MiniMaxText01LinearAttention: kv cache [heads / tp, d, d], float32).
  if (const auto n = range.count_kind(m, LayerKind::lightning); n > 0) {
    const auto& g = m.lightning;
    const auto h = per_rank(g.heads, tp);
    StateRow r;
    r.kind = LayerKind::lightning;
    r.layers = n;
    r.recurrent_bytes = checked_mul(checked_mul(n, h), checked_mul(g.head_dim * g.head_dim, state));
    r.bytes = r.recurrent_bytes;
    r.formula =
        fmt::format("{} lightning-attention layers x {} heads x {} x {} x {} B", n, h, g.head_dim, g.head_dim, state);
    rows.push_back(r);
  }
  return rows;
}

std::uint64_t cache_bytes_for_context(const std::vector<TokenCacheRow>& rows, std::uint64_t context) {
  std::uint64_t total = 0;
  for (const auto& r : rows) {
    const auto tokens = r.token_cap > 0 && r.token_cap < context ? r.token_cap : context;
    total = checked_add(total, checked_mul(r.bytes_per_token, tokens, "cache per request"), "cache per request");
  }
  return total;
}

}  // namespace preflight
