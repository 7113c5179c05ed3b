#include "report/solve_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/bytes.h"
#include "perf/perf_inputs.h"
#include "placement/ledger.h"
#include "report/json_report.h"

namespace preflight {

namespace {

constexpr std::uint64_t kMB_decimal = 1000ULL * 1000;

// Decimal GB with the precision a margin needs: "17.5 GB", "0.021 GB", "4,096 B"
// (a boundary found by bisection leaves a margin far below 0.1 GB).
std::string amount(std::uint64_t bytes) {
  if (bytes >= kGB) return format_gb(bytes, 1);
  if (bytes >= kMB_decimal) return format_gb(bytes, 3);
  return with_commas(bytes) + " B";
}

std::uint64_t magnitude(std::int64_t bytes) {
  return bytes < 0 ? 0 - static_cast<std::uint64_t>(bytes) : static_cast<std::uint64_t>(bytes);
}

// "12.345" (GB, no unit, no thousands separator) for CSV.
std::string csv_gb(std::int64_t bytes) {
  return fmt::format("{:.3f}", static_cast<double>(bytes) / static_cast<double>(kGB));
}

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// One letter per resource for the sweep grid.
char resource_letter(Resource r) {
  switch (r) {
    case Resource::weights:
      return 'W';
    case Resource::reserve:
      return 'R';
    case Resource::activations:
      return 'A';
    case Resource::recurrent_state:
      return 'S';
    case Resource::kv_cache:
      return 'K';
    case Resource::ttft:
      return 'F';  // first token
    case Resource::tpot:
      return 'T';
    case Resource::latency_unchecked:
      return 'U';
    case Resource::none:
      return ' ';
  }
  return '?';
}

std::string title(TextStyle style, std::string_view text) {
  if (style == TextStyle::markdown) return fmt::format("## {}\n\n", text);
  return fmt::format("{}\n{}\n", text, std::string(text.size(), '='));
}

// A table as rows of cells: padded columns for the terminal, pipes for Markdown.
std::string table(const std::vector<std::vector<std::string>>& rows, TextStyle style,
                  const std::vector<bool>& right_aligned = {}) {
  if (rows.empty()) return "";
  std::vector<std::size_t> width(rows.front().size(), 0);
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size() && i < width.size(); ++i) width[i] = std::max(width[i], r[i].size());
  std::string out;
  for (std::size_t n = 0; n < rows.size(); ++n) {
    const auto& r = rows[n];
    std::string line = style == TextStyle::markdown ? "|" : "";
    for (std::size_t i = 0; i < width.size(); ++i) {
      const auto& cell = i < r.size() ? r[i] : std::string();
      const bool right = i < right_aligned.size() && right_aligned[i];
      if (style == TextStyle::markdown)
        line += " " + cell + " |";
      else
        line +=
            (i ? "  " : "") + (right ? fmt::format("{:>{}}", cell, width[i]) : fmt::format("{:<{}}", cell, width[i]));
    }
    if (style == TextStyle::table) {
      while (!line.empty() && line.back() == ' ') line.pop_back();
    }
    out += line + "\n";
    if (n == 0 && style == TextStyle::markdown) {
      std::string rule = "|";
      for (std::size_t i = 0; i < width.size(); ++i)
        rule += (i < right_aligned.size() && right_aligned[i]) ? " --: |" : " --- |";
      out += rule + "\n";
    }
  }
  return out;
}

nlohmann::json workload_json(const ModelSpec& model, const PlanRequest& request) {
  const auto& w = request.workload;
  nlohmann::json j = {{"second_pass", w.requested}, {"engine", std::string(engine_key(request.engine.kind))}};
  if (w.requested) {
    j["context_tokens"] = longest_request_tokens(w, model.max_context);
    j["concurrency"] = w.concurrency;
    j["kv_dtype"] = dtype_key(w.kv_dtype);
    j["state_dtype"] = dtype_key(w.state_dtype);
    if (!w.mix.empty()) {
      j["mix"] = nlohmann::json::array();
      for (std::size_t i = 0; i < w.mix.size(); ++i)
        j["mix"].push_back({{"context_tokens", w.mix[i].tokens}, {"share_percent", share_percent(w.mix, i)}});
    }
  }
  const auto& t = request.latency;
  if (t.any()) {
    const auto or_null = [](double v) { return v > 0 ? nlohmann::json(v) : nlohmann::json(nullptr); };
    j["latency_targets"] = {
        {"ttft_s", or_null(t.ttft_s)}, {"tpot_s", or_null(t.tpot_s)}, {"rate_per_s", or_null(t.rate_per_s)}};
  }
  return j;
}

nlohmann::json gpu_json(const Accelerator& gpu, std::uint64_t gpus_per_node) {
  return {{"gpu", gpu.id},
          {"name", gpu.name},
          {"gpus_per_node", gpus_per_node},
          {"capacity_bytes_per_gpu", gpu.device_total_bytes}};
}

std::string binding_key(Resource r) { return std::string(resource_key(r)); }

std::uint64_t nodes_for(std::uint64_t gpus, std::uint64_t node) {
  return ceil_div(gpus, std::max<std::uint64_t>(node, 1));
}

// Why a red probe is red, in brackets: the shortfall of memory, or the
// latency sentence when a target was missed (memory then fits).
std::string red_reason(const Verdict& v, Resource binding) {
  if (binding == Resource::ttft || binding == Resource::tpot || binding == Resource::latency_unchecked) {
    const auto cut = v.summary.find("; ");
    return fmt::format(" ({})", cut == std::string::npos ? v.summary : v.summary.substr(cut + 2));
  }
  return fmt::format(" ({} short on the worst rank)", amount(magnitude(v.headroom_bytes)));
}

// fit: the binding column / sentence for one family.
std::string fit_binding_text(const FamilyFit& f, std::uint64_t max_gpus) {
  if (f.binding == Resource::latency_unchecked) return f.note;
  if (f.fits)
    return f.binding_at > 0 ? fmt::format("{} ran out at {} GPU{}", resource_key(f.binding), f.binding_at,
                                          f.binding_at == 1 ? "" : "s")
                            : fmt::format("tightest: {}", resource_key(f.binding));
  if (f.limit_gpus == 0) return fmt::format("cannot be planned on up to {} GPUs: {}", max_gpus, f.note);
  std::string short_by;
  if (f.limit_planned) short_by = red_reason(f.best.verdict, f.binding);
  return fmt::format("does not fit within {} GPUs; at {} the binding resource is {}{}", max_gpus, f.limit_gpus,
                     resource_key(f.binding), short_by);
}

}  // namespace

std::string describe_workload(const ModelSpec& model, const PlanRequest& request) {
  const auto& w = request.workload;
  const bool generic = request.engine.kind == EngineKind::generic;
  std::string engine = fmt::format("{} engine", engine_key(request.engine.kind));
  // An engine sizes its pools for a context, so --engine always plans the second pass.
  if (!w.requested && generic) return fmt::format("weights only (pass 1), {}", engine);
  const auto context = w.context_tokens ? w.context_tokens : model.max_context;
  const auto reserve = !generic               ? std::string("the engine's own reservations")
                       : w.reserve.is_percent ? fmt::format("{}% reserve", w.reserve.percent)
                                              : fmt::format("{} reserve", format_binary(w.reserve.bytes));
  const auto cache = w.kv_dtype == KvDtype::automatic ? std::string("model-dtype") : std::string(dtype_key(w.kv_dtype));
  const auto lengths = w.mix.empty() ? fmt::format("context {} tokens", with_commas(context))
                                     : fmt::format("a mix of {}", describe_mix(w.mix));
  std::string targets;
  const auto& t = request.latency;
  if (t.ttft_s > 0) targets += fmt::format(", TTFT <= {}", format_seconds(t.ttft_s));
  if (t.tpot_s > 0) targets += fmt::format(", TPOT <= {}", format_seconds(t.tpot_s));
  if (t.rate_per_s > 0) targets += fmt::format(", {:.4g} requests/s (concurrency by Little's law)", t.rate_per_s);
  return fmt::format("{} x {} request{}, {} cache, {} state, {}, {}{}", lengths, w.concurrency,
                     w.concurrency == 1 ? "" : "s", cache, w.state_dtype, reserve, engine, targets);
}

std::string layout_label(const Layout& l) {
  std::string out = fmt::format("TP{} DP{} EP{}", l.tp, l.dp, l.ep);
  if (l.moe_tp > 1) out += fmt::format(" MoE-TP{}", l.moe_tp);
  if (l.pp > 1) out += fmt::format(" PP{}", l.pp);
  if (l.dcp > 1) out += fmt::format(" DCP{}", l.dcp);
  return out;
}

nlohmann::json layout_json(const Layout& l) {
  return {{"tp", l.tp}, {"dp", l.dp}, {"ep", l.ep}, {"moe_tp", l.moe_tp}, {"pp", l.pp}, {"dcp", l.dcp}};
}

// ---- fit ----

std::string render_fit(const ModelSpec& model, const PlanRequest& request, const FitOptions& options,
                       const std::vector<FamilyFit>& fits, TextStyle style) {
  std::string out = title(style, fmt::format("{}: minimum GPUs per family", model.name));
  out +=
      fmt::format("{}; counts 1..{}, whole nodes above one node; the best of the candidate layouts at each count{}\n\n",
                  describe_workload(model, request), options.max_gpus,
                  options.estimate_check
                      ? fmt::format("; latency targets met by the bounds and by the simulated p{} estimate (a planning "
                                    "estimate, --latency-percentile)",
                                    options.estimate_percentile)
                      : "");
  std::vector<std::vector<std::string>> rows = {
      {"GPU", "per node", "min GPUs", "nodes", "layout", "headroom", "binding"}};
  std::uint64_t fitting = 0, evaluations = 0;
  for (const auto& f : fits) {
    evaluations += f.evaluations;
    if (f.fits) {
      ++fitting;
      rows.push_back({f.gpu.id, std::to_string(f.gpus_per_node), std::to_string(f.min_gpus),
                      std::to_string(nodes_for(f.min_gpus, f.gpus_per_node)), layout_label(f.best.layout),
                      amount(magnitude(f.best.verdict.headroom_bytes)), fit_binding_text(f, options.max_gpus)});
    } else {
      rows.push_back(
          {f.gpu.id, std::to_string(f.gpus_per_node), "-", "-", "-", "-", fit_binding_text(f, options.max_gpus)});
    }
  }
  out += table(rows, style, {false, true, true, true, false, true, false});
  out += fmt::format(
      "\n{} of {} families fit within {} GPUs ({} plans evaluated). Green is a deployment hypothesis "
      "under the stated inputs until benchmarked.\n",
      fitting, fits.size(), options.max_gpus, evaluations);
  return out;
}

std::string fit_csv(const std::vector<FamilyFit>& fits) {
  std::string out = std::string(kFitCsvHeader) + "\n";
  for (const auto& f : fits) {
    const bool layout = f.fits || f.limit_planned;
    const auto& l = f.best.layout;
    const auto nodes = f.fits ? std::to_string(nodes_for(f.min_gpus, f.gpus_per_node)) : "";
    out += fmt::format("{},{},{},{},{},", csv_field(f.gpu.id), f.gpus_per_node, f.fits ? "true" : "false",
                       f.fits ? std::to_string(f.min_gpus) : "", nodes);
    if (layout)
      out += fmt::format("{},{},{},{},{},{},{},", l.tp, l.dp, l.ep, l.pp, l.dcp, f.best.verdict.headroom_bytes,
                         csv_gb(f.best.verdict.headroom_bytes));
    else
      out += ",,,,,,,";
    out += fmt::format("{},{},{}\n", f.binding == Resource::none && !f.fits ? "" : binding_key(f.binding),
                       f.binding_at > 0 ? std::to_string(f.binding_at) : "", csv_field(f.note));
  }
  return out;
}

nlohmann::json fit_json(const ModelSpec& model, const PlanRequest& request, const FitOptions& options,
                        const std::vector<FamilyFit>& fits) {
  nlohmann::json families = nlohmann::json::array();
  for (const auto& f : fits) {
    nlohmann::json j = gpu_json(f.gpu, f.gpus_per_node);
    j["fits"] = f.fits;
    j["min_gpus"] = f.fits ? nlohmann::json(f.min_gpus) : nlohmann::json(nullptr);
    j["nodes"] = f.fits ? nlohmann::json(nodes_for(f.min_gpus, f.gpus_per_node)) : nlohmann::json(nullptr);
    if (f.fits || f.limit_planned) {
      j["layout"] = layout_json(f.best.layout);
      j["headroom_bytes"] = f.best.verdict.headroom_bytes;
    } else {
      j["layout"] = nullptr;
      j["headroom_bytes"] = nullptr;
    }
    j["binding"] = f.fits || f.limit_gpus > 0 ? nlohmann::json(binding_key(f.binding)) : nlohmann::json(nullptr);
    j["binding_at_gpus"] = f.binding_at > 0 ? nlohmann::json(f.binding_at) : nlohmann::json(nullptr);
    j["summary"] = fit_binding_text(f, options.max_gpus);
    if (!f.note.empty()) j["note"] = f.note;
    if (f.perf) {
      j["perf"] = {{"decode_tokens_per_s_bound", f.perf->tokens_per_s_per_request_bound},
                   {"tokens_per_s_per_gpu_bound", f.perf->tokens_per_s_per_gpu_bound},
                   {"binding_term", std::string(binding_term_key(f.perf->binding))}};
      if (f.perf->usd_per_m_at_bound > 0) j["perf"]["usd_per_m_tokens_at_bound"] = f.perf->usd_per_m_at_bound;
    }
    j["evaluations"] = f.evaluations;
    families.push_back(std::move(j));
  }
  nlohmann::json out = {{"model", {{"name", model.name}}},
                        {"workload", workload_json(model, request)},
                        {"max_gpus", options.max_gpus},
                        {"families", std::move(families)}};
  if (options.estimate_check) out["latency_estimate_percentile"] = options.estimate_percentile;
  return out;
}

namespace {
// The fields every max answer shares: the plan at the answer and the search's cost.
void add_answer_json(nlohmann::json& j, const ProbeResult& at, std::uint64_t evaluations,
                     unsigned estimate_percentile) {
  j["layout"] = layout_json(at.layout);
  j["fits"] = at.verdict.fits;
  j["headroom_bytes"] = at.verdict.headroom_bytes;
  j["binding"] = binding_key(at.binding);
  j["evaluations"] = evaluations;
  if (estimate_percentile > 0) j["latency_estimate_percentile"] = estimate_percentile;
}
}  // namespace

// ---- max ----

namespace {
std::string value_text(SolveFor what, std::uint64_t v) {
  return what == SolveFor::context ? fmt::format("{} token{} per request", with_commas(v), v == 1 ? "" : "s")
                                   : fmt::format("{} running request{}", with_commas(v), v == 1 ? "" : "s");
}
}  // namespace

std::string render_max(const ModelSpec& model, const Accelerator& gpu, const PlanRequest& request, const MaxResult& r,
                       TextStyle style) {
  const bool context = r.what == SolveFor::context;
  std::string out = title(style, fmt::format("{} on {} x {}: the largest {} that plans to fit", model.name,
                                             request.gpu_count, gpu.name, context ? "context" : "concurrency"));
  PlanRequest in_force = request;
  in_force.workload.requested = true;
  in_force.workload.context_tokens = r.context_tokens;
  in_force.workload.concurrency = r.concurrency;
  const auto bullet = style == TextStyle::markdown ? "- " : "  ";
  if (!r.found) {
    // A latency boundary has no bytes short: its own sentence says what was missed.
    const bool latency = r.at_value.binding == Resource::ttft || r.at_value.binding == Resource::tpot ||
                         r.at_value.binding == Resource::latency_unchecked;
    const auto shortfall =
        latency ? red_reason(r.at_value.verdict, r.at_value.binding)
                : fmt::format(" ({} short on the worst rank", amount(magnitude(r.at_value.verdict.headroom_bytes)));
    out += fmt::format("{}does not fit even at {}: first boundary crossed: {}{}{} best layout, {})\n", bullet,
                       value_text(r.what, 1), resource_key(r.at_value.binding),
                       latency ? shortfall.substr(0, shortfall.size() - 1) : shortfall, latency ? "; the" : " of the",
                       layout_label(r.at_value.layout));
    return out;
  }
  const auto fixed = context ? fmt::format("with {} running request{}", r.concurrency, r.concurrency == 1 ? "" : "s")
                     : request.workload.mix.empty()
                         ? fmt::format("at {} tokens per request", with_commas(r.context_tokens))
                         : fmt::format("in the mix {}", describe_mix(request.workload.mix));
  out += fmt::format("{}answer: {}{} ({})\n", bullet, r.at_ceiling && !context ? "at least " : "",
                     value_text(r.what, r.value), fixed);
  out += fmt::format("{}layout: {}\n", bullet, layout_label(r.at_value.layout));
  out += fmt::format("{}headroom at the answer: {} on the tightest rank (tightest resource: {})\n", bullet,
                     amount(magnitude(r.at_value.verdict.headroom_bytes)), resource_key(r.at_value.binding));
  if (r.at_ceiling) {
    out += fmt::format("{}beyond it: not searched; {} is the ceiling ({})\n", bullet, with_commas(r.ceiling),
                       context ? (request.workload.context_tokens ? "--context" : "the model's context window")
                               : "the concurrency search limit");
  } else if (r.beyond) {
    out += fmt::format("{}beyond it ({}): first boundary crossed: {}{}\n", bullet, value_text(r.what, r.value + 1),
                       resource_key(r.beyond->binding), red_reason(r.beyond->verdict, r.beyond->binding));
  } else {
    out += fmt::format("{}beyond it ({}): cannot be planned: {}\n", bullet, value_text(r.what, r.value + 1),
                       r.beyond_note);
  }
  out += fmt::format("{}workload: {}\n", bullet, describe_workload(model, in_force));
  if (r.estimate_percentile > 0)
    out += fmt::format(
        "{}latency targets met by the bounds and by the simulated p{} estimate (a planning estimate, "
        "--latency-percentile)\n",
        bullet, r.estimate_percentile);
  out += fmt::format("{}{} plans evaluated by binary search; green is a deployment hypothesis until benchmarked\n",
                     bullet, r.evaluations);
  return out;
}

nlohmann::json max_json(const ModelSpec& model, const Accelerator& gpu, const PlanRequest& request,
                        const MaxResult& r) {
  PlanRequest in_force = request;
  in_force.workload.requested = true;
  in_force.workload.context_tokens = r.context_tokens;
  in_force.workload.concurrency = r.concurrency;
  nlohmann::json j = {
      {"model", {{"name", model.name}}},
      {"cluster", {{"gpu", gpu.id}, {"count", request.gpu_count}, {"capacity_bytes_per_gpu", gpu.device_total_bytes}}},
      {"solve", std::string(solve_key(r.what))},
      {"workload", workload_json(model, in_force)},
      {"ceiling", r.ceiling},
      {"found", r.found},
      {"value", r.found ? nlohmann::json(r.value) : nlohmann::json(nullptr)},
      {"at_ceiling", r.at_ceiling}};
  add_answer_json(j, r.at_value, r.evaluations, r.estimate_percentile);
  if (r.beyond)
    j["beyond"] = {{"value", r.value + 1},
                   {"binding", binding_key(r.beyond->binding)},
                   {"headroom_bytes", r.beyond->verdict.headroom_bytes}};
  else if (!r.beyond_note.empty())
    j["beyond"] = {{"value", r.value + 1}, {"error", r.beyond_note}};
  return j;
}

// ---- max --solve rate ----

namespace {
std::string rate_text(double r) { return fmt::format("{:.3g} requests/s", r); }

std::string percentiles_text(const char* what, double p50, double p90, double p99) {
  return fmt::format("{} p50 {}, p90 {}, p99 {}", what, format_seconds(p50), format_seconds(p90), format_seconds(p99));
}
}  // namespace

std::string render_max_rate(const ModelSpec& model, const Accelerator& gpu, const PlanRequest& request,
                            const MaxRateResult& r, TextStyle style) {
  std::string out = title(style, fmt::format("{} on {} x {}: the highest request rate that meets the targets",
                                             model.name, request.gpu_count, gpu.name));
  const auto bullet = style == TextStyle::markdown ? "- " : "  ";
  auto at_answer = request_at_rate(model, request, r.found ? r.rate_per_s : r.floor_per_s);
  if (!r.found) {
    out += fmt::format("{}does not meet the targets even at {}: first boundary crossed: {}{}; the best layout, {}\n",
                       bullet, rate_text(r.floor_per_s), resource_key(r.at_value.binding),
                       red_reason(r.at_value.verdict, r.at_value.binding), layout_label(r.at_value.layout));
    if (at_answer) out += fmt::format("{}workload: {}\n", bullet, describe_workload(model, *at_answer));
    return out;
  }
  out += fmt::format("{}answer: {}{} over the cluster ({} running requests by Little's law at the targets){}\n", bullet,
                     r.at_ceiling ? "at least " : "", rate_text(r.rate_per_s), r.concurrency,
                     r.at_ceiling ? ""
                                  : fmt::format("; within {:.0f}% of the boundary",
                                                (r.beyond_rate_per_s / r.rate_per_s - 1) * 100 + 0.5));
  out += fmt::format("{}layout: {}\n", bullet, layout_label(r.at_value.layout));
  out += fmt::format("{}headroom at the answer: {} on the tightest rank (tightest resource: {})\n", bullet,
                     amount(magnitude(r.at_value.verdict.headroom_bytes)), resource_key(r.at_value.binding));
  if (r.estimate) {
    const auto& e = *r.estimate;
    out += fmt::format("{}estimate at the answer (planning estimate, +-{:.0f}%): {}; {}; {:.4g} output tokens/s\n",
                       bullet, e.band * 100, percentiles_text("TTFT", e.ttft_p50_s, e.ttft_p90_s, e.ttft_p99_s),
                       percentiles_text("TPOT", e.tpot_p50_s, e.tpot_p90_s, e.tpot_p99_s), e.output_tokens_per_s);
  }
  if (r.bound.known)
    out +=
        fmt::format("{}bounds at the answer (derived, lower bounds): TTFT {} for one prompt alone, TPOT {} per step\n",
                    bullet, format_seconds(r.bound.ttft_s), format_seconds(r.bound.tpot_s));
  if (r.at_ceiling) {
    out += fmt::format("{}beyond it: not searched; {} is the ceiling ({})\n", bullet, rate_text(r.ceiling_per_s),
                       request.latency.rate_per_s > 0 ? "--rate" : "the rate search limit");
  } else if (r.beyond) {
    out += fmt::format("{}beyond it ({}): first boundary crossed: {}{}\n", bullet, rate_text(r.beyond_rate_per_s),
                       resource_key(r.beyond->binding), red_reason(r.beyond->verdict, r.beyond->binding));
  } else {
    out +=
        fmt::format("{}beyond it ({}): cannot be planned: {}\n", bullet, rate_text(r.beyond_rate_per_s), r.beyond_note);
  }
  if (at_answer) out += fmt::format("{}workload: {}\n", bullet, describe_workload(model, *at_answer));
  if (r.estimate_percentile > 0)
    out += fmt::format(
        "{}latency targets met by the bounds and by the simulated p{} estimate of Poisson arrivals "
        "(seed {}, --latency-percentile)\n",
        bullet, r.estimate_percentile, request.latency.seed);
  out += fmt::format(
      "{}{} plans evaluated by galloping and bisection on the rate; green is a deployment hypothesis "
      "until benchmarked\n",
      bullet, r.evaluations);
  return out;
}

nlohmann::json max_rate_json(const ModelSpec& model, const Accelerator& gpu, const PlanRequest& request,
                             const MaxRateResult& r) {
  auto at_answer = request_at_rate(model, request, r.found ? r.rate_per_s : r.floor_per_s);
  nlohmann::json j = {
      {"model", {{"name", model.name}}},
      {"cluster", {{"gpu", gpu.id}, {"count", request.gpu_count}, {"capacity_bytes_per_gpu", gpu.device_total_bytes}}},
      {"solve", "rate"},
      {"workload", at_answer ? workload_json(model, *at_answer) : nlohmann::json(nullptr)},
      {"floor_requests_per_s", r.floor_per_s},
      {"ceiling_requests_per_s", r.ceiling_per_s},
      {"found", r.found},
      {"value", r.found ? nlohmann::json(r.rate_per_s) : nlohmann::json(nullptr)},
      {"unit", "requests/s over the cluster"},
      {"concurrency", r.concurrency},
      {"at_ceiling", r.at_ceiling}};
  add_answer_json(j, r.at_value, r.evaluations, r.estimate_percentile);
  if (r.estimate) j["estimate"] = latency_estimate_json(*r.estimate, request.latency);
  if (r.bound.known)
    j["bound"] = {
        {"ttft_s", r.bound.ttft_s}, {"tpot_s", r.bound.tpot_s}, {"evidence", evidence_key(Evidence::derived)}};
  if (r.beyond)
    j["beyond"] = {{"value", r.beyond_rate_per_s},
                   {"binding", binding_key(r.beyond->binding)},
                   {"headroom_bytes", r.beyond->verdict.headroom_bytes},
                   {"why", [&] {
                      const auto why = red_reason(r.beyond->verdict, r.beyond->binding);  // " (...)"
                      return why.substr(2, why.size() - 3);
                    }()}};
  else if (!r.beyond_note.empty())
    j["beyond"] = {{"value", r.beyond_rate_per_s}, {"error", r.beyond_note}};
  return j;
}

// ---- sweep ----

namespace {
std::string cell_text(const SweepCell& c) {
  if (!c.planned) return "n/a";
  const auto gb = fmt::format("{:+.1f}", static_cast<double>(c.best.verdict.headroom_bytes) / static_cast<double>(kGB));
  if (c.best.verdict.fits) return gb;
  return fmt::format("{} {}", gb, resource_letter(c.best.binding));
}
}  // namespace

// The family x count grid, ten counts per block so it fits a terminal.
template <typename CellText>
std::string sweep_grid(const Sweep& sweep, TextStyle style, CellText cell_text) {
  std::string out;
  std::set<std::uint64_t> all_counts;
  for (const auto& row : sweep.rows)
    for (const auto& c : row.cells) all_counts.insert(c.gpus);
  const std::vector<std::uint64_t> counts(all_counts.begin(), all_counts.end());
  constexpr std::size_t kPerBlock = 10;  // count columns per block, so the grid fits a terminal
  for (std::size_t start = 0; start < counts.size(); start += kPerBlock) {
    const auto end = std::min(counts.size(), start + kPerBlock);
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> header = {"GPU \\ count"};
    std::vector<bool> right = {false};
    for (auto i = start; i < end; ++i) {
      header.push_back(std::to_string(counts[i]));
      right.push_back(true);
    }
    rows.push_back(std::move(header));
    for (const auto& row : sweep.rows) {
      std::vector<std::string> line = {row.gpu.id};
      bool any = false;
      for (auto i = start; i < end; ++i) {
        auto it =
            std::find_if(row.cells.begin(), row.cells.end(), [&](const SweepCell& c) { return c.gpus == counts[i]; });
        line.push_back(it == row.cells.end() ? "" : cell_text(*it));
        any = any || it != row.cells.end();
      }
      if (any) rows.push_back(std::move(line));
    }
    out += "\n" + table(rows, style, right);
  }
  return out;
}

std::string perf_cell_text(const SweepCell& c) {
  if (!c.planned) return "n/a";
  if (!c.perf) return "-";
  return fmt::format("{:.0f}", c.perf->tokens_per_s_per_gpu_bound);
}

std::string render_sweep(const ModelSpec& model, const PlanRequest& request, const Sweep& sweep, TextStyle style) {
  std::string out = title(style, fmt::format("{}: verdict grid", model.name));
  out += describe_workload(model, request) + "\n";
  if (sweep.estimate_percentile > 0)
    out += fmt::format(
        "Green cells meet the latency targets by the bounds and by the simulated p{} estimate (a planning "
        "estimate, --latency-percentile).\n",
        sweep.estimate_percentile);
  out +=
      "Cell: headroom in GB on the tightest rank of the best layout (+ fits, - short); red cells name what runs "
      "out first: W weights, R reserve, A activations, S recurrent state, K KV cache, F time to first token, T time "
      "per output token. n/a: no layout can be "
      "planned at that count; blank: not searched for that family (whole nodes above one node). Best layout per "
      "cell: --format csv or json.\n";
  out += sweep_grid(sweep, style, cell_text);
  bool any_perf = false;
  for (const auto& row : sweep.rows)
    for (const auto& c : row.cells) any_perf = any_perf || c.perf.has_value();
  if (any_perf) {
    out += "\n" + title(style, "Decode tokens/s per GPU, upper bound at the workload's concurrency (green cells)");
    out +=
        "Roofline of the best layout (memory, compute, communication; perf/roofline.h): a bound, never a promise. "
        "-: red. Per-request bound and cost per million tokens: --format csv or json.\n";
    out += sweep_grid(sweep, style, perf_cell_text);
  }
  std::size_t cells = 0;
  for (const auto& row : sweep.rows) cells += row.cells.size();
  out += fmt::format(
      "\n{} of {} cells fit ({} plans evaluated). Green is a deployment hypothesis under the stated "
      "inputs until benchmarked.\n",
      sweep.green_cells, cells, sweep.evaluations);
  return out;
}

std::string sweep_csv(const Sweep& sweep) {
  std::string out = std::string(kSweepCsvHeader) + "\n";
  for (const auto& row : sweep.rows) {
    for (const auto& c : row.cells) {
      out += fmt::format("{},{},{},{},", csv_field(row.gpu.id), row.gpus_per_node, c.gpus,
                         nodes_for(c.gpus, row.gpus_per_node));
      if (!c.planned) {
        out += fmt::format("n/a,,,,,,,,,{},,,,\n", csv_field(c.note));
        continue;
      }
      const auto& v = c.best.verdict;
      const auto& l = c.best.layout;
      out += fmt::format("{},{},{},{},{},{},{},{},{},,", v.fits ? "green" : "red", v.headroom_bytes,
                         csv_gb(v.headroom_bytes), binding_key(c.best.binding), l.tp, l.dp, l.ep, l.pp, l.dcp);
      if (c.perf)
        out += fmt::format("{:.2f},{:.2f},{},{}\n", c.perf->tokens_per_s_per_request_bound,
                           c.perf->tokens_per_s_per_gpu_bound, binding_term_key(c.perf->binding),
                           c.perf->usd_per_m_at_bound > 0 ? fmt::format("{:.4f}", c.perf->usd_per_m_at_bound) : "");
      else
        out += ",,,\n";
    }
  }
  return out;
}

nlohmann::json sweep_json(const ModelSpec& model, const PlanRequest& request, const Sweep& sweep) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : sweep.rows) {
    nlohmann::json cells = nlohmann::json::array();
    for (const auto& c : row.cells) {
      nlohmann::json j = {{"gpus", c.gpus}, {"nodes", nodes_for(c.gpus, row.gpus_per_node)}};
      if (!c.planned) {
        j["verdict"] = "n/a";
        j["note"] = c.note;
      } else {
        j["verdict"] = c.best.verdict.fits ? "green" : "red";
        j["fits"] = c.best.verdict.fits;
        j["headroom_bytes"] = c.best.verdict.headroom_bytes;
        j["binding"] = binding_key(c.best.binding);
        j["layout"] = layout_json(c.best.layout);
        if (c.perf) {
          j["perf"] = {{"decode_tokens_per_s_bound", c.perf->tokens_per_s_per_request_bound},
                       {"tokens_per_s_per_gpu_bound", c.perf->tokens_per_s_per_gpu_bound},
                       {"binding_term", std::string(binding_term_key(c.perf->binding))}};
          if (c.perf->usd_per_m_at_bound > 0) j["perf"]["usd_per_m_tokens_at_bound"] = c.perf->usd_per_m_at_bound;
        }
      }
      cells.push_back(std::move(j));
    }
    nlohmann::json r = gpu_json(row.gpu, row.gpus_per_node);
    r["cells"] = std::move(cells);
    rows.push_back(std::move(r));
  }
  nlohmann::json out = {{"model", {{"name", model.name}}},
                        {"workload", workload_json(model, request)},
                        {"evaluations", sweep.evaluations},
                        {"green_cells", sweep.green_cells},
                        {"families", std::move(rows)}};
  if (sweep.estimate_percentile > 0) out["latency_estimate_percentile"] = sweep.estimate_percentile;
  return out;
}

}  // namespace preflight
