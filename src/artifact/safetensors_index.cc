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
  auto doc = parse_json(json_text, origin, "");
  if (!doc) return doc.error();
  json& root = doc.value();
  if (!root.is_object())
    return Error{std::string(origin), "",
                 fmt::format("expected a JSON object with \"weight_map\" and \"metadata\", got {}",
                             show(root))};

  SafetensorsIndex index;
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
  if (map->empty())
    return Error{std::string(origin), "/weight_map",
                 "is empty; expected tensor name -> shard file entries"};

  // The DOM's strings are moved into the result rather than copied: a 25 MB
  // index has ~250k names, and copying them added about half the parse time.
  std::set<std::string> files;
  auto& members = map->get_ref<json::object_t&>();
  while (!members.empty()) {
    auto node = members.extract(members.begin());
    // Built only for an error: no allocation per tensor on the good path.
    const auto field = [&node] { return "/weight_map/" + pointer_token(node.key()); };
    json& file = node.mapped();
    if (!file.is_string())
      return Error{std::string(origin), field(),
                   fmt::format("expected a shard file name, got {}", show(file))};
    auto& name = file.get_ref<std::string&>();
    if (const std::string problem = artifact::relative_path_problem(name); !problem.empty())
      return Error{std::string(origin), field(),
                   fmt::format("shard file {} {}; expected a path inside the model folder",
                               quote(name), problem)};
    files.insert(name);
    index.weight_map.emplace_hint(index.weight_map.end(), std::move(node.key()), std::move(name));
  }
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
