#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/bytes.h"
#include "model/request_state.h"
#include "plan/plan_steps.h"

namespace preflight::plan_steps {

// The pools of one pipeline stage (its layers' cache and state).
Pools compute_pools(const Plan& plan, const PlanContext& context, const ModelSpec* draft, std::uint64_t stage,
                    bool texts) {
  const auto& model = *context.model;
  const auto& w = plan.workload;
  const auto& layout = plan.layout;
  const LayerRange range =
      layout.pp > 1 ? LayerRange{layout.first_layer(stage), layout.stage_layers[stage]} : LayerRange{};
  Pools p;
  p.requests_per_group = ceil_div(w.concurrency, layout.dp);
  const auto rows =
      context.stage_request_state(layout.tp, range, kv_dtype_bytes(w.kv_dtype), state_dtype_bytes(w.state_dtype));
  p.rows = rows;
  for (const auto& r : p.rows->state) p.slot_bytes = checked_add(p.slot_bytes, r.bytes);
  for (const auto& r : p.rows->cache) p.cache_per_token = checked_add(p.cache_per_token, r.bytes_per_token);
  p.slots_per_request = checked_add(w.state_slots, w.spec_tokens);  // one more per speculative position
  p.state_rank_bytes = checked_mul(checked_mul(p.slots_per_request, p.requests_per_group), p.slot_bytes, "state pool");
  p.cache_per_request = cache_bytes_for_context(p.rows->cache, checked_add(w.context_tokens, w.spec_tokens));
  if (plan.draft_tp > 0) p.draft_cache = token_cache_per_rank(*draft, kv_dtype_bytes(w.kv_dtype), plan.draft_tp);
  // Each length's requests at that length (window layers capped per request).
  const auto by_length = requests_by_length(w, layout.dp);
  std::uint64_t group_cache = 0;
  for (std::size_t i = 0; i < by_length.tokens.size(); ++i) {
    if (by_length.counts[i] == 0) continue;
    const auto tokens = checked_add(by_length.tokens[i], w.spec_tokens);
    group_cache = checked_add(
        group_cache, checked_mul(by_length.counts[i], cache_bytes_for_context(p.rows->cache, tokens), "cache pool"));
    if (plan.draft_tp > 0)
      p.draft_cache_rank_bytes =
          checked_add(p.draft_cache_rank_bytes,
                      checked_mul(by_length.counts[i], cache_bytes_for_context(p.draft_cache, tokens), "draft cache"));
  }
  if (plan.draft_tp > 0)
    p.draft_cache_per_request = cache_bytes_for_context(p.draft_cache, checked_add(w.context_tokens, w.spec_tokens));
  p.cache_rank_bytes = ceil_div(group_cache, layout.dcp);
  const auto width = dtype_bits(model.dtype) / 8;
  p.hidden_buffer = checked_mul(checked_mul(w.chunk_tokens, model.hidden_size), width, "activations");
  if (model.attn_res_block_size > 0) {
    p.attn_res_sources = ceil_div(model.layers.size(), model.attn_res_block_size) + 1;
    p.attn_res_bytes = checked_mul(p.attn_res_sources, p.hidden_buffer, "activations");
  }
  if (model.moe.routed_experts > 0) {
    const auto latent = model.moe.latent_dim > 0 ? model.moe.latent_dim : model.hidden_size;
    p.ffn_payload = checked_mul(checked_mul(checked_mul(w.chunk_tokens, model.moe.experts_per_token), latent), width,
                                "activations");
    if (texts) {
      p.ffn_label = fmt::format("{}-way routed {} payload", model.moe.experts_per_token,
                                model.moe.latent_dim > 0 ? "latent" : "hidden");
      p.ffn_formula =
          fmt::format("{} tokens x {} experts x {} x {} B", w.chunk_tokens, model.moe.experts_per_token, latent, width);
    }
  } else if (model.moe.dense_intermediate > 0) {
    // gate and up projections' outputs of one chunk, split by TP.
    const auto inter = ceil_div(model.moe.dense_intermediate, layout.tp);
    p.ffn_payload = checked_mul(checked_mul(checked_mul(w.chunk_tokens, 2), inter), width, "activations");
    if (texts) {
      p.ffn_label = "MLP gate and up outputs";
      p.ffn_formula = fmt::format("{} tokens x 2 x {} / TP {} x {} B", w.chunk_tokens, model.moe.dense_intermediate,
                                  layout.tp, width);
    }
  }
  p.reserve =
      w.reserve.is_percent
          ? static_cast<std::uint64_t>(static_cast<double>(plan.gpu.device_total_bytes) * w.reserve.percent / 100.0)
          : w.reserve.bytes;
  return p;
}

std::string joined(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : std::string(sep)) + part;
  return out;
}

// "3 requests" or, with a mix, "3 requests of the mix (2 x 2,048 + 1 x 32,768 tokens)".
std::string requests_text(const WorkloadOptions& w, std::uint64_t groups) {
  const auto requests = ceil_div(w.concurrency, std::max<std::uint64_t>(groups, 1));
  if (w.mix.empty()) return fmt::format("{} requests", requests);
  const auto b = requests_by_length(w, groups);
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < b.tokens.size(); ++i)
    if (b.counts[i] > 0) parts.push_back(fmt::format("{} x {}", b.counts[i], with_commas(b.tokens[i])));
  return fmt::format("{} requests of the mix ({} tokens)", requests, joined(parts, " + "));
}

void add_pool_figures(Plan& plan, const ModelSpec& model, const Pools& p) {
  auto& f = plan.figures;
  const auto& w = plan.workload;
  const auto tp = plan.layout.tp;
  if (!p.rows->state.empty()) {
    std::vector<std::string> parts;
    for (const auto& r : p.rows->state) parts.push_back(r.formula);
    std::string formula = joined(parts, " + ");
    if (p.rows->state.size() == 1)
      formula += fmt::format(" = {} + {}", with_commas(p.rows->state[0].recurrent_bytes),
                             with_commas(p.rows->state[0].conv_bytes));
    f.push_back(bytes_figure("state.slot_per_rank",
                             fmt::format("one recurrent-state slot per rank (TP{}, {} state)", tp, w.state_dtype),
                             p.slot_bytes, Evidence::derived, formula, kConfigSource));
    std::uint64_t whole = 0;
    for (const auto& r : recurrent_state_per_rank(model, 1, state_dtype_bytes(w.state_dtype))) whole += r.bytes;
    f.push_back(bytes_figure("state.per_request_whole_model", "recurrent state per request, all heads", whole,
                             Evidence::derived, "the same formula at TP 1", kConfigSource));
    if (model.count_layers(LayerKind::kda) > 0) {
      const auto d = model.kda.head_dim;
      const auto elements = model.count_layers(LayerKind::kda) * model.kda.heads * d * d;
      f.push_back(exact_figure(
          "state.kda_recurrent_elements", "KDA recurrent state elements per sequence, all heads", elements, "elements",
          Evidence::derived,
          fmt::format("{} layers x {} heads x {} x {} = {} BF16, {} FP32", model.count_layers(LayerKind::kda),
                      model.kda.heads, d, d, format_mib(elements * 2, 1), format_mib(elements * 4, 1)),
          kConfigSource));
    }
    f.push_back(bytes_figure(
        "state.pool_per_rank", "recurrent-state pool per rank", p.state_rank_bytes, Evidence::estimate,
        fmt::format("{} slots x {} requests per attention group x {} B (slots per request: SGLang's default buffering)",
                    p.slots_per_request, p.requests_per_group, with_commas(p.slot_bytes)),
        "--state-slots (default 5: SGLang overlap scheduler with radix cache)"));
  }
  if (!p.rows->cache.empty()) {
    std::vector<std::string> parts;
    for (const auto& r : p.rows->cache) parts.push_back(r.formula);
    f.push_back(bytes_figure("kv.per_token_per_rank", fmt::format("cache per token per rank ({})", w.kv_dtype),
                             p.cache_per_token, Evidence::derived, joined(parts, " + "), kConfigSource));
    f.push_back(bytes_figure(
        "kv.per_request_per_rank",
        fmt::format("cache for one {}-token request per rank", with_commas(w.context_tokens)), p.cache_per_request,
        Evidence::derived,
        fmt::format("sum over layer kinds of bytes per token x min(context {}, window)", with_commas(w.context_tokens)),
        kConfigSource));
    f.push_back(bytes_figure("kv.pool_per_rank", "cache pool per rank", p.cache_rank_bytes, Evidence::derived,
                             w.mix.empty() ? fmt::format("{} requests x {} B / DCP {}", p.requests_per_group,
                                                         with_commas(p.cache_per_request), plan.layout.dcp)
                                           : fmt::format("{}, each at its length's cache / DCP {}",
                                                         requests_text(w, plan.layout.dp), plan.layout.dcp),
                             kConfigSource));
  }
  f.push_back(bytes_figure(
      "activations.hidden_buffer", fmt::format("one hidden buffer, {}-token chunk", with_commas(w.chunk_tokens)),
      p.hidden_buffer, Evidence::derived,
      fmt::format("{} tokens x {} x {} B", w.chunk_tokens, model.hidden_size, dtype_bits(model.dtype) / 8),
      kConfigSource));
  if (p.attn_res_sources > 0)
    f.push_back(bytes_figure("activations.attn_res_sources",
                             fmt::format("{} Attention Residual sources", p.attn_res_sources), p.attn_res_bytes,
                             Evidence::estimate,
                             fmt::format("(ceil({} layers / block {}) + 1 embedding) = {} x {} B", model.layers.size(),
                                         model.attn_res_block_size, p.attn_res_sources, with_commas(p.hidden_buffer)),
                             kConfigSource));
  if (p.ffn_payload > 0)
    f.push_back(bytes_figure("activations.ffn_payload", p.ffn_label, p.ffn_payload, Evidence::derived, p.ffn_formula,
                             kConfigSource));
  f.push_back(bytes_figure("reserve.per_gpu", "runtime reserve per GPU", p.reserve, Evidence::estimate,
                           w.reserve.is_percent ? fmt::format("{}% x {} B device capacity", w.reserve.percent,
                                                              with_commas(plan.gpu.device_total_bytes))
                                                : fmt::format("--reserve {} B per GPU", with_commas(w.reserve.bytes)),
                           "--reserve (a planning assumption: replace with a measured figure)"));
}

void add_weight_rows(RankLedger& l, const Plan& plan, const RankWeights& weights, bool formulas,
                     std::uint64_t tied_head_skipped, std::uint64_t mtp_skipped) {
  if (!formulas) {
    // The verdict needs only the total: weights are one resource, first in allocation order.
    const auto skipped = checked_add(tied_head_skipped, mtp_skipped);
    l.rows.push_back(row("weights", "weights", Resource::weights, weights.total - std::min(weights.total, skipped),
                         Evidence::estimate, ""));
    return;
  }
  for (auto m : kAllModuleClasses) {
    auto it = weights.bytes_by_module.find(m);
    if (it == weights.bytes_by_module.end() || it->second == 0) continue;
    auto bytes = it->second;
    std::string formula;
    if (formulas) {
      if (m == ModuleClass::routed_experts)
        formula = fmt::format("{} experts per MoE layer on this rank's EP group (EP {}, each split over MoE-TP {})",
                              weights.experts_per_moe_layer, plan.layout.ep, plan.layout.moe_tp);
      else
        formula = fmt::format("this rank's share under TP {} in stage {} of PP {} (replicated tensors in full)",
                              plan.layout.tp, weights.stage, plan.layout.pp);
    }
    if (m == ModuleClass::lm_head && tied_head_skipped > 0) {
      bytes -= std::min(bytes, tied_head_skipped);
      if (formulas) formula += "; tied to the embedding, the engine does not load it";
      if (bytes == 0) continue;
    }
    if (m == ModuleClass::mtp && mtp_skipped > 0) {
      // The engine's main model skips them; only an MTP draft (--spec-tokens) loads them.
      bytes -= std::min(bytes, mtp_skipped);
      if (bytes == 0) continue;
    }
    l.rows.push_back(row(ledger_weight_row_id(m), std::string(module_label(m)), Resource::weights, bytes,
                         Evidence::estimate, std::move(formula)));
  }
}

void add_draft_row(RankLedger& l, const Plan& plan, bool formulas) {
  if (plan.draft_weights_per_rank == 0) return;
  l.rows.push_back(row("weights.draft", fmt::format("draft model ({})", plan.draft_name), Resource::weights,
                       plan.draft_weights_per_rank, Evidence::estimate, text_if(formulas, [&] {
                         return fmt::format(
                             "--draft on every rank at TP {} (the largest divisor of TP {} its "
                             "heads accept), replicated over DP and PP",
                             plan.draft_tp, plan.layout.tp);
                       })));
}

RankLedger rank_ledger(const Plan& plan, const RankWeights& weights, const Pools* pools, bool formulas) {
  RankLedger l;
  l.rank = weights.rank;
  l.capacity = plan.gpu.device_total_bytes;
  // Weight rows by module, then the pools: one allocation (a verdict-only ledger has one weight row).
  l.rows.reserve(formulas ? 24 : 10);
  add_weight_rows(l, plan, weights, formulas, 0);
  add_draft_row(l, plan, formulas);
  if (pools) {
    const auto& p = *pools;
    const auto& w = plan.workload;
    l.rows.push_back(row("reserve.runtime", text_if(formulas, [] { return "runtime reserve"; }), Resource::reserve,
                         p.reserve, Evidence::estimate, text_if(formulas, [&] {
                           return w.reserve.is_percent ? fmt::format("{}% of device capacity", w.reserve.percent)
                                                       : "--reserve bytes per GPU";
                         })));
    l.rows.push_back(row("activations.hidden", text_if(formulas, [] { return "prefill hidden buffer"; }),
                         Resource::activations, p.hidden_buffer, Evidence::estimate,
                         text_if(formulas, [&] { return fmt::format("{} tokens x hidden x dtype", w.chunk_tokens); })));
    if (p.attn_res_bytes > 0)
      l.rows.push_back(row("activations.attn_res", text_if(formulas, [] { return "Attention Residual sources"; }),
                           Resource::activations, p.attn_res_bytes, Evidence::estimate, text_if(formulas, [&] {
                             return fmt::format("{} sources x hidden buffer", p.attn_res_sources);
                           })));
    if (p.ffn_payload > 0)
      l.rows.push_back(row("activations.ffn", p.ffn_label, Resource::activations, p.ffn_payload, Evidence::estimate,
                           text_if(formulas, [&] { return p.ffn_formula + " (logical aggregate, not divided)"; })));
    if (p.slot_bytes > 0) {
      const auto label = text_if(formulas, [&] {
        std::string kinds;
        for (const auto& r : p.rows->state) kinds += (kinds.empty() ? "" : " + ") + std::string(layer_kind_key(r.kind));
        return fmt::format("recurrent state slots ({})", kinds);
      });
      l.rows.push_back(row(
          "state.recurrent", label, Resource::recurrent_state, p.state_rank_bytes, Evidence::estimate,
          text_if(formulas, [&] {
            return fmt::format(
                "{} slots x {} requests x {}{}", p.slots_per_request, p.requests_per_group, format_mib(p.slot_bytes, 1),
                w.spec_tokens ? fmt::format(" ({} + {} speculative)", w.state_slots, w.spec_tokens) : "");
          })));
    }
    if (p.cache_per_token > 0) {
      const auto label = text_if(formulas, [&] {
        std::string kinds;
        for (const auto& r : p.rows->cache) kinds += (kinds.empty() ? "" : " + ") + std::string(layer_kind_key(r.kind));
        return fmt::format("token cache ({})", kinds);
      });
      l.rows.push_back(
          row("kv.cache", label, Resource::kv_cache, p.cache_rank_bytes, Evidence::derived, text_if(formulas, [&] {
                return w.mix.empty() ? fmt::format("{} requests x {} B per request / DCP {}", p.requests_per_group,
                                                   with_commas(p.cache_per_request), plan.layout.dcp)
                                     : fmt::format("{} / DCP {}", requests_text(w, plan.layout.dp), plan.layout.dcp);
              })));
    }
    if (p.draft_cache_rank_bytes > 0)
      l.rows.push_back(row(
          "kv.draft", fmt::format("draft model cache ({})", plan.draft_name), Resource::kv_cache,
          p.draft_cache_rank_bytes, Evidence::derived, text_if(formulas, [&] {
            return w.mix.empty() ? fmt::format("{} requests x {} B per request (draft at TP {})", p.requests_per_group,
                                               with_commas(p.draft_cache_per_request), plan.draft_tp)
                                 : fmt::format("{} (draft at TP {})", requests_text(w, plan.layout.dp), plan.draft_tp);
          })));
  }
  close_ledger(l);
  return l;
}

}  // namespace preflight::plan_steps
