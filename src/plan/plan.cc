#include "plan/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/bytes.h"
#include "model/request_state.h"
#include "plan/checklist.h"
#include "plan/disk.h"
#include "plan/kv_offload.h"
#include "plan/placement.h"
#include "engine/size_engine.h"
#include "perf/roofline.h"
#include "perf/step_shape.h"

namespace preflight {

namespace {

constexpr const char* kConfigSource = "config.json of the model";

std::string gpu_source(const Accelerator& gpu) {
  return fmt::format("GPU catalogue entry {} ({})", gpu.id, gpu.device_total_source);
}

// Weight lower bounds of the first pass.
void add_weight_bound_figures(Plan& plan, const ModelSpec& model, const Inventory& inv,
                              const std::vector<RankWeights>& placed, std::uint64_t replicated) {
  auto& f = plan.figures;
  const auto& gpu = plan.gpu;
  const auto n = plan.gpu_count;
  const std::string artifact_src = model.artifact ? model.artifact->source : manifest_source_text(model);
  const auto logical = model.artifact && model.artifact->logical_parameters ? model.artifact->logical_parameters
                                                                            : inv.logical_params;
  f.push_back(exact_figure("model.logical_parameters", "logical parameters", logical, "params",
                           model.artifact && model.artifact->logical_parameters ? Evidence::official : Evidence::derived,
                           model.artifact && model.artifact->logical_parameters
                               ? "the hub's safetensors parameter total, as it reports it (packed 4-bit bytes count as 2)"
                               : "sum of logical tensor elements over the manifest (quantized weights counted unpacked, "
                                 "scales excluded)",
                           artifact_src));
  // The files' own bytes are official facts; bytes generated from config.json are derived.
  const bool from_files = model.manifest_source != ManifestSource::config;
  const bool cast_on_load = model.disk_payload_bytes > 0 && model.disk_payload_bytes != inv.payload_bytes;
  if (cast_on_load)
    f.push_back(bytes_figure("model.checkpoint_payload", "tensor payload on disk (the files)", model.disk_payload_bytes,
                             Evidence::official, "sum of the stored tensors' bytes", manifest_source_text(model)));
  f.push_back(bytes_figure("model.tensor_payload",
                           cast_on_load ? "tensor payload in GPU memory (as the engine loads it)"
                                        : "tensor payload (checkpoint bytes)",
                           inv.payload_bytes, from_files && !cast_on_load ? Evidence::official : Evidence::derived,
                           fmt::format("sum over {} tensors of elements x dtype width (MXFP4: codes + scales){}",
                                       with_commas(inv.tensors),
                                       cast_on_load ? "; unquantized tensors stored in another float dtype counted in "
                                                      "their parameter's, as --dtype auto loads them"
                                                    : ""),
                           manifest_source_text(model)));
  const bool has_shards = model.artifact && model.artifact->shard_bytes > 0;
  if (has_shards) {
    const auto& a = *model.artifact;
    f.push_back(bytes_figure("artifact.shard_bytes", fmt::format("released weight shards ({} files)", a.shard_count),
                             a.shard_bytes, Evidence::official, "sum of *.safetensors sizes in the pinned revision",
                             a.source));
    if (a.shard_bytes >= inv.payload_bytes)
      f.push_back(bytes_figure("artifact.header_bytes", "safetensors headers (shards minus payload)",
                               a.shard_bytes - inv.payload_bytes, Evidence::derived,
                               fmt::format("{} - {} B", with_commas(a.shard_bytes), with_commas(inv.payload_bytes)),
                               a.source));
  }
  // The released shard bytes when known (seed 000's file-size proxy), else the generated payload.
  const std::uint64_t weights_proxy = has_shards ? model.artifact->shard_bytes : inv.payload_bytes;

  // Nominal aggregate, the seeds' comparison (vendor GB, shown as such).
  const double nominal_total_gb = gpu.nominal_gb * static_cast<double>(n);
  f.push_back(real_figure("cluster.nominal_aggregate_gb", "nominal aggregate memory (vendor GB)", nominal_total_gb,
                          "GB", Evidence::derived,
                          fmt::format("{} GPUs x {} GB/GPU (vendor headline; HBM \"GB\" is GiB-sized in practice)", n,
                                      gpu.nominal_gb),
                          fmt::format("GPU catalogue entry {} (nominal_gb)", gpu.id)));
  const auto nominal_total = static_cast<std::uint64_t>(std::llround(gpu.nominal_gb * 1e9)) * n;
  const bool short_of_nominal = weights_proxy > nominal_total;
  f.push_back(bytes_figure(
      "weights.nominal_shortfall",
      short_of_nominal ? (has_shards ? "weight shards beyond nominal aggregate" : "weights beyond nominal aggregate")
                       : (has_shards ? "nominal aggregate left after the shards" : "nominal aggregate left after the weights"),
      short_of_nominal ? weights_proxy - nominal_total : nominal_total - weights_proxy, Evidence::derived,
      fmt::format("{} B {} {} {} x {} GB nominal ({} B)", with_commas(weights_proxy),
                  has_shards ? "shards" : "tensor payload", short_of_nominal ? "-" : "vs", n,
                  gpu.nominal_gb, with_commas(nominal_total)),
      artifact_src));
  if (model.artifact && model.artifact->recipe_vram_minimum_gb > 0) {
    const auto recipe = model.artifact->recipe_vram_minimum_gb * kGB;
    if (recipe > weights_proxy)
      f.push_back(bytes_figure("weights.recipe_minimum_left", "recipe vram_minimum_gb left after the shards",
                               recipe - weights_proxy, Evidence::derived,
                               fmt::format("{} GB (pre-release recipe estimate) - {} B shards",
                                           model.artifact->recipe_vram_minimum_gb, with_commas(weights_proxy)),
                               "serving recipe YAML (official, marked as a pre-release estimate)"));
  }
  const auto flat4 = checked_mul(logical, 4) / 8;
  f.push_back(bytes_figure("weights.flat_4bit_bound", "flat 4-bit lower bound", flat4, Evidence::derived,
                           fmt::format("{} params x 4 bits / 8", with_commas(logical)), artifact_src));
  f.push_back(bytes_figure("cluster.device_capacity_per_gpu", "device-reported capacity per GPU", gpu.device_total_bytes,
                           gpu.device_total_evidence, "what CUDA/HIP report as total memory (plans use this)",
                           gpu_source(gpu)));
  const auto device_total = checked_mul(gpu.device_total_bytes, n);
  f.push_back(bytes_figure("cluster.device_capacity_total", "device-reported capacity, all GPUs", device_total,
                           gpu.device_total_evidence == Evidence::official ? Evidence::derived : gpu.device_total_evidence,
                           fmt::format("{} x {} B", n, with_commas(gpu.device_total_bytes)), gpu_source(gpu)));
  const auto even = ceil_div(inv.payload_bytes, n);
  f.push_back(bytes_figure("weights.even_share_per_rank", "payload per rank under an even split", even,
                           Evidence::estimate,
                           fmt::format("ceil({} B / {} ranks) (assumes perfectly even placement)",
                                       with_commas(inv.payload_bytes), n),
                           manifest_source_text(model)));
  const auto heaviest = std::max_element(placed.begin(), placed.end(),
                                         [](const auto& a, const auto& b) { return a.total < b.total; });
  f.push_back(bytes_figure("weights.heaviest_rank", fmt::format("weights on the heaviest rank ({})", heaviest->rank),
                           heaviest->total, Evidence::estimate,
                           fmt::format("sum of rank {}'s tensor shares: TP {} splits, EP {} deals {} experts per MoE "
                                       "layer (each split over MoE-TP {}), PP {} stages, {} replicated in the model",
                                       heaviest->rank, plan.layout.tp, plan.layout.ep, heaviest->experts_per_moe_layer,
                                       plan.layout.moe_tp, plan.layout.pp, format_gb(replicated)),
                           manifest_source_text(model)));
}

void add_active_figures(Plan& plan, const ModelSpec& model, const Inventory& inv) {
  plan.figures.push_back(exact_figure(
      "model.active_parameters", "active parameters per token", inv.active_params, "params", Evidence::derived,
      fmt::format("{} always-on text params (all but the input embedding and routed experts) + {} x {} layers x {} "
                  "params per expert = {} + {}",
                  with_commas(inv.active_trunk_params), model.moe.experts_per_token, inv.moe_layers,
                  with_commas(inv.routed_params_per_expert), with_commas(inv.active_trunk_params),
                  with_commas(inv.active_routed_params)),
      manifest_source_text(model)));
}

LedgerRow row(std::string id, std::string label, Resource r, std::uint64_t bytes, Evidence e, std::string formula) {
  return LedgerRow{std::move(id), std::move(label), r, bytes, e, std::move(formula)};
}

struct Pools {
  std::uint64_t requests_per_group = 0;
  // per slot (state) and per token (cache), per rank, by layer kind; shared by every plan of the context
  std::shared_ptr<const PlanContext::StageRequestState> rows;
  std::uint64_t slot_bytes = 0;        // one state slot on one rank
  std::uint64_t slots_per_request = 0; // --state-slots + --spec-tokens
  std::uint64_t state_rank_bytes = 0;  // the state pool on one rank
  std::uint64_t cache_per_token = 0;   // uncapped, per rank
  std::uint64_t cache_per_request = 0; // one request at the context, per rank (caps applied, before DCP)
  std::uint64_t cache_rank_bytes = 0;  // the cache pool on one rank
  std::uint64_t hidden_buffer = 0;
  std::uint64_t attn_res_sources = 0;
  std::uint64_t attn_res_bytes = 0;
  std::uint64_t ffn_payload = 0;       // routed latent payload (MoE) or MLP intermediate (dense)
  std::string ffn_label;
  std::string ffn_formula;
  std::uint64_t reserve = 0;
  std::vector<TokenCacheRow> draft_cache;     // --draft: its cache per token on a rank
  std::uint64_t draft_cache_per_request = 0;
  std::uint64_t draft_cache_rank_bytes = 0;
};

// The pools of one pipeline stage (its layers' cache and state).
Pools compute_pools(const Plan& plan, const PlanContext& context, const ModelSpec* draft, std::uint64_t stage) {
  const auto& model = *context.model;
  const auto& w = plan.workload;
  const auto& layout = plan.layout;
  const LayerRange range = layout.pp > 1 ? LayerRange{layout.first_layer(stage), layout.stage_layers[stage]} : LayerRange{};
  Pools p;
  p.requests_per_group = ceil_div(w.concurrency, layout.dp);
  const auto rows = context.stage_request_state(layout.tp, range, kv_dtype_bytes(w.kv_dtype), state_dtype_bytes(w.state_dtype));
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
    group_cache = checked_add(group_cache, checked_mul(by_length.counts[i], cache_bytes_for_context(p.rows->cache, tokens), "cache pool"));
    if (plan.draft_tp > 0)
      p.draft_cache_rank_bytes = checked_add(
          p.draft_cache_rank_bytes, checked_mul(by_length.counts[i], cache_bytes_for_context(p.draft_cache, tokens), "draft cache"));
  }
  if (plan.draft_tp > 0) p.draft_cache_per_request = cache_bytes_for_context(p.draft_cache, checked_add(w.context_tokens, w.spec_tokens));
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
    p.ffn_label = fmt::format("{}-way routed {} payload", model.moe.experts_per_token,
                              model.moe.latent_dim > 0 ? "latent" : "hidden");
    p.ffn_formula = fmt::format("{} tokens x {} experts x {} x {} B", w.chunk_tokens, model.moe.experts_per_token,
                                latent, width);
  } else if (model.moe.dense_intermediate > 0) {
    // gate and up projections' outputs of one chunk, split by TP.
    const auto inter = ceil_div(model.moe.dense_intermediate, layout.tp);
    p.ffn_payload = checked_mul(checked_mul(checked_mul(w.chunk_tokens, 2), inter), width, "activations");
    p.ffn_label = "MLP gate and up outputs";
    p.ffn_formula = fmt::format("{} tokens x 2 x {} / TP {} x {} B", w.chunk_tokens, model.moe.dense_intermediate,
                                layout.tp, width);
  }
  p.reserve = w.reserve.is_percent
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
    if (p.rows->state.size() == 1) formula += fmt::format(" = {} + {}", with_commas(p.rows->state[0].recurrent_bytes), with_commas(p.rows->state[0].conv_bytes));
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
      f.push_back(exact_figure("state.kda_recurrent_elements", "KDA recurrent state elements per sequence, all heads",
                               elements, "elements", Evidence::derived,
                               fmt::format("{} layers x {} heads x {} x {} = {} BF16, {} FP32",
                                           model.count_layers(LayerKind::kda), model.kda.heads, d, d,
                                           format_mib(elements * 2, 1), format_mib(elements * 4, 1)),
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
    f.push_back(bytes_figure("kv.per_request_per_rank",
                             fmt::format("cache for one {}-token request per rank", with_commas(w.context_tokens)),
                             p.cache_per_request, Evidence::derived,
                             fmt::format("sum over layer kinds of bytes per token x min(context {}, window)",
                                         with_commas(w.context_tokens)),
                             kConfigSource));
    f.push_back(bytes_figure("kv.pool_per_rank", "cache pool per rank", p.cache_rank_bytes, Evidence::derived,
                             w.mix.empty()
                                 ? fmt::format("{} requests x {} B / DCP {}", p.requests_per_group,
                                               with_commas(p.cache_per_request), plan.layout.dcp)
                                 : fmt::format("{}, each at its length's cache / DCP {}",
                                               requests_text(w, plan.layout.dp), plan.layout.dcp),
                             kConfigSource));
  }
  f.push_back(bytes_figure("activations.hidden_buffer",
                           fmt::format("one hidden buffer, {}-token chunk", with_commas(w.chunk_tokens)), p.hidden_buffer,
                           Evidence::derived,
                           fmt::format("{} tokens x {} x {} B", w.chunk_tokens, model.hidden_size,
                                       dtype_bits(model.dtype) / 8),
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
                           w.reserve.is_percent
                               ? fmt::format("{}% x {} B device capacity", w.reserve.percent,
                                             with_commas(plan.gpu.device_total_bytes))
                               : fmt::format("--reserve {} B per GPU", with_commas(w.reserve.bytes)),
                           "--reserve (a planning assumption: replace with a measured figure)"));
}

// Formulas are skipped on the solvers' fast path (numbers only).
// A formula only when the plan shows formulas: the solvers' verdict-only plans
// skip building the strings (most of their cost before this was formatting).
template <typename MakeText>
std::string text_if(bool on, MakeText make) {
  if (!on) return std::string();
  return std::string(make());
}

void add_weight_rows(RankLedger& l, const Plan& plan, const RankWeights& weights, bool formulas,
                     std::uint64_t tied_head_skipped) {
  if (!formulas) {
    // The verdict needs only the total: weights are one resource, first in allocation order.
    l.rows.push_back(row("weights", "weights", Resource::weights, weights.total - std::min(weights.total, tied_head_skipped),
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
    l.rows.push_back(row(fmt::format("weights.{}", module_key(m)), std::string(module_label(m)), Resource::weights,
                         bytes, Evidence::estimate, std::move(formula)));
  }
}

void add_draft_row(RankLedger& l, const Plan& plan, bool formulas) {
  if (plan.draft_weights_per_rank == 0) return;
  l.rows.push_back(row("weights.draft", fmt::format("draft model ({})", plan.draft_name), Resource::weights,
                       plan.draft_weights_per_rank, Evidence::estimate,
                       text_if(formulas, [&] { return fmt::format("--draft on every rank at TP {} (the largest divisor of TP {} its "
                                                     "heads accept), replicated over DP and PP",
                                                     plan.draft_tp, plan.layout.tp); })));
}

RankLedger rank_ledger(const Plan& plan, const RankWeights& weights, const Pools* pools, bool formulas) {
  RankLedger l;
  l.rank = weights.rank;
  l.capacity = plan.gpu.device_total_bytes;
  l.rows.reserve(24);  // weight rows by module, then the pools: one allocation for the solvers' thousands of ledgers
  add_weight_rows(l, plan, weights, formulas, 0);
  add_draft_row(l, plan, formulas);
  if (pools) {
    const auto& p = *pools;
    const auto& w = plan.workload;
    l.rows.push_back(row("reserve.runtime", "runtime reserve", Resource::reserve, p.reserve, Evidence::estimate,
                         text_if(formulas, [&] { return w.reserve.is_percent ? fmt::format("{}% of device capacity", w.reserve.percent)
                                                                : "--reserve bytes per GPU"; })));
    l.rows.push_back(row("activations.hidden", "prefill hidden buffer", Resource::activations, p.hidden_buffer,
                         Evidence::estimate, text_if(formulas, [&] { return fmt::format("{} tokens x hidden x dtype", w.chunk_tokens); })));
    if (p.attn_res_bytes > 0)
      l.rows.push_back(row("activations.attn_res", "Attention Residual sources", Resource::activations, p.attn_res_bytes,
                           Evidence::estimate, text_if(formulas, [&] { return fmt::format("{} sources x hidden buffer", p.attn_res_sources); })));
    if (p.ffn_payload > 0)
      l.rows.push_back(row("activations.ffn", p.ffn_label, Resource::activations, p.ffn_payload, Evidence::estimate,
                           text_if(formulas, [&] { return p.ffn_formula + " (logical aggregate, not divided)"; })));
    if (p.slot_bytes > 0) {
      const auto label = text_if(formulas, [&] {
        std::string kinds;
        for (const auto& r : p.rows->state) kinds += (kinds.empty() ? "" : " + ") + std::string(layer_kind_key(r.kind));
        return fmt::format("recurrent state slots ({})", kinds);
      });
      l.rows.push_back(row("state.recurrent", label, Resource::recurrent_state,
                           p.state_rank_bytes, Evidence::estimate,
                           text_if(formulas, [&] { return fmt::format("{} slots x {} requests x {}{}", p.slots_per_request,
                                                         p.requests_per_group, format_mib(p.slot_bytes, 1),
                                                         w.spec_tokens ? fmt::format(" ({} + {} speculative)", w.state_slots,
                                                                                     w.spec_tokens)
                                                                       : ""); })));
    }
    if (p.cache_per_token > 0) {
      const auto label = text_if(formulas, [&] {
        std::string kinds;
        for (const auto& r : p.rows->cache) kinds += (kinds.empty() ? "" : " + ") + std::string(layer_kind_key(r.kind));
        return fmt::format("token cache ({})", kinds);
      });
      l.rows.push_back(row("kv.cache", label, Resource::kv_cache, p.cache_rank_bytes,
                           Evidence::derived,
                           text_if(formulas, [&] {
                             return w.mix.empty() ? fmt::format("{} requests x {} B per request / DCP {}", p.requests_per_group,
                                                                with_commas(p.cache_per_request), plan.layout.dcp)
                                                  : fmt::format("{} / DCP {}", requests_text(w, plan.layout.dp), plan.layout.dcp);
                           })));
    }
    if (p.draft_cache_rank_bytes > 0)
      l.rows.push_back(row("kv.draft", fmt::format("draft model cache ({})", plan.draft_name), Resource::kv_cache,
                           p.draft_cache_rank_bytes, Evidence::derived,
                           text_if(formulas, [&] { return w.mix.empty()
                                                         ? fmt::format("{} requests x {} B per request (draft at TP {})", p.requests_per_group,
                                                                       with_commas(p.draft_cache_per_request), plan.draft_tp)
                                                         : fmt::format("{} (draft at TP {})", requests_text(w, plan.layout.dp), plan.draft_tp); })));
  }
  close_ledger(l);
  return l;
}

// The token cache a group's running requests hold on one engine worker: each
// request at its length (a mix), else every request at max_model_len.
std::uint64_t engine_kv_in_use(const EngineWorker& worker, const WorkloadOptions& w, std::uint64_t groups) {
  if (w.mix.empty() || worker.kv_request_bytes_by_length.size() != w.mix.size())
    return checked_mul(ceil_div(w.concurrency, std::max<std::uint64_t>(groups, 1)), worker.kv_request_bytes, "KV cache");
  const auto counts = heaviest_group(w.mix, w.concurrency, groups);
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < counts.size(); ++i)
    bytes = checked_add(bytes, checked_mul(counts[i], worker.kv_request_bytes_by_length[i], "KV cache"));
  return bytes;
}

// The ledger of a rank as vLLM or SGLang allocates it: weights as the engine
// loads them, the engine's own reservations, then the workload's state and
// KV in the engine's page layout. What is left is the engine's spare pool.
RankLedger engine_rank_ledger(const Plan& plan, const ModelSpec& model, const RankWeights& weights,
                              const EngineWorker& worker, const EngineWorkerInput& input, bool formulas) {
  const auto& e = *plan.engine;
  const bool vllm = e.kind == EngineKind::vllm;
  RankLedger l;
  l.rank = weights.rank;
  l.capacity = plan.gpu.device_total_bytes;
  // Engine-side weight changes of this worker's stage (same for every rank of a stage).
  const auto tied = model.tied_embeddings ? input.lm_head_bytes : 0;
  add_weight_rows(l, plan, weights, formulas, tied);
  add_draft_row(l, plan, formulas);
  if (worker.weights_bytes > input.placed_weights - std::min(input.placed_weights, tied) && vllm) {
    const auto extra = worker.weights_bytes - (input.placed_weights - std::min(input.placed_weights, tied));
    l.rows.push_back(row("weights.engine_tensors", "engine-side tensors",
                         Resource::weights, extra, Evidence::estimate,
                         text_if(formulas, [&] { return "what vLLM adds when it loads (see engine.weights_bytes_per_rank)"; })));
  }
  const auto total = l.capacity;
  const auto headroom = total - std::min(total, worker.requested_bytes);
  l.rows.push_back(row("reserve.engine", vllm ? "outside gpu_memory_utilization" : "outside mem_fraction_static",
                       Resource::reserve, headroom, Evidence::derived,
                       text_if(formulas, [&] { return vllm ? fmt::format("device total x (1 - {})", e.memory_fraction)
                                              : fmt::format("CUDA context + free memory before loading x (1 - {}): "
                                                            "activations and CUDA graphs live here",
                                                            e.memory_fraction); })));
  if (vllm) {
    l.rows.push_back(row("reserve.non_torch", "non-torch (NCCL, all-reduce)", Resource::reserve,
                         worker.non_torch_bytes, Evidence::estimate, text_if(formulas, [&] { return "era constant by TP / PP"; })));
    if (worker.cuda_graph_bytes > 0)
      l.rows.push_back(row("reserve.cuda_graphs", "CUDA graph pool", Resource::reserve, worker.cuda_graph_bytes,
                           Evidence::estimate, text_if(formulas, [&] { return "subtracted by vLLM 0.21 and later"; })));
    l.rows.push_back(row("activations.profile_peak", "profile-run activation peak", Resource::activations,
                         worker.activation_peak_bytes, Evidence::estimate,
                         text_if(formulas, [&] { return "max(forward of max_num_batched_tokens, sampler of max_num_seqs x vocab)"; })));
  }
  const auto requests = ceil_div(plan.workload.concurrency, plan.layout.dp);
  if (worker.state_request_bytes > 0) {
    const auto need = checked_mul(requests, worker.state_request_bytes, "state");
    // SGLang allocates its whole state pool at start-up.
    const auto bytes = vllm ? need : std::max(need, worker.state_pool_bytes);
    l.rows.push_back(row("state.recurrent", vllm ? "recurrent state (padded pages)" : "recurrent state pool",
                         Resource::recurrent_state, bytes, Evidence::estimate,
                         text_if(formulas, [&] { return vllm ? fmt::format("{} requests x {} B (state pages padded to the attention page)",
                                                              requests, with_commas(worker.state_request_bytes))
                                                : fmt::format("max({} requests x {} B, the {} B pool SGLang allocates)", requests,
                                                              with_commas(worker.state_request_bytes),
                                                              with_commas(worker.state_pool_bytes)); })));
  }
  if (worker.kv_request_bytes > 0)
    l.rows.push_back(row("kv.cache", "KV cache in use", Resource::kv_cache,
                         engine_kv_in_use(worker, plan.workload, plan.layout.dp), Evidence::estimate,
                         text_if(formulas, [&] {
                           return plan.workload.mix.empty()
                                      ? fmt::format("{} requests x {} B ({}-token blocks for {} tokens)", requests,
                                                    with_commas(worker.kv_request_bytes), e.block_size,
                                                    with_commas(e.max_model_len))
                                      : fmt::format("{}, each in {}-token blocks for its length", requests_text(plan.workload, plan.layout.dp),
                                                    e.block_size);
                         })));
  close_ledger(l);
  return l;
}

// No family reader knows the architecture: the generic reading guessed its
// structure (which layers attend how, what the MLP is), so nothing computed
// from it is a derived calculation. Figures and ledger rows computed from the
// model become planning estimates (the GPU catalogue's and the files' own
// figures keep their labels), and the verdict line says why.
void mark_guessed_structure(Plan& plan) {
  const auto guessed = [](Evidence& e) {
    if (e == Evidence::derived) e = Evidence::estimate;
  };
  for (auto& f : plan.figures)
    if (!f.id.starts_with("cluster.") && !f.id.starts_with("disk.")) guessed(f.evidence);
  for (auto& r : plan.ranks)
    for (auto& row : r.rows) guessed(row.evidence);
  guessed(plan.verdict.evidence);
  if (plan.verdict.summary.empty() || plan.verdict.summary.find("no family reader") != std::string::npos) return;
  plan.verdict.summary += fmt::format(
      "; planning estimate: {} has no family reader, so its structure was read as a generic decoder{}",
      plan.model_architecture.empty() ? plan.model_name : plan.model_architecture,
      plan.manifest_source == ManifestSource::config
          ? " and its tensors generated from that guess (a snapshot folder, a hub id or --shard-headers all would "
            "plan from the real tensors)"
          : " (its tensors are the files' own)");
}

Verdict judge(const Plan& plan, bool with_summary) {
  Verdict v;
  v.fits = true;
  std::int64_t headroom = INT64_MAX;
  int worst_boundary = 99;
  std::size_t worst_index = 0;
  for (std::size_t i = 0; i < plan.ranks.size(); ++i) {
    const auto& l = plan.ranks[i];
    const auto slack = l.fits() ? static_cast<std::int64_t>(l.free) : -static_cast<std::int64_t>(l.over);
    if (slack < headroom) {
      headroom = slack;
      v.worst_rank = l.rank;
      worst_index = i;
    }
    if (!l.fits()) {
      v.fits = false;
      if (static_cast<int>(l.first_boundary) < worst_boundary) {
        worst_boundary = static_cast<int>(l.first_boundary);
        v.first_boundary = l.first_boundary;
      }
    }
  }
  v.headroom_bytes = headroom;
  v.evidence = v.fits ? Evidence::hypothesis : Evidence::derived;
  if (!with_summary) return v;
  const auto& worst = plan.ranks[worst_index];
  const auto cap = fmt::format("{} ({}) device capacity", format_gb(worst.capacity, 1), format_gib(worst.capacity, 2));
  if (!v.fits) {
    v.evidence = Evidence::derived;
    v.summary = fmt::format(
        "does not fit: first boundary crossed: {}; rank {} needs {} against {} ({} over)",
        resource_key(v.first_boundary), worst.rank, format_gb(worst.demand, 1), cap, format_gb(worst.over, 1));
  } else {
    v.evidence = Evidence::hypothesis;
    v.summary = fmt::format(
        "fits under the stated inputs, tightest rank {} keeps {} ({}) free; a deployment hypothesis until benchmarked",
        worst.rank, format_gb(worst.free, 1), format_gib(worst.free, 2));
  }
  return v;
}

}  // namespace

PlanContext::PlanContext(const ModelSpec& m)
    : model(&m),
      inventory(build_inventory(m)),
      placement(m.manifest, m.layers.size(), m.moe.routed_experts),
      tp_divisors(m.tp_divisors()) {}

std::shared_ptr<const PlanContext::StageRequestState> PlanContext::stage_request_state(std::uint64_t tp, LayerRange range,
                                                                                       std::uint64_t kv_bytes,
                                                                                       std::uint64_t state_bytes) const {
  const std::array<std::uint64_t, 5> key{tp, range.first, range.count, kv_bytes, state_bytes};
  std::lock_guard<std::mutex> lock(request_state_mutex_);
  if (auto it = request_state_.find(key); it != request_state_.end()) return it->second;
  auto made = std::make_shared<StageRequestState>();
  made->state = recurrent_state_per_rank(*model, tp, state_bytes, range);
  made->cache = token_cache_per_rank(*model, kv_bytes, tp, range);
  if (request_state_.size() >= 4096) request_state_.clear();  // bounded
  request_state_.emplace(key, made);
  return made;
}

const FormatPlacement& PlanContext::formats() const {
  std::call_once(formats_once_, [&] { formats_ = std::make_unique<FormatPlacement>(*model); });
  return *formats_;
}

Result<std::shared_ptr<const PlanContext::Placed>> PlanContext::placed(std::uint64_t world,
                                                                        const LayoutOptions& o) const {
  const std::array<std::uint64_t, 7> key{world, o.tp, o.ep, o.pp, o.dp, o.dcp, o.gpus_per_node};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = placed_.find(key); it != placed_.end()) return it->second;
  }
  Result<std::shared_ptr<const Placed>> result = [&]() -> Result<std::shared_ptr<const Placed>> {
    auto layout = choose_layout(*model, world, o, &tp_divisors, false);
    if (!layout) return layout.error();
    auto p = std::make_shared<Placed>();
    p->layout = std::move(layout).value();
    for (auto r : placement.representative_ranks(p->layout)) p->representatives.push_back(placement.rank_weights(p->layout, r, false));
    return std::shared_ptr<const Placed>(std::move(p));
  }();
  std::lock_guard<std::mutex> lock(mutex_);
  if (placed_.size() >= 100000) placed_.clear();  // bounded: a sweep needs a few thousand
  placed_.emplace(key, result);
  return result;
}

namespace {

EngineWorkerInput worker_input(const Plan& plan, const RankWeights& rw) {
  EngineWorkerInput in;
  in.rank = rw.rank;
  in.stage = rw.stage;
  in.placed_weights = checked_add(rw.total, plan.draft_weights_per_rank);  // the engine loads the draft too
  in.lm_head_bytes = rw.lm_head_bytes;
  in.expert_bytes = rw.expert_bytes;
  const auto& l = plan.layout;
  if (l.pp > 1) in.layers = LayerRange{l.first_layer(rw.stage), l.stage_layers[rw.stage]};
  in.first_stage = rw.stage == 0;
  in.last_stage = rw.stage + 1 == l.pp;
  return in;
}

// Engine refusals and SGLang's split pools, which a shared ledger cannot show.
void apply_engine_verdict(Plan& plan) {
  if (!plan.engine) return;
  const auto& e = *plan.engine;
  auto& v = plan.verdict;
  const auto requests = ceil_div(plan.workload.concurrency, plan.layout.dp);
  std::string why;
  Resource boundary = Resource::none;
  if (!v.fits) return;  // the ledger already names what ran out
  if (!e.failure.empty()) {
    why = e.failure;
    boundary = e.min_kv_budget_bytes == 0 ? Resource::weights : Resource::kv_cache;
  } else if (e.kind == EngineKind::sglang) {
    for (const auto& w : e.workers) {
      if (w.state_pool_bytes > 0 && checked_mul(requests, w.state_request_bytes) > w.state_pool_bytes) {
        why = fmt::format("{} requests need {} state slots; SGLang's state pool holds {} (--mamba-full-memory-ratio)", requests,
                          requests * (w.state_request_bytes / std::max<std::uint64_t>(e.state_slot_bytes, 1)), e.state_slots);
        boundary = Resource::recurrent_state;
        break;
      }
      if (engine_kv_in_use(w, plan.workload, plan.layout.dp) > w.kv_pool_bytes) {
        why = plan.workload.mix.empty()
                  ? fmt::format("{} requests of {} tokens need more than the {} tokens of SGLang's KV pool", requests,
                                with_commas(plan.workload.context_tokens), with_commas(e.kv_cache_tokens))
                  : fmt::format("{} need more than the {} tokens of SGLang's KV pool", requests_text(plan.workload, plan.layout.dp),
                                with_commas(e.kv_cache_tokens));
        boundary = Resource::kv_cache;
        break;
      }
    }
    if (why.empty() && requests > e.max_running_requests) {
      why = fmt::format("{} running requests exceed max_running_requests {}", requests, e.max_running_requests);
      boundary = e.state_slots > 0 ? Resource::recurrent_state : Resource::kv_cache;
    }
  }
  if (boundary == Resource::none) return;
  v.fits = false;
  v.first_boundary = boundary;
  v.evidence = Evidence::derived;
  v.summary = fmt::format("does not fit: first boundary crossed: {}; {}", resource_key(boundary), why);
}

// The latency targets against the roofline bounds at this plan's layout and
// batch (perf/latency.h), from the representative ranks as the solvers' fast
// path computes them. A plan whose memory fits but whose bounds miss a target
// is red with `ttft` or `tpot` as its first boundary.
void apply_latency(Plan& plan, const PlanContext& context, const Accelerator& gpu, const PlanRequest& request, bool full) {
  if (!request.latency.any()) return;
  const auto& model = *context.model;
  const auto& w = plan.workload;
  auto targets = request.latency;
  const auto length = w.mix.empty() ? w.context_tokens : mean_tokens(w.mix);
  if (targets.output_tokens == 0) targets.output_tokens = default_output_tokens(length);
  if (targets.input_tokens == 0) targets.input_tokens = default_input_tokens(length, targets.output_tokens);
  PerfInputs in;
  in.model = &model;
  in.gpu = &gpu;  // the catalogue's: a verdict-only plan copies only its capacity
  in.layout = &plan.layout;
  in.batch_per_group = decode_batch_per_group(plan.layout, w.concurrency);
  in.context = length;
  in.kv_dtype_bytes = kv_dtype_bytes(w.kv_dtype);
  in.state_dtype_bytes = state_dtype_bytes(w.state_dtype);
  in.scale_out_gb_s = request.perf.scale_out_gb_s;
  if (auto e = validate_perf_inputs(in)) {
    if (full) plan.assumptions.push_back(fmt::format("latency targets not checked: {}", e->message));
    return;
  }
  const auto& placement = context.formats();
  std::vector<RankFormatWeights> weights;
  for (auto r : context.placement.representative_ranks(plan.layout)) weights.push_back(placement.rank_weights(plan.layout, r));
  const auto decode = estimate_step(in, placement, weights, decode_step(in, in.batch_per_group));
  const auto prefill = estimate_step(in, placement, weights, prefill_step(targets.input_tokens));
  LatencyBounds b;
  b.prefill_s = prefill.step_seconds;
  b.prefill_slowest_stage_s = prefill.slowest_stage_seconds;
  b.decode_step_s = decode.step_seconds;
  b.decode_tokens_per_s = static_cast<double>(decode.tokens_per_step) / decode.slowest_stage_seconds;
  b.dp_groups = plan.layout.dp;
  plan.latency = check_latency(targets, w.concurrency, request.concurrency_from_rate, b);
  const auto& check = *plan.latency;
  if (full) {
    for (const auto& f : check.figures) plan.figures.push_back(f);
    for (const auto& a : check.assumptions) plan.assumptions.push_back(a);
  }
  auto& v = plan.verdict;
  if (!v.fits || check.binding.empty()) return;  // memory first: it is what a plan must have at all
  v.fits = false;
  v.first_boundary = check.binding == "ttft" ? Resource::ttft : Resource::tpot;
  v.evidence = Evidence::derived;
  v.summary = fmt::format("does not meet the latency targets: first boundary crossed: {}; {}", check.binding, check.why);
}

// --kv-offload: the tokens the GPU and CPU tiers hold (plan/kv_offload.h).
void add_offload_figures(Plan& plan, const PlanContext& context, const PlanRequest& request) {
  const auto& w = plan.workload;
  if (w.kv_offload_bytes_per_node == 0) return;
  const auto& layout = plan.layout;
  KvOffloadInputs in;
  in.offload_bytes_per_node = w.kv_offload_bytes_per_node;
  in.nodes = layout.nodes;
  in.dp_groups = layout.dp;
  in.tp = layout.tp;
  for (std::uint64_t s = 0; s < layout.pp; ++s) {
    const auto range = layout.pp > 1 ? LayerRange{layout.first_layer(s), layout.stage_layers[s]} : LayerRange{};
    std::uint64_t per_token = 0;
    for (const auto& r : context.stage_request_state(layout.tp, range, kv_dtype_bytes(w.kv_dtype), state_dtype_bytes(w.state_dtype))->cache)
      per_token = checked_add(per_token, r.bytes_per_token);
    in.stage_bytes_per_token.push_back(per_token);
  }
  for (const auto& r : plan.ranks) {
    if (r.rank != plan.verdict.worst_rank) continue;
    in.gpu_kv_bytes = r.free;
    for (const auto& row : r.rows)
      if (row.resource == Resource::kv_cache) in.gpu_kv_bytes = checked_add(in.gpu_kv_bytes, row.bytes);
    const auto stage = layout.stage_of(r.rank);
    in.gpu_bytes_per_token = stage < in.stage_bytes_per_token.size() ? in.stage_bytes_per_token[stage] : 0;
  }
  const auto length = w.mix.empty() ? w.context_tokens : mean_tokens(w.mix);
  const auto& t = request.latency;
  in.prompt_tokens = t.input_tokens > 0 ? t.input_tokens
                                        : default_input_tokens(length, t.output_tokens > 0 ? t.output_tokens : default_output_tokens(length));
  for (auto& f : kv_offload(in).figures) plan.figures.push_back(std::move(f));
  plan.assumptions.push_back(
      "KV offload: the CPU tier is prefix-cache capacity (running requests keep their KV on the GPU), so it does not "
      "change the verdict; a deployment hypothesis until the connector is measured");
}

// Where a --draft model sits: on every rank, at the largest TP dividing the
// target's TP that its heads accept (vLLM runs a draft at the target's TP or
// at 1), replicated over DP and PP. Its heaviest rank's weights.
Result<std::pair<std::uint64_t, std::uint64_t>> draft_share(const ModelSpec& draft, const Layout& target) {
  const PlacementIndex index(draft.manifest, draft.layers.size(), draft.moe.routed_experts);
  for (std::uint64_t d = target.tp; d >= 1; --d) {
    if (target.tp % d != 0) continue;
    LayoutOptions o;
    o.tp = d;
    o.pp = 1;
    o.dp = 1;
    o.gpus_per_node = d;
    auto layout = choose_layout(draft, d, o, nullptr, false);
    if (!layout) continue;
    std::uint64_t most = 0;
    for (std::uint64_t r = 0; r < layout->world; ++r) most = std::max(most, index.rank_weights(*layout, r, false).total);
    return std::pair<std::uint64_t, std::uint64_t>{d, most};
  }
  return Error{"--draft", draft.name, "no tensor-parallel size dividing the target's TP suits the draft's heads"};
}

// Throughput, cost and cold start for a full plan.
PerfReport plan_perf(const Plan& plan, const PlanContext& context, const PlanRequest& request,
                     const std::vector<RankWeights>& ranks) {
  const auto& model = *context.model;
  PerfPlanInputs in;
  in.model = &model;
  in.placement = &context.formats();
  in.gpu = &plan.gpu;
  in.layout = &plan.layout;
  in.workload = &plan.workload;
  in.options = request.perf;
  // A node reads from storage what its ranks hold, but a tensor replicated on
  // several of its ranks once (the page cache serves the others): at most the
  // whole payload.
  const auto per_node = std::max<std::uint64_t>(plan.layout.gpus_per_node, 1);
  const auto draft_payload = request.draft ? build_inventory(*request.draft).payload_bytes : 0;
  in.node_bytes.assign(ceil_div(plan.layout.world, per_node), 0);
  for (const auto& r : ranks)
    in.node_bytes[r.rank / per_node] = checked_add(in.node_bytes[r.rank / per_node], checked_add(r.total, plan.draft_weights_per_rank));
  for (auto& b : in.node_bytes) b = std::min(b, checked_add(plan.checkpoint_bytes, draft_payload));
  in.draft_bytes_per_rank = plan.draft_weights_per_rank;
  in.draft_name = plan.draft_name;
  if (model.artifact && model.artifact->shard_bytes > 0) {
    const auto& a = *model.artifact;
    in.artifact_bytes = a.file_bytes > a.shard_bytes ? a.file_bytes : a.shard_bytes;
    in.artifact_evidence = Evidence::official;
    in.artifact_source = a.source;
  } else {
    in.artifact_bytes = plan.checkpoint_bytes;
    in.artifact_source = "tensor manifest (plan/placement.h)";
  }
  in.artifact_bytes = checked_add(in.artifact_bytes, draft_payload);
  return build_perf_report(in);
}

}  // namespace

Result<Plan> build_plan(const ModelSpec& model, const Accelerator& gpu, const PlanRequest& request) {
  const PlanContext context(model);
  return build_plan(context, gpu, request, PlanDetail::full);
}

Result<Plan> build_plan(const PlanContext& context, const Accelerator& gpu, const PlanRequest& request,
                        PlanDetail detail) {
  const auto& model = *context.model;
  const bool full = detail == PlanDetail::full;
  if (request.gpu_count == 0) return Error{"--gpus", "", "GPU count must be at least 1"};
  if (gpu.device_total_bytes == 0)
    return Error{"--gpus", "", fmt::format("GPU '{}' has no known memory capacity", gpu.id)};
  auto layout_options = request.layout;
  if (layout_options.gpus_per_node == 0) layout_options.gpus_per_node = gpu.gpus_per_node;
  std::shared_ptr<const PlanContext::Placed> cached;
  Result<Layout> layout = Error{"", "", ""};
  if (full) {
    layout = choose_layout(model, request.gpu_count, layout_options, &context.tp_divisors, true);
  } else {
    auto p = context.placed(request.gpu_count, layout_options);
    if (!p) return p.error();
    cached = *p;
    layout = cached->layout;
  }
  if (!layout) return layout.error();

  Plan plan;
  plan.model_name = model.name;
  plan.model_family = model.family;
  plan.family_reader = model.family_reader;
  plan.manifest_source = model.manifest_source;
  if (full) {
    plan.model_architecture = model.architecture;
    plan.files_disagree = model.files_disagree;
  }
  if (full) plan.revision = model.artifact ? model.artifact->revision : "";
  if (full) {
    plan.gpu = gpu;
  } else {
    // The verdict reads only these; copying the whole entry (sources, notes) costs more than the plan.
    plan.gpu.id = gpu.id;
    plan.gpu.architecture = gpu.architecture;
    plan.gpu.device_total_bytes = gpu.device_total_bytes;
    plan.gpu.gpus_per_node = gpu.gpus_per_node;
  }
  plan.gpu_count = request.gpu_count;
  plan.layout = *layout;
  if (full && !request.layout_reason.empty()) plan.layout.chosen_by = request.layout_reason;
  plan.mtp_layers = model.mtp_layers;
  if (request.draft) {
    if (request.workload.spec_tokens == 0)
      return Error{"--draft", request.draft->name, "a draft model needs --spec-tokens N (draft tokens per step)"};
    auto share = draft_share(*request.draft, plan.layout);
    if (!share) return share.error();
    plan.draft_name = request.draft->name;
    plan.draft_ref = request.draft->artifact && !request.draft->artifact->hub_id.empty() ? request.draft->artifact->hub_id
                                                                                          : request.draft->name;
    plan.draft_tp = share->first;
    plan.draft_weights_per_rank = share->second;
  }
  plan.workload = resolved_workload(request.workload, model.max_context, dtype_bits(model.dtype));
  plan.engine_options = request.engine;
  const bool with_engine = request.engine.kind != EngineKind::generic;
  plan.second_pass = request.workload.requested || with_engine;
  if (kv_dtype_bytes(plan.workload.kv_dtype) == 0)
    return Error{"--kv-dtype", "", fmt::format("expected auto, bf16, fp16, fp32 or fp8, got '{}'", plan.workload.kv_dtype)};
  if (state_dtype_bytes(plan.workload.state_dtype) == 0)
    return Error{"--state-dtype", "", fmt::format("expected fp32 or bf16, got '{}'", plan.workload.state_dtype)};
  if (full && plan.workload.context_tokens > model.max_context)
    plan.assumptions.push_back(fmt::format("context {} exceeds the model's max_position_embeddings {}",
                                           with_commas(plan.workload.context_tokens), with_commas(model.max_context)));

  const auto& inv = context.inventory;
  plan.checkpoint_bytes = model.disk_payload_bytes > 0 ? model.disk_payload_bytes : inv.payload_bytes;
  plan.loaded_weight_bytes = inv.payload_bytes;
  plan.logical_params = model.artifact && model.artifact->logical_parameters ? model.artifact->logical_parameters
                                                                             : inv.logical_params;
  plan.active_params = inv.active_params;

  // Every rank for a full plan; the heaviest rank of each class for the verdict.
  std::vector<RankWeights> all_ranks;
  if (full) {
    all_ranks.reserve(plan.layout.world);
    for (std::uint64_t r = 0; r < plan.layout.world; ++r) all_ranks.push_back(context.placement.rank_weights(plan.layout, r));
  }
  const std::vector<RankWeights>& placed = full ? all_ranks : cached->representatives;
  if (full) {
    add_weight_bound_figures(plan, model, inv, placed, context.placement.replicated_bytes());
    add_active_figures(plan, model, inv);
  }

  if (with_engine) {
    EngineInputs in;
    in.model = &model;
    in.gpu = &gpu;
    in.layout = &plan.layout;
    in.workload = &plan.workload;
    in.options = request.engine;
    in.with_figures = full;
    in.draft = request.draft.get();
    in.draft_tp = std::max<std::uint64_t>(plan.draft_tp, 1);
    // One worker per stage class: the representative ranks.
    std::vector<std::uint64_t> reps = context.placement.representative_ranks(plan.layout);
    for (auto r : reps) {
      const auto it = std::find_if(placed.begin(), placed.end(), [&](const RankWeights& w) { return w.rank == r; });
      in.workers.push_back(worker_input(plan, it != placed.end() ? *it : context.placement.rank_weights(plan.layout, r, full)));
    }
    auto sized = size_engine(in);
    if (!sized) return sized.error();
    plan.engine = std::move(sized).value();
    for (const auto& rw : placed) {
      // The worker of the same rank, else of the same stage.
      std::size_t k = 0;
      for (std::size_t i = 0; i < in.workers.size(); ++i) {
        if (in.workers[i].rank == rw.rank) { k = i; break; }
        if (in.workers[i].stage == rw.stage && in.workers[k].stage != rw.stage) k = i;
      }
      plan.ranks.push_back(engine_rank_ledger(plan, model, rw, plan.engine->workers[k], in.workers[k], full));
    }
    if (full)
      for (const auto& f : plan.engine->figures) plan.figures.push_back(f);
  } else {
    std::vector<Pools> pools;
    if (plan.second_pass) {
      for (std::uint64_t s = 0; s < plan.layout.pp; ++s) pools.push_back(compute_pools(plan, context, request.draft.get(), s));
      if (full) add_pool_figures(plan, model, pools.front());
    }
    for (const auto& rw : placed)
      plan.ranks.push_back(rank_ledger(plan, rw, pools.empty() ? nullptr : &pools[rw.stage], full));
  }
  plan.verdict = judge(plan, full);
  apply_engine_verdict(plan);
  apply_latency(plan, context, gpu, request, full);
  if (!full) {
    if (!model.family_reader) mark_guessed_structure(plan);
    return plan;
  }

  if (model.artifact && model.artifact->shard_bytes > 0)
    for (auto& f : disk_figures(*model.artifact)) plan.figures.push_back(std::move(f));
  plan.assumptions.push_back(fmt::format("layout: {}", plan.layout.chosen_by));
  plan.assumptions.push_back("capacity per GPU is what the device reports to CUDA/HIP, not the vendor headline");
  if (plan.workload.spec_tokens > 0 && plan.draft_name.empty())
    plan.assumptions.push_back(fmt::format(
        "speculative decoding: {} draft tokens per step; their state slots and lookahead cache are counted, a "
        "separate draft model's weights and cache are not (name it with --draft)",
        plan.workload.spec_tokens));
  plan.assumptions.push_back(
      "placement: TP-split attention/MLP/embedding, experts dealt over the EP groups of each stage (split over MoE-TP), "
      "routers, norms, latent projections and the vision tower replicated; PP stages by layer");
  if (plan.engine) {
    for (const auto& r : plan.engine->rules) plan.assumptions.push_back("engine rule: " + r);
    for (const auto& e : plan.engine->estimates) plan.assumptions.push_back("engine estimate: " + e);
  } else if (plan.second_pass) {
    plan.assumptions.push_back(fmt::format("{} recurrent-state slots per running request, {} recurrent state, {} cache",
                                           plan.workload.state_slots, plan.workload.state_dtype, plan.workload.kv_dtype));
    plan.assumptions.push_back("activations: logical aggregate payloads of one prefill chunk, counted on every rank");
  }
  add_offload_figures(plan, context, request);
  if (request.perf.enabled) {
    plan.perf = plan_perf(plan, context, request, placed);
    for (const auto& f : plan.perf->figures) plan.figures.push_back(f);
    for (const auto& a : plan.perf->assumptions) plan.assumptions.push_back("throughput: " + a);
  }
  plan.checklist = build_checklist(plan, model);
  if (!model.family_reader) mark_guessed_structure(plan);
  return plan;
}

}  // namespace preflight
