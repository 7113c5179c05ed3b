// MODEL as a Hugging Face Hub id: `org/name`, `org/name@revision`,
// `hf://...`. Reads only metadata: the listing with per-file sizes (which
// pins the revision to a commit), config.json, the safetensors index when there
// is one (it says which files are the checkpoint), and then either
//  - every shard's header by two range requests (8 bytes, then the header), or
//  - each shard's first 8 bytes (its header length, so payload = listing
//    size - 8 - N is exact per shard), reading in full only the headers of
//    shards whose bytes differ from what the index places there;
// never tensor data. `auto` reads every header when they are estimated at no
// more than 2 MB (most models), else the index and lengths (Kimi K3's 497,220
// tensors take 76 MB of headers). Everything fetched is cached by commit under the XDG cache
// (immutable, so kept forever); HF_HUB_OFFLINE=1 reads the cache alone.
#pragma once

#include <cstdint>
#include <string>

#include "core/result.h"
#include "hub/hub_reference.h"
#include "model/model_overrides.h"
#include "model_source.h"
#include "request_budget.h"

namespace preflight::cli {

enum class ShardHeaderMode { automatic, all, lengths };

// "auto" | "all" | "lengths" (--shard-headers).
Result<ShardHeaderMode> parse_shard_header_mode(const std::string& text);

struct HubFetchOptions {
  bool no_cache = false;  // --no-cache: neither read nor write the cache
  bool refresh = false;   // --refresh: fetch again and overwrite the cache
  unsigned concurrency = 16;
  ShardHeaderMode shard_headers = ShardHeaderMode::automatic;
  std::uint64_t header_budget_bytes = 2'000'000;  // auto: every header when estimated at no more (2 MB, 10^6)
  // A web request's deadline and client state (serve --hub): the fetch ends by
  // the deadline and stops when the client goes. Null on the command line.
  const RequestBudget* budget = nullptr;
};

Result<LoadedModel> load_hub_model(const HubReference& ref, const HubFetchOptions& options,
                                   const ModelOverrides& overrides);

}  // namespace preflight::cli
