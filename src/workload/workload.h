// Workload options: the second pass of seed 000 (context, concurrency, cache
// and state precision, runtime reserve, prefill chunk). Defaults in-class with
// their unit; each default is a planning assumption the plan reports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/units.h"
#include "workload/cache_dtype.h"
#include "workload/request_mix.h"

namespace preflight {

struct WorkloadOptions {
  bool requested = false;                     // any workload flag given: run the second pass
  std::uint64_t context_tokens = 0;           // per request; 0 = the model's max_position_embeddings
  std::uint64_t concurrency = 1;              // running requests
  KvDtype kv_dtype = KvDtype::automatic;      // KV / MLA cache: the model dtype, as engines do, unless --kv-dtype
  StateDtype state_dtype = StateDtype::fp32;  // recurrent state (engines default to FP32)
  std::uint64_t state_slots = 5;              // KDA state slots per running request (SGLang's default buffering)
  ReserveSpec reserve;                        // runtime reserve per GPU (default 10% of device capacity)
  std::uint64_t chunk_tokens = 16384;         // prefill chunk for the activation estimate (seed 000's figure)
  // Speculative decoding: draft tokens per step. Each speculative position
  // keeps its own recurrent state (vLLM MambaSpec.num_speculative_blocks) and
  // its KV slots (lookahead); a --draft model adds its weights and cache.
  std::uint64_t spec_tokens = 0;
  // --mix / --mix-file: running requests of several lengths (request_mix.h);
  // empty: every request is context_tokens long. With a mix, context_tokens is
  // its longest member (the engines' max_model_len).
  RequestMix mix;
  // --kv-offload: host memory per node for evicted KV blocks (workload/kv_offload.h); 0: none.
  std::uint64_t kv_offload_bytes_per_node = 0;
};

// The running requests of the heaviest of `groups` attention groups by
// length: ceil(concurrency / groups) of context_tokens without a mix, else
// the mix's heaviest_group (request_mix.h).
struct RequestsByLength {
  std::vector<std::uint64_t> tokens;
  std::vector<std::uint64_t> counts;
};
RequestsByLength requests_by_length(const WorkloadOptions& w, std::uint64_t groups);

// The length a request has on average: the mix's mean (request_mix.h), else
// context_tokens (0 while unresolved). What decode steps attend to, and what
// the default prompt and output lengths are taken from.
std::uint64_t typical_length(const WorkloadOptions& w);

// The longest request the workload holds: the mix's longest member, else the
// context, else (context 0: none given) the model's window. The one place that
// rule lives.
std::uint64_t longest_request_tokens(const WorkloadOptions& w, std::uint64_t max_context);

// The options as a plan uses them: context 0 -> the model's window, kv_dtype
// auto -> `declared_kv` when the checkpoint declares a cache dtype the engine
// reads (engine/checkpoint_kv_dtype.h), else the model dtype.
WorkloadOptions resolved_workload(WorkloadOptions w, std::uint64_t max_context, std::uint64_t model_dtype_bits,
                                  std::optional<KvDtype> declared_kv = std::nullopt);

}  // namespace preflight
