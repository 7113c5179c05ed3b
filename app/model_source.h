// Resolving MODEL (CLI.md "Naming a model") at the edge: this file reads what
// a MODEL argument names (a snapshot folder, a config.json, an index, a
// .safetensors shard, a saved hub listing; the catalogue's embedded files; an
// upload's text; the Hub through hub_source.h) into ModelFiles, and the
// library's one loading stage (artifact/model_files.h) makes the model the
// plan uses: the files' manifest where they were read, --quantize / --dtype.
#pragma once

#include <string>

#include "artifact/model_files.h"
#include "core/result.h"
#include "model/model_overrides.h"

namespace preflight::cli {

struct HubFetchOptions;

// Errors name the flag or file: a bad --quantize / --dtype value is reported
// before anything is read. What MODEL names is resolve_model_argument's
// answer (an existing path is files; a hub id with a revision or hf://, or one
// the catalogue does not know, is the Hub; else a catalogue name).
Result<LoadedModel> load_model(const std::string& model_argument, const ModelOverrides& overrides = {},
                               const HubFetchOptions* hub = nullptr);

// A model from uploaded text (config, optional index and hub listing): the web
// API's way in, with no file-system access. Errors name the upload.
Result<LoadedModel> load_uploaded_model(const std::string& name, const std::string& config, const std::string& index,
                                        const std::string& listing, const ModelOverrides& overrides = {});

// A catalogue model only (the web API: a MODEL that is not a catalogue name is
// an error, never a path to open). `memoize` (the server): a catalogue model
// never changes, so keep it; a one-shot command does not pay to copy it.
Result<LoadedModel> load_catalogue_only(const std::string& model_argument, const ModelOverrides& overrides = {},
                                        bool memoize = false);

// The web API's models: a catalogue name, or (allow_hub: `serve --hub`) a hub id,
// never a path. A hub id without allow_hub is an error that says how to allow it.
Result<LoadedModel> load_catalogue_or_hub(const std::string& model_argument, const ModelOverrides& overrides,
                                          bool allow_hub, const HubFetchOptions& hub);

}  // namespace preflight::cli
