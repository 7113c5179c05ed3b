#include "placement/placement.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <tuple>

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
  return m == ModuleClass::embedding || m == ModuleClass::vision_tower || m == ModuleClass::audio_tower ||
         m == ModuleClass::projector;
}

std::vector<const StoredTensor*> all_tensors(const TensorManifest& manifest) {
  std::vector<const StoredTensor*> out;
  out.reserve(manifest.tensors.size());
  for (const auto& t : manifest.tensors) out.push_back(&t);
  return out;
}

// One expert tensor's contribution: bytes per expert over experts [first, last) in a slot.
struct ExpertRange {
  std::uint64_t slot = 0;
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  std::uint64_t bytes_each = 0;
};

}  // namespace

PlacementIndex::PlacementIndex(const TensorManifest& manifest, std::uint64_t decoder_layers,
                               std::uint64_t routed_experts)
    : PlacementIndex(all_tensors(manifest), decoder_layers, routed_experts) {}

std::uint64_t PlacementIndex::ExpertTable::below(std::uint64_t slot, std::uint64_t e) const {
  const auto B = breaks.size();
  // The last breakpoint at or before e.
  const auto i = static_cast<std::size_t>(std::upper_bound(breaks.begin(), breaks.end(), e) - breaks.begin()) - 1;
  const auto base = at_break[slot * B + i];
  if (i + 1 == B) return base;
  return checked_add(base, checked_mul(e - breaks[i], per_expert[slot * B + i]));
}

PlacementIndex::PlacementIndex(const std::vector<const StoredTensor*>& tensors, std::uint64_t decoder_layers,
                               std::uint64_t routed_experts)
    : decoder_layers_(decoder_layers), routed_experts_(routed_experts) {
  std::uint64_t max_layer = decoder_layers;
  for (const auto* t : tensors)
    if (t->layer != kNoLayer) max_layer = std::max<std::uint64_t>(max_layer, static_cast<std::uint64_t>(t->layer) + 1);
  slots_ = max_layer + 2;
  const auto slot_of = [&](const StoredTensor& t) -> std::size_t {
    if (t.layer != kNoLayer) return static_cast<std::size_t>(t.layer) + 1;
    return first_stage_resident(t.module) ? 0 : static_cast<std::size_t>(slots_ - 1);
  };
  // Per-slot amounts first (added up into prefix sums below).
  std::vector<std::vector<std::uint64_t>> amounts;  // [group][slot]
  std::vector<std::vector<ExpertRange>> ranges;     // [table]
  std::size_t last_group = 0;
  for (const auto* tp : tensors) {
    const auto& t = *tp;
    const auto s = slot_of(t);
    if (t.role == ParallelRole::expert && routed_experts > 0) {
      auto it =
          std::find_if(experts_.begin(), experts_.end(), [&](const ExpertTable& x) { return x.module == t.module; });
      if (it == experts_.end()) {
        experts_.push_back(ExpertTable{t.module, {}, {}, {}});
        ranges.emplace_back();
        it = experts_.end() - 1;
      }
      const auto first = std::min<std::uint64_t>(t.first_instance, routed_experts);
      const auto last = std::min<std::uint64_t>(first + t.instances, routed_experts);
      if (first < last && t.bytes_each > 0)
        ranges[static_cast<std::size_t>(it - experts_.begin())].push_back(ExpertRange{s, first, last, t.bytes_each});
      continue;
    }
    Group g;
    g.module = t.module;
    g.role = t.role == ParallelRole::expert ? ParallelRole::replicated : t.role;
    std::uint64_t amount = 0;
    if (g.role == ParallelRole::replicated) {
      amount = t.bytes();
      replicated_ = checked_add(replicated_, t.bytes());
    } else {
      const std::size_t axis = (t.role == ParallelRole::row && t.shape.size() > 1) ? 1 : 0;
      g.dim = t.shape.empty() ? 1 : t.shape[axis];
      if (g.dim == 0) g.dim = 1;
      amount = checked_mul(t.bytes_each / g.dim, t.instances);  // exact: bytes are elements x width
    }
    const auto same = [&](const Group& x) { return x.module == g.module && x.role == g.role && x.dim == g.dim; };
    // The group of the tensor before first (runs of one group are common), then a scan.
    auto it = last_group < groups_.size() && same(groups_[last_group])
                  ? groups_.begin() + static_cast<std::ptrdiff_t>(last_group)
                  : std::find_if(groups_.begin(), groups_.end(), same);
    if (it == groups_.end()) {
      groups_.push_back(g);
      amounts.emplace_back(slots_, 0);
      it = groups_.end() - 1;
    }
    last_group = static_cast<std::size_t>(it - groups_.begin());
    auto& a = amounts[last_group][s];
    a = checked_add(a, amount);
  }
  const auto G = groups_.size();
  group_prefix_.assign((slots_ + 1) * G, 0);
  for (std::size_t k = 0; k < G; ++k)
    for (std::uint64_t s = 0; s < slots_; ++s)
      group_prefix_[(s + 1) * G + k] = checked_add(group_prefix_[s * G + k], amounts[k][s]);
  for (std::size_t k = 0; k < experts_.size(); ++k) {
    auto& table = experts_[k];
    auto& b = table.breaks;
    b = {0, routed_experts};
    for (const auto& r : ranges[k]) {
      b.push_back(r.first);
      b.push_back(r.last);
    }
    std::sort(b.begin(), b.end());
    b.erase(std::unique(b.begin(), b.end()), b.end());
    const auto B = b.size();
    const auto index_of = [&](std::uint64_t e) {
      return static_cast<std::size_t>(std::lower_bound(b.begin(), b.end(), e) - b.begin());
    };
    // Per slot, bytes per expert that start and that end at each breakpoint.
    std::vector<std::uint64_t> starts(slots_ * B, 0), ends(slots_ * B, 0);
    for (const auto& r : ranges[k]) {
      auto& up = starts[r.slot * B + index_of(r.first)];
      auto& down = ends[r.slot * B + index_of(r.last)];
      up = checked_add(up, r.bytes_each);
      down = checked_add(down, r.bytes_each);
    }
    table.at_break.assign((slots_ + 1) * B, 0);
    table.per_expert.assign((slots_ + 1) * B, 0);
    for (std::uint64_t s = 0; s < slots_; ++s) {
      std::uint64_t density = 0;  // bytes per expert in the current segment of slot s
      std::uint64_t in_slot = 0;  // bytes of experts [0, b[i]) in slot s
      std::uint64_t first_density = 0;
      for (std::size_t i = 0; i < B; ++i) {
        table.at_break[(s + 1) * B + i] = checked_add(table.at_break[s * B + i], in_slot);
        if (i + 1 == B) break;
        // A range ending here started at an earlier breakpoint, so this never goes below zero.
        density = checked_sub(checked_add(density, starts[s * B + i]), ends[s * B + i]);
        if (i == 0)
          first_density = density;
        else if (density != first_density)
          experts_uniform_ = false;
        table.per_expert[(s + 1) * B + i] = checked_add(table.per_expert[s * B + i], density);
        in_slot = checked_add(in_slot, checked_mul(density, b[i + 1] - b[i]));
      }
    }
  }
}

std::pair<std::uint64_t, std::uint64_t> PlacementIndex::stage_slots(const Layout& layout, std::uint64_t stage) const {
  const auto first = layout.first_layer(stage);
  const auto count = stage < layout.stage_layers.size() ? layout.stage_layers[stage] : decoder_layers_;
  const bool last = stage + 1 >= layout.pp;
  // Stage 0 starts at the pre slot; the last stage runs to the end (MTP layers and the LM head).
  const std::uint64_t begin = stage == 0 ? 0 : first + 1;
  const std::uint64_t end = last ? slots_ : first + count + 1;
  return {begin, end};
}

RankWeights PlacementIndex::rank_weights(const Layout& layout, std::uint64_t rank, bool by_module) const {
  RankWeights rw;
  rw.rank = rank;
  rw.stage = layout.stage_of(rank);
  const auto tp_rank = layout.tp_rank(rank);
  std::uint64_t ebegin = 0, eend = 0;
  if (routed_experts_ > 0) {
    std::tie(ebegin, eend) = expert_block(routed_experts_, layout.ep, layout.ep_index(rank));
    rw.experts_per_moe_layer = eend - ebegin;
  }
  const auto moe_rank = layout.moe_tp_rank(rank);
  const auto [a, b] = stage_slots(layout, rw.stage);

  std::array<std::uint64_t, std::size(kAllModuleClasses)> module_bytes{};
  const auto G = groups_.size();
  const auto* row_a = group_prefix_.data() + a * G;
  const auto* row_b = group_prefix_.data() + b * G;
  for (std::size_t k = 0; k < G; ++k) {
    const auto& g = groups_[k];
    const auto sum = row_b[k] - row_a[k];
    if (sum == 0) continue;
    const bool over_stage = layout.dense_over_stage && splits_over_stage(g.module);
    const auto share = g.role == ParallelRole::replicated ? sum
                       : over_stage ? checked_mul(sum, slice(g.dim, layout.stage_ranks(), rank % layout.stage_ranks()))
                                    : checked_mul(sum, slice(g.dim, layout.tp, tp_rank));
    auto& m = module_bytes[static_cast<std::size_t>(g.module)];
    m = checked_add(m, share);
  }
  for (const auto& e : experts_) {
    const auto owned = (e.below(b, eend) - e.below(a, eend)) - (e.below(b, ebegin) - e.below(a, ebegin));
    const auto share = owned / layout.moe_tp + (moe_rank < owned % layout.moe_tp ? 1 : 0);
    auto& m = module_bytes[static_cast<std::size_t>(e.module)];
    m = checked_add(m, share);
  }
  for (auto m : kAllModuleClasses) {
    const auto bytes = module_bytes[static_cast<std::size_t>(m)];
    if (bytes == 0) continue;
    if (by_module) rw.bytes_by_module.emplace(m, bytes);
    rw.total = checked_add(rw.total, bytes);
  }
  rw.lm_head_bytes = module_bytes[static_cast<std::size_t>(ModuleClass::lm_head)];
  rw.expert_bytes = module_bytes[static_cast<std::size_t>(ModuleClass::routed_experts)];
  rw.mtp_bytes = module_bytes[static_cast<std::size_t>(ModuleClass::mtp)];
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
