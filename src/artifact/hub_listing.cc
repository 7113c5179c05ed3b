// Reading a saved Hub model listing; the fields are described in hub_listing.h.
//
// Strict where the plan depends on the value (id, sha, file names, sizes, LFS
// digests, parameter counts, usedStorage): wrong types and ranges are errors.
// Lenient where the value is user-authored and informational (cardData, tags):
// an unexpected shape there only leaves `license` empty. Unknown keys are
// ignored; the Hub adds fields over time.
#include "artifact/hub_listing.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <utility>

#include "artifact/artifact_json.h"
#include "core/json_read.h"

namespace preflight {

namespace {

using nlohmann::json;

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

bool ends_with_safetensors(const std::string& path) { return path.ends_with(".safetensors"); }

bool lower_hex(std::string_view s, std::size_t length) {
  return s.size() == length &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// An optional member: absent and null both mean "not given".
const json* optional_member(const json& object, std::string_view key) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

std::optional<Error> read_count(const json& value, const std::string& field, std::string_view what, std::uint64_t& out,
                                std::string_view origin) {
  const auto n = artifact::as_count(value);
  if (!n)
    return Error{std::string(origin), field,
                 fmt::format("expected {} (a non-negative integer), got {}", what, show(value))};
  out = *n;
  return std::nullopt;
}

std::optional<Error> read_sibling(const json& entry, std::size_t i, HubFile& out, std::string_view origin) {
  const std::string where = fmt::format("/siblings/{}", i);
  if (!entry.is_object())
    return Error{std::string(origin), where, fmt::format("expected an object with \"rfilename\", got {}", show(entry))};
  auto name = entry.find("rfilename");
  if (name == entry.end()) return Error{std::string(origin), where + "/rfilename", "missing"};
  if (!name->is_string())
    return Error{std::string(origin), where + "/rfilename", fmt::format("expected a file path, got {}", show(*name))};
  out.path = name->get<std::string>();
  if (const std::string problem = artifact::relative_path_problem(out.path); !problem.empty())
    return Error{std::string(origin), where + "/rfilename",
                 fmt::format("file path {} {}; expected a path inside the repository", quote(out.path), problem)};

  if (const json* size = optional_member(entry, "size")) {
    if (auto e = read_count(*size, where + "/size", "a size in bytes", out.size, origin)) return e;
    out.has_size = true;
  }

  if (const json* lfs = optional_member(entry, "lfs")) {
    const std::string lw = where + "/lfs";
    if (!lfs->is_object())
      return Error{std::string(origin), lw, fmt::format("expected an object with sha256 and size, got {}", show(*lfs))};
    auto sha = lfs->find("sha256");
    if (sha == lfs->end()) return Error{std::string(origin), lw + "/sha256", "missing"};
    if (!sha->is_string() || !lower_hex(sha->get_ref<const std::string&>(), 64))
      return Error{std::string(origin), lw + "/sha256",
                   fmt::format("expected 64 lower-case hex digits, got {}", show(*sha))};
    out.lfs_sha256 = sha->get<std::string>();
    if (const json* lfs_size_value = optional_member(*lfs, "size")) {
      std::uint64_t lfs_size = 0;
      if (auto e = read_count(*lfs_size_value, lw + "/size", "a size in bytes", lfs_size, origin)) return e;
      // For an LFS file the listing's size is the object's size; two different
      // figures mean the listing was edited or mixes revisions.
      if (out.has_size && lfs_size != out.size)
        return Error{std::string(origin), lw + "/size",
                     fmt::format("{} disagrees with {}/size {}", lfs_size, where, out.size)};
      out.size = lfs_size;
      out.has_size = true;
    }
  }
  return std::nullopt;
}

std::optional<Error> read_safetensors(const json& doc, HubListing& listing, std::string_view origin) {
  const json* st = optional_member(doc, "safetensors");
  if (st == nullptr) return std::nullopt;  // not every repository has safetensors weights
  if (!st->is_object())
    return Error{std::string(origin), "/safetensors",
                 fmt::format("expected an object with parameters and total, got {}", show(*st))};
  auto parameters = st->find("parameters");
  if (parameters == st->end()) return Error{std::string(origin), "/safetensors/parameters", "missing"};
  if (!parameters->is_object())
    return Error{std::string(origin), "/safetensors/parameters",
                 fmt::format("expected an object of dtype -> parameter count, got {}", show(*parameters))};
  for (const auto& [dtype, count] : parameters->items()) {
    std::uint64_t n = 0;
    if (auto e = read_count(count, "/safetensors/parameters/" + pointer_token(dtype), "a parameter count", n, origin))
      return e;
    listing.parameters_by_dtype.emplace(dtype, n);
  }
  auto total = st->find("total");
  if (total == st->end()) return Error{std::string(origin), "/safetensors/total", "missing"};
  return read_count(*total, "/safetensors/total", "a parameter count", listing.parameters_total, origin);
}

// cardData.license when it is a string; else the first "license:..." tag.
std::string license_of(const json& doc) {
  if (const json* card = optional_member(doc, "cardData"); card != nullptr && card->is_object())
    if (const json* license = optional_member(*card, "license");
        license != nullptr && license->is_string() && !license->get_ref<const std::string&>().empty())
      return license->get<std::string>();
  if (const json* tags = optional_member(doc, "tags"); tags != nullptr && tags->is_array())
    for (const json& tag : *tags)
      if (tag.is_string() && tag.get_ref<const std::string&>().starts_with("license:"))
        return tag.get_ref<const std::string&>().substr(8);
  return "";
}

Result<HubListing> parse_listing_checked(std::string_view json_text, std::string_view origin) {
  auto doc = parse_json(json_text, origin, "");
  if (!doc) return doc.error();
  if (!doc->is_object())
    return Error{std::string(origin), "",
                 fmt::format("expected a JSON object (a saved "
                             "https://huggingface.co/api/models/ORG/NAME?blobs=true), got {}",
                             show(*doc))};
  HubListing listing;

  auto id = doc->find("id");
  if (id == doc->end())
    return Error{std::string(origin), "/id", "missing; a listing names its repository (\"org/name\")"};
  if (!id->is_string() || id->get_ref<const std::string&>().empty())
    return Error{std::string(origin), "/id",
                 fmt::format("expected a repository id such as \"org/name\", got {}", show(*id))};
  listing.id = id->get<std::string>();

  if (const json* sha = optional_member(*doc, "sha")) {
    if (!sha->is_string() || !lower_hex(sha->get_ref<const std::string&>(), 40))
      return Error{std::string(origin), "/sha",
                   fmt::format("expected a commit (40 lower-case hex digits), got {}", show(*sha))};
    listing.sha = sha->get<std::string>();
  }

  auto siblings = doc->find("siblings");
  if (siblings == doc->end())
    return Error{std::string(origin), "/siblings",
                 "missing; expected the repository's files (save the listing with ?blobs=true "
                 "to get their sizes)"};
  if (!siblings->is_array())
    return Error{std::string(origin), "/siblings", fmt::format("expected an array of files, got {}", show(*siblings))};
  std::unordered_map<std::string, std::size_t> first_at;
  std::uint64_t total_bytes = 0;
  listing.siblings.reserve(siblings->size());
  for (std::size_t i = 0; i < siblings->size(); ++i) {
    HubFile file;
    if (auto e = read_sibling((*siblings)[i], i, file, origin)) return *e;
    if (auto [it, inserted] = first_at.emplace(file.path, i); !inserted)
      return Error{std::string(origin), fmt::format("/siblings/{}/rfilename", i),
                   fmt::format("{} is listed twice (first at /siblings/{})", quote(file.path), it->second)};
    if (file.size > kU64Max - total_bytes)
      return Error{std::string(origin), fmt::format("/siblings/{}/size", i),
                   "the file sizes add up to more than 2^64 bytes"};
    total_bytes += file.size;
    listing.siblings.push_back(std::move(file));
  }

  if (auto e = read_safetensors(*doc, listing, origin)) return *e;

  if (const json* used = optional_member(*doc, "usedStorage")) {
    std::uint64_t n = 0;
    if (auto e = read_count(*used, "/usedStorage", "a size in bytes", n, origin)) return *e;
    listing.used_storage = n;
  }
  listing.license = license_of(*doc);
  return listing;
}

}  // namespace

std::uint64_t HubListing::shard_count() const {
  return static_cast<std::uint64_t>(
      std::count_if(siblings.begin(), siblings.end(), [](const HubFile& f) { return ends_with_safetensors(f.path); }));
}

std::uint64_t HubListing::shard_bytes() const {
  std::uint64_t sum = 0;
  for (const auto& f : siblings)
    if (f.has_size && ends_with_safetensors(f.path)) sum += f.size;
  return sum;
}

std::uint64_t HubListing::file_bytes() const {
  std::uint64_t sum = 0;
  for (const auto& f : siblings)
    if (f.has_size) sum += f.size;
  return sum;
}

Result<HubListing> parse_hub_listing(std::string_view json_text, std::string_view origin) {
  try {
    return parse_listing_checked(json_text, origin);
  } catch (const json::exception& e) {
    // Not expected (every access is type-checked first); no exception escapes.
    return Error{std::string(origin), "", fmt::format("invalid listing: {}", e.what())};
  }
}

}  // namespace preflight
