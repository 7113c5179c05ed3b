#include "plan/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/bytes.h"
#include "engine/checkpoint_kv_dtype.h"
#include "engine/engine_profile.h"
#include "engine/engine_version_range.h"
#include "engine/size_engine.h"
#include "model/request_state.h"
#include "perf/disk.h"
#include "perf/roofline.h"
#include "perf/step_shape.h"
#include "placement/placement.h"
#include "plan/checklist.h"
#include "plan/plan_steps.h"
#include "workload/kv_offload.h"

namespace preflight {

using namespace plan_steps;

namespace {

// Without --engine-version: the engine sized at every release whose rules
// differ (engine/engine_version_range.h). The workload is resolved per release
// (the checkpoint's KV-cache dtype applies from a release on).
EngineVersionRange version_range(EngineInputs in, const ModelSpec& model, const WorkloadOptions& requested) {
  std::vector<EngineVersionPoint> points;
  in.with_figures = false;
  for (const auto& v : modelled_releases(in.options.kind)) {
    in.options.version = v;
    const auto w = workload_for_engine(requested, model, in.options);
    in.workload = &w;
    EngineVersionPoint p;
    p.version = v.str();
    auto sized = size_engine(in);
    if (!sized) {
      p.failure = sized.error().message;
    } else {
      p.kv_cache_tokens = sized->kv_cache_tokens;
      p.max_concurrency = sized->max_concurrency;
      p.failure = sized->failure;
    }
    points.push_back(std::move(p));
  }
  return summarize_range(std::move(points), engine_profiles().accuracy);
}

// Where a --draft model sits: on every rank, at the largest TP dividing the
// target's TP that its heads accept (vLLM runs a draft at the target's TP or
// at 1), replicated over DP and PP. Its heaviest rank's weights.
Result<std::pair<std::uint64_t, std::uint64_t>> draft_share(const ModelSpec& draft, const Layout& target) {
  const PlacementIndex index(draft.manifest, draft.layers.size(), draft.moe.routed_experts);
  for (std::uint64_t d = target.tp; d >= 1; --d) {
    if (target.tp % d != 0) continue;
    LayoutOptions o;
    o.tp = d;
    o.pp = 1;
    o.dp = 1;
    o.gpus_per_node = d;
    auto layout = choose_layout(draft, d, o, nullptr, false);
    if (!layout) continue;
    std::uint64_t most = 0;
    for (std::uint64_t r = 0; r < layout->world; ++r)
      most = std::max(most, index.rank_weights(*layout, r, false).total);
    return std::pair<std::uint64_t, std::uint64_t>{d, most};
  }
  return Error{"--draft", draft.name, "no tensor-parallel size dividing the target's TP suits the draft's heads"};
}

// Throughput, cost and cold start for a full plan.
PerfReport plan_perf(const Plan& plan, const PlanContext& context, const PlanRequest& request,
                     const std::vector<RankWeights>& ranks) {
  const auto& model = *context.model;
  PerfPlanInputs in;
  in.model = &model;
  in.placement = &context.formats();
  in.gpu = &plan.gpu;
  in.layout = &plan.layout;
  in.workload = &plan.workload;
  in.options = request.perf;
  // A node reads from storage what its ranks hold, but a tensor replicated on
  // several of its ranks once (the page cache serves the others): at most the
  // whole payload.
  const auto per_node = std::max<std::uint64_t>(plan.layout.gpus_per_node, 1);
  const auto draft_payload = request.draft ? build_inventory(*request.draft).payload_bytes : 0;
  in.node_bytes.assign(ceil_div(plan.layout.world, per_node), 0);
  for (const auto& r : ranks)
    in.node_bytes[r.rank / per_node] =
        checked_add(in.node_bytes[r.rank / per_node], checked_add(r.total, plan.draft_weights_per_rank));
  for (auto& b : in.node_bytes) b = std::min(b, checked_add(plan.checkpoint_bytes, draft_payload));
  in.draft_bytes_per_rank = plan.draft_weights_per_rank;
  in.draft_name = plan.draft_name;
  if (model.artifact && model.artifact->shard_bytes > 0) {
    const auto& a = *model.artifact;
    in.artifact_bytes = a.file_bytes > a.shard_bytes ? a.file_bytes : a.shard_bytes;
    in.artifact_evidence = Evidence::official;
    in.artifact_source = a.source;
  } else {
    in.artifact_bytes = plan.checkpoint_bytes;
    in.artifact_source = "tensor manifest (placement/placement.h)";
  }
  in.artifact_bytes = checked_add(in.artifact_bytes, draft_payload);
  return build_perf_report(in);
}

// The engine's sizing at the representative ranks (one worker per stage class),
// and each placed rank's ledger from the worker of its rank, else of its stage.
std::optional<Error> add_engine_ledgers(Plan& plan, const PlanContext& context, const Accelerator& gpu,
                                        const PlanRequest& request, const std::vector<RankWeights>& placed, bool full) {
  const auto& model = *context.model;
  EngineInputs in{};
  in.model = &model;
  in.gpu = &gpu;
  in.layout = &plan.layout;
  in.workload = &plan.workload;
  in.options = request.engine;
  in.with_figures = full;
  in.draft = request.draft.get();
  in.draft_tp = std::max<std::uint64_t>(plan.draft_tp, 1);
  // One worker per stage class: the representative ranks.
  std::vector<std::uint64_t> reps = context.placement.representative_ranks(plan.layout);
  for (auto r : reps) {
    const auto it = std::find_if(placed.begin(), placed.end(), [&](const RankWeights& w) { return w.rank == r; });
    in.workers.push_back(
        worker_input(plan, it != placed.end() ? *it : context.placement.rank_weights(plan.layout, r, full)));
  }
  auto sized = size_engine(in);
  if (!sized) return sized.error();
  plan.engine = std::move(sized).value();
  if (full && !request.engine.version) plan.engine->range = version_range(in, model, request.workload);
  for (const auto& rw : placed) {
    // The worker of the same rank, else of the same stage.
    std::size_t k = 0;
    for (std::size_t i = 0; i < in.workers.size(); ++i) {
      if (in.workers[i].rank == rw.rank) {
        k = i;
        break;
      }
      if (in.workers[i].stage == rw.stage && in.workers[k].stage != rw.stage) k = i;
    }
    plan.ranks.push_back(engine_rank_ledger(plan, model, rw, plan.engine->workers[k], in.workers[k], full));
  }
  if (full)
    for (const auto& f : plan.engine->figures) plan.figures.push_back(f);
  return std::nullopt;
}

// Without an engine: preflight's own pools per stage, and each placed rank's ledger.
void add_generic_ledgers(Plan& plan, const PlanContext& context, const PlanRequest& request,
                         const std::vector<RankWeights>& placed, bool full) {
  const auto& model = *context.model;
  std::vector<Pools> pools;
  if (plan.second_pass) {
    for (std::uint64_t s = 0; s < plan.layout.pp; ++s)
      pools.push_back(compute_pools(plan, context, request.draft.get(), s, full));
    if (full) add_pool_figures(plan, model, pools.front());
  }
  for (const auto& rw : placed)
    plan.ranks.push_back(rank_ledger(plan, rw, pools.empty() ? nullptr : &pools[rw.stage], full));
}

// Which model and GPU the plan is about. A verdict-only plan copies just the GPU
// fields the verdict reads: the whole entry (sources, notes) costs more than the plan.
void name_model_and_gpu(Plan& plan, const ModelSpec& model, const Accelerator& gpu, bool full) {
  plan.model_name = model.name;
  plan.model_family = model.family;
  plan.family_reader = model.family_reader;
  plan.manifest_source = model.manifest_source;
  if (full) {
    plan.model_architecture = model.architecture;
    plan.files_disagree = model.files_disagree;
  }
  if (full) plan.revision = model.artifact ? model.artifact->revision : "";
  if (full) {
    plan.gpu = gpu;
  } else {
    // The verdict reads only these; copying the whole entry (sources, notes) costs more than the plan.
    plan.gpu.id = gpu.id;
    plan.gpu.architecture = gpu.architecture;
    plan.gpu.device_total_bytes = gpu.device_total_bytes;
    plan.gpu.gpus_per_node = gpu.gpus_per_node;
  }
}

// What a full plan assumes, in the order the report lists it.
void add_assumptions(Plan& plan, const ModelSpec& model) {
  plan.assumptions.push_back(fmt::format("layout: {}", plan.layout.chosen_by));
  if (plan.layout.dense_over_stage)
    plan.assumptions.push_back(
        fmt::format("SGLang DP attention: the LM head, dense MLPs and shared experts are split over the stage's {} "
                    "ranks (its --tp); "
                    "attention and the embedding are whole in each of the {} attention groups",
                    plan.layout.stage_ranks(), plan.layout.dp));
  plan.assumptions.push_back("capacity per GPU is what the device reports to CUDA/HIP, not the vendor headline");
  if (model.pooling_runner)
    plan.assumptions.push_back(
        "pooling runner (an embedding service): no LM head is held and the engine's profile run has no sampler "
        "(--runner generate plans it as a generating model)");
  if (plan.mtp_drafts())
    plan.assumptions.push_back(fmt::format(
        "speculative decoding: {} draft tokens per step; their state slots and lookahead cache are counted, a "
        "separate draft model's weights and cache are not (name it with --draft)",
        plan.workload.spec_tokens));
  plan.assumptions.push_back(
      "placement: TP-split attention/MLP/embedding, experts dealt over the EP groups of each stage (split over "
      "MoE-TP), "
      "routers, norms, latent projections and the vision tower's embeddings and norms replicated (its linear layers "
      "split over TP); PP stages by layer");
  if (plan.engine) {
    for (const auto& r : plan.engine->rules) plan.assumptions.push_back("engine rule: " + r);
    for (const auto& e : plan.engine->estimates) plan.assumptions.push_back("engine estimate: " + e);
  } else if (plan.second_pass) {
    plan.assumptions.push_back(fmt::format("{} recurrent-state slots per running request, {} recurrent state, {} cache",
                                           plan.workload.state_slots, plan.workload.state_dtype,
                                           plan.workload.kv_dtype));
    plan.assumptions.push_back("activations: logical aggregate payloads of one prefill chunk, counted on every rank");
  }
}

}  // namespace

std::string_view verdict_word(const Verdict& v) {
  if (v.fits) return "GREEN";
  return v.first_boundary == Resource::latency_unchecked ? "UNCHECKED" : "RED";
}

Result<Plan> build_plan(const ModelSpec& model, const Accelerator& gpu, const PlanRequest& request) {
  const PlanContext context(model);
  return build_plan(context, gpu, request, PlanDetail::full);
}

Result<Plan> build_plan(const PlanContext& context, const Accelerator& gpu, const PlanRequest& request,
                        PlanDetail detail) {
  const auto& model = *context.model;
  const bool full = detail == PlanDetail::full;
  if (request.gpu_count == 0) return Error{"--gpus", "", "GPU count must be at least 1"};
  if (gpu.device_total_bytes == 0)
    return Error{"--gpus", "", fmt::format("GPU '{}' has no known memory capacity", gpu.id)};
  auto layout_options = request.layout;
  if (layout_options.gpus_per_node == 0) layout_options.gpus_per_node = gpu.gpus_per_node;
  layout_options.dense_over_stage = request.engine.kind == EngineKind::sglang;
  std::shared_ptr<const PlanContext::Placed> cached;
  Result<Layout> layout = Error{"", "", ""};
  if (full) {
    layout = choose_layout(model, request.gpu_count, layout_options, &context.tp_divisors, true);
  } else {
    auto p = context.placed(request.gpu_count, layout_options);
    if (!p) return p.error();
    cached = *p;
    layout = cached->layout;
  }
  if (!layout) return layout.error();

  Plan plan;
  name_model_and_gpu(plan, model, gpu, full);
  plan.gpu_count = request.gpu_count;
  plan.layout = *layout;
  if (full && !request.layout_reason.empty()) plan.layout.chosen_by = request.layout_reason;
  plan.mtp_layers = model.mtp_layers;
  if (request.draft) {
    if (request.workload.spec_tokens == 0)
      return Error{"--draft", request.draft->name, "a draft model needs --spec-tokens N (draft tokens per step)"};
    auto share = draft_share(*request.draft, plan.layout);
    if (!share) return share.error();
    plan.draft_name = request.draft->name;
    plan.draft_ref = request.draft->artifact && !request.draft->artifact->hub_id.empty()
                         ? request.draft->artifact->hub_id
                         : request.draft->name;
    plan.draft_tp = share->first;
    plan.draft_weights_per_rank = share->second;
  }
  plan.workload = workload_for_engine(request.workload, model, request.engine);
  if (const auto declared_kv = checkpoint_kv_dtype(model, request.engine);
      full && declared_kv && request.workload.kv_dtype == KvDtype::automatic)
    plan.assumptions.push_back(fmt::format("KV cache {}: {}", declared_kv->dtype, declared_kv->why));
  plan.engine_options = request.engine;
  const bool with_engine = request.engine.kind != EngineKind::generic;
  plan.second_pass = request.workload.requested || with_engine;
  if (full && plan.workload.context_tokens > model.max_context)
    plan.assumptions.push_back(fmt::format("context {} exceeds the model's max_position_embeddings {}",
                                           with_commas(plan.workload.context_tokens), with_commas(model.max_context)));

  const auto& inv = context.inventory;
  plan.checkpoint_bytes = model.disk_payload_bytes > 0 ? model.disk_payload_bytes : inv.payload_bytes;
  plan.loaded_weight_bytes = inv.payload_bytes;
  plan.logical_params =
      model.artifact && model.artifact->logical_parameters ? model.artifact->logical_parameters : inv.logical_params;
  plan.active_params = inv.active_params;

  // Every rank for a full plan; the heaviest rank of each class for the verdict.
  std::vector<RankWeights> all_ranks;
  if (full) {
    all_ranks.reserve(plan.layout.world);
    for (std::uint64_t r = 0; r < plan.layout.world; ++r)
      all_ranks.push_back(context.placement.rank_weights(plan.layout, r));
  }
  const std::vector<RankWeights>& placed = full ? all_ranks : cached->representatives;
  if (full) {
    add_weight_bound_figures(plan, model, inv, placed, context.placement.replicated_bytes());
    add_active_figures(plan, model, inv);
  }

  if (with_engine) {
    if (auto err = add_engine_ledgers(plan, context, gpu, request, placed, full)) return *err;
  } else {
    add_generic_ledgers(plan, context, request, placed, full);
  }
  plan.verdict = judge(plan, full);
  apply_engine_verdict(plan);
  // Speculative decoding with nothing to draft from the model itself: an EAGLE head or a
  // draft model loads weights and adds KV layers (vLLM counts both) that only --draft describes.
  if (plan.mtp_drafts() && model.mtp_layers == 0) {
    if (!plan.verdict.summary.empty())
      plan.verdict.summary += fmt::format(
          "; planning estimate: --spec-tokens {} without --draft, and the model has no MTP layers: the draft's "
          "weights and KV cache (an EAGLE head or a draft model) are not counted; name it with --draft",
          plan.workload.spec_tokens);
    if (plan.verdict.evidence == Evidence::derived) plan.verdict.evidence = Evidence::estimate;
  }
  apply_latency(plan, context, gpu, request, full);
  if (!full) {
    if (!model.family_reader) mark_guessed_structure(plan);
    return plan;
  }

  if (model.artifact && model.artifact->shard_bytes > 0)
    for (auto& f : disk_figures(*model.artifact)) plan.figures.push_back(std::move(f));
  add_assumptions(plan, model);
  add_offload_figures(plan, context, request);
  if (request.perf.enabled) {
    plan.perf = plan_perf(plan, context, request, placed);
    for (const auto& f : plan.perf->figures) plan.figures.push_back(f);
    for (const auto& a : plan.perf->assumptions) plan.assumptions.push_back("throughput: " + a);
  }
  plan.checklist = build_checklist(plan, model);
  if (!model.family_reader) mark_guessed_structure(plan);
  return plan;
}

}  // namespace preflight
