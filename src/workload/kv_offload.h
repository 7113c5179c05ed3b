// KV offload to CPU memory: vLLM's offloading connector,
// LMCache and SGLang HiCache keep KV blocks evicted from the GPU in host
// memory, so a prompt seen before is reloaded instead of prefilled again.
// Running requests still need their KV on the GPU: the CPU tier is prefix-
// cache capacity, not concurrency, so it never changes the verdict.
//
// Tokens each tier holds, for the whole cluster:
//   per token of one attention group = the cache per token on a rank x TP,
//     summed over the PP stages (each worker stores its own blocks; MLA
//     latents, replicated over TP, are stored by every rank unless the
//     connector keeps one copy: LMCache's MLA mode does)
//   GPU tier = (KV in use + free) on the tightest rank / its cache per token,
//     x DP groups (what the GPUs could hold beyond the running requests too)
//   CPU tier = --kv-offload per node x nodes / bytes per token of a group
// Every figure is a deployment hypothesis: the connector, its block size and
// how much host memory it really gets decide.
#pragma once

#include <cstdint>
#include <vector>

#include "core/figure.h"

namespace preflight {

struct KvOffloadInputs {
  std::uint64_t offload_bytes_per_node = 0;  // --kv-offload
  std::uint64_t nodes = 1;
  std::uint64_t dp_groups = 1;
  std::uint64_t tp = 1;
  std::vector<std::uint64_t> stage_bytes_per_token;  // cache per token on one rank of each stage
  std::uint64_t gpu_kv_bytes = 0;                    // KV in use + free on the tightest rank
  std::uint64_t gpu_bytes_per_token = 0;             // that rank's cache per token
  std::uint64_t prompt_tokens = 0;                   // what one reusable prefix is (the prompt length)
};

struct KvOffload {
  std::uint64_t group_bytes_per_token = 0;
  std::uint64_t gpu_tokens = 0;
  std::uint64_t cpu_tokens = 0;
  std::uint64_t cpu_prompts = 0;  // whole prompts the CPU tier keeps for reuse
  std::vector<Figure> figures;    // offload.*
};

KvOffload kv_offload(const KvOffloadInputs& in);

}  // namespace preflight
