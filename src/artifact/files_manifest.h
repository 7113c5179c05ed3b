// The files' manifest: every tensor the checkpoint stores, with its real name,
// dtype, shape and bytes, as the plan's manifest (the files win; config.json
// alone is the fallback).
//
// Each stored tensor is classified (module class, parallel role, layer,
// expert index) by the family reader where it generated a tensor of the same
// name (the reader knows the architecture), else by the naming table
// (model/tensor_naming.h), else it is unclassified: placed replicated, the
// conservative choice, and named in the notes. Tensors of one expert group
// that agree in everything but the expert index are folded back into one
// "{E}" entry, so a 497,220-tensor checkpoint stays a few thousand entries.
// The generated manifest remains the cross-check (artifact/reconciliation.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "artifact/reconciliation.h"
#include "artifact/safetensors_index.h"
#include "model/model_spec.h"
#include "model/tensor_naming.h"

namespace preflight {

struct FileTensor {
  std::string name;
  Dtype dtype{};
  std::vector<std::uint64_t> shape;
  std::uint64_t bytes = 0;
};

// Every tensor of the shard headers, shard by shard, in offset order.
std::vector<FileTensor> file_tensors(const std::vector<NamedHeader>& shards);

// The tensors of an index read with each shard's size (the lengths mode):
// a shard whose bytes matched the generated tensors the index places there
// holds exactly those (names and bytes agree; shapes are the generated ones),
// a shard read in full holds its header's tensors (in the generated order, then the headers').
std::vector<FileTensor> file_tensors(const TensorManifest& generated, const SafetensorsIndex& index,
                                     const std::vector<NamedHeader>& shards_read);

// The manifest is what the engine loads: an unquantized floating-point tensor
// stored in a dtype other than its parameter's (a norm saved as F32 in a BF16
// model) is cast on load (vLLM and SGLang copy each checkpoint tensor into a
// parameter of the model dtype under --dtype auto): its GPU bytes are the
// parameter's. The parameter dtype is the reader's where it generated the
// tensor, else the model dtype. The files' own bytes stay in disk_bytes.
struct FilesManifest {
  TensorManifest manifest;
  std::uint64_t disk_bytes = 0;                 // the stored tensors' bytes, as in the files
  std::uint64_t recast = 0;                     // tensors whose GPU dtype differs from the stored one
  std::uint64_t tensors = 0;                    // stored tensors read
  std::uint64_t by_reader = 0;                  // classified by the family reader's tensor of the same name
  std::uint64_t by_naming = 0;                  // by the naming table
  std::uint64_t unclassified = 0;               // placed replicated
  std::vector<std::string> unclassified_names;  // the first ten
};

// `model` carries the generated manifest and the architecture (layer kinds,
// decoder layers, routed experts) the classification needs.
FilesManifest files_manifest(const ModelSpec& model, const std::vector<FileTensor>& files,
                             const TensorNaming& naming = TensorNaming::embedded());

// The dtypes an engine casts between when it loads an unquantized tensor.
bool is_float_dtype(Dtype d);

// The storage format a tensor's name and dtype say (weight_scale, qzeros,
// g_idx, *_blocks / weight_packed, F8_E4M3, ...).
StorageFormat storage_format_of(std::string_view name, Dtype dtype);

}  // namespace preflight
