// model.safetensors.index.json: which shard file holds each tensor of a
// sharded checkpoint.
//
// Format (written by transformers' save_pretrained / huggingface_hub's
// split_torch_state_dict_into_shards; the Hub shows it beside the shards):
//   {"metadata": {"total_size": 13761264768, ...},
//    "weight_map": {"model.embed_tokens.weight": "model-00001-of-00002.safetensors", ...}}
// The shard files are the distinct weight_map values. The "-of-N" suffix is
// never trusted for the count: gpt-oss-20b names model-00000/00001/00002-of-00002
// (3 files). metadata.total_size is reported as found, not as bytes: it is not
// always a byte count (DeepSeek-V3's is twice the element count, 1,369,062,772,000).
// Some copies keep only the metadata (tests/data/reference/models/*/model.safetensors.index.metadata.json),
// so a file with "metadata" and no "weight_map" is accepted.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace preflight {

struct SafetensorsIndex {
  std::optional<std::uint64_t> total_size;        // metadata.total_size, as written
  std::optional<std::uint64_t> total_parameters;  // metadata.total_parameters, when present
  // tensor -> file, as views into `storage` (the index text itself on the fast
  // path): Kimi K3's 497,220 names cost no allocation each, and the text is kept
  // instead of a copy of every name (peak 192 -> ~100 MB while reading it).
  // Views may also point at string literals (tests); never at a temporary.
  std::map<std::string_view, std::string_view> weight_map;
  std::vector<std::string> shard_files;  // unique weight_map values, sorted
  std::shared_ptr<const void> storage;   // what weight_map's views point into; shared by copies
};

// Errors: not JSON, not an object, neither weight_map nor metadata, a
// weight_map that is not an object of file names (or is empty), a file name
// that is not relative to the model folder, total_size / total_parameters that
// are not non-negative integers (or strings of digits), duplicate keys.
// The plain shape every writer produces is scanned directly (plain_index_scan.h);
// anything else, errors included, goes through the full JSON reader.
// The text is shared with the result (its weight_map views point into it); the
// string_view overload copies it first.
Result<SafetensorsIndex> parse_safetensors_index(std::shared_ptr<const std::string> json_text, std::string_view origin);
Result<SafetensorsIndex> parse_safetensors_index(std::string_view json_text, std::string_view origin);
// The full reader alone: what the fast path must agree with (tests, fuzzing).
Result<SafetensorsIndex> parse_safetensors_index_full(std::string_view json_text, std::string_view origin);

// Which .safetensors files are the checkpoint. With an index that has a
// weight_map, the files it names: a folder or repository may also hold the same
// weights under other names (Mistral's consolidated.safetensors beside
// model-0000N-of-0000M.safetensors), which must not be counted twice. Without
// one (or with a metadata-only index), every file present.
struct ShardSelection {
  std::vector<std::string> shards;   // to read, sorted
  std::vector<std::string> ignored;  // present, not named by the index
  std::vector<std::string> absent;   // named by the index, not present
  // "not read: consolidated.safetensors (...)" for the reader notes, when files were left out.
  std::optional<std::string> ignored_note() const;
};
ShardSelection select_checkpoint_shards(std::vector<std::string> present, const SafetensorsIndex* index);

}  // namespace preflight
