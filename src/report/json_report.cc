#include "report/json_report.h"

#include <fmt/format.h>

#include "model/request_state.h"
#include "report/reconstruction.h"

namespace preflight {

nlohmann::json figure_json(const Figure& f) {
  // Members put in place, not through an initializer list, which copies each
  // value once more (a K3 plan's JSON has a few hundred figures).
  nlohmann::json j(nlohmann::json::value_t::object);
  auto& o = j.get_ref<nlohmann::json::object_t&>();
  o.emplace("id", f.id);
  o.emplace("label", f.label);
  o.emplace("unit", f.unit);
  o.emplace("evidence", evidence_key(f.evidence));
  o.emplace("formula", f.formula);
  o.emplace("source", f.source);
  o.emplace("display", f.display);
  if (f.is_exact)
    o.emplace("value", f.exact);
  else
    o.emplace("value", f.value);
  return j;
}

nlohmann::json engine_json(const EngineSizing& e) {
  nlohmann::json workers = nlohmann::json::array();
  std::uint64_t heaviest = 0;
  for (const auto& w : e.workers) {
    heaviest = std::max(heaviest, w.weights_bytes);
    workers.push_back({{"rank", w.rank},
                       {"stage", w.stage},
                       {"weights_bytes", w.weights_bytes},
                       {"activation_peak_bytes", w.activation_peak_bytes},
                       {"non_torch_bytes", w.non_torch_bytes},
                       {"cuda_graph_bytes", w.cuda_graph_bytes},
                       {"requested_bytes", w.requested_bytes},
                       {"kv_budget_bytes", w.kv_budget_bytes},
                       {"kv_request_bytes", w.kv_request_bytes},
                       {"state_request_bytes", w.state_request_bytes},
                       {"kv_pool_bytes", w.kv_pool_bytes},
                       {"state_pool_bytes", w.state_pool_bytes}});
  }
  nlohmann::json j = {{"name", std::string(engine_key(e.kind))},
                      {"display_name", e.name},
                      {"version", e.version},
                      {"version_defaulted", e.version_defaulted},
                      {"version_note", e.version_note},
                      {"memory_fraction", e.memory_fraction},
                      {"weights_bytes_per_rank", heaviest},
                      {"kv_cache_tokens", e.kv_cache_tokens},
                      {"max_concurrency", e.max_concurrency},
                      {"max_model_len", e.max_model_len},
                      {"block_size", e.block_size},
                      {"num_blocks", e.num_blocks},
                      {"kv_groups", e.kv_groups},
                      {"page_bytes", e.page_bytes},
                      {"kv_bytes_per_token", e.kv_bytes_per_token},
                      {"max_num_seqs", e.max_num_seqs},
                      {"max_num_batched_tokens", e.max_num_batched_tokens},
                      {"kv_budget_bytes", e.min_kv_budget_bytes},
                      {"holds_one_request", e.holds_one_request},
                      {"failure", e.failure},
                      {"rules", e.rules},
                      {"estimates", e.estimates},
                      {"workers", std::move(workers)}};
  if (e.kind == EngineKind::sglang) {
    j["max_running_requests"] = e.max_running_requests;
    j["mem_fraction_static"] = e.memory_fraction;
    j["state_slots"] = e.state_slots;
  } else {
    j["gpu_memory_utilization"] = e.memory_fraction;
  }
  if (e.range) {
    const auto& r = *e.range;
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : r.points) {
      nlohmann::json q = {
          {"version", p.version}, {"kv_cache_tokens", p.kv_cache_tokens}, {"max_concurrency", p.max_concurrency}};
      if (!p.failure.empty()) q["failure"] = p.failure;
      points.push_back(std::move(q));
    }
    j["range"] = {{"evidence", "estimate"},
                  {"why",
                   "no --engine-version: the engine sized at every release whose rules differ; the ends widened by the "
                   "sizing's own error (band_relative, band_source)"},
                  {"kv_cache_tokens_min", r.kv_cache_tokens_min},
                  {"kv_cache_tokens_min_version", r.kv_min_version},
                  {"kv_cache_tokens_max", r.kv_cache_tokens_max},
                  {"kv_cache_tokens_max_version", r.kv_max_version},
                  {"max_concurrency_min", r.max_concurrency_min},
                  {"max_concurrency_min_version", r.concurrency_min_version},
                  {"max_concurrency_max", r.max_concurrency_max},
                  {"max_concurrency_max_version", r.concurrency_max_version},
                  {"ends_from_refusals", r.ends_from_refusals},
                  {"band_relative", r.band},
                  {"band_source", r.band_source},
                  {"releases_kv_cache_tokens_min", r.release_kv_tokens_min},
                  {"releases_kv_cache_tokens_max", r.release_kv_tokens_max},
                  {"releases_max_concurrency_min", r.release_concurrency_min},
                  {"releases_max_concurrency_max", r.release_concurrency_max},
                  {"versions", std::move(points)}};
  }
  return j;
}

// The throughput contract (docs/json.md): headline bounds as plain numbers;
// every figure behind them, with its formula, is in "figures" under perf.*,
// cost.* and coldstart.*.
nlohmann::json perf_json(const PerfReport& p) {
  nlohmann::json j;
  j["available"] = p.available;
  j["evidence"] = "estimate";
  if (!p.available) j["unavailable"] = p.unavailable;
  if (p.available) {
    const auto& d = p.decode;
    j["decode_tokens_per_s_bound"] = p.decode_tokens_per_s_bound;
    j["decode_tokens_per_s_per_gpu_bound"] = d.tokens_per_s_per_gpu_bound;
    j["binding_term"] = std::string(binding_term_key(d.batch1.binding.binding));
    j["bytes_per_token"] = d.batch1.tokens_per_step ? d.batch1.cluster_bytes / d.batch1.tokens_per_step : 0;
    j["bytes_per_token_by_dtype"] = nlohmann::json::object();
    for (const auto& [k, v] : p.bytes_per_token_by_dtype) j["bytes_per_token_by_dtype"][k] = v;
    j["weight_bytes_share_by_dtype"] = nlohmann::json::object();
    for (const auto& [k, v] : p.weight_bytes_share) j["weight_bytes_share_by_dtype"][k] = v;
    j["at_concurrency"] = {{"concurrency", d.concurrency},
                           {"batch_per_group", p.batch_per_group},
                           {"tokens_per_s_bound", d.tokens_per_s_at_batch},
                           {"tokens_per_s_per_request_bound", d.tokens_per_s_per_request_at_batch},
                           {"tokens_per_s_per_gpu_bound", d.tokens_per_s_per_gpu_at_batch},
                           {"binding_term", std::string(binding_term_key(d.at_batch.binding.binding))}};
    j["prefill"] = {{"prompt_tokens", p.prefill.prompt_tokens},
                    {"seconds_bound", p.prefill.seconds_bound},
                    {"compute_seconds", p.prefill.compute_seconds},
                    {"memory_seconds", p.prefill.memory_seconds},
                    {"communication_seconds", p.prefill.step.communication_unknown
                                                  ? nlohmann::json(nullptr)
                                                  : nlohmann::json(p.prefill.communication_seconds)}};
    // A link of unknown bandwidth: the communication term is unknown (null above), never 0 s.
    j["communication_known"] =
        !(d.batch1.communication_unknown || d.at_batch.communication_unknown || p.prefill.step.communication_unknown);
    if (p.spec.tokens > 0)
      j["speculative"] = {{"tokens", p.spec.tokens},
                          {"acceptance", p.spec.acceptance},
                          {"tokens_per_step", p.spec.tokens_per_step},
                          {"draft_seconds", p.spec.draft_seconds},
                          {"decode_tokens_per_s_bound", p.spec.tokens_per_s_bound},
                          {"evidence", "hypothesis"}};
    if (p.cost.priced) {
      j["cost"] = {{"cluster_usd_per_hour", p.cost.cluster_usd_per_hour},
                   {"usd_per_m_tokens_at_bound", p.cost.usd_per_m_at_bound},
                   {"usd_per_m_tokens_at_utilisation", p.cost.usd_per_m_at_utilisation},
                   {"usd_per_m_tokens_single_request", p.cost.usd_per_m_single_request}};
      if (p.cost.break_even_tokens_per_day > 0) {
        j["cost"]["break_even_utilisation"] = p.cost.break_even_utilisation;
        j["cost"]["break_even_tokens_per_day"] = p.cost.break_even_tokens_per_day;
      }
    } else {
      j["cost"] = nullptr;
    }
  }
  const auto& c = p.cold_start;
  nlohmann::json totals = nlohmann::json::object();
  for (const auto& [rate, s] : c.total_s) totals[fmt::format("{:g}", rate)] = s;
  j["cold_start"] = {{"staging_bytes", c.staging_bytes},
                     {"max_node_bytes", c.max_node_bytes},
                     {"load_s", c.load_s},
                     {"total_s_by_gbps", totals},
                     {"recover_node_s", c.recover_node_s}};
  return j;
}

nlohmann::json latency_estimate_json(const LatencyEstimate& e, const LatencyTargets& t) {
  const auto or_null = [](double v) { return v > 0 ? nlohmann::json(v) : nlohmann::json(nullptr); };
  return {{"ttft_s", {{"mean", e.ttft_mean_s}, {"p50", e.ttft_p50_s}, {"p90", e.ttft_p90_s}, {"p99", e.ttft_p99_s}}},
          {"tpot_s", {{"mean", e.tpot_mean_s}, {"p50", e.tpot_p50_s}, {"p90", e.tpot_p90_s}, {"p99", e.tpot_p99_s}}},
          {"output_tokens_per_s", e.output_tokens_per_s},
          {"energy",
           {{"busy_share", e.busy_share},
            {"pue", t.pue},
            {"joules_per_output_token", or_null(e.joules_per_output_token)},
            {"kwh_per_million_output_tokens", or_null(e.kwh_per_million_output_tokens)},
            {"power_price_usd_per_kwh", or_null(t.power_price_usd_per_kwh)},
            {"usd_per_million_output_tokens", or_null(e.energy_usd_per_million_output_tokens)}}},
          {"band", e.band},
          {"arrivals", e.arrivals},
          {"requests_per_dp_group", e.requests},
          {"seed", t.seed},
          {"preemptions", e.preemptions},
          {"kv_capacity_tokens", e.kv_capacity_tokens},
          {"efficiency", e.efficiency},
          {"step_model",
           {{"weights_s_1", e.step_model.weights_s_1},
            {"weights_s_64", e.step_model.weights_s_64},
            {"kv_s_per_context_token", e.step_model.kv_s_per_context_token},
            {"decode_compute_s_per_seq", e.step_model.decode_compute_s_per_seq},
            {"attention_compute_s_per_context_token", e.step_model.attention_compute_s_per_context_token},
            {"prefill_compute_s_per_token", e.step_model.prefill_compute_s_per_token},
            {"decode_comm_s_per_seq", e.step_model.decode_comm_s_per_seq},
            {"prefill_comm_s_per_token", e.step_model.prefill_comm_s_per_token},
            {"layers", e.step_model.layers},
            {"collectives", e.step_model.collectives}}},
          {"evidence", evidence_key(Evidence::estimate)}};
}

// The latency targets against the bounds, and the estimate beside them.
nlohmann::json latency_json(const LatencyCheck& c) {
  const auto& t = c.targets;
  const auto or_null = [](double v) { return v > 0 ? nlohmann::json(v) : nlohmann::json(nullptr); };
  nlohmann::json j = {{"targets",
                       {{"ttft_s", or_null(t.ttft_s)},
                        {"tpot_s", or_null(t.tpot_s)},
                        {"rate_per_s", or_null(t.rate_per_s)},
                        {"input_tokens", t.input_tokens},
                        {"output_tokens", t.output_tokens}}},
                      {"concurrency", c.concurrency},
                      {"concurrency_from_rate", c.concurrency_from_rate},
                      {"prefill_bound_s", c.bounds.prefill_s},
                      {"decode_step_bound_s", c.bounds.decode_step_s},
                      {"prefill_share", c.prefill_share},
                      {"decode_share", c.decode_share},
                      {"saturated", c.saturated},
                      {"ttft_s", c.ttft_s},
                      {"tpot_s", c.tpot_s},
                      {"binding", c.binding.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.binding)},
                      {"why", c.why},
                      {"evidence", evidence_key(c.binding.empty() ? Evidence::hypothesis : Evidence::derived)},
                      {"bound",
                       {{"ttft_s", c.bounds.prefill_s + t.kv_transfer_s},
                        {"tpot_s", c.bounds.decode_step_s},
                        {"evidence", evidence_key(Evidence::derived)}}}};
  if (c.estimate) {
    j["estimate"] = latency_estimate_json(*c.estimate, t);
  } else {
    j["estimate"] = nullptr;
  }
  return j;
}

// Each rank's ledger: capacity, demand, the first boundary it crosses and its rows.
nlohmann::json ranks_json(const std::vector<RankLedger>& ranks) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : ranks) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : r.rows) {
      nlohmann::json item(nlohmann::json::value_t::object);  // members in place, as figure_json
      auto& o = item.get_ref<nlohmann::json::object_t&>();
      o.emplace("id", row.id);
      o.emplace("label", row.label);
      o.emplace("resource", resource_key(row.resource));
      o.emplace("bytes", row.bytes);
      o.emplace("evidence", evidence_key(row.evidence));
      o.emplace("formula", row.formula);
      rows.push_back(std::move(item));
    }
    out.push_back({{"rank", r.rank},
                   {"capacity_bytes", r.capacity},
                   {"demand_bytes", r.demand},
                   {"free_bytes", r.free},
                   {"over_bytes", r.over},
                   {"first_boundary", resource_key(r.first_boundary)},
                   {"rows", std::move(rows)}});
  }
  return out;
}

nlohmann::json plan_json(const Plan& plan) {
  nlohmann::json j;
  j["model"] = {{"name", plan.model_name},
                {"family", plan.model_family},
                {"architecture", plan.model_architecture},
                {"family_reader", plan.family_reader},
                {"manifest_source", std::string(manifest_source_key(plan.manifest_source))},
                {"files_disagree", plan.files_disagree},
                {"revision", plan.revision},
                {"checkpoint_bytes", plan.checkpoint_bytes},
                {"loaded_weight_bytes", plan.loaded_weight_bytes},
                {"parameters", plan.logical_params},
                {"active_parameters", plan.active_params}};
  j["cluster"] = {{"gpu", plan.gpu.id},
                  {"gpu_name", plan.gpu.name},
                  {"count", plan.gpu_count},
                  {"capacity_bytes_per_gpu", plan.gpu.device_total_bytes},
                  {"capacity_evidence", evidence_key(plan.gpu.device_total_evidence)},
                  {"nominal_gb_per_gpu", plan.gpu.nominal_gb},
                  {"gpus_per_node", plan.gpu.gpus_per_node}};
  j["layout"] = {{"tp", plan.layout.tp},
                 {"ep", plan.layout.ep},
                 {"pp", plan.layout.pp},
                 {"dp", plan.layout.dp},
                 {"dcp", plan.layout.dcp},
                 {"moe_tp", plan.layout.moe_tp},
                 {"nodes", plan.layout.nodes},
                 {"gpus_per_node", plan.layout.gpus_per_node},
                 {"stage_layers", plan.layout.stage_layers},
                 {"chosen_by", plan.layout.chosen_by}};
  if (plan.engine)
    j["engine"] = engine_json(*plan.engine);
  else
    j["engine"] = {{"name", "generic"},
                   {"rules", {"seed 000 planning model: reserve, activations, state and cache per rank"}}};
  j["pass"] = plan.second_pass ? 2 : 1;
  if (plan.second_pass) {
    const auto& w = plan.workload;
    j["workload"] = {{"context_tokens", w.context_tokens}, {"concurrency", w.concurrency},
                     {"kv_dtype", dtype_key(w.kv_dtype)},  {"state_dtype", dtype_key(w.state_dtype)},
                     {"state_slots", w.state_slots},       {"chunk_tokens", w.chunk_tokens}};
    if (!w.mix.empty()) {
      // Each member's share and the requests of the heaviest attention group at its length.
      const auto counts = heaviest_group(w.mix, w.concurrency, plan.layout.dp);
      auto mix = nlohmann::json::array();
      for (std::size_t i = 0; i < w.mix.size(); ++i)
        mix.push_back({{"context_tokens", w.mix[i].tokens},
                       {"share_percent", share_percent(w.mix, i)},
                       {"requests_per_group", counts[i]}});
      j["workload"]["mix"] = mix;
    }
  }
  j["verdict"] = {{"fits", plan.verdict.fits},
                  {"first_boundary", resource_key(plan.verdict.first_boundary)},
                  {"headroom_bytes", plan.verdict.headroom_bytes},
                  {"worst_rank", plan.verdict.worst_rank},
                  {"evidence", evidence_key(plan.verdict.evidence)},
                  {"summary", plan.verdict.summary}};
  {
    auto suggestions = nlohmann::json::array();
    for (const auto& x : plan.verdict.suggestions)
      suggestions.push_back({{"flags", x.flags}, {"headroom_bytes", x.headroom_bytes}, {"layout", x.layout}});
    j["verdict"]["suggestions"] = suggestions;
  }
  if (plan.latency) j["latency"] = latency_json(*plan.latency);
  j["ranks"] = ranks_json(plan.ranks);
  if (plan.perf) {
    j["perf"] = perf_json(*plan.perf);
    j["perf"]["plan_fits"] = plan.verdict.fits;  // false: bounds of a deployment that would not start
  }
  if (!plan.draft_name.empty())
    j["draft"] = {
        {"name", plan.draft_name}, {"tp", plan.draft_tp}, {"weights_bytes_per_rank", plan.draft_weights_per_rank}};
  j["figures"] = nlohmann::json::array();
  for (const auto& f : plan.figures) j["figures"].push_back(figure_json(f));
  j["assumptions"] = plan.assumptions;
  j["checklist"] = nlohmann::json::array();
  for (const auto& c : plan.checklist)
    j["checklist"].push_back({{"step", c.step}, {"status", c.status}, {"detail", c.detail}});
  return j;
}

nlohmann::json reconciliation_json(const Reconciliation& r) {
  nlohmann::json j{{"exact", r.exact()},
                   {"method", reconciliation_method_key(r.method)},
                   {"from_headers", r.method == ReconciliationMethod::shard_headers},
                   {"bytes_known", r.bytes_known()},
                   {"adds_up", r.adds_up()},
                   {"shards", r.shard_count},
                   {"shards_verified_by_size", r.shards_verified_by_size},
                   {"shards_read_in_full", r.shards_read_in_full},
                   {"generated_tensors", r.generated_tensors},
                   {"real_tensors", r.real_tensors},
                   {"generated_bytes", r.generated_bytes},
                   {"real_bytes", r.real_bytes},
                   {"header_bytes", r.header_bytes},
                   {"missing", r.missing_count},
                   {"missing_bytes", r.missing_bytes},
                   {"extra", r.extra_count},
                   {"extra_bytes", r.extra_bytes},
                   {"mismatched", r.mismatched_count},
                   {"mismatch_byte_delta", r.mismatch_delta}};
  if (r.index_total_size) j["index_total_size"] = *r.index_total_size;
  j["examples"] = nlohmann::json::array();
  for (const auto& d : r.examples)
    j["examples"].push_back(
        {{"name", d.name}, {"generated", d.generated}, {"real", d.real}, {"byte_delta", d.byte_delta}});
  return j;
}

nlohmann::json inventory_json(const ModelSpec& model, const Inventory& inv, const Reconciliation* reconciliation) {
  nlohmann::json j;
  j["model"] = {{"name", model.name},
                {"family", model.family},
                {"architecture", model.architecture},
                {"family_reader", model.family_reader},
                {"manifest_source", std::string(manifest_source_key(model.manifest_source))},
                {"files_disagree", model.files_disagree},
                {"checkpoint_bytes", model.disk_payload_bytes > 0 ? model.disk_payload_bytes : inv.payload_bytes},
                {"loaded_weight_bytes", inv.payload_bytes},
                {"parameters", inv.logical_params},
                {"active_parameters", inv.active_params},
                {"tensors", inv.tensors}};
  if (model.artifact) {
    const auto& a = *model.artifact;
    j["model"]["revision"] = a.revision;
    j["artifact"] = {{"hub_id", a.hub_id},
                     {"revision", a.revision},
                     {"shard_count", a.shard_count},
                     {"shard_bytes", a.shard_bytes},
                     {"file_count", a.file_count},
                     {"file_bytes", a.file_bytes},
                     {"logical_parameters", a.logical_parameters},
                     {"source", a.source},
                     {"evidence", "official"}};
  }
  j["modules"] = nlohmann::json::array();
  for (const auto& r : inv.by_module)
    j["modules"].push_back({{"module", module_key(r.module)},
                            {"tensors", r.tensors},
                            {"parameters", r.logical_params},
                            {"bytes", r.bytes},
                            {"bytes_by_dtype", r.bytes_by_dtype}});
  j["bytes_by_dtype"] = inv.bytes_by_dtype;
  j["elements_by_dtype"] = inv.elements_by_dtype;
  j["cache_per_token"] = nlohmann::json::array();
  for (const auto& r : token_cache_per_rank(model, 2, 1))
    j["cache_per_token"].push_back({{"kind", layer_kind_key(r.kind)},
                                    {"layers", r.layers},
                                    {"bf16_bytes", r.bytes_per_token},
                                    {"fp8_bytes", r.bytes_per_token / 2},
                                    {"token_cap", r.token_cap},
                                    {"replicated_over_tp", r.replicated_over_tp},
                                    {"formula", r.formula}});
  j["state_per_sequence"] = nlohmann::json::array();
  const auto bf16 = recurrent_state_per_rank(model, 1, 2);
  const auto fp32 = recurrent_state_per_rank(model, 1, 4);
  for (std::size_t i = 0; i < fp32.size(); ++i)
    j["state_per_sequence"].push_back({{"kind", layer_kind_key(fp32[i].kind)},
                                       {"layers", fp32[i].layers},
                                       {"fp32_recurrent_bytes", fp32[i].bytes},
                                       {"bf16_recurrent_bytes", bf16[i].bytes},
                                       {"conv_bytes", fp32[i].conv_bytes},
                                       {"formula", fp32[i].formula}});
  j["notes"] = model.notes;
  j["mtp_layers"] = model.mtp_layers;
  if (reconciliation) j["reconciliation"] = reconciliation_json(*reconciliation);
  j["reconstruction"] = nlohmann::json::array();
  for (const auto& f : two_precision_reconstruction(model, inv)) j["reconstruction"].push_back(figure_json(f));
  return j;
}

nlohmann::json accelerator_json(const Accelerator& g) {
  nlohmann::json j = {{"id", g.id},
                      {"vendor", g.vendor},
                      {"name", g.name},
                      {"architecture", g.architecture},
                      {"aliases", g.aliases},
                      {"nominal_gb", g.nominal_gb},
                      {"smi_total_bytes", g.smi_total_bytes},
                      {"device_total_bytes", g.device_total_bytes},
                      {"device_total_evidence", evidence_key(g.device_total_evidence)},
                      {"device_total_source", g.device_total_source},
                      {"memory_type", g.memory_type},
                      {"memory_bandwidth_tb_s", g.memory_bandwidth_tb_s},
                      {"bf16_dense_tflops", g.bf16_dense_tflops},
                      {"fp8_dense_tflops", g.fp8_dense_tflops},
                      {"fp4_native", g.fp4_native},
                      {"fp4_dense_tflops", g.fp4_dense_tflops},
                      {"interconnect", g.interconnect},
                      {"interconnect_gb_s", g.interconnect_gb_s},
                      {"nvls_domain", g.nvls_domain},
                      {"gpus_per_node", g.gpus_per_node},
                      {"price_usd_per_gpu_hour", g.price_usd_per_gpu_hour},
                      {"price_note", g.price_note},
                      {"sources", g.sources}};
  for (const auto& key : g.unknown) j[key] = nullptr;  // not published: null, never 0
  return j;
}

}  // namespace preflight
