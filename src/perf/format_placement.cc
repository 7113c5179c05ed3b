#include "perf/format_placement.h"

#include <algorithm>

#include "core/bytes.h"
#include "perf/traffic_format.h"

namespace preflight {

namespace {

// The TP slice of a dimension, as placement.cc deals it (first ranks take the remainder).
std::uint64_t slice(std::uint64_t dim, std::uint64_t tp, std::uint64_t tp_rank) {
  return dim / tp + (tp_rank < dim % tp ? 1 : 0);
}

}  // namespace

FormatPlacement::FormatPlacement(const ModelSpec& model) {
  std::map<std::string, std::vector<const StoredTensor*>> by_format;
  // A tensor's traffic format depends only on its storage format, dtype and bits
  // per value: the key and its map entries are looked up once per distinct
  // (format, dtype, bits, module), not per tensor (K3: 3,180 entries in a few dozen groups).
  struct Seen {
    StorageFormat format;
    Dtype dtype;
    std::uint64_t bits;
    ModuleClass module;
    const std::string* key;
    std::vector<const StoredTensor*>* tensors;
    std::pair<std::uint64_t, std::uint64_t>* params_bytes;
  };
  std::vector<Seen> seen;
  bool has_lm_head = false;
  std::size_t last = 0;                  // the group of the tensor before (runs of one group are common)
  std::uint64_t last_moe_layer = ~0ull;  // moe_layers_ gets each layer once per run of its tensors
  for (const auto& t : model.manifest.tensors) {
    const std::uint64_t bits = t.format == StorageFormat::int_packed && t.logical_params_each > 0
                                   ? t.bytes_each * 8 / t.logical_params_each
                                   : 0;
    const auto same = [&](const Seen& s) {
      return s.format == t.format && s.dtype == t.dtype && s.bits == bits && s.module == t.module;
    };
    auto group = last < seen.size() && same(seen[last]) ? seen.begin() + static_cast<std::ptrdiff_t>(last)
                                                        : std::find_if(seen.begin(), seen.end(), same);
    if (group == seen.end()) {
      auto entry = by_format.try_emplace(traffic_format_key(t)).first;
      seen.push_back(Seen{t.format, t.dtype, bits, t.module, &entry->first, &entry->second,
                          &params_bytes_[{entry->first, t.module}]});
      group = seen.end() - 1;
    }
    last = static_cast<std::size_t>(group - seen.begin());
    const std::string& key = *group->key;
    group->tensors->push_back(&t);
    auto& pb = *group->params_bytes;
    pb.first = checked_add(pb.first, t.logical_params());
    pb.second = checked_add(pb.second, t.bytes());
    if (t.module == ModuleClass::lm_head) has_lm_head = true;
    if (t.module == ModuleClass::routed_experts && t.layer != kNoLayer &&
        static_cast<std::uint64_t>(t.layer) != last_moe_layer) {
      last_moe_layer = static_cast<std::uint64_t>(t.layer);
      moe_layers_.insert(last_moe_layer);
    }
    if (t.module == ModuleClass::embedding && !t.shape.empty() && t.shape[0] > 0) {
      // One row of [vocab, hidden] (or of its scales): bytes / rows, exact for a row-major table.
      embedding_rows_ = std::max(embedding_rows_, t.shape[0]);
      auto& row = embedding_row_bytes_[key];
      row = checked_add(row, t.bytes() / t.shape[0]);
    }
  }
  tied_head_ = model.tied_embeddings && !has_lm_head && embedding_rows_ > 0;
  for (auto& [key, tensors] : by_format) {
    formats_.push_back(key);
    index_.emplace(key, PlacementIndex(tensors, model.layers.size(), model.moe.routed_experts));
  }
}

RankFormatWeights FormatPlacement::rank_weights(const Layout& layout, std::uint64_t rank) const {
  RankFormatWeights out;
  out.rank = rank;
  out.stage = layout.stage_of(rank);
  for (const auto& [key, index] : index_) {
    const auto rw = index.rank_weights(layout, rank, true);
    out.experts_per_moe_layer = std::max(out.experts_per_moe_layer, rw.experts_per_moe_layer);
    if (rw.total == 0) continue;
    out.bytes[key] = rw.bytes_by_module;
    out.total = checked_add(out.total, rw.total);
  }
  return out;
}

std::uint64_t FormatPlacement::params_for(const std::string& format, ModuleClass module, std::uint64_t bytes) const {
  const auto it = params_bytes_.find({format, module});
  if (it == params_bytes_.end() || it->second.second == 0 || bytes == 0) return 0;
  const auto [params, total] = it->second;
  return checked_mul_div(bytes, params, total, "parameters of a format's bytes");
}

std::map<std::string, std::uint64_t> FormatPlacement::tied_head_bytes(const Layout& layout, std::uint64_t rank) const {
  std::map<std::string, std::uint64_t> out;
  if (!tied_head_ || layout.stage_of(rank) + 1 != layout.pp) return out;
  // The head is vocab-parallel: this TP rank's slice of the rows, every row whole.
  const auto rows = slice(embedding_rows_, layout.tp, layout.tp_rank(rank));
  for (const auto& [key, row] : embedding_row_bytes_) out[key] = checked_mul(rows, row, "tied LM head bytes");
  return out;
}

std::uint64_t FormatPlacement::moe_layers_in(std::uint64_t first, std::uint64_t count) const {
  std::uint64_t n = 0;
  for (auto l : moe_layers_)
    if (l >= first && (count == UINT64_MAX || l < first + count)) ++n;
  return n;
}

}  // namespace preflight
