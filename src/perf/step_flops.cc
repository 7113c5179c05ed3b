#include "perf/step_flops.h"

#include "core/bytes.h"
#include "perf/decode_bytes.h"

namespace preflight {

namespace {

std::uint64_t heads_per_rank(std::uint64_t heads, std::uint64_t tp) { return heads >= tp ? heads / tp : 1; }

// Causal (query, key) pairs of a prompt of p tokens under a window w (0: none):
// sum over positions i = 1..p of min(i, w).
std::uint64_t causal_pairs(std::uint64_t p, std::uint64_t w) {
  if (w == 0 || p <= w) return checked_mul(p, p + 1, "attention pairs") / 2;
  return checked_add(checked_mul(w, w + 1, "attention pairs") / 2, checked_mul(p - w, w, "attention pairs"));
}

// Chunked local attention: each chunk of c tokens attends causally within itself.
std::uint64_t chunked_pairs(std::uint64_t p, std::uint64_t c) {
  if (c == 0) return causal_pairs(p, 0);
  const auto full = p / c, rest = p % c;
  return checked_add(checked_mul(full, causal_pairs(c, 0), "attention pairs"), causal_pairs(rest, 0));
}

}  // namespace

std::uint64_t attention_flops(const ModelSpec& m, const Layout& layout, std::uint64_t stage, const StepShape& s) {
  const auto range = stage_layer_range(layout, stage);
  const auto tp = layout.tp;
  const auto& g = m.gqa;
  const auto dk = g.head_dim, dv = g.v_head_dim > 0 ? g.v_head_dim : g.head_dim;
  const auto gqa_pair = checked_mul(checked_mul(2, heads_per_rank(g.heads, tp)), dk + dv, "attention FLOPs");
  const auto c = s.context;

  std::uint64_t token_kinds = 0;  // layers whose cost grows with the context
  const auto n_full = range.count_kind(m, LayerKind::full_attention);
  const auto n_sliding = range.count_kind(m, LayerKind::sliding_attention);
  const auto n_chunked = range.count_kind(m, LayerKind::chunked_attention);
  const auto n_mla = range.count_kind(m, LayerKind::mla);
  if (!s.prefill) {
    const auto capped = [&](std::uint64_t cap) { return cap > 0 && cap < c ? cap : c; };
    token_kinds = checked_add(token_kinds, checked_mul(checked_mul(n_full, gqa_pair), c, "attention FLOPs"));
    token_kinds = checked_add(
        token_kinds, checked_mul(checked_mul(n_sliding, gqa_pair), capped(g.sliding_window), "attention FLOPs"));
    token_kinds = checked_add(
        token_kinds, checked_mul(checked_mul(n_chunked, gqa_pair), capped(g.attention_chunk), "attention FLOPs"));
    // Absorbed MLA decode: scores over kv_lora + rope, output over kv_lora.
    const auto mla_pair = checked_mul(checked_mul(2, heads_per_rank(m.mla.heads, tp)),
                                      2 * m.mla.kv_lora_rank + m.mla.qk_rope_head_dim, "attention FLOPs");
    token_kinds = checked_add(token_kinds, checked_mul(checked_mul(n_mla, mla_pair), c, "attention FLOPs"));
    token_kinds = ceil_div(token_kinds, layout.dcp);  // DCP splits the context over its ranks
  } else {
    token_kinds =
        checked_add(token_kinds, checked_mul(checked_mul(n_full, gqa_pair), causal_pairs(c, 0), "attention FLOPs"));
    token_kinds = checked_add(token_kinds, checked_mul(checked_mul(n_sliding, gqa_pair),
                                                       causal_pairs(c, g.sliding_window), "attention FLOPs"));
    token_kinds = checked_add(token_kinds, checked_mul(checked_mul(n_chunked, gqa_pair),
                                                       chunked_pairs(c, g.attention_chunk), "attention FLOPs"));
    // MLA prefill runs as MHA over the decompressed heads.
    const auto mla_pair =
        checked_mul(checked_mul(2, heads_per_rank(m.mla.heads, tp)),
                    m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim + m.mla.v_head_dim, "attention FLOPs");
    token_kinds =
        checked_add(token_kinds, checked_mul(checked_mul(n_mla, mla_pair), causal_pairs(c, 0), "attention FLOPs"));
  }
  // Linear mixers: a fixed cost per token.
  std::uint64_t per_token = 0;
  if (const auto n = range.count_kind(m, LayerKind::kda); n > 0)
    per_token = checked_add(per_token, checked_mul(checked_mul(n, 6 * heads_per_rank(m.kda.heads, tp)),
                                                   m.kda.head_dim * m.kda.head_dim, "attention FLOPs"));
  if (const auto n = range.count_kind(m, LayerKind::gated_deltanet); n > 0)
    per_token = checked_add(per_token, checked_mul(checked_mul(n, 6 * heads_per_rank(m.gdn.v_heads, tp)),
                                                   m.gdn.k_head_dim * m.gdn.v_head_dim, "attention FLOPs"));
  if (const auto n = range.count_kind(m, LayerKind::mamba2); n > 0)
    per_token = checked_add(per_token, checked_mul(checked_mul(n, 4 * heads_per_rank(m.mamba.heads, tp)),
                                                   m.mamba.head_dim * m.mamba.state_size, "attention FLOPs"));
  if (const auto n = range.count_kind(m, LayerKind::lightning); n > 0)
    per_token = checked_add(per_token, checked_mul(checked_mul(n, 4 * heads_per_rank(m.lightning.heads, tp)),
                                                   m.lightning.head_dim * m.lightning.head_dim, "attention FLOPs"));
  if (const auto n = range.count_kind(m, LayerKind::short_conv); n > 0)
    per_token = checked_add(per_token, checked_mul(checked_mul(n, 2 * heads_per_rank(m.short_conv.dim, tp)),
                                                   m.short_conv.kernel, "attention FLOPs"));
  if (s.prefill) return checked_add(token_kinds, checked_mul(per_token, c, "attention FLOPs"));
  return checked_mul(checked_add(token_kinds, per_token), s.requests_per_group, "attention FLOPs");
}

RankStepFlops rank_step_flops(const PerfInputs& in, const FormatPlacement& placement, const RankFormatWeights& weights,
                              const StepShape& shape) {
  const auto& model = *in.model;
  const auto& gpu = *in.gpu;
  RankStepFlops out;
  out.rank = weights.rank;
  const bool active = rank_active(*in.layout, weights.rank, shape);
  std::map<RateClass, double> tflops;
  const auto book = [&](const FormatRate& rate, std::uint64_t flops) {
    if (flops == 0) return;
    tflops[rate.rate] = rate.dense_tflops;
    auto& v = out.by_rate[rate.rate];
    v = checked_add(v, flops, "FLOPs");
    out.total = checked_add(out.total, flops, "FLOPs");
  };
  const auto routed_tokens_k = checked_mul(shape.moe_tokens(), model.moe.experts_per_token, "routed tokens");
  for (const auto& [format, modules] : weights.bytes) {
    const auto rate = format_rate(gpu, format);
    for (const auto& [module, bytes] : modules) {
      const auto params = placement.params_for(format, module, bytes);
      if (params == 0) continue;
      if (module == ModuleClass::routed_experts) {
        const auto f =
            checked_mul_div(checked_mul(2, params, "FLOPs"), routed_tokens_k, model.moe.routed_experts, "routed FLOPs");
        out.routed = checked_add(out.routed, f, "FLOPs");
        book(rate, f);
      } else if (active && read_in_full(module)) {
        const auto tokens = module == ModuleClass::lm_head ? shape.requests_per_group : shape.tokens_per_group;
        const auto f = checked_mul(checked_mul(2, params, "FLOPs"), tokens, "FLOPs");
        out.trunk = checked_add(out.trunk, f, "FLOPs");
        book(rate, f);
      }
    }
  }
  if (active) {
    for (const auto& [format, bytes] : placement.tied_head_bytes(*in.layout, weights.rank)) {
      const auto params = placement.params_for(format, ModuleClass::embedding, bytes);
      const auto f = checked_mul(checked_mul(2, params, "FLOPs"), shape.requests_per_group, "FLOPs");
      out.trunk = checked_add(out.trunk, f, "FLOPs");
      book(format_rate(gpu, format), f);
    }
    out.attention = attention_flops(model, *in.layout, weights.stage, shape);
    book(bf16_rate(gpu), out.attention);
  }
  for (const auto& [rate, flops] : out.by_rate)
    if (tflops[rate] > 0) out.seconds += static_cast<double>(flops) / (tflops[rate] * 1e12);
  return out;
}

}  // namespace preflight
