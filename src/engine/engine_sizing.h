// Engine sizing: what a serving engine would allocate on each GPU for a plan,
// and the figures it would log at start-up (vLLM "GPU KV cache size" and
// "Maximum concurrency"; SGLang max_total_num_tokens and max_running_requests).
//
// The rules come from the engines' code (data/engines.json names the file and
// version for each); inputs the engine measures at start-up (activation peak
// of the profile run, non-torch memory, CUDA graph pool) are planning
// estimates and labelled so.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/figure.h"
#include "engine/engine_options.h"

namespace preflight {

// One worker (GPU) as the engine sizes it.
struct EngineWorker {
  std::uint64_t rank = 0;
  std::uint64_t stage = 0;                  // pipeline stage
  std::uint64_t weights_bytes = 0;          // what the engine loads on this GPU
  std::uint64_t activation_peak_bytes = 0;  // torch peak of the profile run (estimate)
  std::uint64_t non_torch_bytes = 0;        // NCCL / custom all-reduce / cuBLAS (estimate)
  std::uint64_t cuda_graph_bytes = 0;       // counted only where the engine version subtracts it
  std::uint64_t requested_bytes = 0;        // vLLM total x util; SGLang pre-load free x mfs
  std::int64_t kv_budget_bytes = 0;         // left for KV cache and state pools; negative: no room
  // One request of max_model_len as this worker allocates it (blocks / pages, padding included).
  std::uint64_t kv_request_bytes = 0;     // token cache (attention / MLA layers)
  std::uint64_t state_request_bytes = 0;  // recurrent state (all slots one request holds)
  // With a request mix (workload.mix): one request of each member's length, in the mix's order.
  std::vector<std::uint64_t> kv_request_bytes_by_length;
  // SGLang's pools are split at start-up; vLLM shares one pool (both 0).
  std::uint64_t kv_pool_bytes = 0;
  std::uint64_t state_pool_bytes = 0;
};

// What the engine logs at each release preflight models, when the release is
// not given (engine/engine_version_range.h): the spread an unknown version spans.
struct EngineVersionPoint {
  std::string version;
  std::uint64_t kv_cache_tokens = 0;
  double max_concurrency = 0;
  std::string failure;  // the release would refuse to start ("" when it starts)
};

struct EngineVersionRange {
  std::vector<EngineVersionPoint> points;  // ascending by release
  // The ends the releases give, widened by `band` (below): what an unknown
  // release may log, the estimates' own error included.
  std::uint64_t kv_cache_tokens_min = 0, kv_cache_tokens_max = 0;
  std::string kv_min_version, kv_max_version;
  double max_concurrency_min = 0, max_concurrency_max = 0;
  std::string concurrency_min_version, concurrency_max_version;
  // The releases' own ends, before widening.
  std::uint64_t release_kv_tokens_min = 0, release_kv_tokens_max = 0;
  double release_concurrency_min = 0, release_concurrency_max = 0;
  double band = 0;          // relative: StartupAccuracy::kv_tokens_relative
  std::string band_source;  // where the band comes from
  // Every release refuses the request, but each sized its cache first (a
  // context longer than the pool): the ends are those sizes.
  bool ends_from_refusals = false;
};

struct EngineSizing {
  EngineKind kind = EngineKind::generic;
  std::string name;                // "vLLM", "SGLang"
  std::string version;             // the rules' version
  bool version_defaulted = false;  // no --engine-version: the profile's default, the newest release modelled
  std::string version_note;        // one line when the model's recipe needs a newer release; else ""
  double memory_fraction = 0;      // gpu_memory_utilization or mem_fraction_static in force
  std::uint64_t block_size = 0;    // tokens per KV block / page (after hybrid alignment)
  bool mla_disabled = false;       // MLA layers cached as every head's K and V (vLLM V1 on ROCm before its MLA backend)
  std::uint64_t max_num_batched_tokens = 0;
  std::uint64_t max_num_seqs = 0;
  std::uint64_t max_model_len = 0;
  std::vector<EngineWorker> workers;      // one per distinct worker shape (stage / rank class)
  std::uint64_t min_kv_budget_bytes = 0;  // the worker that limits the pool (0 if none has room)
  std::uint64_t page_bytes = 0;           // bytes of one block of one KV group on one worker
  std::uint64_t kv_groups = 0;            // vLLM KV cache groups
  std::uint64_t num_blocks = 0;
  std::uint64_t kv_cache_tokens = 0;       // as the engine logs it
  double max_concurrency = 0;              // vLLM "Maximum concurrency" for max_model_len
  std::uint64_t max_running_requests = 0;  // SGLang
  std::uint64_t chunked_prefill_size =
      0;                               // SGLang: prompt tokens per step (--chunked-prefill-size or its tier's default)
  std::uint64_t state_slots = 0;       // SGLang max_mamba_cache_size / vLLM state blocks
  std::uint64_t state_slot_bytes = 0;  // one request's recurrent state on one worker, as allocated
  std::uint64_t kv_bytes_per_token = 0;     // per worker, all layers of its stage
  bool holds_one_request = false;           // the pool holds one max_model_len request
  std::string failure;                      // the engine's start-up error, when it would refuse
  std::vector<Figure> figures;              // every figure above with evidence and formula
  std::vector<std::string> rules;           // the engine rules applied (from its code)
  std::vector<std::string> estimates;       // which inputs are planning estimates
  std::optional<EngineVersionRange> range;  // without --engine-version: every modelled release's figures
};

}  // namespace preflight
