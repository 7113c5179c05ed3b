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
//    vision tower's embeddings, norms and biases, the projector) are counted in
//    full on every rank of their stage; the vision tower's linear layers are
//    column tensors like the language model's (vLLM and SGLang shard them).
//
// PlacementIndex groups the manifest once per model: bytes by (module, role,
// split dimension) as prefix sums over layer slots, and experts as prefix sums
// over (layer slot, expert index). A stage is a contiguous range of slots, so
// one rank's share costs O(groups), whatever the tensor or layer count: the
// solvers plan tens of thousands of layouts. An expert block's bytes are split
// over MoE-TP once per stage (the first ranks take the odd bytes).
//
// The expert sums are kept only at breakpoints (the expert indices where some
// tensor's range of experts starts or ends), with the bytes per expert between
// them: bytes are linear in the expert index between breakpoints. A manifest
// whose expert tensors each span every expert has two breakpoints, 0 and E,
// instead of E + 1 columns (Kimi K3: 96 x 897 x 8 bytes per table otherwise,
// about 1.4 MB zeroed per index, a third of a plan's page faults).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "model/model_spec.h"
#include "placement/layout.h"

namespace preflight {

// The modules a layout with dense_over_stage (SGLang's DP attention) splits
// over the stage's TP x DP ranks instead of attention TP (Layout::dense_over_stage).
inline bool splits_over_stage(ModuleClass m) {
  return m == ModuleClass::lm_head || m == ModuleClass::dense_mlp || m == ModuleClass::shared_experts;
}

struct RankWeights {
  std::uint64_t rank = 0;
  std::uint64_t stage = 0;
  std::map<ModuleClass, std::uint64_t> bytes_by_module;  // filled unless the caller asks for totals only
  std::uint64_t lm_head_bytes = 0;                       // of the total (engines skip a tied head)
  std::uint64_t expert_bytes = 0;                        // of the total, routed-expert tensors
  std::uint64_t mtp_bytes = 0;              // of the total, MTP layers (engines load them only to draft with them)
  std::uint64_t experts_per_moe_layer = 0;  // routed experts this rank's EP group owns in each MoE layer
  std::uint64_t total = 0;
};

class PlacementIndex {
 public:
  PlacementIndex() = default;
  PlacementIndex(const TensorManifest& manifest, std::uint64_t decoder_layers, std::uint64_t routed_experts);
  // The tensors given (a subset of a manifest, e.g. one storage format's), not copied.
  PlacementIndex(const std::vector<const StoredTensor*>& tensors, std::uint64_t decoder_layers,
                 std::uint64_t routed_experts);

  // `by_module` false: totals only (the solvers' fast path, no map).
  RankWeights rank_weights(const Layout& layout, std::uint64_t rank, bool by_module = true) const;
  // The ranks whose ledgers can differ, one per class: in each stage, local
  // rank 0 is the heaviest (extra TP slices and extra experts go first); when
  // experts differ in size (per-expert ignore lists) every EP group is checked.
  std::vector<std::uint64_t> representative_ranks(const Layout& layout) const;
  std::uint64_t replicated_bytes() const { return replicated_; }

 private:
  struct Group {
    ModuleClass module = ModuleClass::norms;
    ParallelRole role = ParallelRole::replicated;
    std::uint64_t dim = 1;  // the split dimension (1 for replicated)
  };
  struct ExpertTable {
    ModuleClass module = ModuleClass::routed_experts;
    std::vector<std::uint64_t> breaks;  // sorted expert indices, 0 and E included
    // [slot x breaks + i]: bytes of experts [0, breaks[i]) in slots [0, slot)
    std::vector<std::uint64_t> at_break;
    // [slot x breaks + i]: bytes per expert of experts [breaks[i], breaks[i + 1]) in slots [0, slot)
    std::vector<std::uint64_t> per_expert;
    // Bytes of experts [0, e) in slots [0, slot).
    std::uint64_t below(std::uint64_t slot, std::uint64_t e) const;
  };
  // Slots: 0 holds tensors outside the layers that live on the first stage;
  // 1 + l decoder (or MTP) layer l; the last, those on the last stage.
  std::uint64_t slots_ = 0;
  std::vector<Group> groups_;
  // group_prefix_[slot x groups + g]: group g's bytes (replicated) or bytes per
  // slice (split roles) in slots [0, slot); one row per slot keeps a stage's
  // two rows contiguous in memory.
  std::vector<std::uint64_t> group_prefix_;
  std::vector<ExpertTable> experts_;
  std::pair<std::uint64_t, std::uint64_t> stage_slots(const Layout& layout, std::uint64_t stage) const;
  std::uint64_t decoder_layers_ = 0;
  std::uint64_t routed_experts_ = 0;
  std::uint64_t replicated_ = 0;
  bool experts_uniform_ = true;
};

// Every rank's weights (builds the index; for one-off plans and tests).
std::vector<RankWeights> place_weights(const TensorManifest& manifest, const Layout& layout,
                                       std::uint64_t decoder_layers, std::uint64_t routed_experts);

}  // namespace preflight
