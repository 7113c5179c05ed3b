#include "engine/engine_profile.h"

#include <fmt/format.h>

#include <charconv>
#include <optional>
#include <stdexcept>

#include "artifact/artifact_json.h"
#include "core/json_read.h"
#include "embedded_files.h"

using preflight::artifact::as_count;

namespace preflight {

const VllmEra& VllmProfile::era(const EngineVersion& v) const {
  const VllmEra* best = &eras.front();
  for (const auto& e : eras)
    if (!(v < e.from)) best = &e;
  return *best;
}

const SglangDsaEra& SglangProfile::dsa_era(const EngineVersion& v) const {
  const SglangDsaEra* best = &dsa_eras.front();
  for (const auto& e : dsa_eras)
    if (!(v < e.from)) best = &e;
  return *best;
}

namespace {

struct Reader {
  const nlohmann::json& j;
  std::string origin;
  std::string path;

  const nlohmann::json* find(const char* key) const {
    if (!j.is_object()) return nullptr;
    auto it = j.find(key);
    return it == j.end() ? nullptr : &*it;
  }
  Error missing(const char* key, const char* what) const {
    return Error{origin, path + "/" + key, fmt::format("expected {}", what)};
  }
  Result<double> number(const char* key, double fallback, bool required = false) const {
    const auto* v = find(key);
    if (!v) {
      if (required) return missing(key, "a number");
      return fallback;
    }
    if (!v->is_number() || v->get<double>() < 0)
      return Error{origin, path + "/" + key, fmt::format("expected a non-negative number, got {}", show(*v))};
    return v->get<double>();
  }
  Result<std::uint64_t> count(const char* key, std::uint64_t fallback) const {
    const auto* v = find(key);
    if (!v) return fallback;
    auto c = as_count(*v);
    if (!c) return Error{origin, path + "/" + key, fmt::format("expected a non-negative integer, got {}", show(*v))};
    return *c;
  }
  Result<std::string> text(const char* key, bool required) const {
    const auto* v = find(key);
    if (!v) {
      if (required) return missing(key, "a string");
      return std::string();
    }
    if (!v->is_string()) return Error{origin, path + "/" + key, fmt::format("expected a string, got {}", show(*v))};
    return v->get<std::string>();
  }
  // A required release number ("0.19.0"), parsed once here.
  Result<EngineVersion> version(const char* key) const {
    auto t = text(key, true);
    if (!t) return t.error();
    auto v = parse_engine_version(*t, origin);
    if (!v) return Error{origin, path + "/" + key, v.error().message};
    return v;
  }
  Result<bool> flag(const char* key, bool fallback) const {
    const auto* v = find(key);
    if (!v) return fallback;
    if (!v->is_boolean())
      return Error{origin, path + "/" + key, fmt::format("expected true or false, got {}", show(*v))};
    return v->get<bool>();
  }
  // A section: absent means defaults; present, it must be an object.
  Result<Reader> child(const char* key) const {
    static const nlohmann::json empty = nlohmann::json::object();
    const auto* v = find(key);
    if (v && !v->is_object())
      return Error{origin, path + "/" + key, fmt::format("expected an object, got {}", show(*v))};
    return Reader{v ? *v : empty, origin, path + "/" + key};
  }
};

// Stores a read value, or hands back its error.
template <typename T, typename R>
std::optional<Error> assign(T& out, R&& result) {
  if (!result) return result.error();
  out = static_cast<T>(*result);
  return std::nullopt;
}

void read_sources(const Reader& r, std::map<std::string, std::string>& out) {
  const auto* s = r.find("sources");
  if (!s || !s->is_object()) return;
  for (const auto& [k, v] : s->items())
    if (v.is_string()) out[k] = v.get<std::string>();
}

Result<CheckpointKvRule> read_checkpoint_kv(const Reader& r) {
  const auto* v = r.find("checkpoint_kv_cache");
  if (!v || !v->is_object()) return r.missing("checkpoint_kv_cache", "an object {from, methods, source}");
  const Reader c{*v, r.origin, r.path + "/checkpoint_kv_cache"};
  CheckpointKvRule rule;
  if (auto err = assign(rule.from, c.version("from"))) return *err;
  if (auto err = assign(rule.source, c.text("source", true))) return *err;
  const auto* m = c.find("methods");
  if (!m || !m->is_array()) return c.missing("methods", "an array of quant_method names");
  for (std::size_t i = 0; i < m->size(); ++i) {
    if (!(*m)[i].is_string())
      return Error{r.origin, fmt::format("{}/methods/{}", c.path, i),
                   fmt::format("expected a string, got {}", show((*m)[i]))};
    rule.methods.push_back((*m)[i].get<std::string>());
  }
  return rule;
}

Result<VllmProfile> read_vllm(const Reader& r) {
  VllmProfile p;
  if (auto err = assign(p.default_version, r.version("default_version"))) return *err;
  if (auto err = assign(p.code, r.text("code", false))) return *err;
  if (auto err = assign(p.checkpoint_kv, read_checkpoint_kv(r))) return *err;
  auto d_section = r.child("defaults");
  if (!d_section) return d_section.error();
  const auto& d = *d_section;
  if (auto err = assign(p.gpu_memory_utilization, d.number("gpu_memory_utilization", 0.9, true))) return *err;
  if (auto err = assign(p.block_size, d.count("block_size", 16))) return *err;
  if (auto err = assign(p.large_gpu_min_gib, d.number("large_gpu_min_gib", 70))) return *err;
  if (auto err = assign(p.max_num_batched_tokens_large_gpu, d.count("max_num_batched_tokens_large_gpu", 8192)))
    return *err;
  if (auto err = assign(p.max_num_seqs_large_gpu, d.count("max_num_seqs_large_gpu", 1024))) return *err;
  if (auto err = assign(p.max_num_batched_tokens_small_gpu, d.count("max_num_batched_tokens_small_gpu", 2048)))
    return *err;
  if (auto err = assign(p.max_num_seqs_small_gpu, d.count("max_num_seqs_small_gpu", 256))) return *err;
  if (auto err = assign(p.mla_block_size, d.count("mla_block_size", 64))) return *err;
  if (d.find("rocm_v1_mla_from"))
    if (auto err = assign(p.rocm_v1_mla_from, d.version("rocm_v1_mla_from"))) return *err;
  if (d.find("hybrid_seqs_check_from"))
    if (auto err = assign(p.hybrid_seqs_check_from, d.version("hybrid_seqs_check_from"))) return *err;
  read_sources(d, p.sources);
  const auto* eras = r.find("eras");
  if (!eras || !eras->is_array() || eras->empty()) return r.missing("eras", "a non-empty array");
  for (std::size_t i = 0; i < eras->size(); ++i) {
    const Reader e{(*eras)[i], r.origin, fmt::format("{}/eras/{}", r.path, i)};
    VllmEra era;
    if (auto err = assign(era.from, e.version("from"))) return *err;
    if (auto err = assign(era.engine, e.text("engine", true))) return *err;
    if (auto err = assign(era.non_torch_gib_tp1, e.number("non_torch_gib_tp1", 0, true))) return *err;
    if (auto err = assign(era.non_torch_gib_tp, e.number("non_torch_gib_tp", 0, true))) return *err;
    if (auto err = assign(era.non_torch_gib_pp_only, e.number("non_torch_gib_pp_only", era.non_torch_gib_tp1)))
      return *err;
    if (auto err = assign(era.non_torch_gib_per_tp_rank, e.number("non_torch_gib_per_tp_rank", 0))) return *err;
    if (auto err =
            assign(era.non_torch_gib_tp_without_nvls, e.number("non_torch_gib_tp_without_nvls", era.non_torch_gib_tp)))
      return *err;
    if (auto err = assign(era.cuda_graph_subtracted, e.flag("cuda_graph_subtracted", false))) return *err;
    if (auto err = assign(era.chunked_prefill_default, e.flag("chunked_prefill_default", true))) return *err;
    if (auto err = assign(era.sampler_bytes_per_logit, e.number("sampler_bytes_per_logit", 14))) return *err;
    if (auto err = assign(era.kv_tokens_from_concurrency, e.flag("kv_tokens_from_concurrency", false))) return *err;
    if (auto err = assign(era.hybrid_kv_manager, e.text("hybrid_kv_manager", false))) return *err;
    if (era.hybrid_kv_manager.empty()) era.hybrid_kv_manager = "on";
    if (era.hybrid_kv_manager != "none" && era.hybrid_kv_manager != "on" && era.hybrid_kv_manager != "chunked_off")
      return Error{r.origin, e.path + "/hybrid_kv_manager",
                   fmt::format("expected none, on or chunked_off, got '{}'", era.hybrid_kv_manager)};
    if (auto err = assign(era.moe_workspace, e.text("moe_workspace", false))) return *err;
    if (era.moe_workspace.empty()) era.moe_workspace = "transient";
    if (era.moe_workspace != "transient" && era.moe_workspace != "persistent")
      return Error{r.origin, e.path + "/moe_workspace",
                   fmt::format("expected transient or persistent, got '{}'", era.moe_workspace)};
    if (auto err = assign(era.source, e.text("source", true))) return *err;
    if (!p.eras.empty() && !(p.eras.back().from < era.from))
      return Error{r.origin, e.path + "/from", "eras must be in ascending version order"};
    p.eras.push_back(era);
  }
  auto a_section = r.child("activation");
  if (!a_section) return a_section.error();
  const auto& a = *a_section;
  if (auto err = assign(p.hidden_buffers_during_sampling, a.count("hidden_buffers_during_sampling", 2))) return *err;
  if (auto err = assign(p.mlp_intermediate_copies, a.count("mlp_intermediate_copies", 3))) return *err;
  if (auto err = assign(p.hidden_buffers_in_layer, a.count("hidden_buffers_in_layer", 4))) return *err;
  if (auto err = assign(p.cuda_graph_gib, a.number("cuda_graph_gib", 1.0))) return *err;
  if (auto err = assign(p.fused_moe_chunk_tokens, a.count("fused_moe_chunk_tokens", 16384))) return *err;
  if (p.fused_moe_chunk_tokens == 0) return Error{r.origin, a.path + "/fused_moe_chunk_tokens", "must be at least 1"};
  read_sources(a, p.sources);
  auto w_section = r.child("weights");
  if (!w_section) return w_section.error();
  const auto& w = *w_section;
  if (auto err = assign(p.rope_cache_dtype_bytes, w.count("rope_cache_dtype_bytes", 2))) return *err;
  auto pad_section = w.child("mxfp4_padding");
  if (!pad_section) return pad_section.error();
  const auto& pad = *pad_section;
  if (pad.j.is_object()) {
    for (const auto& [arch, v] : pad.j.items()) {
      const Reader e{v, r.origin, pad.path + "/" + arch};
      Mxfp4Padding m;
      if (auto err = assign(m.backend, e.text("backend", true))) return *err;
      if (auto err = assign(m.intermediate_multiple, e.count("intermediate_multiple", 1))) return *err;
      if (auto err = assign(m.hidden_multiple, e.count("hidden_multiple", 1))) return *err;
      if (m.intermediate_multiple == 0 || m.hidden_multiple == 0)
        return Error{r.origin, e.path, "multiples must be at least 1"};
      p.mxfp4_padding[arch] = m;
    }
  }
  read_sources(w, p.sources);
  return p;
}

Result<SglangProfile> read_sglang(const Reader& r) {
  SglangProfile p;
  if (auto err = assign(p.default_version, r.version("default_version"))) return *err;
  if (auto err = assign(p.code, r.text("code", false))) return *err;
  if (auto err = assign(p.checkpoint_kv, read_checkpoint_kv(r))) return *err;
  auto d_section = r.child("defaults");
  if (!d_section) return d_section.error();
  const auto& d = *d_section;
  if (auto err = assign(p.mamba_full_memory_ratio, d.number("mamba_full_memory_ratio", 0.9))) return *err;
  if (auto err = assign(p.page_size, d.count("page_size", 1))) return *err;
  if (auto err = assign(p.cuda_context_gib, d.number("cuda_context_gib", 0.5))) return *err;
  if (auto err = assign(p.distributed_init_gib_per_tp_rank, d.number("distributed_init_gib_per_tp_rank", 0.1)))
    return *err;
  if (auto err =
          assign(p.distributed_init_gib_per_tp_rank_nvls, d.number("distributed_init_gib_per_tp_rank_nvls", 0.25)))
    return *err;
  if (auto err = assign(p.multimodal_reserve_mib, d.number("multimodal_reserve_mib", 100))) return *err;
  if (auto err = assign(p.dsa_page_size, d.count("dsa_page_size", 64))) return *err;
  if (auto err = assign(p.swa_full_tokens_ratio, d.number("swa_full_tokens_ratio", 0.8))) return *err;
  if (auto err = assign(p.unknown_gpu_mem_fraction_static, d.number("unknown_gpu_mem_fraction_static", 0.88)))
    return *err;
  if (auto err = assign(p.radix_slots_on, d.count("radix_slots_on", 5))) return *err;
  if (auto err = assign(p.radix_slots_lazy, d.count("radix_slots_lazy", 4))) return *err;
  if (auto err = assign(p.radix_slots_off, d.count("radix_slots_off", 1))) return *err;
  read_sources(d, p.sources);
  auto m_section = r.child("reserved_memory");
  if (!m_section) return m_section.error();
  const auto& m = *m_section;
  const auto* tiers = m.find("tiers");
  if (!tiers || !tiers->is_array() || tiers->empty()) return m.missing("tiers", "a non-empty array");
  for (std::size_t i = 0; i < tiers->size(); ++i) {
    const Reader t{(*tiers)[i], r.origin, fmt::format("{}/tiers/{}", m.path, i)};
    SglangTier tier;
    if (auto err = assign(tier.below_gb, t.number("below_gb", 0, true))) return *err;
    if (auto err = assign(tier.chunked_prefill_size, t.count("chunked_prefill_size", 0))) return *err;
    if (auto err = assign(tier.cuda_graph_max_bs_small_tp, t.count("cuda_graph_max_bs_small_tp", 0))) return *err;
    if (auto err = assign(tier.cuda_graph_max_bs_large_tp, t.count("cuda_graph_max_bs_large_tp", 0))) return *err;
    p.tiers.push_back(tier);
  }
  if (auto err = assign(p.large_tp_from, m.count("large_tp_from", 4))) return *err;
  if (auto err = assign(p.base_mb, m.number("base_mb", 512))) return *err;
  if (auto err = assign(p.per_prefill_token_mb, m.number("per_prefill_token_mb", 1.5))) return *err;
  if (auto err = assign(p.per_graph_bs_mb, m.number("per_graph_bs_mb", 2))) return *err;
  if (auto err = assign(p.per_tp_pp_eighth_mb, m.number("per_tp_pp_eighth_mb", 1024))) return *err;
  if (auto err = assign(p.per_graph_bs_dp_mb, m.number("per_graph_bs_dp_mb", 3))) return *err;
  if (auto err = assign(p.floor_above_60gb_mb, m.number("floor_above_60gb_mb", 10240))) return *err;
  if (auto err = assign(p.large_graph_bs_from, m.number("large_graph_bs_from", 300))) return *err;
  if (auto err = assign(p.per_graph_bs_dp_large_mb, m.number("per_graph_bs_dp_large_mb", 1.5))) return *err;
  if (auto err = assign(p.reserved_source, m.text("source", true))) return *err;
  const auto* eras = r.find("dsa_eras");
  if (!eras || !eras->is_array() || eras->empty()) return r.missing("dsa_eras", "a non-empty array");
  for (std::size_t i = 0; i < eras->size(); ++i) {
    const Reader e{(*eras)[i], r.origin, fmt::format("{}/dsa_eras/{}", r.path, i)};
    SglangDsaEra era;
    if (auto err = assign(era.from, e.version("from"))) return *err;
    if (auto err = assign(era.forced_mem_fraction_static, e.number("forced_mem_fraction_static", 0))) return *err;
    if (era.forced_mem_fraction_static > 1)
      return Error{r.origin, e.path + "/forced_mem_fraction_static",
                   fmt::format("expected a fraction at most 1, got {}", era.forced_mem_fraction_static)};
    if (auto err = assign(era.indexer_in_budget, e.flag("indexer_in_budget", true))) return *err;
    if (auto err = assign(era.source, e.text("source", true))) return *err;
    if (!p.dsa_eras.empty() && !(p.dsa_eras.back().from < era.from))
      return Error{r.origin, e.path + "/from", "eras must be in ascending version order"};
    p.dsa_eras.push_back(era);
  }
  return p;
}

}  // namespace

Result<EngineProfiles> parse_engine_profiles(const std::string& text, const std::string& origin) {
  auto doc = parse_json(text, origin, "");
  if (!doc) return doc.error();
  const Reader root{*doc, origin, ""};
  EngineProfiles out;
  if (auto err = assign(out.about, root.text("about", false))) return *err;
  auto engines_section = root.child("engines");
  if (!engines_section) return engines_section.error();
  const auto& engines = *engines_section;
  auto vllm_section = engines.child("vllm");
  if (!vllm_section) return vllm_section.error();
  auto v = read_vllm(*vllm_section);
  if (!v) return v.error();
  out.vllm = *v;
  auto sglang_section = engines.child("sglang");
  if (!sglang_section) return sglang_section.error();
  auto s = read_sglang(*sglang_section);
  if (!s) return s.error();
  out.sglang = *s;
  auto accuracy_section = root.child("startup_accuracy");
  if (!accuracy_section) return accuracy_section.error();
  const auto& a = *accuracy_section;
  if (auto err = assign(out.accuracy.kv_tokens_relative, a.number("kv_tokens_relative", 0, true))) return *err;
  if (out.accuracy.kv_tokens_relative >= 1)
    return Error{origin, a.path + "/kv_tokens_relative",
                 fmt::format("expected a fraction below 1, got {}", out.accuracy.kv_tokens_relative)};
  if (auto err = assign(out.accuracy.source, a.text("source", true))) return *err;
  return out;
}

const EngineProfiles& engine_profiles() {
  static const EngineProfiles profiles = [] {
    auto parsed = parse_engine_profiles(std::string(embedded::data_engines_json), "data/engines.json (embedded)");
    if (!parsed) throw std::logic_error("the embedded engine profiles are invalid: " + parsed.error().to_string());
    return *parsed;
  }();
  return profiles;
}

}  // namespace preflight
