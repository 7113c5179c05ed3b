// A Hugging Face Hub model listing: the repository's files with their sizes,
// the pinned commit, and the Hub's own safetensors parameter count.
//
// Input: the JSON of https://huggingface.co/api/models/ORG/NAME?blobs=true (or
// .../revision/REV?blobs=true), saved by the user; the library never fetches.
// Fields read (the Hub API as huggingface_hub's ModelInfo / RepoSibling and
// huggingface.js describe it):
//   "id": "org/name", "sha": "<40 hex>" (the commit the listing describes),
//   "siblings": [{"rfilename": "model-00001-of-00002.safetensors", "blobId": "...",
//                 "size": 4976698672,
//                 "lfs": {"sha256": "<64 hex>", "size": 4976698672, "pointerSize": 135}}],
//   "safetensors": {"parameters": {"BF16": 8030261248}, "total": 8030261248},
//   "usedStorage": 16077766412, "cardData": {"license": "..."}, "tags": ["license:..."].
// Without ?blobs=true a sibling has only "rfilename"; its size is then unknown
// (has_size = false), never zero. Optional fields may be absent or null.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace preflight {

struct HubFile {
  std::string path;  // rfilename, relative to the repository root
  std::uint64_t size = 0;
  bool has_size = false;
  std::string lfs_sha256;  // empty when the file is not stored with LFS
};

struct HubListing {
  std::string id;
  std::string sha;  // pinned commit; empty when the listing has none
  std::vector<HubFile> siblings;
  std::map<std::string, std::uint64_t> parameters_by_dtype;  // safetensors.parameters
  std::uint64_t parameters_total = 0;                        // safetensors.total
  std::optional<std::uint64_t> used_storage;                 // usedStorage
  std::string license;                                       // cardData.license, else a "license:..." tag; may be empty

  // *.safetensors siblings (every such file in the repository, subfolders
  // included) and the sum of their known sizes. The parser refuses listings
  // whose sizes add up past 2^64, so the sums cannot overflow.
  std::uint64_t shard_count() const;
  std::uint64_t shard_bytes() const;
  // Sum of every sibling's known size.
  std::uint64_t file_bytes() const;
};

Result<HubListing> parse_hub_listing(std::string_view json_text, std::string_view origin);

}  // namespace preflight
