#include "commands.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/units.h"
#include "engine/engine_profile.h"
#include "hardware/gpu_catalogue.h"
#include "model/inventory.h"
#include "model/model_catalogue.h"
#include "model_source.h"
#include "plan/ledger_check.h"
#include "plan/plan.h"
#include "plan_inputs.h"
#include "report/json_report.h"
#include "report/text_report.h"

namespace preflight::cli {

namespace {

TextStyle style_of(const Options& o) { return o.format == "md" ? TextStyle::markdown : TextStyle::table; }

int print_plan(const Options& o, Io& io, bool explain) {
  auto resolved = resolve_request(o, ClusterFrom::gpus);
  if (!resolved) return fail(io, resolved.error());
  const LoadedModel& loaded = resolved->loaded;
  auto plan = make_plan(*resolved);
  if (!plan) return fail(io, plan.error());
  if (const auto why = plan_invariant_violation(*plan, loaded.model); !why.empty()) throw std::logic_error(why);
  if (o.format == "json") {
    auto j = plan_json(*plan);
    // How the files read compare with config.json (the plan's manifest is the files' when they were read).
    if (loaded.reconciliation) j["model"]["reconciliation"] = reconciliation_json(*loaded.reconciliation);
    io.out << json_text(j) << "\n";
  } else {
    io.out << (explain   ? render_explain(*plan, style_of(o), o.only)
               : o.brief ? render_brief(*plan)
                         : render_plan(*plan, style_of(o)));
  }
  return plan->verdict.fits ? 0 : 1;
}

}  // namespace

int run_plan(const Options& o, Io& io) {
  if (!o.prefill_gpus.empty() || !o.decode_gpus.empty()) return run_disaggregated_plan(o, io);
  if (auto e = refuse_pool_flags_without_pools(o)) return fail(io, *e);
  if (o.gpus.empty())
    return fail(io,
                Error{"", "", "--gpus is required (COUNTxFAMILY, e.g. 8xH100), or --prefill-gpus and --decode-gpus"});
  return print_plan(o, io, false);
}
int run_explain(const Options& o, Io& io) { return print_plan(o, io, true); }

int run_inspect(const Options& o, Io& io) {
  auto loaded = load_model_for(o);
  if (!loaded) return fail(io, loaded.error());
  const auto& model = loaded->model;
  const auto inv = build_inventory(model);
  const auto* rec = loaded->reconciliation ? &*loaded->reconciliation : nullptr;
  if (o.format == "json") {
    auto j = inventory_json(model, inv, rec);
    j["source"] = loaded->source;  // what was read: files, the catalogue, or the hub (with bytes transferred)
    if (const auto& t = loaded->hub_transfer)
      j["hub_fetch"] = {{"shard_headers", t->shard_headers},
                        {"listing_bytes", t->listing_bytes},
                        {"config_bytes", t->config_bytes},
                        {"index_bytes", t->index_bytes},
                        {"shard_bytes", t->shard_bytes},
                        {"requests", t->requests},
                        {"shard_lengths_read", t->shard_lengths_read},
                        {"shard_headers_read", t->shard_headers_read},
                        {"estimated_header_bytes_all", t->estimated_header_bytes}};
    if (!o.tensors) {
      io.out << json_text(j) << "\n";
      return 0;
    }
    // Every stored tensor, written as it is generated: a DOM of Kimi K3's
    // 497,220 tensors would cost ~300 MB (a server answers several at once).
    std::string head = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    head.pop_back();  // the closing brace; "tensors" is the last member
    io.out << head << ",\"tensors\":[";
    bool first = true;
    for_each_concrete_tensor(model.manifest, [&](const ConcreteTensor& t) {
      io.out << (first ? "" : ",") << "["
             << nlohmann::json(t.name).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << ",\""
             << dtype_name(t.dtype) << "\",[";
      for (std::size_t i = 0; i < t.shape.size(); ++i) io.out << (i ? "," : "") << t.shape[i];
      io.out << "]," << t.bytes << "]";
      first = false;
    });
    io.out << "]}\n";
    return 0;
  }
  if (o.tensors) {
    for_each_concrete_tensor(model.manifest, [&](const ConcreteTensor& t) {
      std::string shape;
      for (auto d : t.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
      io.out << fmt::format("{}  {}  [{}]  {} B\n", t.name, dtype_name(t.dtype), shape, t.bytes);
    });
    return 0;
  } else
    io.out << render_inventory(model, inv, rec, style_of(o));
  return 0;
}

int run_gpus(const Options& o, Io& io) {
  auto catalogue = resolve_catalogue(o);
  if (!catalogue) return fail(io, catalogue.error());
  if (o.format == "json") {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& g : catalogue->all()) j.push_back(accelerator_json(g));
    io.out << json_text(j) << "\n";
  } else {
    io.out << render_gpus(catalogue->all(), style_of(o));
  }
  return 0;
}

int run_models(const Options& o, Io& io) {
  if (o.format == "json") {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& m : model_catalogue())
      j.push_back({{"name", m.name},
                   {"aliases", m.aliases},
                   {"hub_id", m.hub_id},
                   {"description", m.description},
                   {"config_provenance", m.config_provenance},
                   {"default", m.is_default}});
    io.out << json_text(j) << "\n";
    return 0;
  }
  for (const auto& m : model_catalogue())
    io.out << fmt::format("{:<36} {:<54} {}{}\n", m.name, m.hub_id, m.description, m.is_default ? " (default)" : "");
  return 0;
}

int run_engines(const Options& o, Io& io) {
  const auto& p = engine_profiles();
  const auto& v = p.vllm;
  const auto& g = p.sglang;
  if (o.format == "json") {
    nlohmann::json dsa_eras = nlohmann::json::array();
    for (const auto& e : g.dsa_eras)
      dsa_eras.push_back({{"from", e.from.str()},
                          {"forced_mem_fraction_static", e.forced_mem_fraction_static},
                          {"indexer_in_budget", e.indexer_in_budget},
                          {"source", e.source}});
    nlohmann::json eras = nlohmann::json::array();
    for (const auto& e : v.eras)
      eras.push_back({{"from", fmt::format("{}.{}.{}", e.from.major, e.from.minor, e.from.patch)},
                      {"engine", e.engine},
                      {"non_torch_gib_tp1", e.non_torch_gib_tp1},
                      {"non_torch_gib_tp", e.non_torch_gib_tp},
                      {"non_torch_gib_pp_only", e.non_torch_gib_pp_only},
                      {"cuda_graph_subtracted", e.cuda_graph_subtracted},
                      {"sampler_bytes_per_logit", e.sampler_bytes_per_logit},
                      {"kv_tokens_from_concurrency", e.kv_tokens_from_concurrency},
                      {"hybrid_kv_manager", e.hybrid_kv_manager},
                      {"moe_workspace", e.moe_workspace},
                      {"source", e.source}});
    nlohmann::json j = {
        {"generic",
         {{"rules",
           "seed 000's planning model: weights, a runtime reserve (--reserve), prefill activations, "
           "recurrent state slots and the token cache per rank; no engine quirks"}}},
        {"vllm",
         {{"default_version", v.default_version.str()},
          {"code", v.code},
          {"gpu_memory_utilization", v.gpu_memory_utilization},
          {"block_size", v.block_size},
          {"mla_block_size", v.mla_block_size},
          {"max_num_batched_tokens",
           {{"large_gpu", v.max_num_batched_tokens_large_gpu}, {"small_gpu", v.max_num_batched_tokens_small_gpu}}},
          {"max_num_seqs", {{"large_gpu", v.max_num_seqs_large_gpu}, {"small_gpu", v.max_num_seqs_small_gpu}}},
          {"eras", eras},
          {"sources", v.sources}}},
        {"sglang",
         {{"default_version", g.default_version.str()},
          {"code", g.code},
          {"mamba_full_memory_ratio", g.mamba_full_memory_ratio},
          {"page_size", g.page_size},
          {"slots_per_request",
           {{"radix_on", g.radix_slots_on}, {"radix_lazy", g.radix_slots_lazy}, {"radix_off", g.radix_slots_off}}},
          {"mem_fraction_static_rule", g.reserved_source},
          {"dsa_eras", dsa_eras},
          {"sources", g.sources}}}};
    io.out << json_text(j) << "\n";
    return 0;
  }
  io.out << "generic  seed 000's planning model: weights, --reserve, prefill activations, state slots, token cache\n\n";
  io.out << fmt::format(
      "vllm     default version {}; gpu_memory_utilization {}; block {} tokens (MLA {}); "
      "max_num_batched_tokens {} / max_num_seqs {} on GPUs >= {} GiB (else {} / {})\n",
      v.default_version.str(), v.gpu_memory_utilization, v.block_size, v.mla_block_size,
      v.max_num_batched_tokens_large_gpu, v.max_num_seqs_large_gpu, v.large_gpu_min_gib,
      v.max_num_batched_tokens_small_gpu, v.max_num_seqs_small_gpu);
  io.out << fmt::format("         rules from {}\n", v.code);
  for (const auto& e : v.eras)
    io.out << fmt::format(
        "  from {}.{}.{} ({}): non-torch {} GiB at TP1, {} GiB at TP>1; CUDA graphs {}; sampler {} B/logit;\n"
        "      hybrid KV cache manager {}; fused-MoE workspace {}\n"
        "      source: {}\n",
        e.from.major, e.from.minor, e.from.patch, e.engine, e.non_torch_gib_tp1, e.non_torch_gib_tp,
        e.cuda_graph_subtracted ? "subtracted" : "not subtracted", e.sampler_bytes_per_logit, e.hybrid_kv_manager,
        e.moe_workspace, e.source);
  io.out << fmt::format(
      "\nsglang   default version {}; mem_fraction_static by SGLang's formula; mamba_full_memory_ratio {}; "
      "page {} token(s); state slots per request {} / {} / {} (radix on / lazy / off)\n",
      g.default_version.str(), g.mamba_full_memory_ratio, g.page_size, g.radix_slots_on, g.radix_slots_lazy,
      g.radix_slots_off);
  io.out << fmt::format("         rules from {}\n         {}\n", g.code, g.reserved_source);
  for (const auto& e : g.dsa_eras)
    io.out << fmt::format(
        "  DSA models from {}: mem_fraction_static {}; indexer keys {} the token budget\n      source: {}\n",
        e.from.str(),
        e.forced_mem_fraction_static > 0 ? fmt::format("forced to {}", e.forced_mem_fraction_static)
                                         : std::string("by the formula"),
        e.indexer_in_budget ? "in" : "not in", e.source);
  return 0;
}

}  // namespace preflight::cli
