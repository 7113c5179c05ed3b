#include "plan_inputs.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <tuple>

#include "core/bytes.h"
#include "core/text.h"
#include "core/units.h"
#include "engine/engine_dtype.h"
#include "file_read.h"
#include "hardware/gpu_catalogue.h"
#include "hub_source.h"
#include "launch/gpu_arch.h"
#include "launch/recipe_catalogue.h"
#include "option_table.h"
#include "solve/estimate_check.h"
#include "solve/fixes.h"
#include "solve/plan_probe.h"
#include "workload/request_trace.h"

namespace preflight::cli {

Result<GpuCatalogue> resolve_catalogue(const Options& o) {
  if (o.catalogue.empty()) return GpuCatalogue::embedded();
  if (o.no_files) return Error{"catalogue", "", "the web API reads no files; the embedded GPU catalogue applies"};
  auto text = read_file(o.catalogue);
  if (!text) return text.error();
  return GpuCatalogue::embedded().merged_with(*text, o.catalogue);
}

int fail(Io& io, const Error& e) {
  io.err << "preflight: " << one_line(e.to_string()) << "\n";
  return 2;
}

namespace {

// A finite number of at least 1e-6 and at most `max`: 0.95, 2.5, 1e3. Infinities
// and NaN are refused by name (from_chars reads "inf" and "nan"), and so are
// values between 0 and 1e-6 (5e-324 is "above 0" but turns a division into
// infinity), so no flag can turn into an "inf h" figure or a 0 s cold start.
constexpr double kSmallestNumber = 1e-6;

Result<double> parse_number(const std::string& text, const char* flag, double max) {
  double v = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v, std::chars_format::general);
  if (ec == std::errc::result_out_of_range)
    return Error{
        flag, "",
        fmt::format("{} is out of range (at most {})", echo(text), with_commas(static_cast<std::uint64_t>(max)))};
  if (ec != std::errc() || ptr != end)
    return Error{flag, "", fmt::format("expected a number such as 0.9 or 2.5, got {}", echo(text))};
  if (!std::isfinite(v)) return Error{flag, "", fmt::format("expected a finite number, got {}", echo(text))};
  if (!(v > 0)) return Error{flag, "", fmt::format("expected a number above 0, got {}", echo(text))};
  if (v < kSmallestNumber)
    return Error{flag, "", fmt::format("expected a number of at least {}, got {}", kSmallestNumber, echo(text))};
  if (v > max)
    return Error{
        flag, "",
        fmt::format("{} is beyond the largest accepted, {}", echo(text), with_commas(static_cast<std::uint64_t>(max)))};
  return v;
}

// A share in (0, 1]: 0.6 or 60%.
Result<double> parse_fraction(const std::string& text, const char* flag) {
  const bool percent = !text.empty() && text.back() == '%';
  auto v = parse_number(percent ? text.substr(0, text.size() - 1) : text, flag, 1e6);
  if (!v) return Error{flag, "", fmt::format("expected a share such as 0.6 or 60%, got {}", echo(text))};
  const double share = percent ? *v / 100.0 : *v;
  if (share > 1.0) return Error{flag, "", fmt::format("expected a share at most 1 (100%), got {}", echo(text))};
  return share;
}

// An optional decimal flag into `out` (left unchanged when the flag is absent).
std::optional<Error> set_number(const std::string& text, const char* flag, double max, double& out) {
  if (text.empty()) return std::nullopt;
  auto v = parse_number(text, flag, max);
  if (!v) return v.error();
  out = *v;
  return std::nullopt;
}

// An optional share flag (0.6 or 60%) into `out`.
std::optional<Error> set_fraction(const std::string& text, const char* flag, double& out) {
  if (text.empty()) return std::nullopt;
  auto v = parse_fraction(text, flag);
  if (!v) return v.error();
  out = *v;
  return std::nullopt;
}

// A count bounded by what any deployment could mean, so an absurd value is
// refused here, by its flag, rather than overflowing deep in the arithmetic.
Result<std::uint64_t> within(Result<std::uint64_t> v, const char* flag, std::uint64_t max, const char* unit) {
  if (!v) return v;
  if (*v > max)
    return Error{flag, "",
                 fmt::format("{} {} is beyond the largest accepted, {}", with_commas(*v), unit, with_commas(max))};
  return v;
}

template <typename T>
std::optional<Error> set_positive(const std::string& text, const char* flag, std::uint64_t max, const char* unit,
                                  T& out) {
  if (text.empty()) return std::nullopt;
  auto v = within(parse_positive_integer(text, flag), flag, max, unit);
  if (!v) return v.error();
  out = *v;
  return std::nullopt;
}

// Upper bounds of the workload and layout flags: far beyond any real
// deployment (the longest context windows are 10M tokens; the largest
// clusters a few hundred thousand GPUs) and small enough that the plan's
// products stay within 64 bits for any real model.
constexpr std::uint64_t kMaxTokens = 1ULL << 30;    // 1,073,741,824 tokens
constexpr std::uint64_t kMaxRequests = 1ULL << 24;  // 16,777,216 requests
constexpr std::uint64_t kMaxParallel = 1ULL << 20;  // TP, EP, PP, DP, DCP, GPUs per node
constexpr std::uint64_t kMaxSmall = 1024;           // state slots, staging copies
// Rates and prices: beyond any line, disk or price list, finite.
constexpr double kMaxPrice = 1e6;  // USD per GPU-hour, USD per million tokens
constexpr double kMaxRate = 1e6;   // Gb/s, GB/s
constexpr double kMaxShare = 1e3;  // engine fractions and ratios (checked again by the engine's own rules)

Result<HubFetchOptions> hub_options(const Options& o) {
  HubFetchOptions hub{o.no_cache, o.refresh};
  hub.budget = o.budget;
  if (!o.shard_headers.empty()) {
    auto mode = parse_shard_header_mode(o.shard_headers);
    if (!mode) return mode.error();
    hub.shard_headers = *mode;
  }
  return hub;
}

// MODEL or --draft: files and hub ids on the command line; catalogue names (and
// hub ids with serve --hub) through the web API.
Result<LoadedModel> load_named_model(const Options& o, const std::string& name, const ModelOverrides& overrides) {
  auto hub = hub_options(o);
  if (!hub) return hub.error();
  if (o.no_files) {
    auto loaded = load_catalogue_or_hub(name, overrides, o.allow_hub, *hub);
    // A hub read cut short by the request's deadline or a departed client is the
    // server's limit, not bad input: the API answers it as such (503).
    if (!loaded && o.budget != nullptr) o.budget->check(std::chrono::milliseconds(100));
    return loaded;
  }
  return load_model(name, overrides, &*hub);
}

// --tp, --ep, --pp, --dp, --dcp and --gpus-per-node: positive, at most kMaxParallel.
std::optional<Error> read_layout_options(const Options& o, LayoutOptions& l) {
  if (auto e = set_positive(o.tp, flag_of(&Options::tp), kMaxParallel, "GPUs", l.tp)) return *e;
  if (auto e = set_positive(o.ep, flag_of(&Options::ep), kMaxParallel, "GPUs", l.ep)) return *e;
  if (auto e = set_positive(o.pp, flag_of(&Options::pp), kMaxParallel, "stages", l.pp)) return *e;
  if (auto e = set_positive(o.dp, flag_of(&Options::dp), kMaxParallel, "groups", l.dp)) return *e;
  if (auto e = set_positive(o.dcp, flag_of(&Options::dcp), kMaxParallel, "GPUs", l.dcp)) return *e;
  if (auto e = set_positive(o.gpus_per_node, flag_of(&Options::gpus_per_node), kMaxParallel, "GPUs", l.gpus_per_node))
    return *e;
  return std::nullopt;
}

// The engine, its release and its memory and scheduler settings, checked together.
std::optional<Error> read_engine_options(const Options& o, EngineOptions& e) {
  if (!o.engine.empty()) {
    auto kind = parse_engine(o.engine);
    if (!kind) return kind.error();
    e.kind = *kind;
  }
  if (!o.engine_version.empty()) {
    auto v = parse_engine_version(o.engine_version, flag_of(&Options::engine_version));
    if (!v) return v.error();
    e.version = std::move(v).value();
  }
  if (auto err = set_number(o.gpu_memory_utilization, flag_of(&Options::gpu_memory_utilization), kMaxShare,
                            e.gpu_memory_utilization))
    return *err;
  if (auto err =
          set_number(o.mem_fraction_static, flag_of(&Options::mem_fraction_static), kMaxShare, e.mem_fraction_static))
    return *err;
  if (auto err = set_number(o.mamba_full_memory_ratio, flag_of(&Options::mamba_full_memory_ratio), kMaxShare,
                            e.mamba_full_memory_ratio))
    return *err;
  if (auto err = set_positive(o.max_num_batched_tokens, flag_of(&Options::max_num_batched_tokens), kMaxTokens, "tokens",
                              e.max_num_batched_tokens))
    return *err;
  if (auto err =
          set_positive(o.max_num_seqs, flag_of(&Options::max_num_seqs), kMaxRequests, "requests", e.max_num_seqs))
    return *err;
  if (auto err = set_positive(o.block_size, flag_of(&Options::block_size), kMaxTokens, "tokens", e.block_size))
    return *err;
  if (!o.radix_cache.empty()) e.radix_cache = o.radix_cache;
  e.enforce_eager = o.enforce_eager;
  auto checked = validate_engine_options(e);
  if (!checked) return checked.error();
  return std::nullopt;
}

// Throughput, cost and cold-start inputs: prompt length, copies, prices, link rates, shares.
std::optional<Error> read_perf_options(const Options& o, PerfOptions& p) {
  if (auto err = set_positive(o.prompt_tokens, flag_of(&Options::prompt_tokens), kMaxTokens, "tokens", p.prompt_tokens))
    return *err;
  if (auto err =
          set_positive(o.staging_copies, flag_of(&Options::staging_copies), kMaxSmall, "copies", p.staging_copies))
    return *err;
  if (auto err = set_number(o.price, flag_of(&Options::price), kMaxPrice, p.price_usd_per_gpu_hour)) return *err;
  if (auto err = set_number(o.api_price, flag_of(&Options::api_price), kMaxPrice, p.api_usd_per_m)) return *err;
  if (auto err = set_number(o.download_gbps, flag_of(&Options::download_gbps), kMaxRate, p.download_gbps)) return *err;
  if (auto err = set_number(o.read_gb_s, flag_of(&Options::read_gb_s), kMaxRate, p.read_gb_s)) return *err;
  if (o.scale_out_gb_s == "0")
    p.scale_out_gb_s = 0;  // 0: cross-node traffic at the NVLink rate (stated)
  else if (auto err = set_number(o.scale_out_gb_s, flag_of(&Options::scale_out_gb_s), kMaxRate, p.scale_out_gb_s))
    return *err;
  if (auto err = set_fraction(o.utilisation, flag_of(&Options::utilisation), p.utilisation)) return *err;
  if (auto err = set_fraction(o.spec_acceptance, flag_of(&Options::spec_acceptance), p.spec_acceptance)) return *err;
  return std::nullopt;
}

// --mix or --mix-file: each request's length; a mix file with input,output
// columns is also a trace (`trace`) the latency estimate replays.
std::optional<Error> read_mix(const Options& o, WorkloadOptions& w, std::shared_ptr<const RequestTrace>& trace) {
  if (o.mix.empty() && o.mix_file.empty()) return std::nullopt;
  w.requested = true;
  const bool file = !o.mix_file.empty();
  if (!o.mix.empty() && file) return Error{flag_of(&Options::mix_file), "", "give --mix or --mix-file, not both"};
  const std::string flag = file ? flag_of(&Options::mix_file) : flag_of(&Options::mix);
  if (!o.context.empty()) return Error{flag, "", "a mix sets each request's length: give --context or a mix, not both"};
  Result<RequestMix> mix = Error{"", "", ""};
  if (file) {
    auto text = read_file(o.mix_file);
    if (!text) return text.error();
    mix = parse_mix_file(*text, o.mix_file);
    if (mix) {
      auto parsed = parse_request_trace(*text, o.mix_file);
      if (!parsed) return parsed.error();
      if (!parsed->requests.empty()) trace = std::make_shared<const RequestTrace>(std::move(parsed).value());
    }
  } else {
    mix = parse_mix(o.mix, flag_of(&Options::mix));
  }
  if (!mix) return mix.error();
  w.mix = std::move(mix).value();
  return std::nullopt;
}

// --ttft, --tpot, --rate, the request shape, the seed, the percentile, the energy
// prices and a latency efficiency table. A flag given marks the workload requested.
std::optional<Error> read_latency_flags(const Options& o, LatencyTargets& t, bool& requested) {
  const auto any = [&](const std::string& s) {
    if (!s.empty()) requested = true;
    return !s.empty();
  };
  for (const auto& [text, flag, out] :
       {std::tuple<const std::string&, const char*, double&>{o.ttft, flag_of(&Options::ttft), t.ttft_s},
        {o.tpot, flag_of(&Options::tpot), t.tpot_s}}) {
    if (!any(text)) continue;
    auto v = parse_duration(text, flag);
    if (!v) return v.error();
    out = *v;
  }
  if (o.rate == "inf") {
    t.burst = true;  // every request at once: the estimate simulates a burst; memory plans the burst's size
  } else if (any(o.rate)) {
    auto v = parse_number(o.rate, flag_of(&Options::rate), kMaxRate);
    if (!v) return v.error();
    if (!(*v > 0))
      return Error{flag_of(&Options::rate), "",
                   fmt::format("expected requests per second above 0, got {}", echo(o.rate))};
    t.rate_per_s = *v;
  }
  if (any(o.input_tokens))
    if (auto e = set_positive(o.input_tokens, flag_of(&Options::input_tokens), kMaxTokens, "tokens", t.input_tokens))
      return *e;
  if (any(o.output_tokens))
    if (auto e = set_positive(o.output_tokens, flag_of(&Options::output_tokens), kMaxTokens, "tokens", t.output_tokens))
      return *e;
  if (any(o.requests))
    if (auto e = set_positive(o.requests, flag_of(&Options::requests), kMaxRequests, "requests", t.requests)) return *e;
  if (any(o.seed)) {
    std::uint64_t seed = 0;
    if (auto e = set_positive(o.seed, flag_of(&Options::seed), UINT64_MAX / 2, "", seed)) return *e;
    t.seed = seed;
  }
  if (any(o.latency_percentile)) {
    auto percentile = parse_latency_percentile(o.latency_percentile, flag_of(&Options::latency_percentile));
    if (!percentile) return percentile.error();
    t.percentile = *percentile;
  }
  if (any(o.power_price)) {
    auto v = parse_number(o.power_price, flag_of(&Options::power_price), kMaxPrice);
    if (!v) return v.error();
    if (!(*v > 0))
      return Error{flag_of(&Options::power_price), "",
                   fmt::format("expected USD per kWh above 0, got {}", echo(o.power_price))};
    t.power_price_usd_per_kwh = *v;
  }
  if (any(o.pue)) {
    auto v = parse_number(o.pue, flag_of(&Options::pue), 10);
    if (!v) return v.error();
    if (!(*v >= 1))
      return Error{flag_of(&Options::pue), "", fmt::format("expected a PUE of 1 or more, got {}", echo(o.pue))};
    t.pue = *v;
  }
  if (any(o.latency_efficiency)) {
    auto text = read_file(o.latency_efficiency);
    if (!text) return text.error();
    auto table = LatencyEfficiencyTable::parse(*text, o.latency_efficiency);
    if (!table) return table.error();
    t.efficiency = std::make_shared<const LatencyEfficiencyTable>(std::move(table).value());
  }
  return std::nullopt;
}

Result<PlanRequest> plan_request(const Options& o) {
  PlanRequest r;
  auto& w = r.workload;
  const auto any = [&](const std::string& s) {
    if (!s.empty()) w.requested = true;
    return !s.empty();
  };
  if (any(o.context)) {
    auto v = within(parse_token_count(o.context, flag_of(&Options::context)), flag_of(&Options::context), kMaxTokens,
                    "tokens");
    if (!v) return v.error();
    w.context_tokens = *v;
  }
  if (any(o.concurrency)) {
    if (auto e = set_positive(o.concurrency, flag_of(&Options::concurrency), kMaxRequests, "requests", w.concurrency))
      return *e;
  }
  std::shared_ptr<const RequestTrace> trace;  // --mix-file with input,output columns
  if (auto err = read_mix(o, w, trace)) return *err;
  if (any(o.kv_offload)) {
    const bool bare = std::isdigit(static_cast<unsigned char>(o.kv_offload.back())) != 0;
    auto v = parse_byte_size(bare ? o.kv_offload + "GiB" : o.kv_offload, flag_of(&Options::kv_offload));
    // The error names what was typed, not the text with GiB appended.
    if (!v)
      return Error{
          flag_of(&Options::kv_offload), "",
          fmt::format("expected a size such as 512GiB or 1TiB (a bare number is GiB), got {}", echo(o.kv_offload))};
    if (*v == 0 || *v > (1ULL << 50))
      return Error{flag_of(&Options::kv_offload), "",
                   fmt::format("expected host memory per node above 0 and at most 1 PiB, got {}", echo(o.kv_offload))};
    w.kv_offload_bytes_per_node = *v;
  }
  if (any(o.kv_dtype)) {
    auto d = parse_kv_dtype(o.kv_dtype, flag_of(&Options::kv_dtype));
    if (!d) return d.error();
    w.kv_dtype = *d;
  }
  if (any(o.state_dtype)) {
    auto d = parse_state_dtype(o.state_dtype, flag_of(&Options::state_dtype));
    if (!d) return d.error();
    w.state_dtype = *d;
  }
  if (any(o.state_slots)) {
    if (auto e = set_positive(o.state_slots, flag_of(&Options::state_slots), kMaxSmall, "slots", w.state_slots))
      return *e;
  }
  if (any(o.reserve)) {
    auto v = parse_reserve(o.reserve, flag_of(&Options::reserve));
    if (!v) return v.error();
    w.reserve = *v;
  }
  if (any(o.chunk)) {
    if (auto e = set_positive(o.chunk, flag_of(&Options::chunk), kMaxTokens, "tokens", w.chunk_tokens)) return *e;
  }
  auto& t = r.latency;
  if (auto err = read_latency_flags(o, t, w.requested)) return *err;
  if (t.burst) {
    if (!o.concurrency.empty())
      return Error{flag_of(&Options::rate), "",
                   "--rate inf sends --requests at once: give it or --concurrency, not both"};
    w.concurrency = t.requests > 0 ? t.requests : 1000;
  }
  t.phase = o.latency_phase;
  if (trace) {
    t.trace = trace;
    // The bounds and Little's law take a typical request: the trace's means.
    if (t.input_tokens == 0) t.input_tokens = trace->mean_input_tokens();
    if (t.output_tokens == 0) t.output_tokens = trace->mean_output_tokens();
    // A trace with arrival times is replayed by the estimate unless --rate says
    // otherwise; with --tpot (and no --concurrency) its rate sizes the running
    // requests by Little's law, as --rate would.
    t.replay_arrivals = trace->has_arrivals && !any(o.rate);
    if (t.replay_arrivals && t.tpot_s > 0 && !any(o.concurrency) && trace->rate_per_s() > 0)
      t.rate_per_s = std::min(trace->rate_per_s(), kMaxRate);
  }
  if (t.rate_per_s > 0 &&
      o.latency_phase != LatencyPhase::prefill) {  // a prefill pool's prompts in flight are set for it
    if (!o.concurrency.empty())
      return Error{flag_of(&Options::rate), "",
                   "the running requests follow from the rate: give --rate or --concurrency, not both"};
    // The length the output default is taken from: the mix's mean, the context, or none yet (the model's window).
    const auto length = typical_length(w) > 0 ? typical_length(w) : UINT64_MAX;
    const auto output = t.output_tokens > 0 ? t.output_tokens : default_output_tokens(length);
    auto n = concurrency_from_rate(t, output);
    if (!n) return n.error();
    w.concurrency = *n;
    r.concurrency_from_rate = true;
  }
  if (auto err = read_layout_options(o, r.layout)) return *err;

  if (auto err = read_engine_options(o, r.engine)) return *err;

  if (any(o.spec_tokens) && o.spec_tokens != "0") {
    auto v = parse_positive_integer(o.spec_tokens, flag_of(&Options::spec_tokens));
    if (!v) return v.error();
    if (*v > 64)
      return Error{flag_of(&Options::spec_tokens), "",
                   fmt::format("expected at most 64 draft tokens per step, got {}", *v)};
    w.spec_tokens = *v;
  }
  if (auto err = read_perf_options(o, r.perf)) return *err;
  if (!o.draft.empty()) {
    if (w.spec_tokens == 0)
      return Error{flag_of(&Options::draft), "", "a draft model needs --spec-tokens N (draft tokens per step)"};
    auto draft = load_named_model(o, o.draft, {});
    if (!draft) {
      // The loaders name the model argument MODEL; here it came from --draft.
      Error named = draft.error();
      if (named.origin == "MODEL") named.origin = flag_of(&Options::draft);
      return named;
    }
    r.draft = std::make_shared<const ModelSpec>(std::move(draft).value().model);  // not draft->: const, it would copy
  }
  return r;
}

// The workload flags given, as an overflow error names them.
std::string workload_flags_of(const Options& o) {
  // Checked arithmetic names the quantity, not the input that made it absurd:
  // name the workload flags given (else the model), which are what to change.
  std::string flags;
  for (const auto& [flag, value] : {std::pair<const char*, const std::string*>{flag_of(&Options::context), &o.context},
                                    {flag_of(&Options::concurrency), &o.concurrency},
                                    {flag_of(&Options::prompt_tokens), &o.prompt_tokens},
                                    {flag_of(&Options::chunk), &o.chunk},
                                    {flag_of(&Options::state_slots), &o.state_slots},
                                    {flag_of(&Options::spec_tokens), &o.spec_tokens},
                                    {flag_of(&Options::max_num_batched_tokens), &o.max_num_batched_tokens},
                                    {flag_of(&Options::max_num_seqs), &o.max_num_seqs}})
    if (!value->empty()) flags += fmt::format("{}{} {}", flags.empty() ? "" : " ", flag, *value);
  return flags;
}

}  // namespace

Error overflow_error(const std::string& workload_flags, const Error& arithmetic) {
  return Error{workload_flags.empty() ? "MODEL" : workload_flags, "",
               fmt::format("too large to plan: {} ({})", arithmetic.message, arithmetic.field)};
}

Result<LoadedModel> load_model_for(const Options& o) {
  if (o.upload)
    return load_uploaded_model(o.upload->name, o.upload->config, o.upload->index, o.upload->listing,
                               {o.quantize, o.dtype, o.runner});
  return load_named_model(o, o.model, {o.quantize, o.dtype, o.runner});
}

namespace {

// What an engine plan needs beyond the options, once the model is loaded:
// the release its recipe needs, and the model as the engine holds it under
// --dtype auto (a float32 config in 16 bits). Nothing for the generic engine.
std::optional<Error> prepare_engine_inputs(LoadedModel& loaded, const Options& o, PlanRequest& request,
                                           const Accelerator* gpu, std::uint64_t gpu_count) {
  auto& e = request.engine;
  if (e.kind == EngineKind::generic) return std::nullopt;
  RecipeTarget target{e.kind, loaded.model.name, loaded.model.family, "", "", 0, ""};
  if (gpu != nullptr) {
    if (const auto* arch = find_gpu_arch(embedded_gpu_archs(), *gpu)) target.arch = arch->arch;
    target.gpu_id = gpu->id;
    target.gpu_count = gpu_count;
  }
  if (auto need = required_version(select_recipes(embedded_recipes(), target))) {
    e.required_version = need->version;
    e.required_by = need->recipe_label;
  }
  if (!o.dtype.empty() && o.dtype != "auto") return std::nullopt;  // the user's --dtype wins
  const auto served = engine_auto_dtype(loaded.model, e);
  if (!served) return std::nullopt;
  auto cast = apply_model_overrides(std::move(loaded.model), "", "", ModelOverrides{"", served->dtype, ""});
  if (!cast) return cast.error();
  loaded.model = std::move(cast).value();
  loaded.model.notes.insert(loaded.model.notes.begin(), served->why);
  e.auto_dtype_rule = served->why;
  return std::nullopt;
}

}  // namespace

Result<Cluster> resolve_cluster(const Options& o) {
  auto spec = parse_gpu_spec(o.gpus, flag_of(&Options::gpus));
  if (!spec) return spec.error();
  if (o.catalogue.empty()) {  // one family of the embedded catalogue: only its entry is read
    auto gpu = GpuCatalogue::find_embedded(spec->family, flag_of(&Options::gpus));
    if (!gpu) return gpu.error();
    return Cluster{std::move(gpu).value(), spec->count};
  }
  auto catalogue = resolve_catalogue(o);
  if (!catalogue) return catalogue.error();
  auto gpu = catalogue->find(spec->family, flag_of(&Options::gpus));
  if (!gpu) return gpu.error();
  return Cluster{**gpu, spec->count};
}

namespace {

// --gpu FAMILY ... (default: every catalogue family), in the order given, each once.
Result<std::vector<Accelerator>> families(const Options& o) {
  auto catalogue = resolve_catalogue(o);
  if (!catalogue) return catalogue.error();
  if (o.gpu_families.empty()) return catalogue->all();
  std::vector<Accelerator> out;
  std::set<std::string> seen;
  for (const auto& name : o.gpu_families) {
    auto gpu = catalogue->find(name, flag_of(&Options::gpu_families));
    if (!gpu) return gpu.error();
    if (seen.insert((*gpu)->id).second) out.push_back(**gpu);
  }
  return out;
}

}  // namespace

namespace {

Result<ResolvedRequest> resolve_one_cluster(const Options& o, ClusterFrom from, const LoadedModel* preloaded);

}  // namespace

Error named_for_pool(Error e, LatencyPhase phase) {
  if (phase == LatencyPhase::both) return e;
  const std::string side = phase == LatencyPhase::prefill ? "--prefill-" : "--decode-";
  for (const auto* flag : {flag_of(&Options::gpus), flag_of(&Options::tp), flag_of(&Options::ep), flag_of(&Options::pp),
                           flag_of(&Options::dp)}) {
    const std::string single(flag);
    const std::string pool = side + single.substr(2);
    if (e.origin == single) e.origin = pool;
    for (std::size_t at = 0; (at = e.message.find(single, at)) != std::string::npos;) {
      const auto end = at + single.size();
      const bool word = (at == 0 || e.message[at - 1] == ' ' || e.message[at - 1] == '(') &&
                        (end == e.message.size() ||
                         !(std::isalnum(static_cast<unsigned char>(e.message[end])) || e.message[end] == '-'));
      if (word) {
        e.message.replace(at, single.size(), pool);
        at += pool.size();
      } else {
        at = end;
      }
    }
  }
  return e;
}

Result<ResolvedRequest> resolve_request(const Options& o, ClusterFrom from, const LoadedModel* preloaded) {
  auto r = resolve_one_cluster(o, from, preloaded);
  if (!r) return named_for_pool(r.error(), o.latency_phase);
  return r;
}

std::optional<Error> refuse_pool_flags_without_pools(const Options& o) {
  if (!o.prefill_gpus.empty() || !o.decode_gpus.empty()) return std::nullopt;
  for (std::string Options::*member :
       {&Options::prefill_tp, &Options::prefill_ep, &Options::prefill_pp, &Options::prefill_dp, &Options::decode_tp,
        &Options::decode_ep, &Options::decode_pp, &Options::decode_dp})
    if (!(o.*member).empty())
      return Error{
          flag_of(member), "",
          fmt::format("sets a pool of a disaggregated plan: give {} and {} too, or use the single cluster's flag",
                      flag_of(&Options::prefill_gpus), flag_of(&Options::decode_gpus))};
  return std::nullopt;
}

namespace {

Result<ResolvedRequest> resolve_one_cluster(const Options& o, ClusterFrom from, const LoadedModel* preloaded) {
  ResolvedRequest r;
  // In the order a user fixes them: the cluster, the workload, then the model (which may fetch).
  if (from == ClusterFrom::gpus) {
    auto cluster = resolve_cluster(o);
    if (!cluster) return cluster.error();
    r.cluster = std::move(cluster).value();
  } else {
    auto gpus = families(o);
    if (!gpus) return gpus.error();
    r.families = std::move(gpus).value();
  }
  auto request = plan_request(o);
  if (!request) return request.error();
  r.request = std::move(request).value();
  auto loaded = preloaded != nullptr ? Result<LoadedModel>(*preloaded) : load_model_for(o);
  if (!loaded) return loaded.error();
  r.loaded = std::move(loaded).value();
  if (r.cluster) r.request.gpu_count = r.cluster->count;
  if (auto e = prepare_engine_inputs(r.loaded, o, r.request, r.cluster ? &r.cluster->gpu : nullptr,
                                     r.cluster ? r.cluster->count : 0))
    return *e;
  r.suggest = o.suggest;
  r.budget = o.budget;
  r.workload_flags = workload_flags_of(o);
  return r;
}

}  // namespace

Result<Plan> make_plan(const ResolvedRequest& r) {
  if (!r.cluster) return Error{"", "", "a plan needs --gpus COUNTxFAMILY"};
  const auto& cluster = *r.cluster;
  const auto& model = r.loaded.model;
  const auto& request = r.request;
  try {
    // Plans are evaluated on the solvers' fast path (through the API, checked
    // against the request's budget between plans) and resolved as `fit` would:
    // without layout flags, the practical layout with the best verdict.
    const PlanContext context(model);
    PlanEvaluator verdicts = verdict_plan_evaluator(context);
    if (r.budget != nullptr)
      verdicts = [inner = std::move(verdicts), budget = r.budget](const Accelerator& g, const PlanRequest& pr) {
        budget->check();
        return inner(g, pr);
      };
    PlanEvaluator evaluate = practical_evaluator(verdicts, model);
    if (request.latency.ttft_s > 0 ||
        request.latency.tpot_s > 0)  // suggestions must pass the estimate, as the plan does
      evaluate = with_estimate_check(std::move(evaluate), latency_estimate_check(context, request.latency.percentile));
    PlanRequest resolved = request;
    if (!layout_given(request.layout)) {
      // The search practical_evaluator runs, here once with its count of layouts for the reason.
      if (auto search = best_layout(verdicts, cluster.gpu, request, layouts_to_try(model, cluster.gpu, request))) {
        resolved.layout = layout_options_of(search->best.layout);
        resolved.layout_reason = fmt::format(
            "the practical layout `fit` picks at {} GPUs ({} tried: TP a power of two within a node dividing the "
            "heads, PP only across nodes, {}; green first, then the fewest stages, then the most headroom)",
            request.gpu_count, search->evaluated, model.moe.routed_experts > 0 ? "EP over each stage" : "DP replicas");
      }
    }
    auto plan = build_plan(context, cluster.gpu, resolved, PlanDetail::full);
    if (plan && !plan->verdict.fits && r.suggest)
      plan.value().verdict.suggestions = find_fixes(evaluate, cluster.gpu, request, *plan);
    return plan;
  } catch (const InputError& e) {
    if (e.error().origin != "arithmetic") throw;
    return overflow_error(r.workload_flags, e.error());
  }
}

}  // namespace preflight::cli
