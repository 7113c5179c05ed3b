#include "solve/max_solver.h"

#include <fmt/format.h>

#include <vector>

namespace preflight {

std::string_view solve_key(SolveFor what) {
  return what == SolveFor::context ? "context" : what == SolveFor::concurrency ? "concurrency" : "rate";
}

Result<SolveFor> parse_solve(std::string_view text, std::string_view flag) {
  if (text == "context") return SolveFor::context;
  if (text == "concurrency") return SolveFor::concurrency;
  if (text == "rate") return SolveFor::rate;
  return Error{std::string(flag), "", fmt::format("expected context, concurrency or rate, got '{}'", text)};
}

Result<MaxResult> solve_max(const ModelSpec& model, const PlanEvaluator& evaluate, const Accelerator& gpu,
                            const PlanRequest& request, const MaxOptions& options) {
  if (request.gpu_count == 0) return Error{"--gpus", "", "GPU count must be at least 1"};
  if (options.what == SolveFor::rate)
    return Error{"--solve", "rate", "the rate is solve_max_rate's (solve/max_rate.h)"};
  if (options.what == SolveFor::context && !request.workload.mix.empty())
    return Error{"--solve", "context",
                 "a request mix fixes every request's length; solve for concurrency (the mix scaled)"};
  MaxResult out;
  out.what = options.what;
  if (options.estimate_check) out.estimate_percentile = options.estimate_percentile;
  PlanRequest base = request;
  base.workload.requested = true;  // context and requests only exist in the second pass
  if (options.what == SolveFor::concurrency && base.workload.context_tokens == 0 && base.workload.mix.empty())
    base.workload.context_tokens = model.max_context;
  out.ceiling = options.ceiling > 0                 ? options.ceiling
                : options.what == SolveFor::context ? model.max_context
                                                    : kMaxConcurrencyCeiling;
  if (out.ceiling == 0)
    return Error{"--context", "", "the model declares no context window (max_position_embeddings); give --context"};

  // The GPU count is fixed, so the layouts to try are too.
  const auto layouts = layouts_to_try(model, gpu, base);
  auto& slot = options.what == SolveFor::context ? base.workload.context_tokens : base.workload.concurrency;
  const auto probe = [&](std::uint64_t v) {
    slot = v;
    auto search = best_layout(evaluate, gpu, base, layouts);
    out.evaluations += search ? search->evaluated : layouts.size();
    if (!search) return Result<ProbeResult>(search.error());
    if (apply_estimate_check(options.estimate_check, gpu, base, search.value().best)) ++out.evaluations;
    return Result<ProbeResult>(search->best);
  };
  const auto fits = [](const Result<ProbeResult>& p) { return p.ok() && p->verdict.fits; };
  const auto finish = [&](std::uint64_t value) {
    slot = value;
    out.context_tokens = base.workload.context_tokens;
    out.concurrency = base.workload.concurrency;
    return out;
  };

  auto smallest = probe(1);
  if (!smallest) return smallest.error();
  out.at_value = *smallest;
  if (!smallest->verdict.fits) return finish(1);
  out.found = true;
  out.value = 1;
  if (out.ceiling == 1) {
    out.at_ceiling = true;
    return finish(1);
  }
  auto top = probe(out.ceiling);
  if (fits(top)) {
    out.value = out.ceiling;
    out.at_value = *top;
    out.at_ceiling = true;
    return finish(out.value);
  }
  // Invariant: lo plans green, hi does not (hi_probe is its result).
  std::uint64_t lo = 1, hi = out.ceiling;
  ProbeResult lo_probe = *smallest;
  Result<ProbeResult> hi_probe = std::move(top);
  // Gallop (2, 4, 8, ...) so a small answer costs O(log answer) probes, then bisect.
  for (std::uint64_t next = 2; next<hi; next = next> hi / 2 ? hi : next * 2) {
    auto p = probe(next);
    if (!fits(p)) {
      hi = next;
      hi_probe = std::move(p);
      break;
    }
    lo = next;
    lo_probe = *p;
  }
  while (hi - lo > 1) {
    const auto mid = lo + (hi - lo) / 2;
    auto p = probe(mid);
    if (fits(p)) {
      lo = mid;
      lo_probe = *p;
    } else {
      hi = mid;
      hi_probe = std::move(p);
    }
  }
  out.value = lo;
  out.at_value = lo_probe;
  if (hi_probe)
    out.beyond = *hi_probe;
  else
    out.beyond_note = hi_probe.error().to_string();
  return finish(lo);
}

}  // namespace preflight
