// Placement: each rank's share of every stored tensor, in bytes, by module.
//
// Rules (planning estimates of what vLLM and SGLang do for this family):
//  - column / row / vocab tensors split their sharded dimension over the TP
//    group; when it does not divide, the first ranks hold one more slice.
//  - routed experts are owned whole by one rank; experts are dealt out in
//    contiguous blocks over EP = all GPUs; uneven counts put one more expert on
//    the first ranks (the heaviest rank decides).
//  - replicated tensors (norms, routers, low-rank and latent projections, the
//    vision tower and projector) are counted in full on every rank.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "model/model_spec.h"
#include "plan/layout.h"

namespace preflight {

struct RankWeights {
  std::uint64_t rank = 0;
  std::map<ModuleClass, std::uint64_t> bytes_by_module;
  std::uint64_t experts_per_moe_layer = 0;  // routed experts this rank owns in each MoE layer
  std::uint64_t total = 0;
};

std::vector<RankWeights> place_weights(const TensorManifest& manifest, const Layout& layout,
                                       std::uint64_t routed_experts);

// Bytes of the replicated tensors (counted on every rank).
std::uint64_t replicated_bytes(const TensorManifest& manifest);

}  // namespace preflight
