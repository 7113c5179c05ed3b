#include "solve/fixes.h"

#include <fmt/format.h>

#include <algorithm>

#include "solve/gpu_counts.h"

namespace preflight {

namespace {

VerdictSuggestion suggestion(std::string flags, const ProbeResult& r) {
  return {std::move(flags), r.verdict.headroom_bytes, layout_summary(r.layout)};
}

// "65536" as "64K" when it is a whole number of K (the form --context takes).
std::string tokens_text(std::uint64_t v) { return v % 1024 == 0 ? fmt::format("{}K", v / 1024) : fmt::format("{}", v); }

}  // namespace

std::vector<VerdictSuggestion> find_fixes(const PlanEvaluator& evaluate, const Accelerator& gpu,
                                          const PlanRequest& request, const Plan& plan) {
  std::vector<VerdictSuggestion> out;
  if (plan.verdict.fits) return out;
  // Every candidate is the red plan's request with one flag changed, planned as
  // `preflight plan` would plan it (the layout resolved the same way), so a
  // suggestion is green as written.
  const auto green = [&](const PlanRequest& r) -> std::optional<ProbeResult> {
    auto probe = evaluate(gpu, r);
    if (probe && probe->verdict.fits) return *probe;
    return std::nullopt;
  };

  if (plan.second_pass) {
    // An FP8 cache: half the KV bytes of a 16-bit cache (a quarter of FP32).
    if (kv_dtype_bytes(plan.workload.kv_dtype) > 1) {
      PlanRequest r = request;
      r.workload.kv_dtype = KvDtype::fp8;
      if (auto g = green(r)) out.push_back(suggestion("--kv-dtype fp8", *g));
    }
    // The largest value below the asked one that plans green (bisection in `step`s;
    // memory grows with both, so green below and red above is the expected shape,
    // and the answer is planned green whatever the shape).
    const auto largest = [&](std::uint64_t asked, std::uint64_t step,
                             auto set) -> std::optional<std::pair<std::uint64_t, ProbeResult>> {
      std::uint64_t lo = 0, hi = (asked - 1) / step;  // candidates step x [1, hi]
      std::optional<std::pair<std::uint64_t, ProbeResult>> best;
      while (lo < hi) {
        const auto mid = lo + (hi - lo + 1) / 2;
        PlanRequest r = request;
        set(r, mid * step);
        if (auto g = green(r)) {
          best = std::make_pair(mid * step, *g);
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      return best;
    };
    const auto concurrency = plan.workload.concurrency;
    if (concurrency > 1 && !request.concurrency_from_rate)  // --rate sets it: fewer requests means a lower rate
      if (auto b = largest(concurrency, 1, [&](PlanRequest& r, std::uint64_t v) {
            r.workload.context_tokens = plan.workload.context_tokens;
            r.workload.concurrency = v;
          }))
        out.push_back(suggestion(fmt::format("--concurrency {}", b->first), b->second));
    const auto context = plan.workload.context_tokens;
    if (context > 1 && plan.workload.mix.empty())  // a mix's lengths are the traffic's, not a knob
      if (auto b = largest(context, context > 4096 ? 1024 : 1,
                           [&](PlanRequest& r, std::uint64_t v) { r.workload.context_tokens = v; }))
        out.push_back(suggestion(fmt::format("--context {}", tokens_text(b->first)), b->second));
  }
  // More GPUs of the family, in whole nodes (the request's layout flags still apply).
  const auto node = node_size(gpu, request.layout);
  for (const auto n : whole_node_counts(std::max<std::uint64_t>(256, plan.gpu_count * 4), node)) {
    if (n <= plan.gpu_count) continue;
    PlanRequest r = request;
    r.gpu_count = n;
    if (auto g = green(r)) {
      out.push_back(suggestion(fmt::format("--gpus {}x{}", n, gpu.id), *g));
      break;
    }
  }
  return out;
}

}  // namespace preflight
