#include "model_source.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <tuple>

#include "artifact/hf_quant_config.h"
#include "artifact/safetensors_header.h"
#include "artifact/safetensors_index.h"
#include "core/json_read.h"
#include "file_read.h"
#include "hub_source.h"
#include "model/model_catalogue.h"

namespace preflight::cli {

namespace fs = std::filesystem;

namespace {

// Reads only the 8-byte length and the JSON header of a shard, never the tensor data.
Result<NamedHeader> read_shard_header(const fs::path& path) {
  const auto name = path.string();
  if (auto e = check_regular_file(name)) return *e;
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return Error{name, "", "cannot read the file size"};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{name, "", "cannot open the file"};
  std::string first(8, '\0');
  in.read(first.data(), 8);
  first.resize(static_cast<std::size_t>(in.gcount()));
  auto length = parse_safetensors_header_length(first, name);
  if (!length) return length.error();
  if (8 + *length > size)
    return Error{name, "", fmt::format("header length {} runs past the {}-byte file", *length, size)};
  std::string header(static_cast<std::size_t>(*length), '\0');
  in.read(header.data(), static_cast<std::streamsize>(*length));
  auto parsed = parse_safetensors_header(header, *length, size, name);
  if (!parsed) return parsed.error();
  return NamedHeader{path.filename().string(), std::move(parsed).value()};
}

enum class JsonKind { config, index, listing };

// What a .json file given as MODEL is (its keys say).
JsonKind classify(const std::string& text) {
  auto doc = parse_json(text, "MODEL", "", DuplicateKeys::last_wins);
  if (!doc || !doc->is_object()) return JsonKind::config;  // the config reader reports what is wrong
  if (doc->contains("siblings")) return JsonKind::listing;
  if (doc->contains("weight_map") ||
      (doc->contains("metadata") && !doc->contains("model_type") && !doc->contains("architectures")))
    return JsonKind::index;
  return JsonKind::config;
}

// A snapshot folder's files: config.json, the index when there is one, the
// headers of the shards it names (or of every *.safetensors without one; only
// `only_shard` when a single shard was given), and a saved listing.
Result<ModelFiles> folder_files(const fs::path& dir, const std::optional<fs::path>& only_shard,
                                const std::optional<fs::path>& index_file,
                                const std::optional<std::string>& listing_text, const std::string& listing_origin) {
  ModelFiles files;
  const auto config_path = dir / "config.json";
  auto config = read_file(config_path.string());
  if (!config) {
    // A config.json that is there but cannot be read (a FIFO, a folder, no
    // permission) is named for what it is; only a missing one is "no config.json".
    std::error_code ec;
    if (fs::symlink_status(config_path, ec).type() != fs::file_type::not_found && !ec) return config.error();
    return Error{config_path.string(), "", "no config.json beside the given file: preflight needs the config"};
  }
  files.config = std::move(config).value();
  files.config_origin = config_path.string();
  files.name = dir.filename().string().empty() ? dir.string() : dir.filename().string();
  files.source = config_path.string();
  if (const auto hf_path = dir / "hf_quant_config.json"; fs::exists(hf_path)) {
    auto hf = read_file(hf_path.string());
    if (!hf) return hf.error();
    if (auto e = take_hf_quant_config(files, *hf, hf_path.string())) return *e;
  }

  files.sentence_transformers_config = fs::exists(dir / "modules.json");

  // The index (when there is one) says which .safetensors files are the checkpoint.
  const auto index_path = index_file.value_or(dir / "model.safetensors.index.json");
  if (fs::exists(index_path)) {
    auto text = read_file(index_path.string());
    if (!text) return text.error();
    auto parsed = parse_safetensors_index(*text, index_path.string());
    if (!parsed) return parsed.error();
    files.index = std::move(parsed).value();
  }
  std::vector<fs::path> shards;
  if (only_shard) {
    shards.push_back(*only_shard);
  } else {
    std::vector<std::string> present;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.is_regular_file() && entry.path().extension() == ".safetensors")
        present.push_back(entry.path().filename().string());
    const auto selection = select_checkpoint_shards(std::move(present), files.index ? &*files.index : nullptr);
    for (const auto& f : selection.shards) shards.push_back(dir / f);
    if (auto note = selection.ignored_note()) files.notes.push_back(*note);
  }
  for (const auto& s : shards) {
    auto h = read_shard_header(s);
    if (!h) return h.error();
    files.headers.push_back(std::move(h).value());
  }
  if (!files.headers.empty())
    files.source += fmt::format(" + {} shard header(s)", files.headers.size());
  else if (files.index)
    files.source += " + " + index_path.filename().string();
  if (listing_text) {
    auto listing = parse_hub_listing(*listing_text, listing_origin);
    if (!listing) return listing.error();
    files.listing = std::move(listing).value();
    files.listing_origin = listing_origin;
    files.source += " + hub listing";
  }
  return files;
}

// MODEL as a path: a folder, a shard, a config, an index or a saved listing.
Result<ModelFiles> path_files(const std::string& arg) {
  std::error_code ec;
  const fs::path path(arg);
  if (fs::is_directory(path, ec)) return folder_files(path, std::nullopt, std::nullopt, std::nullopt, "");
  const auto dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (path.extension() == ".safetensors") return folder_files(dir, path, std::nullopt, std::nullopt, "");
  auto text = read_file(path.string());
  if (!text) return text.error();
  switch (classify(*text)) {
    case JsonKind::listing:
      return folder_files(dir, std::nullopt, std::nullopt, *text, path.string());
    case JsonKind::index:
      return folder_files(dir, std::nullopt, path, std::nullopt, "");
    case JsonKind::config:
      break;
  }
  ModelFiles files;
  files.name = arg;
  files.config = std::move(text).value();
  files.config_origin = path.string();
  files.source = path.string();
  return files;
}

}  // namespace

Result<LoadedModel> load_model(const std::string& arg, const ModelOverrides& overrides, const HubFetchOptions* hub) {
  if (auto e = validate_model_overrides(overrides)) return *e;  // before anything is read
  std::error_code ec;
  auto what = resolve_model_argument(arg, !arg.empty() && fs::exists(arg, ec));
  if (!what) return what.error();
  switch (what->kind) {
    case ModelArgumentKind::hub:
      return load_hub_model(*what->hub, hub ? *hub : HubFetchOptions{}, overrides);
    case ModelArgumentKind::catalogue:
      return load_catalogue_only(arg, overrides);
    case ModelArgumentKind::path:
      break;
  }
  auto files = path_files(arg);
  if (!files) return files.error();
  return load_model_files(std::move(files).value(), overrides);
}

Result<LoadedModel> load_catalogue_or_hub(const std::string& arg, const ModelOverrides& overrides, bool allow_hub,
                                          const HubFetchOptions& hub) {
  auto what = resolve_model_argument(arg, false, false);
  if (!what) return what.error();
  if (what->kind != ModelArgumentKind::hub) return load_catalogue_only(arg, overrides, true);
  if (!allow_hub)
    return Error{
        "model", arg,
        "a Hugging Face hub id; this server plans catalogue models only (start it with `preflight serve --hub` "
        "to fetch hub metadata)"};
  // A commit never changes: keep what it gave (bounded), so a page's many
  // requests for one model cost one fetch. Branches and tags are resolved each time.
  static std::mutex mutex;
  static std::map<std::tuple<std::string, std::string, std::string, std::string, int>, LoadedModel> cache;
  const bool pinned = is_commit_id(what->hub->revision);
  const auto key =
      std::make_tuple(arg, overrides.quantize, overrides.dtype, overrides.runner, static_cast<int>(hub.shard_headers));
  if (pinned && !hub.refresh) {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  auto loaded = load_hub_model(*what->hub, hub, overrides);
  if (!loaded || !pinned) return loaded;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(key); it != cache.end())
    it->second = *loaded;  // a refresh replaces what was kept
  else if (cache.size() < 64)
    cache.emplace(key, *loaded);
  return loaded;
}

Result<LoadedModel> load_uploaded_model(const std::string& name, const std::string& config, const std::string& index,
                                        const std::string& listing, const ModelOverrides& overrides) {
  const std::string origin = name.empty() ? "uploaded config.json" : name;
  if (config.empty()) return Error{origin, "", "the upload has no config.json text"};
  if (classify(config) != JsonKind::config)
    return Error{origin, "", "this is an index or a hub listing, not a config.json; send the config as the model"};
  ModelFiles files;
  files.name = origin;
  files.config = config;
  files.config_origin = origin;
  files.source = origin;
  if (!index.empty()) {
    auto parsed = parse_safetensors_index(index, origin + " (index)");
    if (!parsed) return parsed.error();
    files.index = std::move(parsed).value();
    files.source += " + uploaded index";
  }
  if (!listing.empty()) {
    auto parsed = parse_hub_listing(listing, origin + " (hub listing)");
    if (!parsed) return parsed.error();
    files.listing = std::move(parsed).value();
    files.listing_origin = origin + " (hub listing)";
    files.source += " + uploaded hub listing";
  }
  return load_model_files(std::move(files), overrides);
}

Result<LoadedModel> load_catalogue_only(const std::string& arg, const ModelOverrides& overrides, bool memoize) {
  if (!memoize) {
    auto files = catalogue_files(arg);
    if (!files) return files.error();
    return load_model_files(std::move(files).value(), overrides);
  }
  // The web server plans the same few catalogue models over and over: building
  // a manifest (quantization rules matched by name) costs more than the plan,
  // and a catalogue model with given overrides never changes, so keep it.
  static std::mutex mutex;
  static std::map<std::tuple<std::string, std::string, std::string, std::string>, LoadedModel> cache;
  const auto key = std::make_tuple(arg.empty() ? std::string(kDefaultModel) : arg, overrides.quantize, overrides.dtype,
                                   overrides.runner);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  auto files = catalogue_files(arg);
  if (!files) return files.error();
  auto loaded = load_model_files(std::move(files).value(), overrides);
  if (!loaded) return loaded;
  std::lock_guard<std::mutex> lock(mutex);
  if (cache.size() < 256) cache.emplace(key, *loaded);  // bounded: names are the catalogue's, overrides a few
  return loaded;
}

}  // namespace preflight::cli
