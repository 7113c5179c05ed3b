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
#include "model/model_overrides.h"
#include "model/model_spec.h"

namespace preflight::cli {

struct LoadedModel {
  ModelSpec model;
  std::optional<Reconciliation> reconciliation;  // when an index or shard headers were read
  std::optional<HubListing> listing;             // when a hub listing was read
  std::string source;                            // what was read, for the report
};

// Errors name the flag or file: a bad --quantize / --dtype value is reported
// before anything is read.
Result<LoadedModel> load_model(const std::string& model_argument, const ModelOverrides& overrides = {});

// Builds a model from config text read by the caller.
Result<ModelSpec> build_model_from_config_path(const std::string& text, const std::string& origin);

}  // namespace preflight::cli
