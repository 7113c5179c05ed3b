#include "model/request_state.h"
#include "plan/plan.h"

namespace preflight {

PlanContext::PlanContext(const ModelSpec& m)
    : model(&m),
      inventory(build_inventory(m)),
      placement(m.manifest, m.layers.size(), m.moe.routed_experts),
      tp_divisors(m.tp_divisors()) {}

std::shared_ptr<const PlanContext::StageRequestState> PlanContext::stage_request_state(
    std::uint64_t tp, LayerRange range, std::uint64_t kv_bytes, std::uint64_t state_bytes) const {
  const std::array<std::uint64_t, 5> key{tp, range.first, range.count, kv_bytes, state_bytes};
  std::lock_guard<std::mutex> lock(request_state_mutex_);
  if (auto it = request_state_.find(key); it != request_state_.end()) return it->second;
  auto made = std::make_shared<StageRequestState>();
  made->state = recurrent_state_per_rank(*model, tp, state_bytes, range);
  made->cache = token_cache_per_rank(*model, kv_bytes, tp, range);
  if (request_state_.size() >= 4096) request_state_.clear();  // bounded
  request_state_.emplace(key, made);
  return made;
}

const FormatPlacement& PlanContext::formats() const {
  std::call_once(formats_once_, [&] { formats_ = std::make_unique<FormatPlacement>(*model); });
  return *formats_;
}

Result<std::shared_ptr<const PlanContext::Placed>> PlanContext::placed(std::uint64_t world,
                                                                       const LayoutOptions& o) const {
  const std::array<std::uint64_t, 8> key{
      world, o.tp, o.ep, o.pp, o.dp, o.dcp, o.gpus_per_node, o.dense_over_stage ? 1u : 0u};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = placed_.find(key); it != placed_.end()) return it->second;
  }
  Result<std::shared_ptr<const Placed>> result = [&]() -> Result<std::shared_ptr<const Placed>> {
    auto layout = choose_layout(*model, world, o, &tp_divisors, false);
    if (!layout) return layout.error();
    auto p = std::make_shared<Placed>();
    p->layout = std::move(layout).value();
    for (auto r : placement.representative_ranks(p->layout))
      p->representatives.push_back(placement.rank_weights(p->layout, r, false));
    return std::shared_ptr<const Placed>(std::move(p));
  }();
  std::lock_guard<std::mutex> lock(mutex_);
  if (placed_.size() >= 100000) placed_.clear();  // bounded: a sweep needs a few thousand
  placed_.emplace(key, result);
  return result;
}

}  // namespace preflight
