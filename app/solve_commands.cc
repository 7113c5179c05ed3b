// fit, max and sweep: the solvers' front ends. Options become library inputs
// (plan_inputs.h); the solvers plan through verdict_plan_evaluator (the fast path); the renderers
// print. Exit codes: 0 an answer that fits exists (fit: some family fits; max:
// the smallest value fits; sweep: some cell is green), 1 none, 2 bad input.
#include <fmt/format.h>

#include <iostream>

#include "commands.h"
#include "core/bytes.h"
#include "core/parallel_for.h"
#include "core/text.h"
#include "core/units.h"
#include "option_table.h"
#include "plan_inputs.h"
#include "report/solve_report.h"
#include "solve/fit.h"
#include "solve/gpu_counts.h"
#include "solve/max_rate.h"
#include "solve/max_solver.h"
#include "solve/sweep.h"
#include "solve/sweep_perf.h"

namespace preflight::cli {

namespace {

TextStyle style_of(const Options& o) { return o.format == "md" ? TextStyle::markdown : TextStyle::table; }

// fit and sweep choose the count themselves; a --gpus COUNTxFAMILY is a
// mistake worth naming rather than silently ignoring.
std::optional<Error> reject_gpus(const Options& o, const char* command) {
  if (o.gpus.empty()) return std::nullopt;
  return Error{
      flag_of(&Options::gpus), "",
      fmt::format("{} searches the GPU count itself; name families with --gpu FAMILY (got '{}')", command, o.gpus)};
}

// What every solver needs: the model, the catalogue's families, the request.
Result<ResolvedRequest> solver_inputs(const Options& o, const char* command) {
  if (auto e = reject_gpus(o, command)) return *e;
  return resolve_request(o, ClusterFrom::families);
}

// The solvers' evaluator (the verdict-only fast path). Through the web API it
// first checks the request's budget, so a grid past its deadline, or whose
// client has gone, stops within one plan (RequestStopped).
PlanEvaluator evaluator_for(const ResolvedRequest& r, const PlanContext& context) {
  auto inner = verdict_plan_evaluator(context);
  if (r.budget == nullptr) return inner;
  return [inner = std::move(inner), budget = r.budget](const Accelerator& gpu, const PlanRequest& request) {
    budget->check();
    return inner(gpu, request);
  };
}

// The web API's work bound: a grid of more cells than the server allows is
// refused before any plan is made. The CLI sets no bound.
std::optional<Error> check_cells(const Options& o, std::uint64_t cells) {
  if (o.cell_bound == 0 || cells <= o.cell_bound) return std::nullopt;
  return Error{"request", "",
               fmt::format("{} grid cells (GPU families x GPU counts) exceed this server's bound of {} (serve "
                           "--max-cells): name fewer families (gpu) or counts, or run the CLI, which has no bound",
                           with_commas(cells), with_commas(o.cell_bound))};
}

}  // namespace

int run_fit(const Options& o, Io& io) {
  FitOptions options;
  if (!o.max_gpus.empty()) {
    auto v = parse_positive_integer(o.max_gpus, flag_of(&Options::max_gpus));
    if (!v) return fail(io, v.error());
    options.max_gpus = *v;
  }
  auto in = solver_inputs(o, "fit");
  if (!in) return fail(io, in.error());
  std::uint64_t cells = 0;
  if (options.max_gpus <= kMaxSolverGpus)  // a larger value is solve_fit's error to report
    for (const auto& gpu : in->families)
      cells += whole_node_counts(options.max_gpus, node_size(gpu, in->request.layout)).size();
  if (auto e = check_cells(o, cells)) return fail(io, *e);
  const auto& model = in->loaded.model;
  const PlanContext context(model);
  const unsigned percentile = in->request.latency.percentile;  // --latency-percentile, parsed with the request
  if (in->request.latency.ttft_s > 0 || in->request.latency.tpot_s > 0) {
    options.estimate_check = latency_estimate_check(context, percentile);
    options.estimate_percentile = percentile;
  }
  auto fits = solve_fit(model, evaluator_for(*in, context), in->families, in->request, options);
  if (!fits) return fail(io, fits.error());
  add_fit_perf(fits.value(), context, in->request);
  if (o.format == "json")
    io.out << json_text(fit_json(model, in->request, options, *fits)) << "\n";
  else if (o.format == "csv")
    io.out << fit_csv(*fits);
  else
    io.out << render_fit(model, in->request, options, *fits, style_of(o));
  for (const auto& f : *fits)
    if (f.fits) return 0;
  return 1;
}

int run_max(const Options& o, Io& io) {
  auto what = parse_solve(o.solve, flag_of(&Options::solve));
  if (!what) return fail(io, what.error());
  // A rate fixes the running requests (Little's law), the very quantity searched for.
  if (*what == SolveFor::concurrency && !o.rate.empty())
    return fail(io, Error{flag_of(&Options::rate), "",
                          "a request rate sets the running requests by Little's law, which --solve concurrency "
                          "searches for: give one of them"});
  if (*what == SolveFor::rate && !o.concurrency.empty())
    return fail(io, Error{flag_of(&Options::concurrency), "",
                          "the running requests follow from the rate that --solve rate searches for (Little's law): "
                          "leave --concurrency out"});
  auto in = resolve_request(o, ClusterFrom::gpus);
  if (!in) return fail(io, in.error());
  const Accelerator& gpu = in->cluster->gpu;
  const auto& request = in->request;
  const unsigned percentile = in->request.latency.percentile;  // --latency-percentile, parsed with the request
  const bool targets = request.latency.ttft_s > 0 || request.latency.tpot_s > 0;
  if (*what == SolveFor::rate) {
    const auto& model = in->loaded.model;
    const PlanContext context(model);
    MaxRateOptions options;
    if (request.latency.rate_per_s > 0) options.ceiling_per_s = request.latency.rate_per_s;  // --rate caps the search
    if (targets) {
      options.estimate_check = latency_estimate_check(context, percentile);
      options.estimate_percentile = percentile;
    }
    auto result = solve_max_rate(model, evaluator_for(*in, context), gpu, request, options);
    if (!result) return fail(io, result.error());
    add_rate_estimate(result.value(), context, gpu, request);
    if (o.format == "json")
      io.out << json_text(max_rate_json(model, gpu, request, *result)) << "\n";
    else
      io.out << render_max_rate(model, gpu, request, *result, style_of(o));
    return result->found ? 0 : 1;
  }
  // The solved quantity's own flag, when given, is the ceiling of the search.
  MaxOptions options;
  options.what = *what;
  if (*what == SolveFor::context && request.workload.context_tokens > 0)
    options.ceiling = request.workload.context_tokens;
  if (*what == SolveFor::concurrency && !o.concurrency.empty()) options.ceiling = request.workload.concurrency;
  const auto& model = in->loaded.model;
  const PlanContext context(model);
  if (targets) {
    options.estimate_check = latency_estimate_check(context, percentile);
    options.estimate_percentile = percentile;
  }
  auto result = solve_max(model, evaluator_for(*in, context), gpu, request, options);
  if (!result) return fail(io, result.error());
  if (o.format == "json")
    io.out << json_text(max_json(model, gpu, request, *result)) << "\n";
  else
    io.out << render_max(model, gpu, request, *result, style_of(o));
  return result->found ? 0 : 1;
}

int run_sweep(const Options& o, Io& io) {
  auto counts = parse_counts(o.counts.empty() ? "1..256" : o.counts, flag_of(&Options::counts));
  if (!counts) return fail(io, counts.error());
  auto in = solver_inputs(o, "sweep");
  if (!in) return fail(io, in.error());
  std::uint64_t cells = 0;
  for (const auto& gpu : in->families) cells += counts_for(*counts, node_size(gpu, in->request.layout)).size();
  if (auto e = check_cells(o, cells)) return fail(io, *e);
  const auto& model = in->loaded.model;
  const PlanContext context(model);
  // The CLI plans the families on every core; a server request stays on its
  // worker thread (the server already runs requests side by side).
  const unsigned threads = in->budget == nullptr ? machine_threads() : 1;
  const unsigned percentile = in->request.latency.percentile;  // --latency-percentile, parsed with the request
  SweepEstimate estimate;
  if (in->request.latency.ttft_s > 0 || in->request.latency.tpot_s > 0)
    estimate = {latency_estimate_check(context, percentile), percentile};
  auto sweep =
      preflight::run_sweep(model, evaluator_for(*in, context), in->families, in->request, *counts, threads, estimate);
  add_sweep_perf(sweep, context, in->request, threads);
  if (o.format == "json")
    io.out << json_text(sweep_json(model, in->request, sweep)) << "\n";
  else if (o.format == "csv")
    io.out << sweep_csv(sweep);
  else
    io.out << render_sweep(model, in->request, sweep, style_of(o));
  return sweep.green_cells > 0 ? 0 : 1;
}

}  // namespace preflight::cli
