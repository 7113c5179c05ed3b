// Reading model.safetensors.index.json; the format is described in
// safetensors_index.h. Unknown keys (e.g. a "_note", other metadata) are
// ignored so newer writers still load; every key that is read is type-checked.
#include "artifact/safetensors_index.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "artifact/artifact_json.h"
#include "artifact/plain_index_scan.h"
#include "core/json_read.h"

namespace preflight {

namespace {

using nlohmann::json;

// metadata.total_size / total_parameters: an integer as Python's json writes
// it, or a string of digits as some converters write it.
std::optional<Error> read_metadata_count(const json& metadata, std::string_view key, std::optional<std::uint64_t>& out,
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

// What the full reader's weight_map views point into: its parser's strings are
// its own, so each name is kept here (deque elements never move).
struct OwnedNames {
  std::deque<std::string> names;
  std::set<std::string, std::less<>> files;
};

Result<SafetensorsIndex> parse_index_checked(std::string_view json_text, std::string_view origin) {
  SafetensorsIndex index;
  auto owned = std::make_shared<OwnedNames>();
  index.storage = owned;
  auto& files = owned->files;
  // The weight_map's names stream straight into the result: no DOM node per name
  // (Kimi K3's index has 497,220; its DOM was over 100 MB and most of the parse).
  StreamedMembers streamed{
      "weight_map", [&](const std::string& name, const std::string& file) -> std::optional<Error> {
        const auto field = [&name] { return "/weight_map/" + pointer_token(name); };  // built only for an error
        if (const std::string problem = artifact::relative_path_problem(file); !problem.empty())
          return Error{std::string(origin), field(),
                       fmt::format("shard file {} {}; expected a path inside the model folder", quote(file), problem)};
        auto known = files.find(file);
        if (known == files.end()) known = files.insert(file).first;
        // A copy, not a move: it is allocated at its length, and the parser keeps its
        // token buffer (a moved name keeps the buffer's doubled capacity, ~60% more).
        if (index.weight_map.count(name) > 0)
          return Error{std::string(origin), "/weight_map/" + pointer_token(name),
                       "duplicate key (a second value would silently replace the first)"};
        const std::string& kept = owned->names.emplace_back(name);
        index.weight_map.emplace(kept, *known);
        return std::nullopt;
      }};
  auto doc = parse_json(json_text, origin, "", DuplicateKeys::reject, streamed);
  if (!doc) return doc.error();
  json& root = doc.value();
  if (!root.is_object())
    return Error{std::string(origin), "",
                 fmt::format("expected a JSON object with \"weight_map\" and \"metadata\", got {}", show(root))};

  const auto metadata = root.find("metadata");
  if (metadata != root.end()) {
    if (!metadata->is_object())
      return Error{std::string(origin), "/metadata", fmt::format("expected an object, got {}", show(*metadata))};
    if (auto e = read_metadata_count(*metadata, "total_size", index.total_size, origin)) return *e;
    if (auto e = read_metadata_count(*metadata, "total_parameters", index.total_parameters, origin)) return *e;
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
    return Error{std::string(origin), "/weight_map", "is empty; expected tensor name -> shard file entries"};
  index.shard_files.assign(files.begin(), files.end());
  return index;
}

// The index from the plain scan (plain_index_scan.h), or nullopt for anything
// the full reader must judge: every check of parse_index_checked holds here too,
// and a failed one declines rather than words an error.
std::optional<SafetensorsIndex> from_plain_scan(const std::shared_ptr<const std::string>& text,
                                                std::string_view origin) {
  SafetensorsIndex index;
  index.storage = text;  // the names and files are views into the text itself
  // Shards are few (96 for K3): each distinct file is checked once.
  std::set<std::string_view> files;
  std::optional<std::string_view> last_file;  // runs of one file skip the set
  const auto take = [&](std::string_view name, std::string_view file) {
    if (file != last_file && files.insert(file).second && !artifact::relative_path_problem(file).empty()) return false;
    last_file = file;
    // Writers sort the names (json.dump(sort_keys=True)): a hint at the end makes each
    // insertion constant time; a repeated name leaves the size unchanged.
    const auto before = index.weight_map.size();
    index.weight_map.emplace_hint(index.weight_map.end(), name, file);
    return index.weight_map.size() != before;
  };
  auto scan = scan_plain_index(*text, take);
  if (!scan) return std::nullopt;
  bool has_metadata = false;
  for (const auto& [key, value_text] : scan->others) {
    // Other members are small (metadata); the full parser reads their values as before.
    auto value = parse_json(value_text, origin, "", DuplicateKeys::reject);
    if (!value) return std::nullopt;
    if (key != "metadata") continue;
    has_metadata = true;
    if (!value->is_object()) return std::nullopt;
    if (read_metadata_count(*value, "total_size", index.total_size, origin)) return std::nullopt;
    if (read_metadata_count(*value, "total_parameters", index.total_parameters, origin)) return std::nullopt;
  }
  if (!scan->has_weight_map) {
    if (!has_metadata) return std::nullopt;
    index.storage.reset();
    return index;  // a metadata-only copy
  }
  if (scan->weight_map_entries == 0) return std::nullopt;
  index.shard_files.assign(files.begin(), files.end());
  return index;
}

}  // namespace

Result<SafetensorsIndex> parse_safetensors_index_full(std::string_view json_text, std::string_view origin) {
  try {
    return parse_index_checked(json_text, origin);
  } catch (const json::exception& e) {
    // Not expected (every access is type-checked first); no exception escapes.
    return Error{std::string(origin), "", fmt::format("invalid index: {}", e.what())};
  }
}

Result<SafetensorsIndex> parse_safetensors_index(std::shared_ptr<const std::string> json_text,
                                                 std::string_view origin) {
  if (auto plain = from_plain_scan(json_text, origin)) return std::move(plain).value();
  return parse_safetensors_index_full(*json_text, origin);
}

Result<SafetensorsIndex> parse_safetensors_index(std::string_view json_text, std::string_view origin) {
  return parse_safetensors_index(std::make_shared<const std::string>(json_text), origin);
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
