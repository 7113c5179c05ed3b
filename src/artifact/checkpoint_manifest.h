// Which manifest a plan uses, once the files have been read: the one stage
// every way in (a local snapshot, a single shard, the Hugging Face Hub in
// either --shard-headers mode, an upload) goes through, so they plan alike.
//
//   shard headers (every shard)   -> reconcile per tensor; plan from the files' tensors
//   index + each shard's size     -> reconcile per shard; plan from the files' tensors
//                                    (generated ones where a shard's bytes matched,
//                                    the header's where it did not)
//   index names only              -> reconcile names; the generated manifest stays
//                                    (bytes unknown), its evidence its reader's
//   nothing                       -> the generated manifest (config.json)
//
// When the reconciliation is exact the files hold exactly the generated
// tensors, so the generated manifest is kept (same names, dtypes and shapes)
// and only its source changes. Otherwise model.manifest becomes the files'
// (artifact/files_manifest.h), model.files_disagree says in one line how they
// differ, and a note says how the tensors were classified.
#pragma once

#include <vector>

#include "artifact/hub_listing.h"
#include "artifact/reconciliation.h"
#include "artifact/safetensors_index.h"
#include "model/model_spec.h"

namespace preflight {

Reconciliation use_shard_headers(ModelSpec& model, const std::vector<NamedHeader>& headers);

// `check` was built on model.manifest and `index`; `read` are the headers of
// the shards it asked for.
Reconciliation use_shard_sizes(ModelSpec& model, ShardSizeCheck& check, const SafetensorsIndex& index,
                               const std::vector<NamedHeader>& read);

Reconciliation use_index_names(ModelSpec& model, const SafetensorsIndex& index);

// A hub listing without headers or an index: its element counts by dtype
// (safetensors.parameters, which count stored elements: a packed U8 byte is
// one) give the files' exact tensor bytes. When they equal the generated
// payload the manifest stands with an official total; when the files hold
// more, the difference becomes an explicit replicated entry (bytes no
// generated tensor accounts for, on every rank: the conservative choice);
// when they hold less, the generated manifest stands and the line says the
// plan may count tensors the files do not have. Nothing when the listing has
// no counts, or counts of a dtype preflight does not know.
void use_listing_totals(ModelSpec& model, const HubListing& listing);

}  // namespace preflight
