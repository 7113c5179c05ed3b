// Loading a model is one stage of the library: every way in (a
// catalogue name, a snapshot folder, a config.json, an index, one shard, a
// saved hub listing, an upload, the Hugging Face Hub) reads its bytes at the
// edge (app/) and hands them here as ModelFiles; load_model_files turns them
// into the model the plan uses:
//
//   config.json -> the family reader's model (or the generic reading)
//   the files   -> its manifest (checkpoint_manifest.h: headers, index + sizes,
//                  index names, listing totals), the generated one the cross-check
//   overrides   -> --quantize / --dtype, validated once, here
//
// resolve_model_argument decides what a MODEL argument names, from the text
// and whether a path by that name exists (the only fact the edge supplies).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "artifact/hub_listing.h"
#include "artifact/reconciliation.h"
#include "artifact/safetensors_index.h"
#include "core/result.h"
#include "hub/hub_reference.h"
#include "model/model_overrides.h"
#include "model/model_spec.h"

namespace preflight {

// What a hub read cost, by file kind (response bodies; 0 for what the cache served).
struct HubTransfer {
  std::string shard_headers;  // "all" or "lengths": what was read of the shards
  std::uint64_t listing_bytes = 0, config_bytes = 0, index_bytes = 0, shard_bytes = 0;
  std::uint64_t requests = 0;
  std::uint64_t shard_lengths_read = 0;      // 8-byte prefixes (lengths mode)
  std::uint64_t shard_headers_read = 0;      // whole headers
  std::uint64_t estimated_header_bytes = 0;  // what reading every header would have cost (auto's basis)
};

struct LoadedModel {
  ModelSpec model;
  std::optional<Reconciliation> reconciliation;  // when an index or shard headers were read
  std::optional<HubListing> listing;             // when a hub listing was read
  std::string source;                            // what was read, for the report
  std::optional<HubTransfer> hub_transfer;       // when read from the Hub
};

// A model as read: bytes and parsed documents, never a path to open.
struct ModelFiles {
  std::string name;                       // how reports name the model
  std::string config;                     // config.json's text
  std::string config_origin;              // how errors name it
  std::optional<ArtifactFacts> artifact;  // official facts beside the files (the catalogue's)
  std::optional<SafetensorsIndex> index;
  std::vector<NamedHeader> headers;  // every checkpoint shard's header (the lengths mode: the differing ones')
  std::optional<HubListing> listing;
  std::string listing_origin;
  std::vector<std::string> notes;  // what reading them noticed (files left out)
  std::string source;              // what was read, for the report
  // The catalogue's scheme for a quantized repo whose config is its base's
  // (CatalogueModel::quantize): the --quantize applied when none is given.
  std::string default_quantize;
  // The folder holds modules.json (a Sentence Transformers config): vLLM then
  // serves a *ForCausalLM as a pooling model (model/pooling_runner.h). A hub
  // listing that names the file says the same (has_sentence_transformers_config).
  bool sentence_transformers_config = false;
};

// The whole stage. Errors name the file, the field and the value; a bad
// --quantize / --dtype is reported before the config is read.
Result<LoadedModel> load_model_files(ModelFiles files, const ModelOverrides& overrides = {});

// The stage in two steps, for a reader that must decide what to read next
// from the generated manifest (the Hub's lengths mode asks ShardSizeCheck
// which headers to fetch): the generated model, then the files and overrides.
Result<LoadedModel> generated_model(const ModelFiles& files, const ModelOverrides& overrides = {});
// In place: `check` (lengths mode) was built on loaded.model.manifest and
// *files.index and refers to both, so neither may move before this returns;
// the headers of the shards it asked for are in files.headers. Null otherwise.
std::optional<Error> finish_loading(LoadedModel& loaded, const ModelFiles& files, const ModelOverrides& overrides,
                                    ShardSizeCheck* check = nullptr);

// Whether the files carry a Sentence Transformers config (the folder flag, or modules.json in the listing).
bool has_sentence_transformers_config(const ModelFiles& files);

// A catalogue entry's embedded files: its config, official facts and index
// (unknown names: the did-you-mean error, naming MODEL).
Result<ModelFiles> catalogue_files(std::string_view name);

// Artifact facts a hub listing states (official, with the listing as source).
ArtifactFacts facts_from_listing(const HubListing& listing, const std::string& origin);

// What a MODEL argument names. `path_exists`: whether a file or folder by that
// name exists (the edge looks). An existing path is files; an argument that
// can only mean a path (/, ./, ../, ~, *.json, *.safetensors) and does not
// exist is an error; a hub id is read from the Hub when it names a revision
// or hf://, or when the catalogue does not know it; anything else is a
// catalogue name (empty: the default, kimi-k3).
enum class ModelArgumentKind { catalogue, path, hub };
struct ModelArgument {
  ModelArgumentKind kind = ModelArgumentKind::catalogue;
  std::optional<HubReference> hub;
};
// `files_allowed` false (the web API): paths are never considered; an
// argument is a catalogue name or a hub id.
Result<ModelArgument> resolve_model_argument(std::string_view argument, bool path_exists, bool files_allowed = true);

}  // namespace preflight
