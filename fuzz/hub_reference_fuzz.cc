// Fuzzes the hub-id reader (MODEL as org/name[@revision] or hf://...): any text
// gives a reference, "not a hub id", or an Error, never a crash; a reference's
// URLs and cache folder build without surprises.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "hub/hub_reference.h"
#include "hub/hub_settings.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto r = preflight::parse_hub_reference(text);
  if (r.ok() && r->has_value()) {
    const auto s = preflight::hub_settings([](std::string_view) { return std::optional<std::string>{}; });
    (void)preflight::listing_url(s, **r);
    (void)preflight::file_url(s, (*r)->repo_id, (*r)->revision, "config.json");
    (void)preflight::commit_cache_dir(s, (*r)->repo_id, (*r)->revision);
  }
  return 0;
}
