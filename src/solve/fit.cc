#include "solve/fit.h"

#include <fmt/format.h>

#include <optional>

#include "core/bytes.h"
#include "model/inventory.h"
#include "perf/perf_inputs.h"
#include "solve/gpu_counts.h"

namespace preflight {

namespace {

Result<FitOptions> checked(const FitOptions& o) {
  if (o.max_gpus == 0 || o.max_gpus > kMaxSolverGpus)
    return Error{"--max-gpus", "", fmt::format("expected 1 to {}, got {}", kMaxSolverGpus, o.max_gpus)};
  return o;
}

// True when `count` GPUs cannot hold the weights whatever the layout: every
// stored tensor lives on at least one rank, so the ranks' weight rows sum to at
// least the payload, and when count x capacity < payload some rank's weights
// alone exceed its capacity (red, first boundary: weights).
bool below_weight_floor(const Accelerator& gpu, std::uint64_t count, std::uint64_t payload) {
  if (gpu.device_total_bytes == 0) return false;  // the evaluator reports the missing capacity
  return count < ceil_div(payload, gpu.device_total_bytes);
}

FamilyFit fit_one(const ModelSpec& model, const PlanEvaluator& evaluate, const Accelerator& gpu,
                  const PlanRequest& request, const FitOptions& options, std::uint64_t payload) {
  // Latency targets on a GPU whose row lacks a figure the bounds need: never
  // counted as meeting them. The memory-only search says what memory alone
  // would need, so the row is still useful.
  if (request.latency.any())
    if (auto missing = missing_latency_figure(gpu)) {
      PlanRequest memory_only = request;
      memory_only.latency = LatencyTargets{};
      auto unchecked = fit_one(model, evaluate, gpu, memory_only, options, payload);
      unchecked.note = unchecked.fits ? fmt::format("latency not checked: {}; memory alone fits from {} GPUs ({})",
                                                    *missing, unchecked.min_gpus, layout_summary(unchecked.best.layout))
                                      : fmt::format("latency not checked: {}; memory alone does not fit within {} GPUs",
                                                    *missing, options.max_gpus);
      unchecked.fits = false;
      unchecked.min_gpus = 0;
      unchecked.perf.reset();
      unchecked.binding = Resource::latency_unchecked;
      unchecked.binding_at = 0;
      unchecked.limit_gpus = 0;
      unchecked.limit_planned = false;
      return unchecked;
    }
  FamilyFit fit;
  fit.gpu = gpu;
  fit.gpus_per_node = node_size(gpu, request.layout);
  // The largest count searched so far that was red (planned, or ruled out by
  // the weight floor), with what bound there.
  std::uint64_t red_count = 0;
  Resource red_binding = Resource::none;
  std::optional<ProbeResult> red_plan;  // set when red_count was planned
  PlanRequest r = request;
  for (const auto count : whole_node_counts(options.max_gpus, fit.gpus_per_node)) {
    if (below_weight_floor(gpu, count, payload)) {
      ++fit.pruned;
      red_count = count;
      red_binding = Resource::weights;
      red_plan.reset();
      continue;
    }
    r.gpu_count = count;
    auto search = best_layout(evaluate, gpu, r, layouts_within(model, gpu, r));
    if (!search) {
      // No layout of this count can be planned (e.g. more expert groups than
      // experts): skip the count, remember why in case nothing can be.
      ++fit.evaluations;
      fit.note = search.error().to_string();
      continue;
    }
    fit.evaluations += search->evaluated;
    auto best = search->best;
    if (apply_estimate_check(options.estimate_check, gpu, r, best)) ++fit.evaluations;
    if (best.verdict.fits) {
      fit.fits = true;
      fit.min_gpus = count;
      fit.best = best;
      fit.binding = red_count > 0 ? red_binding : best.binding;
      fit.binding_at = red_count;  // 0: nothing smaller was searched; the green plan's tightest resource
      fit.note.clear();
      return fit;
    }
    red_count = count;
    red_binding = best.binding;
    red_plan = best;
  }
  // Nothing fits within max_gpus: what binds at the largest count considered.
  if (red_count > 0) {
    fit.limit_gpus = red_count;
    fit.binding = red_binding;
    fit.binding_at = red_count;
    if (red_plan) {
      fit.best = *red_plan;
      fit.limit_planned = true;
    }
    fit.note.clear();
  }
  return fit;
}

}  // namespace

Result<FamilyFit> fit_family(const ModelSpec& model, const PlanEvaluator& evaluate, const Accelerator& gpu,
                             const PlanRequest& request, const FitOptions& options) {
  auto ok = checked(options);
  if (!ok) return ok.error();
  return fit_one(model, evaluate, gpu, request, *ok, build_inventory(model).payload_bytes);
}

Result<std::vector<FamilyFit>> solve_fit(const ModelSpec& model, const PlanEvaluator& evaluate,
                                         const std::vector<Accelerator>& gpus, const PlanRequest& request,
                                         const FitOptions& options) {
  auto ok = checked(options);
  if (!ok) return ok.error();
  const auto payload = build_inventory(model).payload_bytes;  // once for every family
  std::vector<FamilyFit> out;
  out.reserve(gpus.size());
  for (const auto& gpu : gpus) out.push_back(fit_one(model, evaluate, gpu, request, *ok, payload));
  return out;
}

}  // namespace preflight
