#include "model_source.h"

#include "hub/hub_reference.h"
#include "file_read.h"
#include "hub_source.h"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <tuple>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "artifact/checkpoint_manifest.h"
#include "artifact/safetensors_header.h"
#include "artifact/safetensors_index.h"
#include "embedded_files.h"
#include "model/model_catalogue.h"

namespace preflight::cli {

namespace fs = std::filesystem;

namespace {

// An argument that can only mean a file: absolute or relative to "." / "..",
// or named like one of the files preflight reads.
bool looks_like_path(std::string_view arg) {
  return arg.starts_with('/') || arg.starts_with("./") || arg.starts_with("../") || arg.starts_with('~') ||
         arg.ends_with(".json") || arg.ends_with(".safetensors");
}

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
  if (8 + *length > size) return Error{name, "", fmt::format("header length {} runs past the {}-byte file", *length, size)};
  std::string header(static_cast<std::size_t>(*length), '\0');
  in.read(header.data(), static_cast<std::streamsize>(*length));
  auto parsed = parse_safetensors_header(header, *length, size, name);
  if (!parsed) return parsed.error();
  return NamedHeader{path.filename().string(), std::move(parsed).value()};
}

enum class JsonKind { config, index, listing };

JsonKind classify(const std::string& text) {
  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_object() && doc.contains("siblings")) return JsonKind::listing;
  if (doc.is_object() && (doc.contains("weight_map") || (doc.contains("metadata") && !doc.contains("model_type") &&
                                                         !doc.contains("architectures"))))
    return JsonKind::index;
  return JsonKind::config;
}

}  // namespace

ArtifactFacts facts_from_listing(const HubListing& l, const std::string& origin) {
  ArtifactFacts f;
  f.hub_id = l.id;
  f.revision = l.sha;
  f.source = fmt::format("saved hub listing {}", origin);
  f.shard_count = l.shard_count();
  f.shard_bytes = l.shard_bytes();
  f.file_count = l.siblings.size();
  f.file_bytes = l.file_bytes();
  f.used_storage_bytes = l.used_storage.value_or(0);
  f.logical_parameters = l.parameters_total;
  f.license.name = l.license;
  return f;
}

namespace {

// The config text a model was built from, kept for --quantize (which rebuilds it).
struct ConfigSource {
  std::string text;
  std::string origin;
};

Result<LoadedModel> from_folder(const fs::path& dir, const std::optional<fs::path>& only_shard,
                                const std::optional<fs::path>& index_file, const std::optional<std::string>& listing_text,
                                const std::string& listing_origin, ConfigSource& source) {
  LoadedModel loaded;
  const auto config_path = dir / "config.json";
  auto config = read_file(config_path.string());
  if (!config) return Error{config_path.string(), "", "no config.json beside the given file: preflight needs the config"};
  source = {*config, config_path.string()};
  auto model = build_model_from_config_path(*config, config_path.string());
  if (!model) return model.error();
  loaded.model = std::move(model).value();
  loaded.model.name = dir.filename().string().empty() ? dir.string() : dir.filename().string();
  loaded.source = config_path.string();

  // The index (when there is one) says which .safetensors files are the checkpoint.
  std::optional<SafetensorsIndex> index;
  const auto index_path = index_file.value_or(dir / "model.safetensors.index.json");
  if (fs::exists(index_path)) {
    auto text = read_file(index_path.string());
    if (!text) return text.error();
    auto parsed = parse_safetensors_index(*text, index_path.string());
    if (!parsed) return parsed.error();
    index = std::move(parsed).value();
  }
  std::vector<NamedHeader> headers;
  std::vector<fs::path> shards;
  if (only_shard) {
    shards.push_back(*only_shard);
  } else {
    std::vector<std::string> present;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.is_regular_file() && entry.path().extension() == ".safetensors")
        present.push_back(entry.path().filename().string());
    const auto selection = select_checkpoint_shards(std::move(present), index ? &*index : nullptr);
    for (const auto& f : selection.shards) shards.push_back(dir / f);
    if (auto note = selection.ignored_note()) loaded.model.notes.push_back(*note);
  }
  for (const auto& s : shards) {
    auto h = read_shard_header(s);
    if (!h) return h.error();
    headers.push_back(std::move(h).value());
  }
  if (!headers.empty()) {
    loaded.reconciliation = use_shard_headers(loaded.model, headers);
    loaded.source += fmt::format(" + {} shard header(s)", headers.size());
  } else if (index) {
    loaded.reconciliation = use_index_names(loaded.model, *index);
    loaded.source += " + " + index_path.filename().string();
  }
  if (listing_text) {
    auto listing = parse_hub_listing(*listing_text, listing_origin);
    if (!listing) return listing.error();
    loaded.listing = *listing;
    loaded.model.artifact = facts_from_listing(*listing, listing_origin);
    loaded.source += " + hub listing";
    // Neither headers nor an index: the listing's counts by dtype are the files' total.
    if (headers.empty() && !index) use_listing_totals(loaded.model, *listing);
  }
  return loaded;
}

}  // namespace

Result<ModelSpec> build_model_from_config_path(const std::string& text, const std::string& origin) {
  return load_config_model(text, origin);
}

namespace {

// A catalogue entry with its embedded index; `source` receives its config.
Result<LoadedModel> from_catalogue(const std::string& arg, ConfigSource& source) {
  {
    auto model = load_catalogue_model(arg.empty() ? std::string(kDefaultModel) : arg, "MODEL");
    if (!model) return model.error();
    LoadedModel loaded{std::move(model).value(), std::nullopt, std::nullopt, "embedded catalogue", std::nullopt};
    for (const auto& entry : model_catalogue()) {
      if (entry.name != loaded.model.name) continue;
      // The origin load_catalogue_model gives the same config, so errors read alike.
      source = {std::string(embedded::embedded_file(entry.config_path)),
                fmt::format("{} ({})", entry.name, entry.config_path)};
      if (entry.index_path.empty()) continue;
      auto index = parse_safetensors_index(embedded::embedded_file(entry.index_path), entry.index_path);
      if (!index) return index.error();
      loaded.reconciliation = use_index_names(loaded.model, *index);
      loaded.source += " + embedded model.safetensors.index.json";
    }
    return loaded;
  }
}

// MODEL as the files describe it; `source` receives the config it was built from.
Result<LoadedModel> load_files(const std::string& arg, ConfigSource& source) {
  std::error_code ec;
  if (!arg.empty() && !fs::exists(arg, ec) && looks_like_path(arg))
    return Error{"MODEL", "", fmt::format("{}: no such file or folder (nor a catalogue model)", arg)};
  if (arg.empty() || !fs::exists(arg, ec)) return from_catalogue(arg, source);
  const fs::path path(arg);
  if (fs::is_directory(path, ec)) return from_folder(path, std::nullopt, std::nullopt, std::nullopt, "", source);
  const auto dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (path.extension() == ".safetensors") return from_folder(dir, path, std::nullopt, std::nullopt, "", source);
  auto text = read_file(path.string());
  if (!text) return text.error();
  switch (classify(*text)) {
    case JsonKind::listing: return from_folder(dir, std::nullopt, std::nullopt, *text, path.string(), source);
    case JsonKind::index: return from_folder(dir, std::nullopt, path, std::nullopt, "", source);
    case JsonKind::config: break;
  }
  source = {*text, path.string()};
  auto model = load_config_model(*text, path.string());
  if (!model) return model.error();
  LoadedModel loaded{std::move(model).value(), std::nullopt, std::nullopt, path.string(), std::nullopt};
  loaded.model.name = arg;
  return loaded;
}

}  // namespace

namespace {

// Loads with `load` (files or catalogue only), then applies --quantize / --dtype.
Result<LoadedModel> load_with(const std::string& arg, const ModelOverrides& overrides,
                              Result<LoadedModel> (*load)(const std::string&, ConfigSource&)) {
  if (auto e = validate_model_overrides(overrides)) return *e;
  ConfigSource source;
  auto loaded = load(arg, source);
  if (!loaded || !overrides_requested(overrides)) return loaded;
  LoadedModel out = std::move(loaded).value();
  const std::string files_name = out.model.name;
  auto model = apply_model_overrides(std::move(out.model), source.text, source.origin, overrides);
  if (!model) return model.error();
  out.model = std::move(model).value();
  if (out.reconciliation && out.model.name != files_name)
    out.model.notes.push_back("the reconciliation checks the files' own manifest (before --quantize / --dtype) "
                              "against them");
  return out;
}

}  // namespace

namespace {
// Whether the catalogue has an entry by this name or alias (case-insensitive, as its lookup).
bool catalogue_knows(const std::string& name) {
  const auto lower = [](std::string s) {
    for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  };
  const auto wanted = lower(name);
  for (const auto& entry : model_catalogue()) {
    if (lower(entry.name) == wanted) return true;
    for (const auto& alias : entry.aliases)
      if (lower(alias) == wanted) return true;
  }
  return false;
}
}  // namespace

Result<std::optional<HubReference>> hub_reference_to_fetch(const std::string& arg) {
  if (arg.empty()) return std::optional<HubReference>{};
  auto ref = parse_hub_reference(arg);
  if (!ref) return ref.error();
  const bool explicit_hub = ref->has_value() && ((*ref)->revision_given || arg.starts_with("hf://"));
  if (ref->has_value() && (explicit_hub || !catalogue_knows(arg))) return ref;
  return std::optional<HubReference>{};
}

Result<LoadedModel> load_model(const std::string& arg, const ModelOverrides& overrides, const HubFetchOptions* hub) {
  std::error_code ec;
  if (!arg.empty() && !fs::exists(arg, ec) && !looks_like_path(arg)) {
    auto ref = hub_reference_to_fetch(arg);
    if (!ref) return ref.error();
    if (*ref) return load_hub_model(**ref, hub ? *hub : HubFetchOptions{}, overrides);
  }
  return load_with(arg, overrides, load_files);
}

Result<LoadedModel> load_catalogue_or_hub(const std::string& arg, const ModelOverrides& overrides, bool allow_hub,
                                          const HubFetchOptions& hub) {
  auto ref = hub_reference_to_fetch(arg);
  if (!ref) return ref.error();
  if (!*ref) return load_catalogue_only(arg, overrides);
  if (!allow_hub)
    return Error{"model", arg,
                 "a Hugging Face hub id; this server plans catalogue models only (start it with `preflight serve --hub` "
                 "to fetch hub metadata)"};
  // A commit never changes: keep what it gave (bounded), so a page's many
  // requests for one model cost one fetch. Branches and tags are resolved each time.
  static std::mutex mutex;
  static std::map<std::tuple<std::string, std::string, std::string, int>, LoadedModel> cache;
  const bool pinned = is_commit_id((*ref)->revision);
  const auto key = std::make_tuple(arg, overrides.quantize, overrides.dtype, static_cast<int>(hub.shard_headers));
  if (pinned) {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  auto loaded = load_hub_model(**ref, hub, overrides);
  if (!loaded || !pinned) return loaded;
  std::lock_guard<std::mutex> lock(mutex);
  if (cache.size() < 64) cache.emplace(key, *loaded);
  return loaded;
}


Result<LoadedModel> load_uploaded_model(const std::string& name, const std::string& config, const std::string& index,
                                        const std::string& listing, const ModelOverrides& overrides) {
  if (auto e = validate_model_overrides(overrides)) return *e;
  const std::string origin = name.empty() ? "uploaded config.json" : name;
  if (config.empty()) return Error{origin, "", "the upload has no config.json text"};
  if (classify(config) != JsonKind::config)
    return Error{origin, "", "this is an index or a hub listing, not a config.json; send the config as the model"};
  auto model = load_config_model(config, origin);
  if (!model) return model.error();
  LoadedModel loaded{std::move(model).value(), std::nullopt, std::nullopt, origin, std::nullopt};
  loaded.model.name = origin;
  if (!index.empty()) {
    auto parsed = parse_safetensors_index(index, origin + " (index)");
    if (!parsed) return parsed.error();
    loaded.reconciliation = use_index_names(loaded.model, *parsed);
    loaded.source += " + uploaded index";
  }
  if (!listing.empty()) {
    auto parsed = parse_hub_listing(listing, origin + " (hub listing)");
    if (!parsed) return parsed.error();
    loaded.listing = *parsed;
    loaded.model.artifact = facts_from_listing(*parsed, origin + " (hub listing)");
    loaded.source += " + uploaded hub listing";
    if (index.empty()) use_listing_totals(loaded.model, *parsed);
  }
  if (!overrides_requested(overrides)) return loaded;
  auto overridden = apply_model_overrides(std::move(loaded.model), config, origin, overrides);
  if (!overridden) return overridden.error();
  loaded.model = std::move(overridden).value();
  return loaded;
}

Result<LoadedModel> load_catalogue_only(const std::string& arg, const ModelOverrides& overrides) {
  // The web server plans the same few catalogue models over and over: building
  // a manifest (quantization rules matched by name) costs more than the plan,
  // and a catalogue model with given overrides never changes, so keep it.
  static std::mutex mutex;
  static std::map<std::tuple<std::string, std::string, std::string>, LoadedModel> cache;
  const auto key = std::make_tuple(arg.empty() ? std::string(kDefaultModel) : arg, overrides.quantize, overrides.dtype);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  auto loaded = load_with(arg, overrides, from_catalogue);
  if (!loaded) return loaded;
  std::lock_guard<std::mutex> lock(mutex);
  if (cache.size() < 256) cache.emplace(key, *loaded);  // bounded: names are the catalogue's, overrides a few
  return loaded;
}

}  // namespace preflight::cli
