// Reconciliation: the manifest generated from config.json against the real
// files (safetensors shard headers, or an index's weight_map).
//
// With shard headers every tensor's dtype, shape and bytes are known: the
// report lists missing (generated, not stored), extra (stored, not generated)
// and mis-sized tensors, and the totals add up exactly:
//   real payload = generated payload - missing + extra + sum(real - generated over mismatches).
// With an index alone only names are known: missing and extra names, and the
// index's total_size as reported (not always bytes: DeepSeek-V3's is 2 x elements).
// Header bytes (8-byte length + JSON) are reported apart from tensor payload.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "artifact/safetensors_header.h"
#include "artifact/safetensors_index.h"
#include "model/tensor_manifest.h"

namespace preflight {

struct TensorDifference {
  std::string name;
  std::string generated;  // "BF16 [7168, 4096] 58,720,256 B" or ""
  std::string real;
  std::int64_t byte_delta = 0;  // real - generated
};

struct Reconciliation {
  bool from_headers = false;       // exact (headers) or names only (index)
  std::uint64_t generated_tensors = 0;
  std::uint64_t real_tensors = 0;
  std::uint64_t generated_bytes = 0;
  std::uint64_t real_bytes = 0;    // tensor payload from headers; 0 with an index only
  std::uint64_t header_bytes = 0;  // 8 + N summed over shards
  std::uint64_t shard_count = 0;
  std::optional<std::uint64_t> index_total_size;
  std::uint64_t missing_count = 0, extra_count = 0, mismatched_count = 0;
  std::uint64_t missing_bytes = 0, extra_bytes = 0;
  std::int64_t mismatch_delta = 0;
  std::vector<TensorDifference> examples;  // the first differences, for the report (at most 20)

  bool exact() const { return missing_count == 0 && extra_count == 0 && mismatched_count == 0; }
  // real_bytes == generated_bytes - missing_bytes + extra_bytes + mismatch_delta (headers only).
  bool adds_up() const;
};

struct NamedHeader {
  std::string file;
  SafetensorsHeader header;
};

Reconciliation reconcile_with_headers(const TensorManifest& generated, const std::vector<NamedHeader>& shards);
Reconciliation reconcile_with_index(const TensorManifest& generated, const SafetensorsIndex& index);

}  // namespace preflight
