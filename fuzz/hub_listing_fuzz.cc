// libFuzzer target for the Hugging Face Hub listing reader
// (src/artifact/hub_listing.h).
//
// A saved API response is user-supplied text: any bytes must give a listing
// or one Error on one line, never a crash, hang or exception. For every
// listing that is accepted: file paths are unique and non-empty, the shard
// figures are a subset of the file figures, and a size is never invented.
// Seed corpus: fuzz/corpus/hub_listing/.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "artifact/hub_listing.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto listing = preflight::parse_hub_listing(text, "fuzz.json");
  if (!listing.ok()) {
    const std::string line = listing.error().to_string();
    check(!listing.error().message.empty());
    check(line.find('\n') == std::string::npos && line.find('\r') == std::string::npos);
    return 0;
  }
  check(!listing->id.empty());
  check(listing->sha.empty() || listing->sha.size() == 40);
  std::set<std::string> paths;
  for (const auto& f : listing->siblings) {
    check(!f.path.empty());
    check(paths.insert(f.path).second);
    check(f.has_size || f.size == 0);
    check(f.lfs_sha256.empty() || f.lfs_sha256.size() == 64);
  }
  check(listing->shard_count() <= listing->siblings.size());
  check(listing->shard_bytes() <= listing->file_bytes());
  return 0;
}
