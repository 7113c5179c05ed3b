// Resolving MODEL (CLI.md "Naming a model") at the edge: a catalogue name, a
// snapshot folder, a config.json, an index, a .safetensors shard or a saved hub
// listing. Files are read here; everything they feed is a pure library call.
// --quantize / --dtype (model/model_overrides.h) turn the files' model into the
// one the engine loads; the reconciliation still checks the files.
#pragma once

#include <optional>
#include <string>

#include "artifact/hub_listing.h"
#include "artifact/reconciliation.h"
#include "core/result.h"
#include "hub/hub_reference.h"
#include "model/model_overrides.h"
#include "model/model_spec.h"

namespace preflight::cli {

// What a hub read cost, by file kind (response bodies; 0 for what the cache served).
struct HubTransfer {
  std::string shard_headers;  // "all" or "lengths": what was read of the shards
  std::uint64_t listing_bytes = 0, config_bytes = 0, index_bytes = 0, shard_bytes = 0;
  std::uint64_t requests = 0;
  std::uint64_t shard_lengths_read = 0;  // 8-byte prefixes (lengths mode)
  std::uint64_t shard_headers_read = 0;  // whole headers
  std::uint64_t estimated_header_bytes = 0;  // what reading every header would have cost (auto's basis)
};

struct LoadedModel {
  ModelSpec model;
  std::optional<Reconciliation> reconciliation;  // when an index or shard headers were read
  std::optional<HubListing> listing;             // when a hub listing was read
  std::string source;                            // what was read, for the report
  std::optional<HubTransfer> hub_transfer;       // when read from the Hub
};

struct HubFetchOptions;

// Errors name the flag or file: a bad --quantize / --dtype value is reported
// before anything is read. A MODEL that is not a local path and is a hub id
// (hub/hub_reference.h) is read from the Hub when it names a revision
// ("org/name@rev") or the scheme ("hf://"), or when the catalogue does not
// know it; a plain "org/name" the catalogue knows is its embedded entry.
Result<LoadedModel> load_model(const std::string& model_argument, const ModelOverrides& overrides = {},
                               const HubFetchOptions* hub = nullptr);

// Artifact facts a hub listing states (official, with the listing as source).
ArtifactFacts facts_from_listing(const HubListing& listing, const std::string& origin);

// A model from uploaded text (config, optional index and hub listing): the web
// API's way in, with no file-system access. Errors name the upload.
Result<LoadedModel> load_uploaded_model(const std::string& name, const std::string& config, const std::string& index,
                                        const std::string& listing, const ModelOverrides& overrides = {});

// A catalogue model only (the web API: a MODEL that is not a catalogue name is
// an error, never a path to open).
Result<LoadedModel> load_catalogue_only(const std::string& model_argument, const ModelOverrides& overrides = {});

// The web API's models: a catalogue name, or (allow_hub: `serve --hub`) a hub id,
// never a path. A hub id without allow_hub is an error that says how to allow it.
Result<LoadedModel> load_catalogue_or_hub(const std::string& model_argument, const ModelOverrides& overrides,
                                          bool allow_hub, const HubFetchOptions& hub);

// The hub id MODEL names when it is to be read from the Hub (a revision or
// hf:// given, or an org/name the catalogue does not know); none otherwise.
Result<std::optional<HubReference>> hub_reference_to_fetch(const std::string& model_argument);

// Builds a model from config text read by the caller.
Result<ModelSpec> build_model_from_config_path(const std::string& text, const std::string& origin);

}  // namespace preflight::cli
