#include "artifact/model_files.h"

#include <fmt/format.h>

#include <algorithm>

#include "artifact/checkpoint_manifest.h"
#include "core/text.h"
#include "embedded_files.h"
#include "model/artifact_facts.h"
#include "model/model_catalogue.h"
#include "model/pooling_runner.h"

namespace preflight {

namespace {

// Whether the catalogue has an entry by this name or alias (case-insensitive, as its lookup).
bool catalogue_knows(std::string_view name) {
  const auto wanted = to_lower(name);
  for (const auto& entry : model_catalogue()) {
    if (to_lower(entry.name) == wanted) return true;
    for (const auto& alias : entry.aliases)
      if (to_lower(alias) == wanted) return true;
  }
  return false;
}

// An argument that can only mean a file: absolute or relative to "." / "..",
// or named like one of the files preflight reads.
bool looks_like_path(std::string_view arg) {
  return arg.starts_with('/') || arg.starts_with("./") || arg.starts_with("../") || arg.starts_with('~') ||
         arg.ends_with(".json") || arg.ends_with(".safetensors");
}

}  // namespace

Result<ModelArgument> resolve_model_argument(std::string_view arg, bool path_exists, bool files_allowed) {
  if (arg.empty()) return ModelArgument{ModelArgumentKind::catalogue, std::nullopt};
  if (files_allowed && path_exists) return ModelArgument{ModelArgumentKind::path, std::nullopt};
  if (files_allowed && looks_like_path(arg))
    return Error{"MODEL", "", fmt::format("{}: no such file or folder (nor a catalogue model)", arg)};
  auto ref = parse_hub_reference(arg);
  if (!ref) return ref.error();
  if (ref->has_value()) {
    const bool explicit_hub = (*ref)->revision_given || arg.starts_with("hf://");
    if (explicit_hub || !catalogue_knows(arg)) return ModelArgument{ModelArgumentKind::hub, **ref};
  }
  return ModelArgument{ModelArgumentKind::catalogue, std::nullopt};
}

Result<ModelFiles> catalogue_files(std::string_view name) {
  auto found = find_catalogue_model(name.empty() ? kDefaultModel : name, "MODEL");
  if (!found) return found.error();
  const auto& entry = **found;
  ModelFiles files;
  files.name = entry.name;
  files.config = std::string(embedded::embedded_file(entry.config_path));
  // The origin load_catalogue_model gives, so errors read alike.
  files.config_origin = fmt::format("{} ({})", entry.name, entry.config_path);
  if (files.config.empty())
    return Error{"MODEL", "", fmt::format("{}: embedded {} is missing", entry.name, entry.config_path)};
  if (!entry.artifact_path.empty()) {
    auto facts = parse_artifact_facts(embedded::embedded_file(entry.artifact_path), entry.artifact_path);
    if (!facts) return facts.error();
    files.artifact = *facts;
  }
  files.source = "embedded catalogue";
  files.default_quantize = entry.quantize;
  if (!entry.index_path.empty()) {
    auto index = parse_safetensors_index(embedded::embedded_file(entry.index_path), entry.index_path);
    if (!index) return index.error();
    files.index = std::move(index).value();
    files.source += " + embedded model.safetensors.index.json";
  }
  return files;
}

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

Result<LoadedModel> generated_model(const ModelFiles& files, const ModelOverrides& overrides) {
  if (auto e = validate_model_overrides(overrides)) return *e;
  auto model = load_config_model(files.config, files.config_origin);
  if (!model) return model.error();
  LoadedModel loaded;
  loaded.model = std::move(model).value();
  if (!files.name.empty()) loaded.model.name = files.name;
  if (files.artifact) loaded.model.artifact = files.artifact;
  for (const auto& n : files.notes) loaded.model.notes.push_back(n);
  loaded.source = files.source;
  return loaded;
}

namespace {

// Tensor and shard names are printed in reports (the reconciliation's lines,
// inspect --tensors) and launch scripts; a newline in one could forge a line
// ("Verdict: GREEN"), an escape sequence drive the terminal. No released
// checkpoint names a tensor so: a file that does is refused, by its name.
std::optional<Error> check_names(const ModelFiles& files) {
  for (const auto& named : files.headers) {
    if (has_control(named.file))
      return Error{"", "", fmt::format("shard name {} holds a control character", echo(named.file))};
    for (const auto& t : named.header.tensors)
      if (has_control(t.name))
        return Error{named.file, "", fmt::format("tensor name {} holds a control character", echo(t.name))};
  }
  if (files.index)
    for (const auto& [tensor, shard] : files.index->weight_map) {
      if (has_control(tensor))
        return Error{"model.safetensors.index.json", "/weight_map",
                     fmt::format("tensor name {} holds a control character", echo(tensor))};
      if (has_control(shard))
        return Error{"model.safetensors.index.json", "/weight_map",
                     fmt::format("shard name {} holds a control character", echo(shard))};
    }
  return std::nullopt;
}

// The model's text that reports print: its name (often a path), family,
// architecture (config.json's architectures[0]), origin and notes (which quote
// config values). Each is made one printable line by the one rule of
// core/text.h, so no file or path can add a line to a report, in any format.
void make_printable(ModelSpec& model) {
  for (auto* text : {&model.name, &model.family, &model.architecture, &model.origin, &model.files_disagree})
    if (has_control(*text)) *text = escape_control(*text);
  for (auto& note : model.notes)
    if (has_control(note)) note = escape_control(note);
}

}  // namespace

std::optional<Error> finish_loading(LoadedModel& loaded, const ModelFiles& files, const ModelOverrides& overrides,
                                    ShardSizeCheck* check) {
  if (auto bad = check_names(files)) return bad;
  auto& model = loaded.model;
  if (check != nullptr && files.index) {
    loaded.reconciliation = use_shard_sizes(model, *check, *files.index, files.headers);
  } else if (!files.headers.empty()) {
    loaded.reconciliation = use_shard_headers(model, files.headers);
  } else if (files.index) {
    loaded.reconciliation = use_index_names(model, *files.index);
  }
  if (files.listing) {
    loaded.listing = files.listing;
    if (!files.artifact) model.artifact = facts_from_listing(*files.listing, files.listing_origin);
    // Neither headers nor an index: the listing's counts by dtype are the files' total.
    if (files.headers.empty() && !files.index) use_listing_totals(model, *files.listing);
  }
  if (overrides_requested(overrides)) {
    const std::string files_name = model.name;
    auto overridden = apply_model_overrides(std::move(model), files.config, files.config_origin, overrides);
    if (!overridden) return overridden.error();
    model = std::move(overridden).value();
    if (loaded.reconciliation && model.name != files_name)
      model.notes.push_back(
          "the reconciliation checks the files' own manifest (before --quantize / --dtype) against them");
  }
  auto asked = parse_runner(overrides.runner);
  if (!asked) return asked.error();
  const bool sentence_transformers = has_sentence_transformers_config(files);
  if (resolve_runner(*asked, sentence_transformers) == Runner::pooling)
    serve_as_pooling(model, *asked == Runner::pooling ? "--runner pooling"
                                                      : "the repo has modules.json, a Sentence Transformers config; "
                                                        "--runner generate plans it as a generating model");
  make_printable(model);
  return std::nullopt;
}

bool has_sentence_transformers_config(const ModelFiles& files) {
  if (files.sentence_transformers_config) return true;
  if (!files.listing) return false;
  return std::any_of(files.listing->siblings.begin(), files.listing->siblings.end(),
                     [](const auto& s) { return s.path == "modules.json"; });
}

Result<LoadedModel> load_model_files(ModelFiles files, const ModelOverrides& given) {
  auto overrides = given;
  const bool by_default = overrides.quantize.empty() && !files.default_quantize.empty();
  if (by_default) overrides.quantize = files.default_quantize;
  auto loaded = generated_model(files, overrides);
  if (!loaded) return loaded.error();
  if (auto e = finish_loading(loaded.value(), files, overrides)) return *e;
  if (by_default)
    loaded.value().model.notes.insert(
        loaded.value().model.notes.begin(),
        fmt::format("the catalogue's config.json is the 16-bit base model's (this repo's quantization_config was not "
                    "found): its scheme, {}, is applied by preflight's --quantize rule; --quantize none plans the base",
                    files.default_quantize));
  return loaded;
}

}  // namespace preflight
