#include "solve/max_rate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "perf/latency.h"
#include "workload/workload.h"

namespace preflight {

namespace {
constexpr double kDefaultCeilingPerS = 1048576.0;  // 2^20 requests/s: beyond any cluster the catalogue can build
}  // namespace

Result<PlanRequest> request_at_rate(const ModelSpec& model, const PlanRequest& request, double rate_per_s) {
  PlanRequest r = request;
  r.workload.requested = true;
  r.latency.rate_per_s = rate_per_s;
  r.latency.burst = false;
  auto w = r.workload;
  if (w.context_tokens == 0) w.context_tokens = model.max_context;
  const auto length = typical_length(w) > 0 ? typical_length(w) : UINT64_MAX;
  const auto output = r.latency.output_tokens > 0 ? r.latency.output_tokens : default_output_tokens(length);
  auto n = concurrency_from_rate(r.latency, output);
  if (!n) return n.error();
  r.workload.concurrency = *n;
  r.concurrency_from_rate = true;
  return r;
}

Result<MaxRateResult> solve_max_rate(const ModelSpec& model, const PlanEvaluator& evaluate, const Accelerator& gpu,
                                     const PlanRequest& request, const MaxRateOptions& options) {
  if (request.gpu_count == 0) return Error{"--gpus", "", "GPU count must be at least 1"};
  if (request.latency.tpot_s <= 0)
    return Error{"--tpot", "",
                 "the highest rate needs --tpot (and --ttft): the running requests follow from the rate and how long "
                 "each request runs"};
  if (request.latency.burst)
    return Error{"--rate", "", "--rate inf is a burst, with no rate to solve for; a finite --rate caps the search"};
  MaxRateResult out;
  out.floor_per_s = options.floor_per_s;
  out.ceiling_per_s = options.ceiling_per_s > 0 ? options.ceiling_per_s : kDefaultCeilingPerS;
  if (options.estimate_check) out.estimate_percentile = options.estimate_percentile;
  if (!(out.floor_per_s > 0) || out.ceiling_per_s < out.floor_per_s)
    return Error{
        "--rate", "",
        fmt::format("the search range {:.4g} to {:.4g} requests/s is empty", out.floor_per_s, out.ceiling_per_s)};

  // The layouts depend on the GPU count only, fixed here.
  const auto layouts = layouts_to_try(model, gpu, request);
  struct Probe {
    Result<ProbeResult> result;
    std::uint64_t concurrency = 0;
  };
  const auto probe = [&](double rate) -> Probe {
    auto r = request_at_rate(model, request, rate);
    if (!r) return {r.error(), 0};
    auto search = best_layout(evaluate, gpu, *r, layouts);
    out.evaluations += search ? search->evaluated : layouts.size();
    if (!search) return {search.error(), r->workload.concurrency};
    if (apply_estimate_check(options.estimate_check, gpu, *r, search.value().best)) ++out.evaluations;
    return {search->best, r->workload.concurrency};
  };
  const auto fits = [](const Probe& p) { return p.result.ok() && p.result->verdict.fits; };

  // Bracket: lo meets the targets, hi does not (or hi is past the ceiling).
  double lo = 0, hi = 0;
  Probe lo_probe{Error{"", "", ""}}, hi_probe{Error{"", "", ""}};
  const double start = std::clamp(1.0, out.floor_per_s, out.ceiling_per_s);
  auto first = probe(start);
  if (fits(first)) {
    lo = start;
    lo_probe = std::move(first);
    for (double next = std::min(lo * 2, out.ceiling_per_s);; next = std::min(lo * 2, out.ceiling_per_s)) {
      if (lo >= out.ceiling_per_s) {
        out.found = true;
        out.at_ceiling = true;
        out.rate_per_s = lo;
        out.at_value = *lo_probe.result;
        out.concurrency = lo_probe.concurrency;
        return out;
      }
      auto p = probe(next);
      if (!fits(p)) {
        hi = next;
        hi_probe = std::move(p);
        break;
      }
      lo = next;
      lo_probe = std::move(p);
    }
  } else {
    hi = start;
    hi_probe = std::move(first);
    for (double next = std::max(hi / 2, out.floor_per_s);; next = std::max(hi / 2, out.floor_per_s)) {
      if (hi <= out.floor_per_s) {
        // Not even the floor meets the targets: say what fails there.
        if (!hi_probe.result) return hi_probe.result.error();
        out.at_value = *hi_probe.result;
        out.concurrency = hi_probe.concurrency;
        return out;
      }
      auto p = probe(next);
      if (fits(p)) {
        lo = next;
        lo_probe = std::move(p);
        break;
      }
      hi = next;
      hi_probe = std::move(p);
    }
  }
  // Bisect on the ratio (the geometric mean) until hi / lo <= 1 + precision.
  while (hi / lo > 1.0 + options.precision) {
    const double mid = std::sqrt(lo * hi);
    auto p = probe(mid);
    if (fits(p)) {
      lo = mid;
      lo_probe = std::move(p);
    } else {
      hi = mid;
      hi_probe = std::move(p);
    }
  }
  out.found = true;
  out.rate_per_s = lo;
  out.at_value = *lo_probe.result;
  out.concurrency = lo_probe.concurrency;
  out.beyond_rate_per_s = hi;
  if (hi_probe.result)
    out.beyond = *hi_probe.result;
  else
    out.beyond_note = hi_probe.result.error().to_string();
  return out;
}

void add_rate_estimate(MaxRateResult& result, const PlanContext& context, const Accelerator& gpu,
                       const PlanRequest& request) {
  if (!result.found) return;
  auto r = request_at_rate(*context.model, request, result.rate_per_s);
  if (!r) return;
  auto& at = r.value();
  at.layout = layout_options_of(result.at_value.layout);
  at.layout.gpus_per_node = request.layout.gpus_per_node;
  auto plan = build_plan(context, gpu, at, PlanDetail::full);
  if (!plan || !plan->latency) return;
  result.estimate = plan->latency->estimate;
  result.bound = {true, plan->latency->bounds.prefill_s + plan->latency->targets.kv_transfer_s,
                  plan->latency->bounds.decode_step_s};
}

}  // namespace preflight
