#include "plan/placement.h"

#include <algorithm>

#include "core/bytes.h"

namespace preflight {

namespace {

// Slices of a dimension of size `dim` that TP rank `tp_rank` of `tp` holds.
std::uint64_t slice(std::uint64_t dim, std::uint64_t tp, std::uint64_t tp_rank) {
  return dim / tp + (tp_rank < dim % tp ? 1 : 0);
}

// Experts [begin, end) that EP rank `r` owns when `experts` are dealt out in
// contiguous blocks, the first `experts % ep` ranks taking one extra.
std::pair<std::uint64_t, std::uint64_t> expert_block(std::uint64_t experts, std::uint64_t ep, std::uint64_t r) {
  const auto base = experts / ep;
  const auto extra = experts % ep;
  const auto begin = r * base + std::min(r, extra);
  return {begin, begin + base + (r < extra ? 1 : 0)};
}

std::uint64_t tensor_share(const StoredTensor& t, const Layout& layout, std::uint64_t rank,
                           std::uint64_t routed_experts) {
  const auto tp_rank = rank % layout.tp;
  switch (t.role) {
    case ParallelRole::replicated: return t.bytes();
    case ParallelRole::column:
    case ParallelRole::vocab:
    case ParallelRole::row: {
      const std::size_t axis = (t.role == ParallelRole::row && t.shape.size() > 1) ? 1 : 0;
      const auto dim = t.shape.empty() ? 1 : t.shape[axis];
      const auto per_slice = t.bytes_each / dim;  // exact: bytes are elements x width
      return checked_mul(checked_mul(per_slice, slice(dim, layout.tp, tp_rank)), t.instances);
    }
    case ParallelRole::expert: {
      const auto [begin, end] = expert_block(routed_experts, layout.ep, rank);
      const std::uint64_t first = t.first_instance;
      const std::uint64_t last = first + t.instances;
      const auto owned = std::min(end, last) > std::max(begin, first) ? std::min(end, last) - std::max(begin, first) : 0;
      return checked_mul(t.bytes_each, owned);
    }
  }
  return t.bytes();
}

}  // namespace

std::vector<RankWeights> place_weights(const TensorManifest& manifest, const Layout& layout,
                                       std::uint64_t routed_experts) {
  std::vector<RankWeights> ranks(layout.world);
  for (std::uint64_t r = 0; r < layout.world; ++r) {
    auto& rw = ranks[r];
    rw.rank = r;
    if (routed_experts > 0) {
      const auto [begin, end] = expert_block(routed_experts, layout.ep, r);
      rw.experts_per_moe_layer = end - begin;
    }
    for (const auto& t : manifest.tensors) {
      const auto share = tensor_share(t, layout, r, routed_experts);
      rw.bytes_by_module[t.module] = checked_add(rw.bytes_by_module[t.module], share);
      rw.total = checked_add(rw.total, share);
    }
  }
  return ranks;
}

std::uint64_t replicated_bytes(const TensorManifest& manifest) {
  std::uint64_t n = 0;
  for (const auto& t : manifest.tensors)
    if (t.role == ParallelRole::replicated) n = checked_add(n, t.bytes());
  return n;
}

}  // namespace preflight
