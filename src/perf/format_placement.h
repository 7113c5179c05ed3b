// FormatPlacement: each rank's share of the weights by storage format and module.
//
// The plan's PlacementIndex knows a rank's bytes by module; a decode step needs
// them by storage format too (an MXFP4 expert is read at 4.25 bits, the BF16
// trunk at 16). Rather than re-deriving the placement rules, this builds one
// PlacementIndex per traffic format over the manifest's tensors of that format,
// so every TP slice, EP block, MoE-TP split and PP stage is exactly the plan's.
// Summed over formats, a rank's bytes equal the plan's rank_weights total up to
// the odd bytes of uneven MoE-TP splits (at most one byte per format and module).
//
// It also keeps what placement does not: parameters per byte of each (format,
// module) group, so math can be counted from bytes; the embedding row bytes
// (a decode step gathers rows, it does not read the table); which layers are
// MoE layers; and the embedding's vocab slice a tied LM head reads.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/model_spec.h"
#include "placement/layout.h"
#include "placement/placement.h"

namespace preflight {

// One rank's weights: bytes by format, then by module.
struct RankFormatWeights {
  std::uint64_t rank = 0;
  std::uint64_t stage = 0;
  std::uint64_t experts_per_moe_layer = 0;
  std::map<std::string, std::map<ModuleClass, std::uint64_t>> bytes;  // [format][module]
  std::uint64_t total = 0;
};

class FormatPlacement {
 public:
  explicit FormatPlacement(const ModelSpec& model);

  RankFormatWeights rank_weights(const Layout& layout, std::uint64_t rank) const;

  // Logical parameters carried by `bytes` of (format, module) on a rank: the
  // whole model's params / bytes ratio of that group (exact: within a format
  // every tensor stores the same bits per parameter; scales carry none).
  std::uint64_t params_for(const std::string& format, ModuleClass module, std::uint64_t bytes) const;

  // Bytes of one embedding row (all hidden columns) by format: what gathering
  // one token's row reads on a rank of the first stage.
  const std::map<std::string, std::uint64_t>& embedding_row_bytes() const { return embedding_row_bytes_; }
  std::uint64_t embedding_rows() const { return embedding_rows_; }

  // A tied LM head (no lm_head tensor; tie_word_embeddings) multiplies by the
  // embedding table: the bytes a TP rank of the last stage reads for it.
  bool tied_head() const { return tied_head_; }
  std::map<std::string, std::uint64_t> tied_head_bytes(const Layout& layout, std::uint64_t rank) const;

  // Decoder layers (0-indexed) holding routed experts.
  const std::set<std::uint64_t>& moe_layers() const { return moe_layers_; }
  std::uint64_t moe_layers_in(std::uint64_t first, std::uint64_t count) const;

  const std::vector<std::string>& formats() const { return formats_; }

 private:
  std::vector<std::string> formats_;
  std::map<std::string, PlacementIndex> index_;
  std::map<std::pair<std::string, ModuleClass>, std::pair<std::uint64_t, std::uint64_t>>
      params_bytes_;  // (params, bytes)
  std::map<std::string, std::uint64_t> embedding_row_bytes_;
  std::uint64_t embedding_rows_ = 0;
  bool tied_head_ = false;
  std::set<std::uint64_t> moe_layers_;
};

}  // namespace preflight
