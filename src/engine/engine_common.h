// Small helpers shared by the engine sizing rules.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/engine_sizing.h"
#include "model/model_spec.h"
#include "model/request_state.h"

namespace preflight::engine_detail {

inline constexpr double kGiBd = 1073741824.0;

inline std::uint64_t gib_bytes(double gib) { return static_cast<std::uint64_t>(std::llround(gib * kGiBd)); }
inline std::uint64_t mib_bytes(double mib) { return static_cast<std::uint64_t>(std::llround(mib * 1048576.0)); }
inline std::uint64_t round_up(std::uint64_t x, std::uint64_t m) { return m == 0 ? x : (x + m - 1) / m * m; }
inline std::uint64_t model_dtype_bytes(const ModelSpec& m) {
  return std::max<std::uint64_t>(dtype_bits(m.dtype) / 8, 1);
}

// Token-cache bytes per token per layer kind on one worker (attention TP), and
// one request's recurrent state per layer kind, for the stage's layers.
struct StageCache {
  std::uint64_t full_layers = 0, sliding_layers = 0, chunked_layers = 0, mla_layers = 0, state_layers = 0;
  std::uint64_t full_per_token = 0;             // per layer
  std::uint64_t sliding_per_token = 0;          // per layer
  std::uint64_t chunked_per_token = 0;          // per layer
  std::uint64_t mla_per_token = 0;              // per layer as allocated (latent + rope, or fp8_ds_mla's 656 B)
  std::uint64_t mla_latent_rope_per_token = 0;  // per layer, (kv_lora_rank + rope) x the KV dtype's size:
                                                // what SGLang's budget counts even for fp8_ds_mla
  std::uint64_t indexer_per_token = 0;          // per layer, DSA indexer keys (0: none)
  std::uint64_t state_per_layer = 0;            // one request, one layer (largest kind)
  std::uint64_t state_total = 0;                // one request, all state layers of the stage
};
// Which release's rules apply (the asked one, or `default_version`, the newest
// modelled) and, when the model's recipe needs a newer one, the line that says so.
// Also lists the `--dtype auto` rule the app applied before sizing (engine_dtype.h),
// the other engine decision that is not the sizing's own.
// Returns the release whose rules apply.
EngineVersion resolve_version(EngineSizing& s, const EngineOptions& o, const EngineVersion& default_version);

StageCache stage_cache(const ModelSpec& m, std::uint64_t tp, std::uint64_t kv_bytes, std::uint64_t state_bytes,
                       LayerRange range);

}  // namespace preflight::engine_detail
