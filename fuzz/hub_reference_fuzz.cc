// Fuzzes the hub-id reader (MODEL as org/name[@revision] or hf://...): any text
// gives a reference, "not a hub id", or an Error, never a crash; a reference's
// URLs and cache folder build without surprises.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "core/text.h"
#include "hub/hub_reference.h"
#include "hub/hub_settings.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto r = preflight::parse_hub_reference(text);
  if (r.ok() && r->has_value()) {
    const auto s = preflight::hub_settings([](std::string_view) { return std::optional<std::string>{}; }).value();
    (void)preflight::listing_url(s, **r);
    (void)preflight::file_url(s, (*r)->repo_id, (*r)->revision, "config.json");
    (void)preflight::commit_cache_dir(s, (*r)->repo_id, (*r)->revision);
  }
  // The same text as HF_ENDPOINT: accepted only as an http(s) URL with a host
  // and no control characters or spaces (libcurl must never see file:// or a CR LF).
  const auto endpoint = preflight::hub_settings([&](std::string_view name) -> std::optional<std::string> {
    if (name == "HF_ENDPOINT") return std::string(text);
    return std::nullopt;
  });
  if (endpoint.ok() && !text.empty()) {
    const std::string lower = preflight::to_lower(text.substr(0, 8));
    if (!lower.starts_with("http://") && !lower.starts_with("https://")) std::abort();
    for (char c : endpoint->endpoint)
      if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7F) std::abort();
  }
  return 0;
}
