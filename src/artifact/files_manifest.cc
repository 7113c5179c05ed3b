#include "artifact/files_manifest.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "core/bytes.h"

namespace preflight {

namespace {

std::string_view last_component(std::string_view name) {
  const auto dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

// A generated tensor by its concrete name: the entry and which instance.
struct Generated {
  const StoredTensor* entry = nullptr;
  std::uint32_t instance = 0;
};

std::unordered_map<std::string, Generated> generated_by_name(const TensorManifest& m) {
  std::unordered_map<std::string, Generated> out;
  out.reserve(m.tensor_count());
  for (const auto& t : m.tensors) {
    if (!is_expert_template(t)) {
      out.emplace(t.name, Generated{&t, 0});
      continue;
    }
    for (std::uint32_t i = 0; i < t.instances; ++i) out.emplace(concrete_name(t, i), Generated{&t, i});
  }
  return out;
}

// Logical parameters a stored tensor carries when no generated tensor says:
// a packed weight holds several values per element, scales and zero points none.
std::uint64_t logical_params_of(StorageFormat format, const std::vector<std::uint64_t>& shape) {
  const auto elements = element_count(shape);
  switch (format) {
    case StorageFormat::mxfp4_packed:
    case StorageFormat::nvfp4_packed:
      return checked_mul(elements, 2, "parameters");  // two 4-bit codes per byte
    case StorageFormat::int_packed:
      return checked_mul(elements, 8, "parameters");  // 4-bit, the common case: 8 per I32
    case StorageFormat::weight_scale:
    case StorageFormat::zero_point:
    case StorageFormat::quant_metadata:
    case StorageFormat::activation_scale:
      return 0;
    default:
      return elements;
  }
}

// The name with the expert index (the number after "experts") as "{E}".
std::string expert_template(std::string_view name) {
  const auto at = name.find("experts.");
  if (at == std::string_view::npos) return std::string(name);
  const auto begin = at + 8;
  auto end = begin;
  while (end < name.size() && name[end] >= '0' && name[end] <= '9') ++end;
  std::string out(name.substr(0, begin));
  out += "{E}";
  out += name.substr(end);
  return out;
}

// Expert tensors that differ only in the expert index fold into one "{E}"
// entry per run of consecutive indices (with equal bytes); every other entry is
// kept as it is, in the files' order. entries[n] is files[n]'s entry.
void fold_expert_runs(const std::vector<FileTensor>& files, std::vector<StoredTensor> entries,
                      TensorManifest& manifest) {
  using Key = std::tuple<std::string, Dtype, std::vector<std::uint64_t>, StorageFormat, ModuleClass, int, bool,
                         std::uint64_t, std::uint64_t>;
  std::map<Key, std::vector<StoredTensor>> groups;
  std::vector<std::pair<bool, std::size_t>> order;  // (an expert group?, index into plain or keys)
  std::vector<StoredTensor> plain;
  std::vector<Key> keys;
  for (std::size_t n = 0; n < files.size(); ++n) {
    const auto& f = files[n];
    StoredTensor t = std::move(entries[n]);
    if (t.role != ParallelRole::expert || t.instances != 1 || f.name.find("experts.") == std::string::npos) {
      order.emplace_back(false, plain.size());
      plain.push_back(std::move(t));
      continue;
    }
    Key key{expert_template(f.name), t.dtype, t.shape, t.format, t.module, t.layer, t.text, t.bytes_each,
            t.logical_params_each};
    auto [it, fresh] = groups.try_emplace(key);
    if (fresh) {
      order.emplace_back(true, keys.size());
      keys.push_back(key);
    }
    it->second.push_back(std::move(t));
  }
  for (const auto& [grouped, i] : order) {
    if (!grouped) {
      manifest.tensors.push_back(std::move(plain[i]));
      continue;
    }
    auto& members = groups.at(keys[i]);
    std::sort(members.begin(), members.end(),
              [](const StoredTensor& a, const StoredTensor& b) { return a.first_instance < b.first_instance; });
    for (std::size_t k = 0; k < members.size();) {
      std::size_t run = k + 1;
      while (run < members.size() && members[run].first_instance == members[run - 1].first_instance + 1) ++run;
      StoredTensor folded = members[k];
      folded.instances = static_cast<std::uint32_t>(run - k);
      folded.name = std::get<0>(keys[i]);  // concrete_name() gives back each member's own name
      manifest.tensors.push_back(std::move(folded));
      k = run;
    }
  }
}

}  // namespace

bool is_float_dtype(Dtype d) { return d == Dtype::F32 || d == Dtype::F16 || d == Dtype::BF16; }

StorageFormat storage_format_of(std::string_view name, Dtype dtype) {
  const auto last = last_component(name);
  const bool packed = last.find("packed") != std::string_view::npos || last == "qweight" || last == "blocks" ||
                      last.ends_with("_blocks");
  if (last.starts_with("input_scale") || last == "k_scale" || last == "v_scale" || last == "output_scale")
    return StorageFormat::activation_scale;
  if (last.find("scale") != std::string_view::npos || (last.ends_with("_scales") && !packed))
    return StorageFormat::weight_scale;
  if (last == "qzeros" || last == "zeros" || last.find("zero_point") != std::string_view::npos)
    return StorageFormat::zero_point;
  if (last == "g_idx" || last == "weight_shape") return StorageFormat::quant_metadata;
  if (packed && dtype == Dtype::U8) return StorageFormat::mxfp4_packed;
  if (packed && dtype == Dtype::I32) return StorageFormat::int_packed;
  if (dtype == Dtype::F8_E4M3 || dtype == Dtype::F8_E5M2) return StorageFormat::fp8;
  if (dtype == Dtype::I8) return StorageFormat::int8;
  return StorageFormat::plain;
}

std::vector<FileTensor> file_tensors(const std::vector<NamedHeader>& shards) {
  std::vector<FileTensor> out;
  for (const auto& s : shards)
    for (const auto& t : s.header.tensors) out.push_back(FileTensor{t.name, t.dtype, t.shape, t.bytes()});
  return out;
}

std::vector<FileTensor> file_tensors(const TensorManifest& generated, const SafetensorsIndex& index,
                                     const std::vector<NamedHeader>& shards_read) {
  std::unordered_map<std::string, const HeaderTensor*> read;
  std::unordered_set<std::string> read_files;
  for (const auto& s : shards_read) {
    read_files.insert(s.file);
    for (const auto& t : s.header.tensors) read.emplace(t.name, &t);
  }
  std::vector<FileTensor> out;
  out.reserve(index.weight_map.size());
  // A shard whose bytes matched holds the generated tensors the index places there.
  for_each_concrete_tensor(generated, [&](const ConcreteTensor& t) {
    const auto at = index.weight_map.find(t.name);
    if (at == index.weight_map.end() || read_files.count(std::string(at->second)) > 0)
      return;  // not stored, or read below
    out.push_back(FileTensor{t.name, t.dtype, t.shape, t.bytes});
  });
  for (const auto& s : shards_read)
    for (const auto& t : s.header.tensors) out.push_back(FileTensor{t.name, t.dtype, t.shape, t.bytes()});
  return out;
}

FilesManifest files_manifest(const ModelSpec& model, const std::vector<FileTensor>& files, const TensorNaming& naming) {
  FilesManifest out;
  out.tensors = files.size();
  const auto by_name = generated_by_name(model.manifest);
  // The decoder's numbered stack, so a second stack (a vision encoder's) is not read as decoder layers.
  std::vector<std::string_view> names;
  names.reserve(files.size());
  for (const auto& f : files) names.push_back(f.name);
  const auto decoder = naming.decoder_stack(names, model.layers.size());

  // An unquantized float tensor is held in its parameter's dtype (see the header).
  const auto as_loaded = [&](StoredTensor& t, std::optional<Dtype> parameter) {
    const Dtype load = parameter.value_or(model.dtype);
    if (t.format != StorageFormat::plain || !is_float_dtype(t.dtype) || !is_float_dtype(load) || t.dtype == load)
      return;
    t.dtype = load;
    t.bytes_each = checked_mul(element_count(t.shape), dtype_bits(load) / 8, t.name);
    ++out.recast;
  };
  // One stored tensor as a manifest entry (instances 1, or a fused expert tensor).
  const auto entry_of = [&](const FileTensor& f) {
    out.disk_bytes = checked_add(out.disk_bytes, f.bytes, "files' bytes");
    StoredTensor t;
    t.name = f.name;
    t.dtype = f.dtype;
    t.shape = f.shape;
    t.bytes_each = f.bytes;
    t.format = storage_format_of(f.name, f.dtype);
    if (const auto g = by_name.find(f.name); g != by_name.end()) {
      ++out.by_reader;
      const auto& e = *g->second.entry;
      t.module = e.module;
      t.role = e.role;
      t.layer = e.layer;
      t.text = e.text;
      if (f.dtype == e.dtype) t.format = e.format;
      if (is_expert_template(e)) {
        t.first_instance = e.first_instance + g->second.instance;
        t.logical_params_each =
            f.dtype == e.dtype && f.shape == e.shape ? e.logical_params_each : logical_params_of(t.format, f.shape);
      } else if (is_fused_slice(e) && !f.shape.empty() && f.shape.front() == e.instances) {
        // gpt-oss: all experts of a layer in one tensor, one slice per expert.
        t.instances = e.instances;
        t.shape.erase(t.shape.begin());
        t.bytes_each = f.bytes / e.instances;
        t.logical_params_each = logical_params_of(t.format, t.shape);
      } else {
        t.logical_params_each = f.dtype == e.dtype && f.shape == stored_shape(e) ? e.logical_params()
                                                                                 : logical_params_of(t.format, f.shape);
        if (e.role == ParallelRole::expert && t.instances == 1) t.first_instance = e.first_instance;
      }
      as_loaded(t, e.format == StorageFormat::plain ? std::optional<Dtype>(e.dtype) : std::nullopt);
      return t;
    }
    const auto c = naming.classify(f.name, model, decoder);
    if (c.module == ModuleClass::unclassified) {
      ++out.unclassified;
      if (out.unclassified_names.size() < 10) out.unclassified_names.push_back(f.name);
    } else {
      ++out.by_naming;
    }
    t.module = c.module;
    t.role = c.role;
    t.layer = c.layer;
    t.text = c.text;
    if (c.expert) t.first_instance = *c.expert;
    const auto experts = model.moe.routed_experts;
    if (c.fused_experts && experts > 1 && !f.shape.empty() && f.shape.front() == experts) {
      t.instances = static_cast<std::uint32_t>(experts);
      t.shape.erase(t.shape.begin());
      t.bytes_each = f.bytes / experts;
    } else if (c.fused_experts) {
      t.role = ParallelRole::replicated;  // experts in one tensor whose count the config does not confirm
    }
    t.logical_params_each = logical_params_of(t.format, t.shape);
    as_loaded(t, std::nullopt);
    return t;
  };

  std::vector<StoredTensor> entries;
  entries.reserve(files.size());
  for (const auto& f : files) entries.push_back(entry_of(f));
  fold_expert_runs(files, std::move(entries), out.manifest);
  return out;
}

}  // namespace preflight
