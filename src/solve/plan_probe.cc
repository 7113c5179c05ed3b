#include "solve/plan_probe.h"

#include <fmt/format.h>

namespace preflight {

Resource binding_resource(const Plan& plan) {
  if (!plan.verdict.fits) return plan.verdict.first_boundary;
  // Ranks are looked up by number: a verdict-only plan holds only some ranks.
  for (const auto& l : plan.ranks) {
    if (l.rank != plan.verdict.worst_rank) continue;
    for (auto it = l.rows.rbegin(); it != l.rows.rend(); ++it)
      if (it->bytes > 0) return it->resource;
  }
  return Resource::none;
}

PlanEvaluator verdict_plan_evaluator(const PlanContext& context) {
  return [&context](const Accelerator& gpu, const PlanRequest& request) -> Result<ProbeResult> {
    try {
      auto plan = build_plan(context, gpu, request, PlanDetail::verdict_only);
      if (!plan) return plan.error();
      return ProbeResult{plan->layout, plan->verdict, binding_resource(*plan)};
    } catch (const InputError& e) {
      return e.error();
    }
  };
}

PlanEvaluator full_plan_evaluator(const ModelSpec& model) {
  return [&model](const Accelerator& gpu, const PlanRequest& request) -> Result<ProbeResult> {
    try {
      auto plan = build_plan(model, gpu, request);
      if (!plan) return plan.error();
      return ProbeResult{plan->layout, plan->verdict, binding_resource(*plan)};
    } catch (const InputError& e) {
      // Checked arithmetic overflowed (an absurd context or concurrency): this
      // request cannot be planned, which is an answer for a solver, not a crash.
      return e.error();
    }
  };
}

bool layout_given(const LayoutOptions& o) { return o.tp != 0 || o.ep != 0 || o.pp != 0 || o.dp != 0 || o.dcp != 1; }

std::uint64_t node_size(const Accelerator& gpu, const LayoutOptions& options) {
  if (options.gpus_per_node > 0) return options.gpus_per_node;
  return gpu.gpus_per_node > 0 ? gpu.gpus_per_node : 1;
}

std::vector<LayoutOptions> layouts_to_try(const ModelSpec& model, const Accelerator& gpu, const PlanRequest& request) {
  if (layout_given(request.layout)) return {request.layout};
  auto layouts = practical_layouts(model, request.gpu_count, node_size(gpu, request.layout));
  for (auto& l : layouts)
    if (l.gpus_per_node == 0) l.gpus_per_node = request.layout.gpus_per_node;
  return layouts;
}

std::vector<LayoutOptions> layouts_within(const ModelSpec& model, const Accelerator& gpu, const PlanRequest& request) {
  const auto& given = request.layout;
  if (!layout_given(given)) return layouts_to_try(model, gpu, request);
  std::vector<LayoutOptions> out;
  for (auto l : practical_layouts(model, request.gpu_count, node_size(gpu, given))) {
    if ((given.tp && l.tp != given.tp) || (given.pp && l.pp != given.pp) || (given.dp && l.dp != given.dp) ||
        (given.ep && l.ep != given.ep) || (given.dcp > 1 && l.tp % given.dcp != 0))
      continue;
    if (given.ep) l.ep = given.ep;
    l.dcp = given.dcp;
    l.gpus_per_node = given.gpus_per_node;
    out.push_back(l);
  }
  // No practical layout honours the flags (TP 24, say): the flags as written, which
  // choose_layout accepts or refuses with its own error.
  if (out.empty()) out.push_back(given);
  return out;
}

bool better_probe(const ProbeResult& a, const ProbeResult& b) {
  if (a.verdict.fits != b.verdict.fits) return a.verdict.fits;
  // Among green layouts, fewer pipeline stages first: deep pipelines often
  // show the most headroom (each stage holds few layers) but cost latency and
  // bubbles; the simplest layout that fits is the one to try.
  if (a.verdict.fits && a.layout.pp != b.layout.pp) return a.layout.pp < b.layout.pp;
  return a.verdict.headroom_bytes > b.verdict.headroom_bytes;
}

Result<LayoutSearch> best_layout(const PlanEvaluator& evaluate, const Accelerator& gpu, const PlanRequest& request,
                                 const std::vector<LayoutOptions>& layouts) {
  LayoutSearch search;
  bool any = false;
  Error last{"--gpus", "", fmt::format("no layout to try for {} GPUs", request.gpu_count)};
  PlanRequest r = request;
  for (const auto& layout : layouts) {
    r.layout = layout;
    ++search.evaluated;
    auto probe = evaluate(gpu, r);
    if (!probe) {
      last = probe.error();
      continue;
    }
    if (!any || better_probe(*probe, search.best)) search.best = *probe;
    any = true;
  }
  if (!any) return last;
  return search;
}

PlanEvaluator practical_evaluator(PlanEvaluator evaluate, const ModelSpec& model) {
  return [evaluate = std::move(evaluate), &model](const Accelerator& gpu,
                                                  const PlanRequest& request) -> Result<ProbeResult> {
    if (layout_given(request.layout)) return evaluate(gpu, request);
    auto search = best_layout(evaluate, gpu, request, layouts_to_try(model, gpu, request));
    if (!search) return search.error();
    return search->best;
  };
}

LayoutOptions layout_options_of(const Layout& layout) {
  LayoutOptions o;
  o.tp = layout.tp;
  o.ep = layout.ep;
  o.pp = layout.pp;
  o.dp = layout.dp;
  o.dcp = layout.dcp;
  o.gpus_per_node = layout.gpus_per_node;
  return o;
}

}  // namespace preflight
