#include "plan/placement.h"

#include <algorithm>

#include "core/bytes.h"

namespace preflight {

namespace {

// Slices of a dimension of size `dim` that TP rank `tp_rank` of `tp` holds.
std::uint64_t slice(std::uint64_t dim, std::uint64_t tp, std::uint64_t tp_rank) {
  return dim / tp + (tp_rank < dim % tp ? 1 : 0);
}

// Experts [begin, end) that EP group `g` owns when `experts` are dealt out in
// contiguous blocks, the first `experts % ep` groups taking one extra.
std::pair<std::uint64_t, std::uint64_t> expert_block(std::uint64_t experts, std::uint64_t ep, std::uint64_t g) {
  const auto base = experts / ep;
  const auto extra = experts % ep;
  const auto begin = g * base + std::min(g, extra);
  return {begin, begin + base + (g < extra ? 1 : 0)};
}

bool first_stage_resident(ModuleClass m) {
  return m == ModuleClass::embedding || m == ModuleClass::vision_tower || m == ModuleClass::projector;
}

}  // namespace

PlacementIndex::PlacementIndex(const TensorManifest& manifest, std::uint64_t decoder_layers,
                               std::uint64_t routed_experts)
    : decoder_layers_(decoder_layers), routed_experts_(routed_experts) {
  std::uint64_t max_layer = decoder_layers;
  for (const auto& t : manifest.tensors)
    if (t.layer != kNoLayer) max_layer = std::max<std::uint64_t>(max_layer, static_cast<std::uint64_t>(t.layer) + 1);
  slots_.resize(max_layer + 2);
  // Per-slot, per-module difference arrays over expert indices.
  std::vector<std::map<ModuleClass, std::vector<std::int64_t>>> diffs(slots_.size());

  for (const auto& t : manifest.tensors) {
    const std::size_t s = t.layer != kNoLayer ? static_cast<std::size_t>(t.layer) + 1
                                              : (first_stage_resident(t.module) ? 0 : slots_.size() - 1);
    auto& slot = slots_[s];
    if (t.role == ParallelRole::expert && routed_experts > 0) {
      auto& d = diffs[s][t.module];
      if (d.empty()) d.assign(routed_experts + 1, 0);
      const auto first = std::min<std::uint64_t>(t.first_instance, routed_experts);
      const auto last = std::min<std::uint64_t>(first + t.instances, routed_experts);
      d[first] += static_cast<std::int64_t>(t.bytes_each);
      d[last] -= static_cast<std::int64_t>(t.bytes_each);
      continue;
    }
    Group g;
    g.module = t.module;
    g.role = t.role == ParallelRole::expert ? ParallelRole::replicated : t.role;
    if (g.role == ParallelRole::replicated) {
      g.amount = t.bytes();
      replicated_ = checked_add(replicated_, t.bytes());
    } else {
      const std::size_t axis = (t.role == ParallelRole::row && t.shape.size() > 1) ? 1 : 0;
      g.dim = t.shape.empty() ? 1 : t.shape[axis];
      if (g.dim == 0) g.dim = 1;
      g.amount = checked_mul(t.bytes_each / g.dim, t.instances);  // exact: bytes are elements x width
    }
    auto it = std::find_if(slot.groups.begin(), slot.groups.end(), [&](const Group& x) {
      return x.module == g.module && x.role == g.role && x.dim == g.dim;
    });
    if (it == slot.groups.end()) slot.groups.push_back(g);
    else it->amount = checked_add(it->amount, g.amount);
  }
  for (std::size_t s = 0; s < slots_.size(); ++s) {
    for (auto& [module, d] : diffs[s]) {
      ExpertPrefix p;
      p.module = module;
      p.prefix.assign(routed_experts + 1, 0);
      std::int64_t running = 0;
      for (std::uint64_t e = 0; e < routed_experts; ++e) {
        running += d[e];
        p.prefix[e + 1] = checked_add(p.prefix[e], static_cast<std::uint64_t>(running));
        if (e > 0 && p.prefix[e + 1] - p.prefix[e] != p.prefix[1]) experts_uniform_ = false;
      }
      slots_[s].experts.push_back(std::move(p));
    }
  }
}

RankWeights PlacementIndex::rank_weights(const Layout& layout, std::uint64_t rank) const {
  RankWeights rw;
  rw.rank = rank;
  rw.stage = layout.stage_of(rank);
  const auto tp_rank = layout.tp_rank(rank);
  if (routed_experts_ > 0) {
    const auto [begin, end] = expert_block(routed_experts_, layout.ep, layout.ep_index(rank));
    rw.experts_per_moe_layer = end - begin;
  }
  const auto [ebegin, eend] =
      routed_experts_ > 0 ? expert_block(routed_experts_, layout.ep, layout.ep_index(rank)) : std::pair<std::uint64_t, std::uint64_t>{0, 0};
  const auto moe_rank = layout.moe_tp_rank(rank);

  const auto add_slot = [&](const Slot& slot) {
    for (const auto& g : slot.groups) {
      const auto share = g.role == ParallelRole::replicated
                             ? g.amount
                             : checked_mul(g.amount, slice(g.dim, layout.tp, tp_rank));
      if (share == 0) continue;
      rw.bytes_by_module[g.module] = checked_add(rw.bytes_by_module[g.module], share);
      rw.total = checked_add(rw.total, share);
    }
    for (const auto& e : slot.experts) {
      const auto owned = e.prefix[eend] - e.prefix[ebegin];
      const auto share = owned / layout.moe_tp + (moe_rank < owned % layout.moe_tp ? 1 : 0);
      rw.bytes_by_module[e.module] = checked_add(rw.bytes_by_module[e.module], share);
      rw.total = checked_add(rw.total, share);
    }
  };

  const auto stage = rw.stage;
  const bool last = stage + 1 == layout.pp;
  const auto first = layout.first_layer(stage);
  const auto count = stage < layout.stage_layers.size() ? layout.stage_layers[stage] : decoder_layers_;
  if (stage == 0) add_slot(slots_.front());
  for (std::uint64_t l = first; l < first + count && l + 1 < slots_.size() - 1; ++l) add_slot(slots_[l + 1]);
  if (last) {
    // Layers beyond the decoder stack (MTP) sit with the LM head.
    for (std::uint64_t l = decoder_layers_; l + 1 < slots_.size() - 1; ++l) add_slot(slots_[l + 1]);
    add_slot(slots_.back());
  }
  return rw;
}

std::vector<std::uint64_t> PlacementIndex::representative_ranks(const Layout& layout) const {
  std::vector<std::uint64_t> ranks;
  const auto per_stage = layout.stage_ranks();
  for (std::uint64_t s = 0; s < layout.pp; ++s) {
    if (experts_uniform_ || routed_experts_ == 0) {
      ranks.push_back(s * per_stage);
    } else {
      for (std::uint64_t g = 0; g < layout.ep; ++g) ranks.push_back(s * per_stage + g * layout.moe_tp);
    }
  }
  return ranks;
}

std::vector<RankWeights> place_weights(const TensorManifest& manifest, const Layout& layout,
                                       std::uint64_t decoder_layers, std::uint64_t routed_experts) {
  const PlacementIndex index(manifest, decoder_layers, routed_experts);
  std::vector<RankWeights> ranks;
  ranks.reserve(layout.world);
  for (std::uint64_t r = 0; r < layout.world; ++r) ranks.push_back(index.rank_weights(layout, r));
  return ranks;
}

}  // namespace preflight
