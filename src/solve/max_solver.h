// max: the largest context (tokens per request, concurrency fixed) or the
// largest number of running requests (context fixed) that plans green on a
// given cluster, what runs out just beyond it, and the headroom at the answer.
//
// Both are monotone for a fixed layout (more tokens or requests only add
// bytes), and so is "some layout fits", so the answer is a binary search:
// galloping up from the smallest value (1) to bracket the boundary, then
// bisection. Each probe takes the best of the candidate layouts (or the
// request's own layout when --tp/--ep/... fix it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "hardware/accelerator.h"
#include "model/model_spec.h"
#include "plan/plan.h"
#include "solve/estimate_check.h"
#include "solve/plan_probe.h"

namespace preflight {

enum class SolveFor { context, concurrency, rate };

std::string_view solve_key(SolveFor what);  // "context" | "concurrency" | "rate"
Result<SolveFor> parse_solve(std::string_view text, std::string_view flag);

// The concurrency search stops here (2^30 running requests): a larger answer is
// reported as "at least" this.
inline constexpr std::uint64_t kMaxConcurrencyCeiling = 1ULL << 30;

struct MaxOptions {
  SolveFor what = SolveFor::context;
  // The largest value searched; 0: the model's context window (context) or
  // kMaxConcurrencyCeiling (concurrency).
  std::uint64_t ceiling = 0;
  // With latency targets: a value green on memory and the bounds counts only
  // when the simulated percentile meets the targets too (solve/estimate_check.h).
  EstimateCheck estimate_check = {};
  unsigned estimate_percentile = 0;  // the percentile the check compares (for the report)
};

struct MaxResult {
  SolveFor what = SolveFor::context;
  std::uint64_t ceiling = 0;          // the search's upper end
  bool found = false;                 // the smallest value (1) plans green
  std::uint64_t value = 0;            // found: the largest value that plans green
  bool at_ceiling = false;            // found and value == ceiling: nothing beyond was searched
  ProbeResult at_value;               // found: the best plan at `value`; else the plan at 1
  std::optional<ProbeResult> beyond;  // found, below the ceiling: the best plan at value + 1 (red)
  std::string beyond_note;            // found, below the ceiling, value + 1 cannot be planned: why
  std::uint64_t context_tokens = 0;   // the context in force (solved or fixed; the model's window when 0 was asked)
  std::uint64_t concurrency = 0;      // the concurrency in force (solved or fixed)
  std::uint64_t evaluations = 0;      // evaluator calls (estimate checks included)
  unsigned estimate_percentile = 0;   // the estimate's percentile the answer met (0: not checked)
};

// `request` gives the GPU count, the workload (the second pass is implied) and
// the engine. Errors: the request cannot be planned even at the smallest value
// (a bad layout, a bad GPU count), or a zero ceiling below 1.
Result<MaxResult> solve_max(const ModelSpec& model, const PlanEvaluator& evaluate, const Accelerator& gpu,
                            const PlanRequest& request, const MaxOptions& options);

}  // namespace preflight
