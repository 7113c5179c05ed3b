// Placement: each rank's share of every stored tensor, in bytes, by module.
//
// Rules (planning estimates of what vLLM and SGLang do):
//  - PP stages hold their decoder layers; tensors outside the layers go to
//    the first stage (embedding, vision tower, projector) or the last (LM
//    head, final norm, MTP layers).
//  - column / row / vocab tensors split their sharded dimension over the
//    attention TP group; when it does not divide, the first ranks hold one
//    more slice.
//  - routed experts are dealt out in contiguous blocks over the EP groups of
//    a stage (uneven counts put one more expert on the first groups: the
//    heaviest rank decides), and each expert's bytes are split over MoE-TP.
//  - replicated tensors (norms, routers, low-rank and latent projections, the
//    vision tower and projector) are counted in full on every rank of their stage.
//
// PlacementIndex groups the manifest once per model (by layer, module, role
// and split dimension; experts as per-layer prefix sums), so one rank's share
// costs O(layers x groups) whatever the tensor count: the solvers plan
// thousands of layouts.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "model/model_spec.h"
#include "plan/layout.h"

namespace preflight {

struct RankWeights {
  std::uint64_t rank = 0;
  std::uint64_t stage = 0;
  std::map<ModuleClass, std::uint64_t> bytes_by_module;
  std::uint64_t experts_per_moe_layer = 0;  // routed experts this rank's EP group owns in each MoE layer
  std::uint64_t total = 0;
};

class PlacementIndex {
 public:
  PlacementIndex() = default;
  PlacementIndex(const TensorManifest& manifest, std::uint64_t decoder_layers, std::uint64_t routed_experts);

  RankWeights rank_weights(const Layout& layout, std::uint64_t rank) const;
  // The ranks whose ledgers can differ, one per class: in each stage, local
  // rank 0 is the heaviest (extra TP slices and extra experts go first); when
  // experts differ in size (per-expert ignore lists) every EP group is checked.
  std::vector<std::uint64_t> representative_ranks(const Layout& layout) const;
  std::uint64_t replicated_bytes() const { return replicated_; }

 private:
  struct Group {
    ModuleClass module = ModuleClass::norms;
    ParallelRole role = ParallelRole::replicated;
    std::uint64_t dim = 1;     // the split dimension (1 for replicated)
    std::uint64_t amount = 0;  // replicated: bytes; split roles: bytes per slice of `dim`
  };
  struct ExpertPrefix {
    ModuleClass module = ModuleClass::routed_experts;
    std::vector<std::uint64_t> prefix;  // prefix[e] = bytes of experts [0, e) in this slot
  };
  struct Slot {
    std::vector<Group> groups;
    std::vector<ExpertPrefix> experts;
  };
  // slots_[0]: tensors outside the layers that live on the first stage;
  // slots_[1 + l]: decoder (or MTP) layer l; slots_.back(): those on the last stage.
  std::vector<Slot> slots_;
  std::uint64_t decoder_layers_ = 0;
  std::uint64_t routed_experts_ = 0;
  std::uint64_t replicated_ = 0;
  bool experts_uniform_ = true;
};

// Every rank's weights (builds the index; for one-off plans and tests).
std::vector<RankWeights> place_weights(const TensorManifest& manifest, const Layout& layout,
                                       std::uint64_t decoder_layers, std::uint64_t routed_experts);

}  // namespace preflight
