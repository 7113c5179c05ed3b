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
  const EngineVersionPoint* kv_min = nullptr;
  const EngineVersionPoint* kv_max = nullptr;
  const EngineVersionPoint* conc_min = nullptr;
  const EngineVersionPoint* conc_max = nullptr;
  for (const auto& p : r.points) {
    if (!p.failure.empty()) continue;
    // Strict comparisons: a tie keeps the earlier (older) release.
    if (!kv_min || p.kv_cache_tokens < kv_min->kv_cache_tokens) kv_min = &p;
    if (!kv_max || p.kv_cache_tokens > kv_max->kv_cache_tokens) kv_max = &p;
    if (!conc_min || p.max_concurrency < conc_min->max_concurrency) conc_min = &p;
    if (!conc_max || p.max_concurrency > conc_max->max_concurrency) conc_max = &p;
  }
  if (!kv_min) return r;  // every release would refuse to start
  r.kv_cache_tokens_min = kv_min->kv_cache_tokens;
  r.kv_min_version = kv_min->version;
  r.kv_cache_tokens_max = kv_max->kv_cache_tokens;
  r.kv_max_version = kv_max->version;
  r.max_concurrency_min = conc_min->max_concurrency;
  r.concurrency_min_version = conc_min->version;
  r.max_concurrency_max = conc_max->max_concurrency;
  r.concurrency_max_version = conc_max->version;
  return r;
}

}  // namespace preflight
