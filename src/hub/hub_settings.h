// Where the Hub is and who the user is, from the conventions the Hugging Face
// tools already use (huggingface_hub constants.py), so a user's setup works
// unchanged:
//   HF_ENDPOINT       the Hub or a mirror (default https://huggingface.co); http or
//                     https only (libcurl would also open file:// and a dozen other
//                     schemes), with a host, no spaces or control characters
//   HF_TOKEN          a token; else the token file: HF_TOKEN_PATH, else
//                     $HF_HOME/token, HF_HOME defaulting to $XDG_CACHE_HOME/huggingface
//                     or ~/.cache/huggingface (what `huggingface-cli login` writes)
//   HF_HUB_OFFLINE    1/ON/YES/TRUE (any case): no network, the cache only
//   XDG_CACHE_HOME    preflight's metadata cache: $XDG_CACHE_HOME/preflight/hub,
//                     else ~/.cache/preflight/hub; one folder per repository and
//                     commit (models--ORG--NAME/COMMIT), cached forever
// Pure: the environment comes in as a lookup function; reading the token file
// is the caller's.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "hub/hub_reference.h"

namespace preflight {

using EnvLookup = std::function<std::optional<std::string>(std::string_view)>;

struct HubSettings {
  std::string endpoint = "https://huggingface.co";  // no trailing '/'
  bool offline = false;
  std::optional<std::string> token;  // from HF_TOKEN
  std::string token_file;            // where the token file would be (read it when `token` is empty)
  std::string cache_root;            // .../preflight/hub
};

// Errors name the variable: HF_ENDPOINT: expected an http:// or https:// URL, got 'file:///etc'.
Result<HubSettings> hub_settings(const EnvLookup& env);

// How long and how often a hub read may try, from preflight's own variables
// (for tests and slow links). Each is checked: a value that is not a whole
// number in range is an error naming the variable, never a silent default.
//   PREFLIGHT_HUB_TIMEOUT_MS    one attempt of one request, 1..600000 (default 60000)
//   PREFLIGHT_HUB_ATTEMPTS      attempts per request, 1..10 (default 5)
//   PREFLIGHT_HUB_CONCURRENCY   requests in flight, 1..64 (default 16)
//   PREFLIGHT_HUB_TOTAL_S       the whole read of one model, every request and
//                               backoff included, 1..3600 s (default 300)
//   PREFLIGHT_HUB_STALL_S       a transfer with no byte for this long has
//                               stalled (a server announcing more than it
//                               sends), 1..600 s (default 15)
struct HubTransferLimits {
  long timeout_ms = 60000;
  int attempts = 5;
  unsigned concurrency = 16;
  long total_s = 300;
  long stall_s = 15;
};
Result<HubTransferLimits> hub_transfer_limits(const EnvLookup& env);

// huggingface_hub's truthy strings: 1, ON, YES, TRUE in any case.
bool env_is_true(std::optional<std::string> value);

// The listing with per-file sizes and the commit a revision resolves to:
// ENDPOINT/api/models/ORG/NAME/revision/REV?blobs=true (REV percent-encoded, '/' too).
std::string listing_url(const HubSettings& s, const HubReference& ref);
// A file at a commit: ENDPOINT/ORG/NAME/resolve/COMMIT/PATH (each path segment percent-encoded).
std::string file_url(const HubSettings& s, std::string_view repo_id, std::string_view commit, std::string_view path);
// The cache folder of one commit: CACHE_ROOT/models--ORG--NAME/COMMIT.
std::string commit_cache_dir(const HubSettings& s, std::string_view repo_id, std::string_view commit);

// RFC 3986 percent-encoding of everything but unreserved characters (and '/' when keep_slash).
std::string percent_encode(std::string_view text, bool keep_slash);

}  // namespace preflight
