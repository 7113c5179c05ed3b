#include "engine/engine_version_range.h"

#include <algorithm>
#include <cmath>

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

EngineVersionRange summarize_range(std::vector<EngineVersionPoint> points, const StartupAccuracy& accuracy) {
  EngineVersionRange r;
  const double band = accuracy.kv_tokens_relative;
  r.band = band;
  r.band_source = accuracy.source;
  r.points = std::move(points);
  const EngineVersionPoint* kv_min = nullptr;
  const EngineVersionPoint* kv_max = nullptr;
  const EngineVersionPoint* conc_min = nullptr;
  const EngineVersionPoint* conc_max = nullptr;
  // A release that refuses after sizing its cache (the request longer than the
  // pool) still logs that cache; its figures set the ends only when no release
  // starts, so an unknown version is never reported as "no figure at all".
  const bool any_starts =
      std::any_of(r.points.begin(), r.points.end(), [](const auto& p) { return p.failure.empty(); });
  r.ends_from_refusals = !any_starts;
  for (const auto& p : r.points) {
    if (any_starts ? !p.failure.empty() : p.kv_cache_tokens == 0) continue;
    // Strict comparisons: a tie keeps the earlier (older) release.
    if (!kv_min || p.kv_cache_tokens < kv_min->kv_cache_tokens) kv_min = &p;
    if (!kv_max || p.kv_cache_tokens > kv_max->kv_cache_tokens) kv_max = &p;
    if (!conc_min || p.max_concurrency < conc_min->max_concurrency) conc_min = &p;
    if (!conc_max || p.max_concurrency > conc_max->max_concurrency) conc_max = &p;
  }
  if (!kv_min) {  // every release would refuse before sizing a cache
    r.ends_from_refusals = false;
    return r;
  }
  r.kv_cache_tokens_min = kv_min->kv_cache_tokens;
  r.kv_min_version = kv_min->version;
  r.kv_cache_tokens_max = kv_max->kv_cache_tokens;
  r.kv_max_version = kv_max->version;
  r.max_concurrency_min = conc_min->max_concurrency;
  r.concurrency_min_version = conc_min->version;
  r.max_concurrency_max = conc_max->max_concurrency;
  r.concurrency_max_version = conc_max->version;
  r.release_kv_tokens_min = r.kv_cache_tokens_min;
  r.release_kv_tokens_max = r.kv_cache_tokens_max;
  r.release_concurrency_min = r.max_concurrency_min;
  r.release_concurrency_max = r.max_concurrency_max;
  // The band is an error relative to the logged figure ((planned - logged) /
  // logged), so a plan of P may have been logged as P / (1 + band) up to
  // P / (1 - band). Tokens are whole: the low end rounds down, the high end up.
  r.kv_cache_tokens_min =
      static_cast<std::uint64_t>(std::floor(static_cast<double>(r.kv_cache_tokens_min) / (1 + band)));
  r.kv_cache_tokens_max =
      static_cast<std::uint64_t>(std::ceil(static_cast<double>(r.kv_cache_tokens_max) / (1 - band)));
  r.max_concurrency_min /= 1 + band;
  r.max_concurrency_max /= 1 - band;
  return r;
}

}  // namespace preflight
