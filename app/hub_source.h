// MODEL as a Hugging Face Hub id (issue 7): `org/name`, `org/name@revision`,
// `hf://...`. Reads only metadata: the listing with per-file sizes (which
// pins the revision to a commit), config.json, the safetensors index, and each
// shard's header by two range requests (8 bytes, then the header), never
// tensor data. Everything fetched is cached by commit under the XDG cache
// (immutable, so kept forever); HF_HUB_OFFLINE=1 reads the cache alone.
#pragma once

#include <string>

#include "core/result.h"
#include "hub/hub_reference.h"
#include "model/model_overrides.h"
#include "model_source.h"

namespace preflight::cli {

struct HubFetchOptions {
  bool no_cache = false;   // --no-cache: neither read nor write the cache
  bool refresh = false;    // --refresh: fetch again and overwrite the cache
  unsigned concurrency = 16;
};

Result<LoadedModel> load_hub_model(const HubReference& ref, const HubFetchOptions& options,
                                   const ModelOverrides& overrides);

}  // namespace preflight::cli
