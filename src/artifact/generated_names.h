// The stored names a generated manifest stands for, found without expanding them.
//
// An "{E}" entry stands for one stored tensor per expert: Kimi K3's ~4,000 entries
// stand for 497,220 names. Reconciling a hub read used to build a hash table of
// every concrete name (69 MB for K3, and most of the time: each lookup a cache and
// TLB miss). Here a concrete name is matched against the entries instead: directly,
// or with one of its digit runs put back as "{E}" and the number checked against
// the entry's instance range. The table holds entries, not names, so it stays in
// cache. Checked against the expansion (concrete_tensors) in generated_names_test.cc.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/tensor_manifest.h"

namespace preflight {

class GeneratedNames {
 public:
  // One concrete stored tensor: entry `entry` of the manifest, its instance (0 unless "{E}").
  struct Slot {
    std::uint32_t entry = 0;
    std::uint32_t instance = 0;
  };

  explicit GeneratedNames(const TensorManifest& manifest);

  // The tensor a stored name stands for. When two entries generate the same name,
  // the earlier entry (as an expansion in manifest order would keep it).
  std::optional<Slot> find(std::string_view name) const;

  const StoredTensor& entry(Slot s) const { return manifest_.tensors[s.entry]; }
  bool templated(Slot s) const { return templated_[s.entry]; }
  std::string name(Slot s) const;

  void mark_seen(Slot s) { seen_[offset_[s.entry] + s.instance] = true; }
  // Every concrete tensor not marked seen, in manifest order.
  void for_each_unseen(const std::function<void(Slot)>& fn) const;

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  const TensorManifest& manifest_;
  std::vector<bool> templated_;      // by entry: an "{E}" entry
  std::vector<std::size_t> offset_;  // by entry: its first slot in seen_
  std::vector<bool> seen_;           // one per concrete tensor
  // Whole names (plain entries, and "{E}" entries whose number touches other digits).
  std::unordered_map<std::string, Slot, Hash, std::equal_to<>> direct_;
  // "{E}" names, to the entries that carry them (experts split over entries by first_instance).
  std::unordered_map<std::string, std::vector<std::uint32_t>, Hash, std::equal_to<>> templates_;
  mutable std::string key_;  // find's scratch key (find is not thread-safe)
};

}  // namespace preflight
