// The model catalogue: models embedded in the binary, by name.
//
// data/models/catalogue.json lists each entry: its config.json, artifact facts
// and, where available, its safetensors index, all embedded at build time; the
// family registry builds the ModelSpec. `kimi-k3` is the default model.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "model/model_spec.h"

namespace preflight {

struct CatalogueModel {
  std::string name;                  // "kimi-k3"
  std::vector<std::string> aliases;  // lower-case: "moonshotai/kimi-k3", "k3"
  std::string hub_id;                // "moonshotai/Kimi-K3"
  std::string description;
  std::string config_path;        // embedded path of config.json
  std::string config_provenance;  // verbatim, reconstructed, sibling...
  std::string artifact_path;      // embedded path of artifact.json; may be empty
  std::string index_path;         // embedded model.safetensors.index.json; may be empty
  // The --quantize scheme the checkpoint is, where its own quantization_config
  // could not be found and the config is the 16-bit base model's (a quantized
  // repo's sibling): applied unless the user gives --quantize (none: the base).
  std::string quantize;
  bool is_default = false;

  bool operator==(const CatalogueModel&) const = default;  // every field (ModelCatalogueQuick compares two reads)
};

inline constexpr std::string_view kDefaultModel = "kimi-k3";

// The parsed catalogue (data/models/catalogue.json); a bad embedded file is a
// programming error (std::logic_error), caught by the unit tests.
const std::vector<CatalogueModel>& model_catalogue();
Result<std::vector<CatalogueModel>> parse_model_catalogue(std::string_view json_text, std::string_view origin);

// Looks a name up (case-insensitive, aliases too); an unknown name gets a
// did-you-mean suggestion naming `origin`. A known name is found by its lines in
// the embedded file and only its entry is parsed (this is on a plan's start-up path).
Result<const CatalogueModel*> find_catalogue_model(std::string_view name, std::string_view origin);
// How many entries that quick lookup indexes (0 when the file's layout defeats it),
// so a test can tell the quick path from the full parse it falls back to.
std::size_t quick_catalogue_entries();

// Looks a name up (case-insensitive, aliases too) and builds the model.
// Unknown names get a did-you-mean suggestion naming `origin`.
Result<ModelSpec> load_catalogue_model(std::string_view name, std::string_view origin);

// Builds a model from config.json text read by the caller (a path given as MODEL).
Result<ModelSpec> load_config_model(std::string_view config_json, std::string_view origin);

}  // namespace preflight
