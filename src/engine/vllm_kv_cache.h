// vLLM's KV cache layout (V1): per-layer specs, the hybrid page alignment,
// KV cache groups, and the two figures vLLM logs ("GPU KV cache size" in
// tokens and "Maximum concurrency" for max_model_len).
//
// Follows vllm/v1/kv_cache_interface.py (page and max_memory_usage_bytes per
// spec), vllm/v1/core/kv_cache_utils.py (get_kv_cache_groups,
// get_kv_cache_config_from_groups, _report_kv_cache_config) and
// HybridAttentionMambaModelConfig.verify_and_update_config (attention block
// size raised until one attention page holds one Mamba-like state page).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace preflight {

enum class KvSpecKind { full, sliding, chunked, mla, state };

// One layer's cache as vLLM specifies it, on one worker.
struct KvLayerSpec {
  KvSpecKind kind = KvSpecKind::full;
  std::uint64_t bytes_per_token = 0;  // attention kinds: per token, this layer, this worker
  std::uint64_t state_bytes = 0;      // state kind: one request's state for this layer (unpadded)
  std::uint64_t window = 0;           // sliding window or attention chunk (tokens)
};

struct KvCacheShape {
  std::uint64_t block_size = 0;                // tokens per block after alignment
  std::uint64_t page_bytes = 0;                // one block of one layer (state pages padded to it)
  std::uint64_t group_size = 0;                // layers per KV cache group
  std::uint64_t groups = 0;                    // number of KV cache groups
  std::uint64_t token_groups = 0;              // of which attention groups
  std::uint64_t state_groups = 0;              // of which state (Mamba-like) groups
  std::uint64_t padding_layers = 0;            // layer slots added to fill the groups
  std::uint64_t blocks_per_request = 0;        // blocks one max_model_len request needs over all groups
  std::uint64_t state_blocks_per_request = 0;  // of which state blocks
  std::uint64_t state_page_unpadded = 0;
  bool uniform = true;                // one group: blocks are sums of per-layer pages
  std::uint64_t bytes_per_block = 0;  // memory one block index costs across all layers
};

struct KvCacheInputs {
  std::vector<KvLayerSpec> layers;
  std::uint64_t block_size = 16;             // requested attention block size
  std::uint64_t kernel_block_multiple = 16;  // alignment for the hybrid block size (64 for MLA kernels)
  std::uint64_t max_model_len = 0;
  std::uint64_t max_num_batched_tokens = 0;
  std::uint64_t dcp = 1;
  std::uint64_t spec_state_blocks = 0;  // extra state blocks for speculative decoding
};

KvCacheShape vllm_kv_cache_shape(const KvCacheInputs& in);

struct KvCacheReport {
  std::uint64_t num_blocks = 0;
  std::uint64_t kv_cache_tokens = 0;  // "GPU KV cache size: N tokens"
  double max_concurrency = 0;         // "Maximum concurrency for L tokens per request: X"
};

// From the bytes available on the limiting worker. `tokens_from_concurrency`:
// newer vLLM reports tokens as max_concurrency x max_model_len.
KvCacheReport vllm_kv_cache_report(const KvCacheShape& shape, std::uint64_t available_bytes, const KvCacheInputs& in,
                                   bool tokens_from_concurrency);

}  // namespace preflight
