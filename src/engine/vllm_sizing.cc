// vLLM's start-up memory sizing (V1 engine; V0 rules before 0.8).
//
// Budget per worker (vllm/v1/worker/gpu_worker.py determine_available_memory):
//   requested = total x gpu_memory_utilization
//   available = requested - (weights + torch peak of the profile run
//               + non-torch increase [+ CUDA graphs from 0.21])
// then the KV cache layout of vllm_kv_cache.cc over the minimum of the
// workers' available bytes (kv_cache_utils.get_kv_cache_configs).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/bytes.h"
#include "engine/engine_common.h"
#include "engine/engine_profile.h"
#include "engine/size_engine.h"
#include "engine/vllm_kv_cache.h"
#include "hardware/gpu_links.h"

namespace preflight {

using namespace engine_detail;

namespace {

bool is_down_projection(const std::string& name) {
  return name.find("down") != std::string::npos || name.find(".w2.") != std::string::npos;
}

// Bytes the MXFP4 MoE kernel's padding adds over the whole model (gpt-oss on
// Hopper: Marlin pads the intermediate size to 128 and hidden to 256).
std::uint64_t mxfp4_padding_bytes(const ModelSpec& m, const Mxfp4Padding& pad, std::uint64_t moe_tp) {
  const auto H = m.moe.latent_dim > 0 ? m.moe.latent_dim : m.hidden_size;
  const auto I = m.moe.moe_intermediate;
  if (H == 0 || I == 0) return 0;
  // The intermediate size is padded per MoE-TP partition (intermediate_size_per_partition).
  const auto parts = std::max<std::uint64_t>(moe_tp, 1);
  const auto Hp = round_up(H, pad.hidden_multiple),
             Ip = round_up(ceil_div(I, parts), pad.intermediate_multiple) * parts;
  if (Hp == H && Ip == I) return 0;
  bool any_mxfp4 = false;
  for (const auto& t : m.manifest.tensors)
    any_mxfp4 |= t.role == ParallelRole::expert && t.format == StorageFormat::mxfp4_packed;
  if (!any_mxfp4) return 0;
  std::uint64_t extra = 0;
  for (const auto& t : m.manifest.tensors) {
    if (t.role != ParallelRole::expert) continue;
    const bool down = is_down_projection(t.name);
    const bool bias = t.name.find("bias") != std::string::npos;
    // Scale factor of the padded over the original element count.
    const auto d = [](std::uint64_t v) { return static_cast<double>(v); };
    double factor = 1;
    if (bias)
      factor = down ? d(Hp) / d(H) : d(Ip) / d(I);
    else
      factor = d(Hp) * d(Ip) / (d(H) * d(I));
    const auto padded = static_cast<std::uint64_t>(std::llround(static_cast<double>(t.bytes()) * factor));
    if (padded > t.bytes()) extra += padded - t.bytes();
  }
  return extra;
}

// The Triton fused-MoE experts' two workspaces (vllm TritonExperts.workspace_shapes):
// workspace13 = (M, topk, max(I, K)) and workspace2 = (M, topk, max(2I, K)) in the
// activation dtype, each rounded up to 256 B by WorkspaceManager.get_simultaneous;
// I is the intermediate size per MoE-TP rank, K the width the experts work at.
std::uint64_t fused_moe_workspace_bytes(std::uint64_t tokens, std::uint64_t topk, std::uint64_t inter,
                                        std::uint64_t width, std::uint64_t dtype_bytes) {
  const auto rows = checked_mul(tokens, topk);
  const auto w13 = round_up(checked_mul(checked_mul(rows, std::max(inter, width)), dtype_bytes), 256);
  const auto w2 = round_up(checked_mul(checked_mul(rows, std::max(2 * inter, width)), dtype_bytes), 256);
  return checked_add(w13, w2);
}

// The memory fraction and the scheduler's limits in force: the user's, else the
// release's defaults by GPU size (vllm/engine/arg_utils.py; V0 256 sequences, and
// without chunked prefill a step holds a whole max_model_len prompt).
void set_scheduler_limits(EngineSizing& s, const VllmProfile& prof, const VllmEra& era, const EngineOptions& o,
                          bool large_gpu, std::uint64_t context_tokens) {
  const bool v0 = era.engine == "v0";
  s.memory_fraction = o.gpu_memory_utilization > 0 ? o.gpu_memory_utilization : prof.gpu_memory_utilization;
  s.max_model_len = context_tokens;
  s.max_num_seqs = o.max_num_seqs > 0 ? o.max_num_seqs
                                      : (v0          ? 256
                                         : large_gpu ? prof.max_num_seqs_large_gpu
                                                     : prof.max_num_seqs_small_gpu);
  if (o.max_num_batched_tokens > 0)
    s.max_num_batched_tokens = o.max_num_batched_tokens;
  else if (!era.chunked_prefill_default)
    s.max_num_batched_tokens = std::max<std::uint64_t>(s.max_model_len, 2048);
  else
    s.max_num_batched_tokens =
        large_gpu ? prof.max_num_batched_tokens_large_gpu : prof.max_num_batched_tokens_small_gpu;
}

// What the profile run's forward pass peaks at on one worker, beyond the weights:
// the MLP (or fused-MoE) intermediates of max_num_batched_tokens tokens, the
// sampler's logits on the last stage, and a multimodal model's dummy encoder batch.
struct ProfileActivation {
  std::uint64_t peak = 0;
  std::uint64_t forward = 0, moe_workspace = 0, sampler = 0;
  std::string encoder_formula;  // "" without a stated encoder
};

ProfileActivation profile_activation(const ModelSpec& m, const Layout& layout, const EngineWorkerInput& w,
                                     const VllmProfile& prof, const VllmEra& era, std::uint64_t T,
                                     std::uint64_t seqs_in_profile, bool persistent_moe_workspace) {
  ProfileActivation a;
  const auto dt = model_dtype_bytes(m);
  const auto H = m.hidden_size;
  std::uint64_t& forward = a.forward;
  if (m.moe.dense_intermediate > 0) {
    const auto inter = ceil_div(m.moe.dense_intermediate, layout.tp);
    forward = std::max(forward, checked_mul(checked_mul(T, dt),
                                            prof.mlp_intermediate_copies * inter + prof.hidden_buffers_in_layer * H));
  }
  std::uint64_t& moe_workspace = a.moe_workspace;
  if (m.moe.routed_experts > 0 && m.moe.moe_intermediate > 0) {
    const auto inter = ceil_div(m.moe.moe_intermediate, layout.moe_tp);
    const auto width = m.moe.latent_dim > 0 ? m.moe.latent_dim : H;
    if (persistent_moe_workspace) {
      // Held by WorkspaceManager from the first MoE layer on (engines.json
      // activation.sources.moe_workspace): the rest of the layer is the
      // hidden-size buffers.
      moe_workspace = fused_moe_workspace_bytes(std::min(T, prof.fused_moe_chunk_tokens), m.moe.experts_per_token,
                                                inter, width, dt);
      forward = std::max(forward, checked_mul(checked_mul(T, dt), prof.hidden_buffers_in_layer * H));
    } else {
      const auto moe = checked_add(checked_mul(checked_mul(checked_mul(T, m.moe.experts_per_token), dt),
                                               prof.mlp_intermediate_copies * inter + width),
                                   checked_mul(checked_mul(T, dt), prof.hidden_buffers_in_layer * H));
      forward = std::max(forward, moe);
    }
  }
  std::uint64_t& sampler = a.sampler;
  // A pooling runner pools the hidden states instead of sampling (model/pooling_runner.h).
  if (w.last_stage && !m.pooling_runner) {
    sampler = static_cast<std::uint64_t>(static_cast<double>(seqs_in_profile) * static_cast<double>(m.vocab_size) *
                                         era.sampler_bytes_per_logit) +
              checked_mul(checked_mul(T, H), dt * prof.hidden_buffers_during_sampling);
  }
  a.peak = checked_add(moe_workspace, std::max(forward, sampler));
  // Multimodal models: profile_run first encodes a batch of maximum-size dummy items
  // (encoder budget = max(max_num_batched_tokens, tokens per item); items = budget //
  // tokens per item, at least 1) and keeps their outputs ("Cache the dummy encoder
  // outputs") through the language model's dummy run (vllm/v1/worker/gpu_model_runner.py
  // profile_run; encoder_cache_manager.py compute_encoder_budget). The encoder's peak is
  // estimated as the language model's is: patches x (copies x intermediate per TP rank +
  // hidden buffers x width) x dtype.
  if (m.mm.patches_per_item > 0 && m.mm.tokens_per_item > 0 && m.mm.encoder_hidden > 0) {
    const auto budget = std::max<std::uint64_t>(T, m.mm.tokens_per_item);
    const auto items = std::max<std::uint64_t>(1, budget / m.mm.tokens_per_item);
    const auto patches = checked_mul(items, m.mm.patches_per_item);
    const auto encoder = checked_mul(checked_mul(patches, dt),
                                     prof.mlp_intermediate_copies * ceil_div(m.mm.encoder_intermediate, layout.tp) +
                                         prof.hidden_buffers_in_layer * m.mm.encoder_hidden);
    const auto kept = checked_mul(checked_mul(checked_mul(items, m.mm.tokens_per_item), H), dt);
    a.peak = std::max(encoder, checked_add(a.peak, kept));
    a.encoder_formula = fmt::format(
        "multimodal profile: {} dummy item(s) of {} patches / {} tokens (encoder budget {} tokens): encoder peak "
        "{} patches x {} B x ({} x {} intermediate / TP {} + {} x {} hidden) = {}; outputs kept {} tokens x {} x "
        "{} B = {}",
        items, m.mm.patches_per_item, m.mm.tokens_per_item, budget, with_commas(patches), dt,
        prof.mlp_intermediate_copies, m.mm.encoder_intermediate, layout.tp, prof.hidden_buffers_in_layer,
        m.mm.encoder_hidden, format_gib(encoder, 2), items * m.mm.tokens_per_item, H, dt, format_gib(kept, 2));
  }
  return a;
}

// The activation figure's formula, with the terms profile_activation took.
std::string profile_activation_formula(const ModelSpec& m, const Layout& layout, const VllmProfile& prof,
                                       const VllmEra& era, std::uint64_t T, std::uint64_t seqs_in_profile,
                                       const ProfileActivation& a) {
  const auto dt = model_dtype_bytes(m);
  const auto H = m.hidden_size;
  std::string f;
  if (a.moe_workspace > 0)
    f = fmt::format(
        "fused-MoE workspace kept by WorkspaceManager: {} tokens x {} experts per token x (max({}, {}) + max(2 x {}, "
        "{})) x {} B "
        "= {}, + max(forward of {} tokens: {} x {} B x ({} x intermediate per rank + {} x {} hidden), "
        "sampler (last stage): {} sequences x {} vocab x {} B + {} x {} tokens x {} x {} B) = {} + max({}, {})",
        std::min(T, prof.fused_moe_chunk_tokens), m.moe.experts_per_token,
        ceil_div(m.moe.moe_intermediate, layout.moe_tp), m.moe.latent_dim > 0 ? m.moe.latent_dim : H,
        ceil_div(m.moe.moe_intermediate, layout.moe_tp), m.moe.latent_dim > 0 ? m.moe.latent_dim : H, dt,
        format_gib(a.moe_workspace, 2), T, T, dt, prof.mlp_intermediate_copies, prof.hidden_buffers_in_layer, H,
        seqs_in_profile, m.vocab_size, era.sampler_bytes_per_logit, prof.hidden_buffers_during_sampling, T, H, dt,
        format_gib(a.moe_workspace, 2), format_gib(a.forward, 2), format_gib(a.sampler, 2));
  else
    f = fmt::format(
        "max(forward of {} tokens: {} x {} B x ({} x intermediate per rank + {} x {} hidden) [MoE: x {} experts per "
        "token], "
        "sampler (last stage): {} sequences x {} vocab x {} B + {} x {} tokens x {} x {} B) = max({}, {})",
        T, T, dt, prof.mlp_intermediate_copies, prof.hidden_buffers_in_layer, H, m.moe.experts_per_token,
        seqs_in_profile, m.vocab_size, era.sampler_bytes_per_logit, prof.hidden_buffers_during_sampling, T, H, dt,
        format_gib(a.forward, 2), format_gib(a.sampler, 2));
  if (m.pooling_runner) f += "; pooling runner: no sampler run (its term is 0)";
  return f;
}

// Non-torch memory: the CUDA context, and NCCL / custom all-reduce buffers at TP > 1.
double non_torch_gib(const VllmEra& era, const Layout& layout, const Accelerator& gpu) {
  double nt = era.non_torch_gib_tp1;
  if (layout.tp > 1) {
    // The all-reduce buffers follow the links (custom_all_reduce.py, symm_mem.py): more than two
    // GPUs without all-pairs NVLink get no custom all-reduce and no symmetric memory, leaving
    // what TP 1 holds; GPUs without an NVLink SHARP switch get no symmetric-memory buffers.
    const auto links = gpu_links(gpu);
    double tp_gib = era.non_torch_gib_tp;
    if (links == GpuLinks::pcie && layout.tp > 2)
      tp_gib = era.non_torch_gib_tp1;
    else if (links != GpuLinks::nvls)
      tp_gib = era.non_torch_gib_tp_without_nvls;
    nt = tp_gib + era.non_torch_gib_per_tp_rank * static_cast<double>(layout.tp);
  } else if (layout.pp > 1) {
    nt = era.non_torch_gib_pp_only;
  }
  return nt;
}

// The loaded-weights figure's formula: placed bytes, less what vLLM does not load,
// plus what it adds (RoPE caches, MLA's absorbed copies, MXFP4 padding).
std::string loaded_weights_formula(const ModelSpec& m, const VllmProfile& prof, const EngineWorkerInput& w,
                                   const EngineWeightAdjustment& adj, const Mxfp4Padding* pad,
                                   std::uint64_t mxfp4_extra_model) {
  return fmt::format(
      "{} B placed{}{}{}{}{}", with_commas(w.placed_weights),
      adj.tied_head_skipped ? fmt::format(" - {} B tied LM head (not loaded)", with_commas(adj.tied_head_skipped)) : "",
      adj.mtp_skipped ? fmt::format(" - {} B MTP layers (loaded only to draft with them)", with_commas(adj.mtp_skipped))
                      : "",
      adj.rope_cache
          ? fmt::format(" + {} B RoPE cache ({}{} positions x {} x {} B)", with_commas(adj.rope_cache),
                        m.rope_cache_positions,
                        m.local_rope_cache_positions ? fmt::format(" + {} local", m.local_rope_cache_positions) : "",
                        m.rotary_dim, prof.rope_cache_dtype_bytes)
          : "",
      adj.mla_absorbed
          ? fmt::format(" + {} B MLA W_UK/W_UV (BF16 copies of the quantized kv_b_proj)", with_commas(adj.mla_absorbed))
          : "",
      mxfp4_extra_model ? fmt::format(" + MXFP4 MoE padding of the {} kernel ({} B in the model)", pad->backend,
                                      with_commas(mxfp4_extra_model))
                        : "");
}

// One worker's KV cache specs as vLLM builds them (one KvLayerSpec per layer:
// full, sliding, chunked, MLA, indexer, state; a draft's attention layers too),
// the input of vllm_kv_cache_shape. Sets unified_window_layers when the release
// keeps this stage's window layers whole (unify_hybrid_kv_cache_specs).
KvCacheInputs worker_kv_inputs(const EngineInputs& in, const VllmEra& era, const EngineWorkerInput& w,
                               std::uint64_t max_model_len, std::uint64_t max_num_batched_tokens,
                               std::uint64_t requested_block, bool mla_disabled, std::uint64_t kv_bytes,
                               std::uint64_t state_bytes, std::uint64_t& unified_window_layers) {
  const auto& prof = engine_profiles().vllm;
  const auto& m = *in.model;
  const auto& layout = *in.layout;
  const auto& work = *in.workload;
  const auto c = stage_cache(m, layout.tp, kv_bytes, state_bytes, w.layers);
  KvCacheInputs kin;
  kin.block_size = requested_block;
  kin.kernel_block_multiple = c.mla_layers > 0 && !mla_disabled ? prof.mla_block_size : prof.block_size;
  kin.max_model_len = max_model_len;
  kin.max_num_batched_tokens = max_num_batched_tokens;
  kin.dcp = layout.dcp;
  // Each speculative position keeps a state block (MambaSpec.num_speculative_blocks).
  kin.spec_state_blocks = work.spec_tokens;
  const auto add = [&](KvSpecKind kind, std::uint64_t n, std::uint64_t per_token, std::uint64_t window) {
    for (std::uint64_t i = 0; i < n; ++i) kin.layers.push_back(KvLayerSpec{kind, per_token, 0, window});
  };
  // Window layers the engine keeps whole (unify_hybrid_kv_cache_specs): before the
  // hybrid KV cache manager, and where it is off (chunked local attention, 0.10.1 on).
  const bool windows = c.sliding_layers + c.chunked_layers > 0;
  const bool mixed =
      windows && (c.full_layers + c.mla_layers + c.state_layers > 0 || (c.sliding_layers > 0 && c.chunked_layers > 0));
  const bool unify = mixed && (era.hybrid_kv_manager == "none" ||
                               (era.hybrid_kv_manager == "chunked_off" && m.gqa.attention_chunk > 0));
  if (unify) unified_window_layers = c.sliding_layers + c.chunked_layers;
  add(KvSpecKind::full, c.full_layers, c.full_per_token, 0);
  add(unify ? KvSpecKind::full : KvSpecKind::sliding, c.sliding_layers, c.sliding_per_token,
      unify ? 0 : m.gqa.sliding_window);
  add(unify ? KvSpecKind::full : KvSpecKind::chunked, c.chunked_layers, c.chunked_per_token,
      unify ? 0 : m.gqa.attention_chunk);
  if (mla_disabled) {
    // DeepseekV2Attention without MLA: heads / TP heads of K and V, each
    // qk_nope + qk_rope wide (V padded to the K head size for the kernel).
    const auto heads = m.mla.heads >= layout.tp ? m.mla.heads / layout.tp : 1;
    const auto per_token = checked_mul(checked_mul(heads, 2 * (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim)),
                                       kv_bytes, "KV bytes per token");
    add(KvSpecKind::full, c.mla_layers, per_token, 0);
  } else {
    add(KvSpecKind::mla, c.mla_layers, c.mla_per_token, 0);
    add(KvSpecKind::mla, c.indexer_per_token > 0 ? c.mla_layers : 0, c.indexer_per_token, 0);
  }
  for (std::uint64_t i = 0; i < c.state_layers; ++i)
    kin.layers.push_back(KvLayerSpec{KvSpecKind::state, 0, c.state_per_layer, 0});
  if (in.draft != nullptr) {
    // The draft's attention layers get KV cache specs of their own, as the target's do.
    const auto d = stage_cache(*in.draft, in.draft_tp, kv_bytes, state_bytes, LayerRange{});
    add(KvSpecKind::full, d.full_layers, d.full_per_token, 0);
    add(KvSpecKind::sliding, d.sliding_layers, d.sliding_per_token, in.draft->gqa.sliding_window);
    add(KvSpecKind::chunked, d.chunked_layers, d.chunked_per_token, in.draft->gqa.attention_chunk);
    add(KvSpecKind::mla, d.mla_layers, d.mla_per_token, 0);
  }
  return kin;
}

// The figures a plan prints for the engine, each with its formula and source:
// loaded weights on the heaviest worker, the budget's terms on the tightest.
void add_figures(EngineSizing& s, const EngineInputs& in, const VllmEra& era, std::uint64_t requested,
                 const std::string& weights_formula, const std::string& activation_formula,
                 const KvCacheShape& limiting_shape) {
  const auto& prof = engine_profiles().vllm;
  const auto& layout = *in.layout;
  const auto total = in.gpu->device_total_bytes;
  const auto& heavy = *std::max_element(s.workers.begin(), s.workers.end(),
                                        [](const auto& a, const auto& b) { return a.weights_bytes < b.weights_bytes; });
  const auto& tight = *std::min_element(s.workers.begin(), s.workers.end(), [](const auto& a, const auto& b) {
    return a.kv_budget_bytes < b.kv_budget_bytes;
  });
  const std::string code = "vLLM " + s.version + " rules: " + prof.code;
  auto& f = s.figures;
  f.push_back(bytes_figure("engine.weights_bytes_per_rank", fmt::format("weights vLLM loads on rank {}", heavy.rank),
                           heavy.weights_bytes, Evidence::estimate, weights_formula, code));
  f.push_back(bytes_figure("engine.requested_bytes", "requested memory (total x gpu_memory_utilization)", requested,
                           Evidence::derived, fmt::format("{} B x {}", with_commas(total), s.memory_fraction), code));
  f.push_back(
      bytes_figure("engine.activation_peak_bytes", "profile-run activation peak", tight.activation_peak_bytes,
                   Evidence::estimate, activation_formula,
                   prof.sources.count("mlp_intermediate_copies") ? prof.sources.at("mlp_intermediate_copies") : code));
  f.push_back(bytes_figure(
      "engine.non_torch_bytes", "non-torch memory (NCCL, all-reduce buffers)", tight.non_torch_bytes,
      Evidence::estimate,
      fmt::format("TP {}, PP {}, {} links: era constant", layout.tp, layout.pp, gpu_links_name(gpu_links(*in.gpu))),
      era.source));
  if (tight.cuda_graph_bytes)
    f.push_back(bytes_figure("engine.cuda_graph_bytes", "CUDA graph memory (subtracted from 0.21)",
                             tight.cuda_graph_bytes, Evidence::estimate,
                             fmt::format("{} GiB planning figure", prof.cuda_graph_gib), era.source));
  const auto budget_formula =
      fmt::format("{} - {} weights - {} activations - {} non-torch - {} graphs", with_commas(requested),
                  with_commas(tight.weights_bytes), with_commas(tight.activation_peak_bytes),
                  with_commas(tight.non_torch_bytes), with_commas(tight.cuda_graph_bytes));
  if (tight.kv_budget_bytes >= 0)
    f.push_back(
        bytes_figure("engine.kv_budget_bytes", fmt::format("KV cache memory on the limiting rank {}", tight.rank),
                     static_cast<std::uint64_t>(tight.kv_budget_bytes), Evidence::estimate, budget_formula, code));
  else
    f.push_back(bytes_figure(
        "engine.kv_shortfall_bytes", fmt::format("memory missing before any KV cache on rank {}", tight.rank),
        static_cast<std::uint64_t>(-tight.kv_budget_bytes), Evidence::estimate, budget_formula, code));
  f.push_back(
      exact_figure("engine.block_size", "KV block size", s.block_size, "tokens", Evidence::derived, s.rules[1], code));
  f.push_back(exact_figure("engine.num_blocks", "KV cache blocks", s.num_blocks, "blocks", Evidence::estimate,
                           fmt::format("floor({} B / {} B per block)", with_commas(s.min_kv_budget_bytes),
                                       with_commas(limiting_shape.bytes_per_block)),
                           code));
  f.push_back(exact_figure(
      "engine.kv_cache_tokens", "GPU KV cache size (as vLLM logs it)", s.kv_cache_tokens, "tokens", Evidence::estimate,
      era.kv_tokens_from_concurrency
          ? fmt::format("{:.2f} x {}", s.max_concurrency, s.max_model_len)
          : fmt::format("{} blocks // {} groups x {} x DCP {}", s.num_blocks, s.kv_groups, s.block_size, layout.dcp),
      code));
  f.push_back(real_figure(
      "engine.max_concurrency",
      fmt::format("Maximum concurrency for {} tokens per request", with_commas(s.max_model_len)), s.max_concurrency,
      "requests", Evidence::estimate,
      fmt::format("{} blocks / {} blocks per request", s.num_blocks, limiting_shape.blocks_per_request), code));
}

// Why this release would refuse to start ("" when it starts): no memory for the
// cache, a cache too small for one max_model_len request, or (hybrid models) more
// running sequences than state blocks while capturing FULL CUDA graphs.
std::string start_failure(const EngineSizing& s, const EngineInputs& in, const EngineVersion& applied_version,
                          const KvCacheShape& limiting_shape, std::int64_t min_budget) {
  const auto& prof = engine_profiles().vllm;
  if (min_budget <= 0)
    return fmt::format(
        "no memory left for the KV cache: {} GiB after weights, activations and non-torch memory "
        "(vLLM: 'No available memory for the cache blocks')",
        fmt::format("{:.2f}", static_cast<double>(min_budget) / kGiBd));
  if (!s.holds_one_request)
    return fmt::format(
        "the KV cache cannot hold one {}-token request (vLLM refuses to start: "
        "'To serve at least one request with the model's max seq len ... is needed'); lower "
        "--context or add memory",
        with_commas(s.max_model_len));
  // Capturing FULL CUDA graphs for decode needs one state block per sequence
  // (CompilationConfig.resolve_cudagraph_mode_and_sizes). MLA models get FULL
  // graphs from FlashMLA / CUTLASS MLA (Hopper, Blackwell); elsewhere their
  // backend downgrades to PIECEWISE and the check does not run.
  const bool full_graphs =
      !in.options.enforce_eager && (in.model->count_layers(LayerKind::mla) == 0 || in.gpu->architecture == "hopper" ||
                                    in.gpu->architecture == "blackwell");
  if (limiting_shape.state_groups > 0 && full_graphs && applied_version >= prof.hybrid_seqs_check_from &&
      s.max_num_seqs > s.num_blocks)
    return fmt::format(
        "max_num_seqs ({}) exceeds available Mamba cache blocks ({}): vLLM {} refuses to start a "
        "hybrid model whose running sequences cannot each hold a state block while capturing CUDA "
        "graphs; lower --max-num-seqs to at most {}, raise --gpu-memory-utilization, or use "
        "--enforce-eager (vllm/config/compilation.py resolve_cudagraph_mode_and_sizes, from {})",
        s.max_num_seqs, s.num_blocks, s.version, s.num_blocks, prof.hybrid_seqs_check_from.str());
  return "";
}

// The rules the sizing applied, and the estimates it rests on, as the plan prints them.
void add_rules(EngineSizing& s, const VllmEra& era, bool mla_disabled, const KvCacheShape& limiting_shape,
               std::uint64_t unified_window_layers, const std::string& encoder_formula) {
  const auto& prof = engine_profiles().vllm;
  s.rules.push_back(fmt::format(
      "vLLM {} ({} engine): budget = device total x gpu_memory_utilization {} - weights - "
      "profile-run activation peak - non-torch memory{} ({})",
      s.version, era.engine, s.memory_fraction, era.cuda_graph_subtracted ? " - CUDA graphs" : "", prof.code));
  if (mla_disabled)
    s.rules.push_back(
        fmt::format("vLLM {} on ROCm has no V1 MLA backend (MLA from {}: {}): the model serves with MLA "
                    "disabled, K and V of every head cached, V padded to the K head size",
                    s.version, prof.rocm_v1_mla_from.str(),
                    prof.sources.count("rocm_v1_mla_from") ? prof.sources.at("rocm_v1_mla_from")
                                                           : std::string("data/engines.json")));
  s.rules.push_back(fmt::format(
      "KV blocks of {} tokens{}; {} KV cache group(s) of {} layers; blocks = min over workers", s.block_size,
      limiting_shape.state_groups
          ? fmt::format(" (raised until one attention page holds one {} B state page, padded to {} B)",
                        with_commas(limiting_shape.state_page_unpadded), with_commas(limiting_shape.page_bytes))
          : "",
      s.kv_groups, limiting_shape.group_size));
  if (unified_window_layers > 0)
    s.rules.push_back(fmt::format(
        "hybrid KV cache manager {}: the {} sliding-window / chunked-local layers of a stage keep max_model_len "
        "tokens like full attention (kv_cache_utils.unify_hybrid_kv_cache_specs)",
        era.hybrid_kv_manager == "none" ? "not in this version (it came in 0.10.0)"
                                        : "off for chunked local attention from 0.10.1 (vLLM PR #21761; "
                                          "VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1 turns it on)",
        unified_window_layers));
  s.rules.push_back(era.kv_tokens_from_concurrency
                        ? "GPU KV cache size = max_concurrency x max_model_len (newer vLLM reporting)"
                        : "GPU KV cache size = num_blocks // groups x block_size x DCP; Maximum concurrency = "
                          "num_blocks / blocks per max_model_len request");
  s.estimates.push_back("activation peak of the profile run (sampler and forward model, " + era.source + ")");
  s.estimates.push_back("non-torch memory (" + era.source + ")");
  if (!encoder_formula.empty()) s.estimates.push_back(encoder_formula);
  if (era.cuda_graph_subtracted) s.estimates.push_back(fmt::format("CUDA graph memory {} GiB", prof.cuda_graph_gib));
}

// What one request holds on this worker: its token blocks at max_model_len (and
// at each length of a request mix) and its state blocks, at the group's page size.
void set_request_bytes(EngineWorker& ew, const KvCacheShape& shape, const KvCacheInputs& kin,
                       const WorkloadOptions& work) {
  const auto token_blocks = shape.blocks_per_request - shape.state_blocks_per_request;
  const auto per_group_block = shape.uniform ? shape.bytes_per_block : checked_mul(shape.page_bytes, shape.group_size);
  ew.kv_request_bytes = checked_mul(token_blocks, per_group_block);
  for (const auto& member : work.mix) {
    // The same layout for a shorter request: only the blocks per request change.
    auto at = kin;
    at.max_model_len = member.tokens;
    const auto member_shape = vllm_kv_cache_shape(at);
    ew.kv_request_bytes_by_length.push_back(
        checked_mul(member_shape.blocks_per_request - member_shape.state_blocks_per_request, per_group_block));
  }
  ew.state_request_bytes = checked_mul(shape.state_blocks_per_request, per_group_block);
}

// The cache as the limiting worker reports it: blocks, tokens, concurrency, and
// whether one max_model_len request fits.
void set_cache_figures(EngineSizing& s, const KvCacheShape& limiting_shape, const KvCacheReport& report) {
  s.block_size = limiting_shape.block_size;
  s.page_bytes = limiting_shape.page_bytes;
  s.kv_groups = limiting_shape.groups;
  s.num_blocks = report.num_blocks;
  s.kv_cache_tokens = report.kv_cache_tokens;
  s.max_concurrency = report.max_concurrency;
  s.holds_one_request = limiting_shape.blocks_per_request > 0 && report.num_blocks >= limiting_shape.blocks_per_request;
  s.kv_bytes_per_token = limiting_shape.uniform && limiting_shape.block_size
                             ? limiting_shape.bytes_per_block / limiting_shape.block_size
                             : 0;
  s.state_slot_bytes = limiting_shape.state_groups ? checked_mul(limiting_shape.page_bytes, limiting_shape.group_size) *
                                                         limiting_shape.state_groups
                                                   : 0;
}

}  // namespace

EngineWeightAdjustment vllm_weight_adjustment(const ModelSpec& m, const Layout& layout, const EngineWorkerInput& w,
                                              std::uint64_t rope_dtype_bytes) {
  EngineWeightAdjustment a;
  // One cos/sin cache per distinct RoPE, [positions, rotary_dim] in the model dtype.
  const bool has_attention =
      (w.layers.count_kind(m, LayerKind::full_attention) + w.layers.count_kind(m, LayerKind::sliding_attention) +
       w.layers.count_kind(m, LayerKind::chunked_attention) + w.layers.count_kind(m, LayerKind::mla)) > 0;
  if (has_attention && m.rotary_dim > 0)
    a.rope_cache = checked_mul(checked_mul(m.rope_cache_positions, m.rotary_dim), rope_dtype_bytes);
  if (m.local_rope_cache_positions > 0 && m.rotary_dim > 0 && w.layers.count_kind(m, LayerKind::sliding_attention) > 0)
    a.rope_cache = checked_add(a.rope_cache,
                               checked_mul(checked_mul(m.local_rope_cache_positions, m.rotary_dim), rope_dtype_bytes));
  // MLA: W_UK_T / W_UV are views of a BF16 kv_b_proj, new BF16 tensors when it is quantized.
  const auto mla_layers = w.layers.count_kind(m, LayerKind::mla);
  if (mla_layers > 0) {
    bool quantized_kv_b = false;
    for (const auto& t : m.manifest.tensors)
      if (t.name.find("kv_b_proj") != std::string::npos && t.format != StorageFormat::plain) quantized_kv_b = true;
    if (quantized_kv_b) {
      const auto heads = m.mla.heads / std::max<std::uint64_t>(layout.tp, 1);
      a.mla_absorbed = checked_mul(checked_mul(mla_layers, heads),
                                   checked_mul((m.mla.qk_nope_head_dim + m.mla.v_head_dim) * m.mla.kv_lora_rank, 2));
    }
  }
  if (m.tied_embeddings) a.tied_head_skipped = w.lm_head_bytes;
  a.mtp_skipped = std::min(w.mtp_skipped, w.placed_weights - std::min(w.placed_weights, a.tied_head_skipped));
  return a;
}

Result<EngineSizing> size_vllm(const EngineInputs& in) {
  const auto& prof = engine_profiles().vllm;
  const auto& m = *in.model;
  const auto& layout = *in.layout;
  const auto& work = *in.workload;
  const auto& o = in.options;
  EngineSizing s;
  s.kind = EngineKind::vllm;
  s.name = "vLLM";
  const auto applied_version = resolve_version(s, o, prof.default_version);
  const auto& era = prof.era(applied_version);
  const bool v0 = era.engine == "v0";
  const auto total = in.gpu->device_total_bytes;
  const bool large_gpu = static_cast<double>(total) >= prof.large_gpu_min_gib * kGiBd &&
                         in.gpu->architecture != "ampere";  // A100 keeps the small defaults (vLLM PR #17885)
  set_scheduler_limits(s, prof, era, o, large_gpu, work.context_tokens);
  const auto seqs_in_profile = std::min(s.max_num_seqs, s.max_num_batched_tokens);
  // V1 on ROCm had no MLA backend before prof.rocm_v1_mla_from: such a model
  // serves with MLA disabled (VLLM_MLA_DISABLE=1), every head's K and V cached.
  const bool mla_disabled = m.count_layers(LayerKind::mla) > 0 && !v0 && in.gpu->architecture.starts_with("cdna") &&
                            applied_version < prof.rocm_v1_mla_from;
  const bool has_mla = m.count_layers(LayerKind::mla) > 0 && !mla_disabled;
  s.mla_disabled = mla_disabled;
  const auto requested_block = o.block_size > 0 ? o.block_size : (has_mla ? prof.mla_block_size : prof.block_size);

  const auto kv_bytes = kv_dtype_bytes(work.kv_dtype);
  // vLLM keeps Mamba-like state in FP32 by default and has no knob to lower it for KDA.
  const auto state_bytes = state_dtype_bytes(work.state_dtype);
  const auto requested = static_cast<std::uint64_t>(static_cast<double>(total) * s.memory_fraction);

  const auto* pad = [&]() -> const Mxfp4Padding* {
    auto it = prof.mxfp4_padding.find(in.gpu->architecture);
    return it == prof.mxfp4_padding.end() ? nullptr : &it->second;
  }();
  const auto mxfp4_extra_model = pad ? mxfp4_padding_bytes(m, *pad, layout.moe_tp) : 0;
  std::uint64_t routed_total = 0;
  bool mxfp4_experts = false;
  for (const auto& t : m.manifest.tensors)
    if (t.role == ParallelRole::expert) {
      routed_total = checked_add(routed_total, t.bytes());
      mxfp4_experts |= t.format == StorageFormat::mxfp4_packed;
    }
  // MXFP4 experts run a monolithic kernel that does not take the shared workspace.
  const bool persistent_moe_workspace = era.moe_workspace == "persistent" && !mxfp4_experts;

  std::uint64_t min_blocks = UINT64_MAX;
  std::uint64_t unified_window_layers = 0;
  std::string encoder_formula;  // the multimodal profile's estimate, when the model states its encoder  // window
                                // layers kept whole on a stage (hybrid manager off or absent)
  KvCacheShape limiting_shape;
  KvCacheInputs limiting_inputs;
  std::int64_t min_budget = INT64_MAX;
  std::string activation_formula, weights_formula;

  for (const auto& w : in.workers) {
    EngineWorker ew;
    ew.rank = w.rank;
    ew.stage = w.stage;
    const auto adj = vllm_weight_adjustment(m, layout, w, prof.rope_cache_dtype_bytes);
    ew.weights_bytes = adj.total(w.placed_weights);
    // MXFP4 padding, shared in proportion to the worker's expert bytes.
    if (mxfp4_extra_model > 0 && routed_total > 0)
      ew.weights_bytes =
          checked_add(ew.weights_bytes, static_cast<std::uint64_t>(static_cast<double>(mxfp4_extra_model) *
                                                                   static_cast<double>(w.expert_bytes) /
                                                                   static_cast<double>(routed_total)));
    // Activation peak of the profile run (an estimate of what vLLM measures).
    const auto T = s.max_num_batched_tokens;
    const auto act = profile_activation(m, layout, w, prof, era, T, seqs_in_profile, persistent_moe_workspace);
    ew.activation_peak_bytes = act.peak;
    if (encoder_formula.empty()) encoder_formula = act.encoder_formula;
    if (activation_formula.empty())
      activation_formula = profile_activation_formula(m, layout, prof, era, T, seqs_in_profile, act);
    ew.non_torch_bytes = gib_bytes(non_torch_gib(era, layout, *in.gpu));
    if (era.cuda_graph_subtracted && !o.enforce_eager) ew.cuda_graph_bytes = gib_bytes(prof.cuda_graph_gib);
    ew.requested_bytes = requested;
    const auto used = checked_add(checked_add(ew.weights_bytes, ew.activation_peak_bytes),
                                  checked_add(ew.non_torch_bytes, ew.cuda_graph_bytes));
    ew.kv_budget_bytes = static_cast<std::int64_t>(requested) - static_cast<std::int64_t>(used);
    if (weights_formula.empty()) weights_formula = loaded_weights_formula(m, prof, w, adj, pad, mxfp4_extra_model);

    // The stage's KV cache layout.
    const auto kin = worker_kv_inputs(in, era, w, s.max_model_len, s.max_num_batched_tokens, requested_block,
                                      mla_disabled, kv_bytes, state_bytes, unified_window_layers);
    const auto shape = vllm_kv_cache_shape(kin);
    set_request_bytes(ew, shape, kin, work);
    const auto avail = ew.kv_budget_bytes > 0 ? static_cast<std::uint64_t>(ew.kv_budget_bytes) : 0;
    const auto blocks = shape.bytes_per_block ? avail / shape.bytes_per_block : 0;
    if (blocks < min_blocks) {
      min_blocks = blocks;
      limiting_shape = shape;
      limiting_inputs = kin;
    }
    min_budget = std::min(min_budget, ew.kv_budget_bytes);
    s.workers.push_back(ew);
  }
  s.min_kv_budget_bytes = min_budget > 0 ? static_cast<std::uint64_t>(min_budget) : 0;
  const auto report = vllm_kv_cache_report(
      limiting_shape, checked_mul(min_blocks == UINT64_MAX ? 0 : min_blocks, limiting_shape.bytes_per_block),
      limiting_inputs, era.kv_tokens_from_concurrency);
  set_cache_figures(s, limiting_shape, report);
  s.failure = start_failure(s, in, applied_version, limiting_shape, min_budget);

  add_rules(s, era, mla_disabled, limiting_shape, unified_window_layers, encoder_formula);

  if (in.with_figures && !s.workers.empty())
    add_figures(s, in, era, requested, weights_formula, activation_formula, limiting_shape);
  return s;
}

}  // namespace preflight
