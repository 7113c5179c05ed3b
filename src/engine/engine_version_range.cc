#include "engine/engine_version_range.h"

#include <algorithm>

#include "engine/engine_profile.h"

namespace preflight {

std::vector<EngineVersion> modelled_releases(EngineKind kind) {
  const auto& p = engine_profiles();
  std::vector<EngineVersion> v;
  if (kind == EngineKind::vllm) {
    for (const auto& era : p.vllm.eras)
      if (era.engine == "v1") v.push_back(era.from);
    v.push_back(p.vllm.checkpoint_kv.from);
    v.push_back(p.vllm.rocm_v1_mla_from);
    v.push_back(p.vllm.default_version);
  } else if (kind == EngineKind::sglang) {
    for (const auto& era : p.sglang.dsa_eras) v.push_back(era.from);
    v.push_back(p.sglang.checkpoint_kv.from);
    v.push_back(p.sglang.default_version);
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

EngineVersionRange summarize_range(std::vector<EngineVersionPoint> points) {
  EngineVersionRange r;
  r.points = std::move(points);
  bool first = true;
  for (const auto& p : r.points) {
    if (!p.failure.empty()) continue;
    if (first || p.kv_cache_tokens < r.kv_cache_tokens_min) r.kv_cache_tokens_min = p.kv_cache_tokens, r.kv_min_version = p.version;
    if (first || p.kv_cache_tokens > r.kv_cache_tokens_max) r.kv_cache_tokens_max = p.kv_cache_tokens, r.kv_max_version = p.version;
    if (first || p.max_concurrency < r.max_concurrency_min)
      r.max_concurrency_min = p.max_concurrency, r.concurrency_min_version = p.version;
    if (first || p.max_concurrency > r.max_concurrency_max)
      r.max_concurrency_max = p.max_concurrency, r.concurrency_max_version = p.version;
    first = false;
  }
  return r;
}

}  // namespace preflight
