// Engine profiles (data/engines.json): the defaults and measured constants of
// vLLM and SGLang that the sizing rules need, each with its source. The rules
// themselves are code (vllm_sizing.cc, sglang_sizing.cc) that cites the engine
// file it follows; the numbers are data.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/result.h"
#include "engine/engine_version.h"

namespace preflight {

struct VllmEra {
  EngineVersion from;
  std::string engine;  // "v0" | "v1"
  double non_torch_gib_tp1 = 0;
  double non_torch_gib_tp = 0;
  double non_torch_gib_pp_only = 0;
  double non_torch_gib_per_tp_rank = 0;
  // TP >= 2 on GPUs without an NVLink SHARP switch (nvls_domain 0): no
  // symmetric-memory all-reduce buffers; < 0: the same as non_torch_gib_tp.
  double non_torch_gib_tp_without_nvls = -1;
  bool cuda_graph_subtracted = false;
  bool chunked_prefill_default = true;
  double sampler_bytes_per_logit = 14;      // profile run's dummy sampler, per (sequence x vocab) logit
  bool kv_tokens_from_concurrency = false;  // "GPU KV cache size" = max_concurrency x max_model_len
  // The hybrid KV cache manager: "none" (window layers of a mixed model unified
  // into full attention), "on" (each kind keeps its window), "chunked_off" (on,
  // but off for models with chunked local attention).
  std::string hybrid_kv_manager = "on";
  // The fused-MoE workspace: "transient" (the experts' intermediates are freed
  // after each MoE layer, so the profile peak is the larger of the forward and
  // the sampler) or "persistent" (WorkspaceManager keeps the largest one for the
  // process, so it is still held while the dummy sampler runs).
  std::string moe_workspace = "transient";
  std::string source;
};

// From which release an engine serves the KV cache in the dtype the checkpoint
// declares (quantization_config's kv_cache_quant_algo / kv_cache_scheme) when
// the cache dtype is `auto`, and for which quantization methods.
struct CheckpointKvRule {
  EngineVersion from;
  std::vector<std::string> methods;  // quant_method values the engine reads it from
  std::string source;
};

// MoE MXFP4 weight padding of the kernel vLLM picks on an architecture.
struct Mxfp4Padding {
  std::string backend;
  std::uint64_t intermediate_multiple = 1;
  std::uint64_t hidden_multiple = 1;
};

struct VllmProfile {
  EngineVersion default_version;  // the newest release modelled: what a plan without --engine-version applies
  std::string code;
  double gpu_memory_utilization = 0.9;
  std::uint64_t block_size = 16;
  double large_gpu_min_gib = 70;
  std::uint64_t max_num_batched_tokens_large_gpu = 8192, max_num_seqs_large_gpu = 1024;
  std::uint64_t max_num_batched_tokens_small_gpu = 2048, max_num_seqs_small_gpu = 256;
  std::uint64_t mla_block_size = 64;
  EngineVersion rocm_v1_mla_from{0, 9, 0};         // the first V1 release with an MLA backend on ROCm
  EngineVersion hybrid_seqs_check_from{0, 20, 0};  // refuses max_num_seqs above a hybrid model's state blocks
  std::vector<VllmEra> eras;                       // ascending by `from`
  std::uint64_t hidden_buffers_during_sampling = 2;
  std::uint64_t mlp_intermediate_copies = 3;
  std::uint64_t hidden_buffers_in_layer = 4;
  double cuda_graph_gib = 1.0;
  std::uint64_t fused_moe_chunk_tokens = 16384;  // VLLM_FUSED_MOE_CHUNK_SIZE: the workspace's rows at most
  std::uint64_t rope_cache_dtype_bytes = 2;
  std::map<std::string, Mxfp4Padding> mxfp4_padding;  // by GPU architecture
  CheckpointKvRule checkpoint_kv;
  std::map<std::string, std::string> sources;  // field -> source

  const VllmEra& era(const EngineVersion& v) const;
};

struct SglangTier {
  double below_gb = 0;
  std::uint64_t chunked_prefill_size = 0;
  std::uint64_t cuda_graph_max_bs_small_tp = 0, cuda_graph_max_bs_large_tp = 0;
};

// How SGLang sizes the token pool of a DSA model (DeepSeek-V3.2's sparse
// attention), by release: whether mem_fraction_static is forced, and whether
// the indexer's keys count in the per-token budget (they are always allocated).
struct SglangDsaEra {
  EngineVersion from;
  double forced_mem_fraction_static = 0;  // > 0: set for DSA models, overriding --mem-fraction-static
  bool indexer_in_budget = true;          // the budget's cell size counts the indexer keys
  std::string source;
};

struct SglangProfile {
  EngineVersion default_version;
  std::string code;
  double mamba_full_memory_ratio = 0.9;
  std::uint64_t page_size = 1;
  std::uint64_t dsa_page_size = 64;
  double swa_full_tokens_ratio = 0.8;
  double cuda_context_gib = 0.5;
  double distributed_init_gib_per_tp_rank = 0.1;        // NCCL and all-reduce set-up before loading (TP > 1)
  double distributed_init_gib_per_tp_rank_nvls = 0.25;  // the same on NVLS switch systems
  double multimodal_reserve_mib = 100;                  // SGLANG_VLM_CACHE_SIZE_MB, reserved out of the pools' rest
  double unknown_gpu_mem_fraction_static = 0.88;
  std::uint64_t radix_slots_on = 5, radix_slots_lazy = 4, radix_slots_off = 1;
  std::vector<SglangTier> tiers;
  std::uint64_t large_tp_from = 4;
  double base_mb = 512, per_prefill_token_mb = 1.5, per_graph_bs_mb = 2, per_tp_pp_eighth_mb = 1024,
         per_graph_bs_dp_mb = 3, floor_above_60gb_mb = 10240;
  double large_graph_bs_from = 300, per_graph_bs_dp_large_mb = 1.5;
  std::string reserved_source;
  std::vector<SglangDsaEra> dsa_eras;  // ascending by `from`
  CheckpointKvRule checkpoint_kv;
  std::map<std::string, std::string> sources;

  // The DSA era of release `v` (the first era for releases before it).
  const SglangDsaEra& dsa_era(const EngineVersion& v) const;
};

// How far the sized KV tokens lie from what engines logged on start-ups that
// no rule was written from (data/engines.json startup_accuracy).
struct StartupAccuracy {
  double kv_tokens_relative = 0;  // a fraction: 0.06 is +-6%
  std::string source;
};

struct EngineProfiles {
  VllmProfile vllm;
  SglangProfile sglang;
  StartupAccuracy accuracy;
  std::string about;
};

// Parses a profiles document; errors name `origin` and the field.
Result<EngineProfiles> parse_engine_profiles(const std::string& text, const std::string& origin);

// The embedded data/engines.json (parsed once).
const EngineProfiles& engine_profiles();

}  // namespace preflight
