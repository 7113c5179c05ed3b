#include "artifact/checkpoint_manifest.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "artifact/files_manifest.h"
#include "core/bytes.h"

namespace preflight {

namespace {

std::string disagreement(const Reconciliation& r) {
  std::vector<std::string> parts;
  if (r.missing_count > 0)
    parts.push_back(fmt::format("{} generated tensor(s) the files do not hold", with_commas(r.missing_count)));
  if (r.extra_count > 0)
    parts.push_back(fmt::format("{} stored tensor(s) config.json does not generate", with_commas(r.extra_count)));
  if (r.mismatched_count > 0)
    parts.push_back(fmt::format("{} of another dtype or shape", with_commas(r.mismatched_count)));
  std::string bytes;
  if (r.bytes_known() && r.generated_bytes > 0) {
    const double pct = 100.0 * (static_cast<double>(r.real_bytes) - static_cast<double>(r.generated_bytes)) /
                       static_cast<double>(r.generated_bytes);
    bytes = fmt::format("; files {} B, config.json {} B ({:+.1f}%)", with_commas(r.real_bytes),
                        with_commas(r.generated_bytes), pct);
  }
  return fmt::format("the files and config.json disagree: {}{}; planned from the files", fmt::join(parts, ", "), bytes);
}

// Expert tensors the config did not describe (an architecture without a
// reader): the expert count is what the files hold.
void infer_experts(ModelSpec& model) {
  if (model.moe.routed_experts > 0) return;
  std::uint64_t experts = 0;
  for (const auto& t : model.manifest.tensors)
    if (t.role == ParallelRole::expert) experts = std::max<std::uint64_t>(experts, t.first_instance + t.instances);
  if (experts == 0) return;
  model.moe.routed_experts = experts;
  model.notes.push_back(fmt::format(
      "the files hold {} routed experts per MoE layer; config.json was not read for them (no family reader), so "
      "experts per token are {}",
      experts,
      model.moe.experts_per_token > 0 ? std::to_string(model.moe.experts_per_token)
                                      : "unknown: active parameters count no routed expert"));
}

void adopt(ModelSpec& model, const Reconciliation& r, const std::vector<FileTensor>& tensors, ManifestSource source) {
  model.manifest_source = source;
  if (r.exact()) return;  // the files hold exactly the generated tensors
  auto files = files_manifest(model, tensors);
  model.files_disagree = disagreement(r);
  std::string unclassified;
  if (files.unclassified > 0)
    unclassified = fmt::format(" ({}{})", fmt::join(files.unclassified_names, ", "),
                               files.unclassified > files.unclassified_names.size() ? ", ..." : "");
  model.notes.push_back(fmt::format(
      "planned from the files' {} stored tensors ({}): {} placed as the {} reader generated them, {} by the naming "
      "table, {} unclassified and placed replicated on every rank{}",
      with_commas(files.tensors), manifest_source_key(source), with_commas(files.by_reader),
      model.family_reader ? model.family : "generic", with_commas(files.by_naming), with_commas(files.unclassified),
      unclassified));
  if (files.disk_bytes != files.manifest.payload_bytes()) {
    model.disk_payload_bytes = files.disk_bytes;
    model.notes.push_back(fmt::format(
        "{} unquantized tensor(s) are stored in another float dtype than their parameter's: the engine casts them on "
        "load (--dtype auto), so the files hold {} B and GPU memory {} B",
        files.recast, with_commas(files.disk_bytes), with_commas(files.manifest.payload_bytes())));
  }
  model.manifest = std::move(files.manifest);
  infer_experts(model);
}

}  // namespace

Reconciliation use_shard_headers(ModelSpec& model, const std::vector<NamedHeader>& headers) {
  auto r = reconcile_with_headers(model.manifest, headers);
  adopt(model, r, r.exact() ? std::vector<FileTensor>{} : file_tensors(headers), ManifestSource::headers);
  return r;
}

Reconciliation use_shard_sizes(ModelSpec& model, ShardSizeCheck& check, const SafetensorsIndex& index,
                               const std::vector<NamedHeader>& read) {
  auto r = check.reconcile(read);
  adopt(model, r, r.exact() ? std::vector<FileTensor>{} : file_tensors(model.manifest, index, read),
        ManifestSource::index_and_sizes);
  return r;
}

void use_listing_totals(ModelSpec& model, const HubListing& listing) {
  if (listing.parameters_by_dtype.empty()) return;
  std::uint64_t files = 0;
  for (const auto& [name, count] : listing.parameters_by_dtype) {
    const auto dtype = dtype_from_safetensors(name);
    if (!dtype) return;
    files = checked_add(files, checked_mul(count, dtype_bits(*dtype) / 8, "listing bytes"), "listing bytes");
  }
  const auto generated = model.manifest.payload_bytes();
  model.manifest_source = ManifestSource::listing;
  if (files == generated) return;
  const double pct = generated == 0 ? 0.0
                                    : 100.0 * (static_cast<double>(files) - static_cast<double>(generated)) /
                                          static_cast<double>(generated);
  if (files > generated) {
    StoredTensor rest;
    rest.name = "(tensor bytes the hub listing counts beyond config.json's tensors)";
    rest.shape = {files - generated};
    rest.dtype = Dtype::U8;
    rest.bytes_each = files - generated;
    rest.module = ModuleClass::unclassified;
    rest.role = ParallelRole::replicated;
    model.manifest.tensors.push_back(std::move(rest));
    model.files_disagree = fmt::format(
        "the hub listing and config.json disagree: the files hold {} B of tensors, config.json generates {} B "
        "({:+.1f}%); the {} B beyond are planned as one replicated entry on every rank",
        with_commas(files), with_commas(generated), pct, with_commas(files - generated));
  } else {
    model.files_disagree = fmt::format(
        "the hub listing and config.json disagree: the files hold {} B of tensors, config.json generates {} B "
        "({:+.1f}%); without the headers the plan keeps config.json's tensors and may count some the files do not "
        "have (a snapshot folder or --shard-headers all would plan from the files)",
        with_commas(files), with_commas(generated), pct);
  }
}

Reconciliation use_index_names(ModelSpec& model, const SafetensorsIndex& index) {
  auto r = reconcile_with_index(model.manifest, index);
  if (!r.exact())
    model.files_disagree = fmt::format(
        "the index and config.json disagree: {} generated tensor(s) the index does not name, {} it names that "
        "config.json does not generate; bytes unknown without the shards, so the plan uses config.json",
        with_commas(r.missing_count), with_commas(r.extra_count));
  return r;
}

}  // namespace preflight
