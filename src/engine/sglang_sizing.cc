// SGLang's start-up memory sizing.
//
// mem_fraction_static default: ServerArgs._handle_gpu_memory_settings
// (python/sglang/srt/server_args.py). Pools: KVCacheConfigurator /
// pool_configurator.py:
//   rest = free after weights - free before weights x (1 - mem_fraction_static)
//          - the multimodal reservation (models with a vision tower)
//   state pool (Mamba-like layers): K = (rest x r / (1 + r) - slot) // slot slots,
//          (K + 1) slots allocated (the pool's padding slot)
//   max_total_num_tokens = (rest - state pool) // cell_size // page x page
//   max_running_requests = min(clamp(tokens / context x 512, 2048, 4096), tokens / 2),
//                          and at most state slots / slots per request.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/bytes.h"
#include "engine/engine_common.h"
#include "engine/engine_profile.h"
#include "engine/size_engine.h"

namespace preflight {

using namespace engine_detail;

namespace {

// SGLang's default mem_fraction_static for a GPU of `gpu_mem_mb` MiB.
// The memory tier server_args.py picks for a GPU of `gpu_mem_mb` MiB.
const SglangTier& tier_for(const SglangProfile& p, double gpu_mem_mb) {
  for (const auto& t : p.tiers)
    if (gpu_mem_mb < t.below_gb * 1024) return t;
  return p.tiers.back();
}

double default_mem_fraction(const SglangProfile& p, double gpu_mem_mb, std::uint64_t tp_size, std::uint64_t pp,
                            std::uint64_t dp, std::string* formula) {
  const SglangTier* tier = &tier_for(p, gpu_mem_mb);
  const auto graph_bs = tp_size < p.large_tp_from ? tier->cuda_graph_max_bs_small_tp : tier->cuda_graph_max_bs_large_tp;
  const auto d = [](std::uint64_t v) { return static_cast<double>(v); };
  double reserved = p.base_mb + d(std::max<std::uint64_t>(tier->chunked_prefill_size, 2048)) * p.per_prefill_token_mb +
                    d(graph_bs) * p.per_graph_bs_mb + d(tp_size * pp) / 8.0 * p.per_tp_pp_eighth_mb;
  if (dp > 1) {
    reserved += d(graph_bs) * d(dp) * p.per_graph_bs_dp_mb;
    if (d(graph_bs) > p.large_graph_bs_from) reserved += d(graph_bs) * d(dp) * p.per_graph_bs_dp_large_mb;
  }
  if (gpu_mem_mb > 60 * 1024) reserved = std::max(reserved, p.floor_above_60gb_mb);
  const double mfs = std::round((gpu_mem_mb - reserved) / gpu_mem_mb * 1000.0) / 1000.0;
  if (formula)
    *formula = fmt::format(
        "round(({:.0f} MB - {:.0f} MB reserved) / {:.0f} MB, 3); reserved = {} + max({}, 2048) x {} + {} x {} + "
        "{} x {} / 8 x {}{} (at least {} MB above 60 GB)",
        gpu_mem_mb, reserved, gpu_mem_mb, p.base_mb, tier->chunked_prefill_size, p.per_prefill_token_mb, graph_bs,
        p.per_graph_bs_mb, tp_size, pp, p.per_tp_pp_eighth_mb,
        dp > 1 ? fmt::format(" + {} x {} x {}", graph_bs, dp, p.per_graph_bs_dp_mb) : "", p.floor_above_60gb_mb);
  return mfs;
}

// The Mamba-like state pool of one worker (KVCacheConfigurator._handle_max_mamba_cache):
// K slots (max_mamba_cache_size) plus the pool's padding slot, and with
// speculative decoding the intermediate states of the running requests.
struct StatePool {
  std::uint64_t slots = 0;  // K
  std::uint64_t bytes = 0;  // (K + 1) x slot + intermediate
};

StatePool sglang_state_pool(std::uint64_t rest, std::uint64_t slot, double ratio, std::uint64_t slots_per_request,
                            std::uint64_t draft_tokens, bool radix_off, std::uint64_t max_running, std::uint64_t dp) {
  StatePool p;
  if (slot == 0) return p;
  const auto per_request = std::max<std::uint64_t>(slots_per_request, 1);
  std::uint64_t capped_requests = 0;
  if (radix_off && max_running > 0) {
    // --disable-radix-cache with --max-running-requests: one slot per request per DP rank.
    p.slots = max_running / std::max<std::uint64_t>(dp, 1);
    capped_requests = p.slots;
  } else {
    const double budget = static_cast<double>(rest) * ratio / (1.0 + ratio);
    const double s = static_cast<double>(slot);
    const double d = static_cast<double>(draft_tokens);
    // Spec: (K + 1) x slot + (K / ratio + 1) x D x slot = budget, solved for K.
    const double k = draft_tokens > 0
                         ? std::floor((budget - s * (1.0 + d)) / (s * (1.0 + d / static_cast<double>(per_request))))
                         : std::floor((budget - s) / s);
    p.slots = k > 0 ? static_cast<std::uint64_t>(k) : 0;
    capped_requests = p.slots / per_request;
    if (max_running > 0) capped_requests = std::min(capped_requests, max_running / std::max<std::uint64_t>(dp, 1));
  }
  const auto pool = checked_mul(p.slots + 1, slot, "state pool");
  const auto intermediate =
      draft_tokens > 0 ? checked_mul(checked_mul(capped_requests + 1, slot, "state pool"), draft_tokens, "state pool")
                       : 0;
  p.bytes = std::min(rest, checked_add(pool, intermediate, "state pool"));
  return p;
}

}  // namespace

SglangTokenPool sglang_token_pool(std::uint64_t available, std::uint64_t full_bytes_per_token,
                                  std::uint64_t swa_bytes_per_token, double swa_ratio, std::uint64_t page) {
  SglangTokenPool p;
  page = std::max<std::uint64_t>(page, 1);
  if (full_bytes_per_token == 0 && swa_bytes_per_token == 0) {
    // No attention layer (a pure state-space model): the token pool costs nothing per token.
    p.full_tokens = available / page * page;
    p.max_total_tokens = p.full_tokens;
    return p;
  }
  if (full_bytes_per_token == 0) {
    // All-SWA: one pool of sliding layers at full size, the ratio ignored.
    p.swa_tokens = available / swa_bytes_per_token / page * page;
    p.max_total_tokens = p.swa_tokens;
    return p;
  }
  if (swa_bytes_per_token == 0) {
    p.full_tokens = available / full_bytes_per_token / page * page;
    p.max_total_tokens = p.full_tokens;
    return p;
  }
  // HybridSWA: cell = full + ratio x swa bytes per token; the SWA pool holds ratio x the full tokens.
  const double cell = static_cast<double>(full_bytes_per_token) + swa_ratio * static_cast<double>(swa_bytes_per_token);
  const auto full = static_cast<std::uint64_t>(std::floor(static_cast<double>(available) / cell));
  p.full_tokens = full / page * page;
  p.swa_tokens = static_cast<std::uint64_t>(static_cast<double>(p.full_tokens) * swa_ratio) / page * page;
  p.max_total_tokens = p.full_tokens;
  return p;
}

// SGLang's MLA (deepseek_v2.py DeepseekV2ForCausalLM.post_load_weights, v0.5.4
// and since) keeps kv_b_proj for the prefill path and adds w_kc and w_vc for the
// absorbed decode path: BF16 copies of it (dequantized from FP8 block scales
// unless SGL_USE_DEEPGEMM_BMM is set; `.contiguous()` copies a BF16 one too),
// heads / attention TP on each rank. Bytes for the worker's MLA layers.
std::uint64_t mla_absorbed_copies(const ModelSpec& m, std::uint64_t attention_tp, LayerRange layers) {
  if (m.mla.kv_lora_rank == 0 || m.mla.heads == 0) return 0;
  const auto heads = ceil_div(m.mla.heads, std::max<std::uint64_t>(attention_tp, 1));
  const auto per_layer = checked_mul(checked_mul(heads, m.mla.qk_nope_head_dim + m.mla.v_head_dim), m.mla.kv_lora_rank);
  return checked_mul(checked_mul(per_layer, 2), layers.count_kind(m, LayerKind::mla), "MLA absorbed weights");
}

namespace {

// The per-call constants every worker's pools are sized with.
struct SglangShared {
  std::uint64_t total = 0, pre_load = 0, static_bytes = 0, mm_reserve = 0;
  std::uint64_t kv_bytes = 0, state_bytes = 0, context = 0, slots_per_request = 0;
  double ratio = 0;
  const SglangDsaEra* dsa_era = nullptr;
};

// One worker: the weights it loads, the rest of its static share, the state pool
// and the token pools carved from it.
struct SglangWorker {
  EngineWorker ew;
  std::int64_t rest = 0;                   // static share - weights
  std::uint64_t tokens = 0;                // max_total_num_tokens
  std::uint64_t cell = 0;                  // bytes per token as the pools hold them
  std::uint64_t budget_bytes = 0;          // bytes per token the budget divides by, when it differs from the pools'
  std::uint64_t state_slots = UINT64_MAX;  // UINT64_MAX without state layers
  std::uint64_t absorbed = 0;              // MLA's w_kc / w_vc copies
  std::string cell_formula;
};

SglangWorker size_worker(const EngineInputs& in, const EngineSizing& s, const SglangShared& sh,
                         const EngineWorkerInput& w) {
  const auto& prof = engine_profiles().sglang;
  const auto& m = *in.model;
  const auto& layout = *in.layout;
  const auto& work = *in.workload;
  const auto& o = in.options;
  const auto total = sh.total;
  const auto pre_load = sh.pre_load;
  const auto static_bytes = sh.static_bytes;
  const auto mm_reserve = sh.mm_reserve;
  const auto kv_bytes = sh.kv_bytes;
  const auto state_bytes = sh.state_bytes;
  const auto context = sh.context;
  const auto slots_per_request = sh.slots_per_request;
  const auto ratio = sh.ratio;
  const auto* dsa_era = sh.dsa_era;
  SglangWorker r;
  auto& ew = r.ew;
  ew.rank = w.rank;
  ew.stage = w.stage;
  // A tied LM head and MTP layers (loaded only to draft with them) are not loaded.
  const auto tied = m.tied_embeddings ? std::min(w.placed_weights, w.lm_head_bytes) : 0;
  ew.weights_bytes = w.placed_weights - tied - std::min(w.mtp_skipped, w.placed_weights - tied);
  const auto absorbed = mla_absorbed_copies(m, layout.tp, w.layers);
  ew.weights_bytes = checked_add(ew.weights_bytes, absorbed);
  r.absorbed = absorbed;
  ew.requested_bytes = static_bytes;
  ew.non_torch_bytes = total - pre_load;  // CUDA context and distributed set-up before the snapshot
  const auto rest = static_cast<std::int64_t>(static_bytes) - static_cast<std::int64_t>(ew.weights_bytes);
  ew.kv_budget_bytes = rest;
  std::uint64_t remaining = rest > 0 ? static_cast<std::uint64_t>(rest) : 0;

  // Multimodal models: the embedding cache and feature-transport pools are
  // reserved out of the rest (mm_runtime_reservation_gb).
  remaining -= std::min(remaining, mm_reserve);

  const auto c = stage_cache(m, layout.tp, kv_bytes, state_bytes, w.layers);
  if (c.state_total > 0) {
    const auto pool = sglang_state_pool(remaining, c.state_total, ratio, slots_per_request, work.spec_tokens,
                                        o.radix_cache == "off", o.max_num_seqs, layout.dp);
    ew.state_pool_bytes = pool.bytes;
    remaining -= ew.state_pool_bytes;
    // A running request holds its slots plus, with speculative decoding, an
    // intermediate state per draft token (MambaPool's speculative caches).
    ew.state_request_bytes = checked_mul(slots_per_request + work.spec_tokens, c.state_total, "state slot");
    r.state_slots = pool.slots;
  }
  // Bytes per token of the full pool (full attention, chunked and MLA layers) and of the
  // SWA pool (sliding layers), sized together by sglang_token_pool. `full_bytes` is
  // what the pools allocate; `budget_bytes` what the budget divides by, which for
  // DSA models counts the latents at the KV dtype's size (not fp8_ds_mla's scales
  // and BF16 rope) and, before 0.5.3.post1, leaves the indexer keys out.
  std::uint64_t full_bytes = c.full_layers * c.full_per_token + c.chunked_layers * c.chunked_per_token +
                             c.mla_layers * (c.mla_per_token + c.indexer_per_token);
  std::uint64_t budget_bytes =
      c.full_layers * c.full_per_token + c.chunked_layers * c.chunked_per_token +
      c.mla_layers *
          (c.mla_latent_rope_per_token + (dsa_era == nullptr || dsa_era->indexer_in_budget ? c.indexer_per_token : 0));
  const std::uint64_t swa_bytes = c.sliding_layers * c.sliding_per_token;
  if (in.draft != nullptr) {
    // The draft worker's token pool holds as many tokens as the target's.
    const auto d = stage_cache(*in.draft, in.draft_tp, kv_bytes, state_bytes, LayerRange{});
    const auto draft_bytes = d.full_layers * d.full_per_token + d.sliding_layers * d.sliding_per_token +
                             d.chunked_layers * d.chunked_per_token + d.mla_layers * d.mla_per_token;
    full_bytes += draft_bytes;
    budget_bytes += draft_bytes;
  }
  const auto pool = sglang_token_pool(remaining, budget_bytes, swa_bytes, prof.swa_full_tokens_ratio, s.block_size);
  if (budget_bytes != full_bytes) r.budget_bytes = budget_bytes;
  // Bytes per token as the pools hold them (sliding layers at the SWA ratio; all of them when no layer is full).
  std::uint64_t cell =
      full_bytes == 0
          ? swa_bytes
          : full_bytes + static_cast<std::uint64_t>(prof.swa_full_tokens_ratio * static_cast<double>(swa_bytes));
  cell = std::max<std::uint64_t>(cell, 1);
  r.cell_formula = budget_bytes != full_bytes
                       ? fmt::format("{} MLA x ({} B latent + rope{}) budget; {} MLA x ({} + {}) B allocated",
                                     c.mla_layers, c.mla_latent_rope_per_token,
                                     dsa_era != nullptr && dsa_era->indexer_in_budget
                                         ? fmt::format(" + {} B indexer", c.indexer_per_token)
                                         : "",
                                     c.mla_layers, c.mla_per_token, c.indexer_per_token)
                       : fmt::format("{} full x {} B + {} MLA x ({} + {}) B + {} x {} sliding x {} B", c.full_layers,
                                     c.full_per_token, c.mla_layers, c.mla_per_token, c.indexer_per_token,
                                     prof.swa_full_tokens_ratio, c.sliding_layers, c.sliding_per_token);
  r.tokens = pool.max_total_tokens;
  ew.kv_pool_bytes = checked_add(checked_mul(pool.full_tokens, full_bytes), checked_mul(pool.swa_tokens, swa_bytes));
  ew.kv_request_bytes = checked_mul(ceil_div(context, std::max<std::uint64_t>(layout.dcp, 1)), cell);
  for (const auto& member : work.mix)
    ew.kv_request_bytes_by_length.push_back(
        checked_mul(ceil_div(member.tokens, std::max<std::uint64_t>(layout.dcp, 1)), cell));
  r.rest = rest;
  r.cell = cell;
  return r;
}

// What size_sglang worked out on the way, for the rules and figures it reports.
struct SglangTerms {
  EngineVersion version;
  const SglangDsaEra* dsa_era = nullptr;
  bool forced_mfs;
  bool user_mfs;
  std::string mfs_formula;
  double ratio;
  std::uint64_t slots_per_request;
  std::uint64_t context;
  std::uint64_t tp_size;
  std::uint64_t nvls_ranks;
  double dist_gib;
  std::uint64_t mm_reserve;
  std::uint64_t mla_absorbed;
  std::uint64_t budget_used;
  std::uint64_t cell_used;
  std::int64_t min_rest;
  std::string cell_formula;
};

// The rules the sizing applied and the estimates it rests on, as the plan prints them.
void add_rules(EngineSizing& s, const EngineInputs& in, const SglangTerms& t) {
  const auto& prof = engine_profiles().sglang;
  const auto& m = *in.model;
  const auto& layout = *in.layout;
  const auto& o = in.options;
  s.rules.push_back(
      fmt::format("SGLang: mem_fraction_static {} of the free memory before loading ({}); rest = free after "
                  "weights - free before x (1 - mem_fraction_static) ({})",
                  s.memory_fraction,
                  t.forced_mfs ? fmt::format("forced for DSA models in SGLang {}{}", t.version.str(),
                                             o.mem_fraction_static > 0 ? ", --mem-fraction-static ignored" : "")
                  : t.user_mfs ? "--mem-fraction-static"
                               : "SGLang's default formula",
                  prof.code));
  if (s.state_slots > 0)
    s.rules.push_back(
        fmt::format("state pool: {} slots = (rest x {} / (1 + {}) - one slot) // slot, plus a padding slot; {} "
                    "slots per running request (radix cache {})",
                    s.state_slots, t.ratio, t.ratio, t.slots_per_request, o.radix_cache));
  if (t.mla_absorbed > 0)
    s.rules.push_back(
        fmt::format("MLA: w_kc and w_vc, BF16 copies of kv_b_proj for the absorbed decode path, add {} to a rank's "
                    "weights ({} heads / attention TP {} x ({} + {}) x {} x 2 B per MLA layer; deepseek_v2.py "
                    "post_load_weights)",
                    format_binary(Bytes{t.mla_absorbed}), m.mla.heads, layout.tp, m.mla.qk_nope_head_dim,
                    m.mla.v_head_dim, m.mla.kv_lora_rank));
  if (t.mm_reserve > 0)
    s.rules.push_back(
        fmt::format("multimodal model: {} MiB of the rest reserved for the embedding cache "
                    "(SGLANG_VLM_CACHE_SIZE_MB; mm_runtime_reservation_gb)",
                    prof.multimodal_reserve_mib));
  if (t.budget_used > 0)
    s.rules.push_back(
        fmt::format("max_total_num_tokens = rest // {} B per token // page {} x page; the pools then allocate "
                    "{} B per token, {} B more than the budget counted (taken from SGLang's reserve; DSA "
                    "rules of SGLang {}: {})",
                    with_commas(t.budget_used), s.block_size, with_commas(t.cell_used),
                    with_commas(t.cell_used - t.budget_used), t.version.str(),
                    t.dsa_era->indexer_in_budget ? "indexer keys counted, latents at the KV dtype's size"
                                                 : "indexer keys not counted"));
  else
    s.rules.push_back(
        fmt::format("max_total_num_tokens = rest // {} B per token // page {} x page", t.cell_used, s.block_size));
  s.estimates.push_back(
      t.tp_size > 1
          ? fmt::format("memory in use before loading: {} GiB CUDA context + distributed set-up ({} TP ranks x {} GiB "
                        "inside an NVLS switch domain + {} x {} GiB) = {:.2f} GiB",
                        prof.cuda_context_gib, t.nvls_ranks, prof.distributed_init_gib_per_tp_rank_nvls,
                        t.tp_size - t.nvls_ranks, prof.distributed_init_gib_per_tp_rank,
                        prof.cuda_context_gib + t.dist_gib)
          : fmt::format("memory in use before loading (CUDA context): {} GiB", prof.cuda_context_gib));
  s.estimates.push_back(
      "activations and CUDA graphs live in SGLang's (1 - mem_fraction_static) share: not sized separately");
}

// The figures a plan prints for the engine, each with its formula and source.
void add_figures(EngineSizing& s, const EngineInputs& in, const SglangTerms& t) {
  const auto& prof = engine_profiles().sglang;
  const auto total = in.gpu->device_total_bytes;
  const auto& heavy = *std::max_element(s.workers.begin(), s.workers.end(),
                                        [](const auto& a, const auto& b) { return a.weights_bytes < b.weights_bytes; });
  const std::string code = "SGLang rules: " + prof.code;
  auto& f = s.figures;
  f.push_back(real_figure("engine.mem_fraction_static", "mem_fraction_static", s.memory_fraction, "",
                          t.user_mfs ? Evidence::hypothesis : Evidence::derived,
                          t.user_mfs ? "--mem-fraction-static" : t.mfs_formula,
                          t.forced_mfs ? t.dsa_era->source : prof.reserved_source));
  f.push_back(bytes_figure("engine.weights_bytes_per_rank", fmt::format("weights SGLang loads on rank {}", heavy.rank),
                           heavy.weights_bytes, Evidence::estimate,
                           t.mla_absorbed > 0
                               ? "the rank's placed tensor shares (tied LM head and MTP layers not loaded) + "
                                 "MLA's w_kc / w_vc copies"
                               : "the rank's placed tensor shares (tied LM head and MTP layers not loaded)",
                           code));
  const auto rest_formula =
      fmt::format("({} B - {} GiB in use before loading) x {} - {} B weights", with_commas(total),
                  prof.cuda_context_gib + t.dist_gib, s.memory_fraction, with_commas(heavy.weights_bytes));
  if (t.min_rest >= 0)
    f.push_back(bytes_figure("engine.kv_budget_bytes", "rest after weights (KV and state pools)",
                             static_cast<std::uint64_t>(t.min_rest), Evidence::estimate, rest_formula, code));
  else
    f.push_back(bytes_figure("engine.kv_shortfall_bytes", "weights beyond the static share (no pools)",
                             static_cast<std::uint64_t>(-t.min_rest), Evidence::estimate, rest_formula, code));
  if (s.state_slots > 0)
    f.push_back(exact_figure("engine.state_slots", "state slots (max_mamba_cache_size)", s.state_slots, "slots",
                             Evidence::estimate, s.rules[1], code));
  f.push_back(exact_figure("engine.kv_cache_tokens", "max_total_num_tokens", s.kv_cache_tokens, "tokens",
                           Evidence::estimate,
                           fmt::format("rest // ({}) // page {} x page", t.cell_formula, s.block_size), code));
  f.push_back(exact_figure(
      "engine.max_running_requests", "max_running_requests", s.max_running_requests, "requests", Evidence::estimate,
      fmt::format("min(clamp({} / {} x 512, 2048, 4096), {} / 2){}", s.kv_cache_tokens, t.context, s.kv_cache_tokens,
                  s.state_slots ? fmt::format(", state slots {} / {}", s.state_slots, t.slots_per_request) : ""),
      code));
  f.push_back(real_figure(
      "engine.max_concurrency", fmt::format("requests of {} tokens the pools hold", with_commas(t.context)),
      s.max_concurrency, "requests", Evidence::estimate,
      fmt::format("min({} tokens / {}, max_running_requests {})", s.kv_cache_tokens, t.context, s.max_running_requests),
      code));
}

}  // namespace

Result<EngineSizing> size_sglang(const EngineInputs& in) {
  const auto& prof = engine_profiles().sglang;
  const auto& m = *in.model;
  const auto& layout = *in.layout;
  const auto& work = *in.workload;
  const auto& o = in.options;
  EngineSizing s;
  s.kind = EngineKind::sglang;
  s.name = "SGLang";
  const auto version = resolve_version(s, o, prof.default_version);
  s.max_model_len = work.context_tokens;
  const auto total = in.gpu->device_total_bytes;
  const double gpu_mem_mb = static_cast<double>(total) / 1048576.0;
  const auto tp_size = layout.tp * layout.dp;  // SGLang's --tp spans the stage; attention TP = tp / dp
  std::string mfs_formula;
  const bool dsa = m.mla.index_head_dim > 0 && m.count_layers(LayerKind::mla) > 0;
  // DSA models (DeepSeek-V3.2): the release decides whether the fraction is
  // forced and whether the indexer keys count in the budget (engines.json dsa_eras).
  const SglangDsaEra* dsa_era = dsa ? &prof.dsa_era(version) : nullptr;
  const bool forced_mfs = dsa_era != nullptr && dsa_era->forced_mem_fraction_static > 0;
  double default_mfs = default_mem_fraction(prof, gpu_mem_mb, tp_size, layout.pp, layout.dp, &mfs_formula);
  if (forced_mfs) {
    default_mfs = dsa_era->forced_mem_fraction_static;
    mfs_formula =
        fmt::format("{} for DSA models in SGLang {}, whatever --mem-fraction-static says", default_mfs, version.str());
  }
  const bool user_mfs = o.mem_fraction_static > 0 && !forced_mfs;
  s.memory_fraction = user_mfs ? o.mem_fraction_static : default_mfs;
  const double ratio = o.mamba_full_memory_ratio > 0 ? o.mamba_full_memory_ratio : prof.mamba_full_memory_ratio;
  const auto slots_per_request = o.radix_cache == "off"    ? prof.radix_slots_off
                                 : o.radix_cache == "lazy" ? prof.radix_slots_lazy
                                                           : prof.radix_slots_on;
  s.block_size = o.block_size > 0 ? o.block_size : dsa ? prof.dsa_page_size : prof.page_size;
  s.max_num_batched_tokens = o.max_num_batched_tokens;
  // --chunked-prefill-size's default by memory tier (server_args.py), the
  // prefill budget of a step: the latency estimate's scheduler uses it.
  s.chunked_prefill_size =
      o.max_num_batched_tokens > 0 ? o.max_num_batched_tokens : tier_for(prof, gpu_mem_mb).chunked_prefill_size;
  const auto kv_bytes = kv_dtype_bytes(work.kv_dtype);
  const auto state_bytes = state_dtype_bytes(work.state_dtype);
  const auto context = std::max<std::uint64_t>(work.context_tokens, 1);

  // Free memory when SGLang takes its snapshot, after init_torch_distributed:
  // the CUDA context, and with TP > 1 what NCCL and the all-reduce set up
  // (more on NVLS switch systems, whose communicators hold NVLink SHARP buffers).
  // The NVLS rate holds for the TP ranks inside one NVLS switch domain, the plain rate beyond it.
  const auto nvls_ranks = std::min<std::uint64_t>(tp_size, in.gpu->nvls_domain);
  const double dist_gib = tp_size > 1
                              ? static_cast<double>(nvls_ranks) * prof.distributed_init_gib_per_tp_rank_nvls +
                                    static_cast<double>(tp_size - nvls_ranks) * prof.distributed_init_gib_per_tp_rank
                              : 0.0;
  const auto in_use_before = gib_bytes(prof.cuda_context_gib + dist_gib);
  const auto pre_load = total - std::min(total, in_use_before);
  const bool multimodal =
      std::any_of(m.manifest.tensors.begin(), m.manifest.tensors.end(), [](const auto& t) { return !t.text; });
  const std::uint64_t mm_reserve = multimodal ? mib_bytes(prof.multimodal_reserve_mib) : 0;
  const auto static_bytes = static_cast<std::uint64_t>(static_cast<double>(pre_load) * s.memory_fraction);
  std::uint64_t min_tokens = UINT64_MAX;
  std::uint64_t min_state_slots = UINT64_MAX;
  std::int64_t min_rest = INT64_MAX;
  std::uint64_t mla_absorbed = 0;  // the largest worker's w_kc / w_vc copies
  std::uint64_t cell_used = 0;
  std::uint64_t budget_used = 0;  // set when the budget's bytes per token differ from the allocation's
  std::string cell_formula;

  const SglangShared shared{total,       pre_load, static_bytes,      mm_reserve, kv_bytes,
                            state_bytes, context,  slots_per_request, ratio,      dsa_era};
  for (const auto& w : in.workers) {
    auto r = size_worker(in, s, shared, w);
    mla_absorbed = std::max(mla_absorbed, r.absorbed);
    min_state_slots = std::min(min_state_slots, r.state_slots);
    if (r.budget_bytes > 0) budget_used = r.budget_bytes;
    if (cell_formula.empty()) cell_formula = r.cell_formula;
    if (r.tokens < min_tokens) {
      min_tokens = r.tokens;
      cell_used = r.cell;
    }
    min_rest = std::min(min_rest, r.rest);
    s.workers.push_back(std::move(r.ew));
  }
  s.min_kv_budget_bytes = min_rest > 0 ? static_cast<std::uint64_t>(min_rest) : 0;
  s.kv_cache_tokens = min_tokens == UINT64_MAX ? 0 : checked_mul(min_tokens, std::max<std::uint64_t>(layout.dcp, 1));
  s.kv_bytes_per_token = cell_used;
  s.state_slots = min_state_slots == UINT64_MAX ? 0 : min_state_slots;
  s.state_slot_bytes = s.workers.empty() ? 0
                                         : s.workers.front().state_request_bytes /
                                               std::max<std::uint64_t>(slots_per_request + work.spec_tokens, 1);
  // max_running_requests (_resolve_max_num_reqs), capped by the state slots.
  const auto t = s.kv_cache_tokens;
  std::uint64_t mrr = std::clamp<std::uint64_t>(
      static_cast<std::uint64_t>(static_cast<double>(t) / static_cast<double>(context) * 512.0), 2048, 4096);
  mrr = std::min(mrr, t / 2);
  if (o.max_num_seqs > 0) mrr = std::min(o.max_num_seqs, t / 2);  // --max-running-requests, at most half the tokens
  if (s.state_slots > 0 || (min_state_slots != UINT64_MAX)) mrr = std::min(mrr, s.state_slots / slots_per_request);
  s.max_running_requests = mrr;
  s.max_num_seqs = mrr;
  s.max_concurrency = std::min(static_cast<double>(t) / static_cast<double>(context), static_cast<double>(mrr));
  s.holds_one_request = t >= context && (min_state_slots == UINT64_MAX || s.state_slots >= slots_per_request);
  if (min_rest <= 0)
    s.failure =
        "loaded weights leave no GPU memory for the KV cache (SGLang: 'Loaded weights leave no GPU memory "
        "for the KV cache'); raise --mem-fraction-static or add GPUs";
  else if (t < context)
    s.failure = fmt::format(
        "the token pool ({} tokens) is smaller than one {}-token request; SGLang caps requests at "
        "max_total_num_tokens",
        with_commas(t), with_commas(context));

  const SglangTerms terms{version,           dsa_era,     forced_mfs, user_mfs,   mfs_formula, ratio,
                          slots_per_request, context,     tp_size,    nvls_ranks, dist_gib,    mm_reserve,
                          mla_absorbed,      budget_used, cell_used,  min_rest,   cell_formula};
  add_rules(s, in, terms);
  if (in.with_figures && !s.workers.empty()) add_figures(s, in, terms);
  return s;
}

Result<EngineSizing> size_engine(const EngineInputs& in) {
  switch (in.options.kind) {
    case EngineKind::vllm:
      return size_vllm(in);
    case EngineKind::sglang:
      return size_sglang(in);
    case EngineKind::generic:
      break;
  }
  return Error{"--engine", "", "the generic engine has no engine sizing"};
}

}  // namespace preflight
