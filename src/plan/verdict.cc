#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <tuple>

#include "core/bytes.h"
#include "perf/latency_efficiency.h"
#include "perf/roofline.h"
#include "perf/serving_simulation.h"
#include "perf/step_shape.h"
#include "perf/step_time_model.h"
#include "plan/plan_steps.h"

namespace preflight::plan_steps {

// No family reader knows the architecture: the generic reading guessed its
// structure (which layers attend how, what the MLP is), so nothing computed
// from it is a derived calculation. Figures and ledger rows computed from the
// model become planning estimates (the GPU catalogue's and the files' own
// figures keep their labels), and the verdict line says why.
void mark_guessed_structure(Plan& plan) {
  const auto guessed = [](Evidence& e) {
    if (e == Evidence::derived) e = Evidence::estimate;
  };
  for (auto& f : plan.figures)
    if (!f.id.starts_with("cluster.") && !f.id.starts_with("disk.")) guessed(f.evidence);
  for (auto& r : plan.ranks)
    for (auto& row : r.rows) guessed(row.evidence);
  guessed(plan.verdict.evidence);
  if (plan.verdict.summary.empty() || plan.verdict.summary.find("no family reader") != std::string::npos) return;
  plan.verdict.summary += fmt::format(
      "; planning estimate: {} has no family reader, so its structure was read as a generic decoder{}",
      plan.model_architecture.empty() ? plan.model_name : plan.model_architecture,
      plan.manifest_source == ManifestSource::config
          ? " and its tensors generated from that guess (a snapshot folder, a hub id or --shard-headers all would "
            "plan from the real tensors)"
          : " (its tensors are the files' own)");
}

Verdict judge(const Plan& plan, bool with_summary) {
  Verdict v;
  v.fits = true;
  std::int64_t headroom = INT64_MAX;
  int worst_boundary = 99;
  std::size_t worst_index = 0;
  for (std::size_t i = 0; i < plan.ranks.size(); ++i) {
    const auto& l = plan.ranks[i];
    const auto slack = l.fits() ? static_cast<std::int64_t>(l.free) : -static_cast<std::int64_t>(l.over);
    if (slack < headroom) {
      headroom = slack;
      v.worst_rank = l.rank;
      worst_index = i;
    }
    if (!l.fits()) {
      v.fits = false;
      if (static_cast<int>(l.first_boundary) < worst_boundary) {
        worst_boundary = static_cast<int>(l.first_boundary);
        v.first_boundary = l.first_boundary;
      }
    }
  }
  v.headroom_bytes = headroom;
  v.evidence = v.fits ? Evidence::hypothesis : Evidence::derived;
  if (!with_summary) return v;
  const auto& worst = plan.ranks[worst_index];
  const auto cap = fmt::format("{} ({}) device capacity", format_gb(worst.capacity, 1), format_gib(worst.capacity, 2));
  if (!v.fits) {
    v.evidence = Evidence::derived;
    v.summary = fmt::format("does not fit: first boundary crossed: {}; rank {} needs {} against {} ({} over)",
                            resource_key(v.first_boundary), worst.rank, format_gb(worst.demand, 1), cap,
                            format_gb(worst.over, 1));
  } else {
    v.evidence = Evidence::hypothesis;
    v.summary = fmt::format(
        "fits under the stated inputs, tightest rank {} keeps {} ({}) free; a deployment hypothesis until benchmarked",
        worst.rank, format_gb(worst.free, 1), format_gib(worst.free, 2));
  }
  return v;
}

namespace {

// The tokens one DP group's cache holds (0: unknown): the engine's logged KV
// tokens, or the generic ledger's pool plus the headroom (less the shortfall
// when red) over the bytes per token.
std::uint64_t kv_capacity_tokens(const Plan& plan) {
  if (plan.engine && plan.engine->kv_cache_tokens > 0) return plan.engine->kv_cache_tokens;
  const auto* per_token = find_figure(plan.figures, "kv.per_token_per_rank");
  if (per_token == nullptr || per_token->value <= 0) return 0;
  // Headroom is signed: a red plan's shortfall comes off the pool it asked for.
  const auto* pool = find_figure(plan.figures, "kv.pool_per_rank");
  const double bytes = (pool ? pool->value : 0) + static_cast<double>(plan.verdict.headroom_bytes);
  return bytes > 0 ? static_cast<std::uint64_t>(bytes / per_token->value) : 0;
}

// The planning estimate beside the bounds: one DP group's scheduler simulated
// (perf/serving_simulation.h) with step times from the roofline's terms and
// the GPU's fitted efficiencies. Arrivals: --rate as a Poisson stream (split
// evenly over the DP groups), --rate inf as a burst, else a closed loop of the
// plan's running requests. The cache holds what the plan computed: the
// engine's logged KV tokens, or the generic ledger's pool and free memory.
Result<LatencyEstimate> estimate_latency(const Plan& plan, const PerfInputs& in, const FormatPlacement& placement,
                                         const std::vector<RankFormatWeights>& weights, const LatencyTargets& targets,
                                         const PlanRequest& request) {
  const auto& table = targets.efficiency ? *targets.efficiency : LatencyEfficiencyTable::embedded();
  const auto& eff = table.find(plan.gpu.id);
  const auto groups = std::max<std::uint64_t>(plan.layout.dp, 1);
  SimulationInputs sim;
  sim.efficiency = eff.step;
  // The engine's own scheduler limits as its sizing resolved them from source
  // (vLLM: max_num_seqs and max_num_batched_tokens by GPU memory and name;
  // SGLang: max_running_requests and the chunked prefill size by memory tier);
  // the generic engine: 256 sequences and 8,192 tokens a step.
  sim.max_num_batched_tokens = request.engine.max_num_batched_tokens > 0 ? request.engine.max_num_batched_tokens : 8192;
  sim.max_num_seqs = request.engine.max_num_seqs > 0 ? request.engine.max_num_seqs : 256;
  if (plan.engine) {
    if (plan.engine->max_num_batched_tokens > 0)
      sim.max_num_batched_tokens = plan.engine->max_num_batched_tokens;
    else if (plan.engine->chunked_prefill_size > 0)
      sim.max_num_batched_tokens = plan.engine->chunked_prefill_size;
    if (plan.engine->max_num_seqs > 0)
      sim.max_num_seqs = plan.engine->max_num_seqs;
    else if (plan.engine->max_running_requests > 0)
      sim.max_num_seqs = plan.engine->max_running_requests;
  }
  sim.model = build_step_time_model(in, placement, weights, std::min(targets.input_tokens, sim.max_num_batched_tokens));
  sim.input_tokens = targets.input_tokens;
  sim.output_tokens = targets.output_tokens;
  sim.seed = targets.seed;
  // --requests is the cluster's; by default 1,000 per DP group, so a wide
  // deployment's percentiles rest on as many requests as a narrow one's.
  sim.requests = targets.requests > 0 ? std::max<std::uint64_t>(ceil_div(targets.requests, groups), 1) : 1000;
  sim.kv_capacity_tokens = kv_capacity_tokens(plan);
  sim.prefill_first = request.engine.kind == EngineKind::sglang;
  const auto& front_end = table.front_end(engine_key(request.engine.kind));
  sim.admission_delay_s = front_end.per_request_s;
  LatencyEstimate e;
  // DP groups take a trace's requests in turn: group 0 simulates every
  // groups-th one, with its own lengths (and arrival time when replayed).
  const RequestTrace* trace = targets.trace && !targets.trace->requests.empty() ? targets.trace.get() : nullptr;
  if (trace != nullptr) {
    for (std::size_t i = 0; i < trace->requests.size(); i += groups) {
      const auto& t = trace->requests[i];
      sim.shapes.push_back({t.input, t.output});
      if (targets.replay_arrivals) sim.arrival_times.push_back(t.arrival_s);
    }
  }
  if (trace != nullptr && targets.replay_arrivals && !targets.burst) {
    sim.arrivals = ArrivalKind::trace;
    if (targets.requests == 0) sim.requests = sim.arrival_times.size();
    e.arrivals =
        fmt::format("the trace's own arrivals and lengths, {} requests over {:.4g} s{}", trace->requests.size(),
                    trace->span_s(), groups == 1 ? std::string() : fmt::format(", every {}th to a DP group", groups));
  } else if (targets.burst) {
    sim.arrivals = ArrivalKind::burst;
    e.arrivals = fmt::format("a burst of {} requests at once per DP group", sim.requests);
  } else if (targets.rate_per_s > 0) {
    sim.arrivals = ArrivalKind::poisson;
    sim.rate_per_s = targets.rate_per_s / static_cast<double>(groups);
    e.arrivals = fmt::format("Poisson arrivals at {:.4g} requests/s per DP group (seed {})", sim.rate_per_s, sim.seed);
  } else {
    sim.arrivals = ArrivalKind::closed_loop;
    sim.concurrency =
        std::max<std::uint64_t>(ceil_div(std::max<std::uint64_t>(plan.workload.concurrency, 1), groups), 1);
    e.arrivals = fmt::format("a closed loop of {} client(s) per DP group", sim.concurrency);
  }
  if (trace != nullptr && sim.arrivals != ArrivalKind::trace)
    e.arrivals += fmt::format(", lengths from the trace's {} requests in turn", trace->requests.size());
  auto r = simulate_serving(sim);
  if (!r) return r.error();
  e.ttft_mean_s = r->ttft_s.mean + targets.kv_transfer_s;
  e.ttft_p50_s = r->ttft_s.p50 + targets.kv_transfer_s;
  e.ttft_p90_s = r->ttft_s.p90 + targets.kv_transfer_s;
  e.ttft_p99_s = r->ttft_s.p99 + targets.kv_transfer_s;
  e.tpot_mean_s = r->tpot_s.mean;
  e.tpot_p50_s = r->tpot_s.p50;
  e.tpot_p90_s = r->tpot_s.p90;
  e.tpot_p99_s = r->tpot_s.p99;
  e.output_tokens_per_s = r->output_tokens_per_s * static_cast<double>(groups);
  e.busy_share = r->duration_s > 0 ? r->busy_s / r->duration_s : 0;
  if (plan.gpu.tdp_w > 0 && e.output_tokens_per_s > 0) {
    const double watts = static_cast<double>(plan.gpu_count) * plan.gpu.tdp_w * e.busy_share * targets.pue;
    e.joules_per_output_token = watts / e.output_tokens_per_s;
    e.kwh_per_million_output_tokens = e.joules_per_output_token * 1e6 / 3.6e6;
    e.energy_usd_per_million_output_tokens = e.kwh_per_million_output_tokens * targets.power_price_usd_per_kwh;
  }
  e.band = eff.band;
  e.requests = sim.requests;
  e.preemptions = r->preemptions;
  e.kv_capacity_tokens = sim.kv_capacity_tokens;
  e.step_model = sim.model;
  const bool moe = sim.model.weights_s_64 > sim.model.weights_s_1;
  e.efficiency = fmt::format(
      "{}: memory {:.2f}{}, compute {:.2f} of peak, {:.3g} us per layer, {:.3g} us per collective, "
      "serving {:.3g} us per step + {:.3g} us per sequence ({})",
      eff.fitted_on, eff.step.memory,
      moe ? fmt::format(" (experts beyond one token's {:.2f})", eff.step.moe_memory) : "", eff.step.compute,
      eff.step.per_layer_s * 1e6, eff.step.per_collective_s * 1e6, eff.step.per_step_s * 1e6, eff.step.per_seq_s * 1e6,
      eff.source);
  if (front_end.per_request_s > 0)
    e.efficiency += fmt::format("; {} front end {:.3g} ms per request before it is queued ({})",
                                engine_key(request.engine.kind), front_end.per_request_s * 1e3, front_end.source);
  return e;
}

// The estimate's figures, each with the simulation and step formula it came from.
void add_estimate_figures(Plan& plan, const LatencyEstimate& e) {
  const auto how = fmt::format(
      "simulated scheduler ({}; {} requests; chunked prefill, max_num_seqs, the plan's KV cache{}); step = serving "
      "cost per step and per sequence + layers x per-layer cost + collectives x latency + memory / efficiency + "
      "compute / efficiency + communication; band +-{:.0f}% (80% of the fitted rows; held-out rows check it)",
      e.arrivals, e.requests,
      e.kv_capacity_tokens > 0 ? fmt::format(" of {} tokens", with_commas(e.kv_capacity_tokens)) : " not limiting",
      e.band * 100);
  for (const auto& [id, label, value] : std::initializer_list<std::tuple<const char*, const char*, double>>{
           {"latency.estimate.ttft_p50_s", "estimated time to first token, p50", e.ttft_p50_s},
           {"latency.estimate.ttft_p90_s", "estimated time to first token, p90", e.ttft_p90_s},
           {"latency.estimate.ttft_p99_s", "estimated time to first token, p99", e.ttft_p99_s},
           {"latency.estimate.tpot_p50_s", "estimated time per output token, p50", e.tpot_p50_s},
           {"latency.estimate.tpot_p90_s", "estimated time per output token, p90", e.tpot_p90_s},
           {"latency.estimate.tpot_p99_s", "estimated time per output token, p99", e.tpot_p99_s}})
    plan.figures.push_back(real_figure(id, label, value, "s", Evidence::estimate, how, e.efficiency));
  plan.figures.push_back(real_figure("latency.estimate.output_tokens_per_s", "estimated output tokens/s, whole cluster",
                                     e.output_tokens_per_s, "tokens/s", Evidence::estimate, how, e.efficiency));
  if (e.joules_per_output_token <= 0) return;
  const auto energy = fmt::format(
      "{} GPUs x {} W board power x {:.2f} busy share (the simulated steps' time over the run) x PUE {:.2f} / {:.4g} "
      "output tokens/s; idle draw not counted",
      plan.gpu_count, plan.gpu.tdp_w, e.busy_share, plan.latency ? plan.latency->targets.pue : 1.0,
      e.output_tokens_per_s);
  plan.figures.push_back(real_figure("latency.estimate.joules_per_output_token", "estimated energy per output token",
                                     e.joules_per_output_token, "J", Evidence::estimate, energy, plan.gpu.sources));
  plan.figures.push_back(real_figure("latency.estimate.kwh_per_million_output_tokens",
                                     "estimated energy per million output tokens", e.kwh_per_million_output_tokens,
                                     "kWh", Evidence::estimate, energy + "; x 10^6 / 3.6 x 10^6 J per kWh",
                                     plan.gpu.sources));
  if (e.energy_usd_per_million_output_tokens > 0)
    plan.figures.push_back(real_figure("latency.estimate.energy_usd_per_million_output_tokens",
                                       "estimated energy cost per million output tokens",
                                       e.energy_usd_per_million_output_tokens, "USD", Evidence::estimate,
                                       "kWh per million output tokens x --power-price USD/kWh", "--power-price"));
}

}  // namespace

// The latency targets against the roofline bounds at this plan's layout and
// batch (perf/latency.h), from the representative ranks as the solvers' fast
// path computes them. A plan whose memory fits but whose bounds miss a target
// is red with `ttft` or `tpot` as its first boundary.
void apply_latency(Plan& plan, const PlanContext& context, const Accelerator& gpu, const PlanRequest& request,
                   bool full) {
  if (!request.latency.any()) return;
  const auto& model = *context.model;
  const auto& w = plan.workload;
  auto targets = request.latency;
  const auto length = typical_length(w);
  if (targets.output_tokens == 0) targets.output_tokens = default_output_tokens(length);
  if (targets.input_tokens == 0) targets.input_tokens = default_input_tokens(length, targets.output_tokens);
  auto& v = plan.verdict;
  // A target checked against a missing figure would pass on nothing: the plan
  // says so and is not green, whatever memory says.
  if (auto missing = missing_latency_figure(gpu)) {
    const auto why = fmt::format("latency not checked: {}", *missing);
    if (full) plan.assumptions.push_back(why + "; the latency targets are neither met nor missed");
    if (!v.fits) return;  // memory first
    v.fits = false;
    v.first_boundary = Resource::latency_unchecked;
    v.evidence = Evidence::estimate;
    v.summary = fmt::format("memory fits, but {}: the latency targets can be neither met nor missed", why);
    return;
  }
  // The catalogue's GPU: a verdict-only plan copies only its capacity.
  auto in = workload_perf_inputs(model, gpu, plan.layout, w, request.perf.scale_out_gb_s);
  // Each decode step reads every running request's cache at its own length:
  // over a request's decode it grows from the input to input + output, so the
  // mean step reads input + output / 2 (the average of a bound linear in the
  // length is the bound at the average), never the model's window.
  in.context = checked_add(targets.input_tokens, targets.output_tokens / 2);
  if (auto e = validate_perf_inputs(in)) {
    if (full) plan.assumptions.push_back(fmt::format("latency targets not checked: {}", e->message));
    return;
  }
  // A plan whose requests overflow the cache runs fewer at once than asked:
  // the engine holds at least capacity / (input + output) of them, so the
  // decode bound is taken at that batch, the one it can run (a bound at the
  // asked batch would lie above what the engine does).
  if (full && !v.fits && v.first_boundary == Resource::kv_cache) {
    const auto capacity = kv_capacity_tokens(plan);
    const auto per_request = checked_add(targets.input_tokens, targets.output_tokens);
    if (capacity > 0 && per_request > 0) {
      const auto running = std::max<std::uint64_t>(capacity / per_request, 1);
      if (running < in.batch_per_group) {
        plan.assumptions.push_back(fmt::format(
            "the cache holds {} tokens per DP group: at least {} requests of {} + {} tokens run at once, fewer than "
            "the "
            "{} asked; the decode bound is taken at that batch",
            with_commas(capacity), running, targets.input_tokens, targets.output_tokens, in.batch_per_group));
        in.batch_per_group = running;
      }
    }
  }
  const auto& placement = context.formats();
  std::vector<RankFormatWeights> weights;
  for (auto r : context.placement.representative_ranks(plan.layout))
    weights.push_back(placement.rank_weights(plan.layout, r));
  const auto decode = estimate_step(in, placement, weights, decode_step(in, in.batch_per_group));
  const auto prefill = estimate_step(in, placement, weights, prefill_step(targets.input_tokens));
  LatencyBounds b;
  b.prefill_s = prefill.step_seconds;
  b.prefill_slowest_stage_s = prefill.slowest_stage_seconds;
  b.decode_step_s = decode.step_seconds;
  b.decode_tokens_per_s = static_cast<double>(decode.tokens_per_step) / decode.slowest_stage_seconds;
  b.dp_groups = plan.layout.dp;
  plan.latency = check_latency(targets, w.concurrency, request.concurrency_from_rate, b);
  // A disaggregated pool runs one phase; the simulation is of an engine running both.
  if (full && targets.phase == LatencyPhase::both) {
    auto estimate = estimate_latency(plan, in, placement, weights, targets, request);
    if (estimate) {
      add_estimate_figures(plan, *estimate);
      plan.latency->estimate = std::move(estimate).value();
    } else {
      plan.latency->assumptions.push_back(fmt::format("latency estimate not made: {}", estimate.error().message));
    }
  }
  const auto& check = *plan.latency;
  if (full) {
    for (const auto& f : check.figures) plan.figures.push_back(f);
    for (const auto& a : check.assumptions) plan.assumptions.push_back(a);
  }
  if (!v.fits) return;  // memory first: it is what a plan must have at all
  if (!check.binding.empty()) {
    v.fits = false;
    v.first_boundary = check.binding == "ttft" ? Resource::ttft : Resource::tpot;
    v.evidence = Evidence::derived;
    v.summary =
        fmt::format("does not meet the latency targets: first boundary crossed: {}; {}", check.binding, check.why);
    return;
  }
  // The bounds pass; the estimate's percentile (--latency-percentile, p90 by
  // default) must meet the targets too, as the solvers require of a count.
  if (auto shortfall = estimate_shortfall(check, targets.percentile)) {
    v.fits = false;
    v.first_boundary = shortfall->target == "ttft" ? Resource::ttft : Resource::tpot;
    v.evidence = Evidence::estimate;
    v.summary = fmt::format("does not meet the latency targets by the estimate: first boundary crossed: {}; {}",
                            shortfall->target, shortfall->why);
  }
}

}  // namespace preflight::plan_steps
