// Reading model.safetensors.index.json; the format is described in
// safetensors_index.h. Unknown keys (e.g. a "_note", other metadata) are
// ignored so newer writers still load; every key that is read is type-checked.
#include "artifact/safetensors_index.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "artifact/artifact_json.h"
#include "core/json_read.h"

namespace preflight {

namespace {

using nlohmann::json;

// metadata.total_size / total_parameters: an integer as Python's json writes
// it, or a string of digits as some converters write it.
std::optional<Error> read_metadata_count(const json& metadata, std::string_view key,
                                         std::optional<std::uint64_t>& out,
                                         std::string_view origin) {
  auto it = metadata.find(key);
  if (it == metadata.end()) return std::nullopt;
  std::optional<std::uint64_t> n = artifact::as_count(*it);
  if (!n && it->is_string()) n = artifact::count_from_digits(it->get_ref<const std::string&>());
  if (!n)
    return Error{std::string(origin), fmt::format("/metadata/{}", key),
                 fmt::format("expected a non-negative integer (or a string of digits) below "
                             "2^64, got {}",
                             show(*it))};
  out = n;
  return std::nullopt;
}

Result<SafetensorsIndex> parse_index_checked(std::string_view json_text, std::string_view origin) {
  SafetensorsIndex index;
  std::set<std::string> files;
  // The weight_map's names stream straight into the result: no DOM node per name
  // (Kimi K3's index has 497,220; its DOM was over 100 MB and most of the parse).
  StreamedMembers streamed{"weight_map", [&](const std::string& name, const std::string& file) -> std::optional<Error> {
    const auto field = [&name] { return "/weight_map/" + pointer_token(name); };  // built only for an error
    if (const std::string problem = artifact::relative_path_problem(file); !problem.empty())
      return Error{std::string(origin), field(),
                   fmt::format("shard file {} {}; expected a path inside the model folder", quote(file), problem)};
    auto known = files.find(file);
    if (known == files.end()) known = files.insert(file).first;
    // A copy, not a move: it is allocated at its length, and the parser keeps its
    // token buffer (a moved name keeps the buffer's doubled capacity, ~60% more).
    auto [at, inserted] = index.weight_map.try_emplace(std::string(name), *known);
    if (!inserted)
      return Error{std::string(origin), "/weight_map/" + pointer_token(at->first),
                   "duplicate key (a second value would silently replace the first)"};
    return std::nullopt;
  }};
  auto doc = parse_json(json_text, origin, "", DuplicateKeys::reject, streamed);
  if (!doc) return doc.error();
  json& root = doc.value();
  if (!root.is_object())
    return Error{std::string(origin), "",
                 fmt::format("expected a JSON object with \"weight_map\" and \"metadata\", got {}",
                             show(root))};

  const auto metadata = root.find("metadata");
  if (metadata != root.end()) {
    if (!metadata->is_object())
      return Error{std::string(origin), "/metadata",
                   fmt::format("expected an object, got {}", show(*metadata))};
    if (auto e = read_metadata_count(*metadata, "total_size", index.total_size, origin)) return *e;
    if (auto e = read_metadata_count(*metadata, "total_parameters", index.total_parameters,
                                     origin))
      return *e;
  }

  const auto map = root.find("weight_map");
  if (map == root.end()) {
    if (metadata == root.end())
      return Error{std::string(origin), "",
                   "expected \"weight_map\" (tensor name -> shard file) or \"metadata\", found "
                   "neither"};
    return index;  // a metadata-only copy
  }
  if (!map->is_object())
    return Error{std::string(origin), "/weight_map",
                 fmt::format("expected an object of tensor name -> shard file, got {}", show(*map))};
  // What stayed in the DOM is every member whose value is not a file name.
  if (const auto first = map->begin(); first != map->end())
    return Error{std::string(origin), "/weight_map/" + pointer_token(first.key()),
                 fmt::format("expected a shard file name, got {}", show(first.value()))};
  if (index.weight_map.empty())
    return Error{std::string(origin), "/weight_map",
                 "is empty; expected tensor name -> shard file entries"};
  index.shard_files.assign(files.begin(), files.end());
  return index;
}

}  // namespace

Result<SafetensorsIndex> parse_safetensors_index(std::string_view json_text,
                                                 std::string_view origin) {
  try {
    return parse_index_checked(json_text, origin);
  } catch (const json::exception& e) {
    // Not expected (every access is type-checked first); no exception escapes.
    return Error{std::string(origin), "", fmt::format("invalid index: {}", e.what())};
  }
}

std::optional<std::string> ShardSelection::ignored_note() const {
  if (ignored.empty()) return std::nullopt;
  return fmt::format("not read: {} ({} file(s) the index does not name: the same weights saved another way)",
                     fmt::join(ignored, ", "), ignored.size());
}

ShardSelection select_checkpoint_shards(std::vector<std::string> present, const SafetensorsIndex* index) {
  std::sort(present.begin(), present.end());
  ShardSelection out;
  if (index == nullptr || index->weight_map.empty()) {
    out.shards = std::move(present);
    return out;
  }
  std::set<std::string> named(index->shard_files.begin(), index->shard_files.end());
  for (auto& f : present) (named.erase(f) > 0 ? out.shards : out.ignored).push_back(std::move(f));
  out.absent.assign(named.begin(), named.end());
  return out;
}

}  // namespace preflight
