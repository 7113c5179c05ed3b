// Official facts about a released artifact that the config cannot give:
// shard and file counts and bytes, revision, logical parameter count as the hub
// reports it, license clauses. Each fact carries its source. Read from a
// catalogue entry (data/models/<name>/artifact.json).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace preflight {

struct LicenseFacts {
  std::string name;                  // "Kimi K3 License"
  std::vector<std::string> clauses;  // one line each: what procurement must check
  std::string source;
};

struct ArtifactFacts {
  std::string hub_id;      // "moonshotai/Kimi-K3"
  std::string revision;    // pinned commit
  std::string checked_on;  // date the facts were read
  std::uint64_t shard_count = 0;
  std::uint64_t shard_bytes = 0;  // sum of *.safetensors file sizes (headers included)
  std::uint64_t file_count = 0;   // all visible files in the revision
  std::uint64_t file_bytes = 0;
  std::uint64_t used_storage_bytes = 0;  // hub usedStorage (repository accounting)
  std::uint64_t logical_parameters = 0;  // hub safetensors parameter total
  std::uint64_t tensor_count = 0;
  std::uint64_t tensor_payload_bytes = 0;    // index metadata.total_size when it is bytes
  std::uint64_t recipe_vram_minimum_gb = 0;  // serving recipe's stated minimum (GB), if any
  std::string activated_parameters_card;     // as the model card states it ("104.2B")
  std::string source;                        // where these facts were read
  LicenseFacts license;
  std::vector<std::string> recipe_notes;  // serving-recipe facts worth showing (dated)
};

Result<ArtifactFacts> parse_artifact_facts(std::string_view json_text, std::string_view origin);

}  // namespace preflight
