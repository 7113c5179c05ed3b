// plan --prefill-gpus P --decode-gpus D: disaggregated prefill and decode
// (plan/disaggregated.h). Each pool is planned as `plan` plans a cluster
// (its own layout flags, the practical layout search, suggestions), from the
// same options with the pool's workload:
//  - decode: the workload as given (every running request at its length),
//    checked against --tpot;
//  - prefill: the prompts in flight (rate x TTFT target with --rate and
//    --ttft, else one per attention group) at the prompt length, checked
//    against --ttft with the KV transfer added.
#include <fmt/format.h>

#include <cmath>

#include "commands.h"
#include "core/bytes.h"
#include "option_table.h"
#include "plan/disaggregated.h"
#include "plan/ledger_check.h"
#include "plan_inputs.h"
#include "report/json_report.h"
#include "report/text_report.h"

namespace preflight::cli {

namespace {

// The layout flags of `plan` name one cluster; each pool has its own.
std::optional<Error> refuse_single_cluster_flags(const Options& o) {
  if (!o.gpus.empty())
    return Error{flag_of(&Options::gpus), "",
                 "a disaggregated plan sizes two pools: give --prefill-gpus and --decode-gpus, not --gpus"};
  if (o.prefill_gpus.empty() || o.decode_gpus.empty())
    return Error{o.prefill_gpus.empty() ? flag_of(&Options::prefill_gpus) : flag_of(&Options::decode_gpus), "",
                 "a disaggregated plan needs both pools: --prefill-gpus COUNTxFAMILY and --decode-gpus COUNTxFAMILY"};
  for (const auto& [flag, value] : {std::pair<const char*, const std::string*>{flag_of(&Options::tp), &o.tp},
                                    {flag_of(&Options::ep), &o.ep},
                                    {flag_of(&Options::pp), &o.pp},
                                    {flag_of(&Options::dp), &o.dp}})
    if (!value->empty())
      return Error{flag, "", fmt::format("name the pool: --prefill-{} or --decode-{}", flag + 2, flag + 2)};
  return std::nullopt;
}

}  // namespace

Options disaggregated_pool_options(const Options& o, bool prefill) {
  Options p = o;
  p.prefill_gpus.clear();
  p.decode_gpus.clear();
  p.gpus = prefill ? o.prefill_gpus : o.decode_gpus;
  p.tp = prefill ? o.prefill_tp : o.decode_tp;
  p.ep = prefill ? o.prefill_ep : o.decode_ep;
  p.pp = prefill ? o.prefill_pp : o.decode_pp;
  p.dp = prefill ? o.prefill_dp : o.decode_dp;
  p.latency_phase = prefill ? LatencyPhase::prefill : LatencyPhase::decode;
  return p;
}

namespace {

std::string figure_line(const Figure& f) {
  return fmt::format("  {}: {}  [{}]\n    = {}\n", f.label, f.display, evidence_label(f.evidence), f.formula);
}

}  // namespace

int run_disaggregated_plan(const Options& o, Io& io) {
  if (auto e = refuse_single_cluster_flags(o)) return fail(io, *e);
  // Each pool resolved from its own options (its --gpus and layout flags) with the model loaded once.
  auto loaded = load_model_for(o);
  if (!loaded) return fail(io, loaded.error());
  auto decode_in = resolve_request(disaggregated_pool_options(o, false), ClusterFrom::gpus, &loaded.value());
  if (!decode_in) return fail(io, decode_in.error());
  const auto& model = decode_in->loaded.model;

  // The prompt: --input-tokens, else the longest request less its output.
  const auto& w = decode_in->request.workload;
  const auto length = longest_request_tokens(w, model.max_context);
  const auto& t = decode_in->request.latency;
  const auto output = t.output_tokens > 0 ? t.output_tokens : default_output_tokens(length);
  const auto prompt = t.input_tokens > 0 ? t.input_tokens : default_input_tokens(length, output);
  const auto link = decode_in->request.perf.scale_out_gb_s;
  if (!(link > 0))
    return fail(io, Error{flag_of(&Options::scale_out_gb_s), "",
                          "the KV transfer between the pools crosses the scale-out network: give its rate above 0"});

  try {
    auto decode = make_plan(*decode_in);
    if (!decode) return fail(io, named_for_pool(decode.error(), LatencyPhase::decode));
    const auto transfer = kv_transfer(model, decode->layout, decode->workload, prompt, link, t.rate_per_s);

    // The prefill pool: its cluster and layout flags, and the phase's workload set on the typed request.
    auto prefill_in = resolve_request(disaggregated_pool_options(o, true), ClusterFrom::gpus, &loaded.value());
    if (!prefill_in) return fail(io, prefill_in.error());
    ResolvedRequest& pool = prefill_in.value();
    auto& pw = pool.request.workload;
    pw.requested = true;
    pw.context_tokens = prompt;
    pw.mix.clear();
    auto& pt = pool.request.latency;
    if (t.any()) {  // the latency check's tokens (without a target there is none)
      pt.input_tokens = prompt;
      pt.output_tokens = output;
    }
    pt.tpot_s = 0;
    pt.kv_transfer_s = transfer.seconds;
    // Prompts in flight: those arriving while one waits for its first token (Little's law), else one per group.
    const auto in_flight =
        t.rate_per_s > 0 && t.ttft_s > 0
            ? std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(t.rate_per_s * t.ttft_s)))
            : 1;
    pw.concurrency = in_flight;
    pool.request.concurrency_from_rate = false;
    pool.workload_flags = fmt::format("--context {} --concurrency {}", prompt, in_flight);
    auto prefill = make_plan(pool);
    if (!prefill) return fail(io, named_for_pool(prefill.error(), LatencyPhase::prefill));
    for (const Plan* pool_plan : {&*decode, &*prefill})
      if (const auto why = plan_invariant_violation(*pool_plan, model); !why.empty()) throw std::logic_error(why);
    const auto verdict = combined_verdict(*prefill, *decode, transfer);

    if (o.format == "json") {
      nlohmann::json kv = {{"prompt_tokens", transfer.prompt_tokens},
                           {"bytes_per_request", transfer.bytes_per_request},
                           {"bytes_per_decode_rank", transfer.bytes_per_decode_rank},
                           {"link_gb_s_per_gpu", transfer.link_gb_s},
                           {"seconds", transfer.seconds},
                           {"rate_per_s", transfer.rate_per_s},
                           {"link_share", transfer.link_share},
                           {"figures", nlohmann::json::array()}};
      for (const auto& f : transfer.figures) kv["figures"].push_back(figure_json(f));
      auto decode_json = plan_json(*decode);
      nlohmann::json j = {{"model", decode_json["model"]},
                          {"disaggregated",
                           {{"prefill", plan_json(*prefill)},
                            {"decode", decode_json},
                            {"kv_transfer", kv},
                            {"prompts_in_flight", in_flight}}},
                          {"verdict",
                           {{"fits", verdict.fits},
                            {"first_boundary", resource_key(verdict.first_boundary)},
                            {"headroom_bytes", verdict.headroom_bytes},
                            {"evidence", evidence_key(verdict.evidence)},
                            {"summary", verdict.summary}}}};
      io.out << json_text(j) << "\n";
    } else {
      std::string out = fmt::format("preflight plan: {}, disaggregated: prefill on {} x {}, decode on {} x {}\n\n",
                                    model.name, prefill->gpu_count, prefill->gpu.id, decode->gpu_count, decode->gpu.id);
      out += fmt::format("Verdict: {} [{}]\n  {}\n  first boundary: {}\n", verdict_word(verdict),
                         evidence_label(verdict.evidence), verdict.summary, resource_key(verdict.first_boundary));
      out += fmt::format("\nKV transfer (prefill -> decode, {} GB/s per GPU)\n", link);
      for (const auto& f : transfer.figures) out += figure_line(f);
      out += fmt::format("\nPrefill pool: {}-token prompts, {} in flight\n", with_commas(prompt), in_flight);
      out += render_brief(*prefill);
      out += "\nDecode pool: every running request at its length\n";
      out += render_brief(*decode);
      out += "\neach pool in full: `preflight plan` with its --gpus, layout and workload; the arithmetic: `explain`\n";
      io.out << within_plan_width(out);
    }
    return verdict.fits ? 0 : 1;
  } catch (const InputError& e) {
    return fail(io, e.error());
  }
}

}  // namespace preflight::cli
