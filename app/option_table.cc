#include "option_table.h"

#include <algorithm>
#include <tuple>

namespace preflight::cli {

namespace {

constexpr std::string_view kWorkload = "Workload (turns on the second pass)";
constexpr std::string_view kLatency =
    "Latency targets (against the roofline bounds: a miss is certain, a meet a hypothesis)";
constexpr std::string_view kParallel = "Parallelism (default: a layout the engine supports, chosen and reported)";
constexpr std::string_view kPools =
    "Disaggregated prefill and decode (instead of --gpus: a ledger per pool and the KV transfer)";
constexpr std::string_view kEngine = "Engine (--engine picks vLLM or SGLang memory rules)";
constexpr std::string_view kOverride = "Model overrides (what the engine loads)";
constexpr std::string_view kPerf = "Throughput, cost and cold start (bounds and estimates)";

// Which commands take which kind of option.
constexpr std::uint32_t kPlanning = kPlan | kExplain | kMax | kLaunch;      // one cluster, a plan
constexpr std::uint32_t kWithModel = kPlanning | kFit | kSweep | kInspect;  // MODEL and the hub flags
constexpr std::uint32_t kWithWorkload = kPlanning | kFit | kSweep;
constexpr std::uint32_t kWithLayout = kPlanning | kFit;
constexpr std::uint32_t kPools_ = kPlan | kLaunch;

using S = std::string Options::*;
using B = bool Options::*;

OptionSpec entry(std::string_view flag, std::string_view help, std::string_view group, OptionMember member,
                 std::uint32_t commands) {
  OptionSpec e;
  e.flag = flag;
  e.help = help;
  e.group = group;
  e.member = member;
  e.commands = commands;
  return e;
}

// The two shorthands every entry uses: a text option and a boolean flag.
OptionSpec& text(std::vector<OptionSpec>& t, std::string_view flag, S member, std::uint32_t commands,
                 std::string_view group, std::string_view help) {
  t.push_back(entry(flag, help, group, member, commands));
  return t.back();
}

OptionSpec& flag(std::vector<OptionSpec>& t, std::string_view name, B member, std::uint32_t commands,
                 std::string_view help) {
  t.push_back(entry(name, help, "", member, commands));
  return t.back();
}

// The model argument, the hub cache, the cluster and what each solver searches.
void add_model_and_cluster_options(std::vector<OptionSpec>& t) {
  text(t, "MODEL", &Options::model, kWithModel, "",
       "catalogue name (default kimi-k3), a path to config.json or its folder, or a Hugging Face hub id "
       "org/name[@revision] or hf://org/name (metadata only; HF_TOKEN, HF_ENDPOINT, HF_HUB_OFFLINE honoured)")
      .api = ApiUse::value;
  flag(t, "--no-cache", &Options::no_cache, kWithModel, "hub models: neither read nor write the metadata cache").api =
      ApiUse::none;
  // The API takes it too (serve --hub): a page can renew a hub model's cached metadata.
  flag(t, "--refresh", &Options::refresh, kWithModel, "hub models: fetch the metadata again and overwrite the cache")
      .api = ApiUse::value;
  text(t, "--shard-headers", &Options::shard_headers, kWithModel, "",
       "hub models: all (every shard header, exact per tensor), lengths (the index and each header's 8-byte length, "
       "exact bytes per shard; headers only of shards that differ), or auto (all when the headers are estimated at "
       "<= 2 MB, else lengths)")
      .default_text = "auto";
  auto& gpus = text(t, "--gpus", &Options::gpus, kWithWorkload, "", "COUNTxFAMILY, e.g. 8xH100, 16xH200, 8xB300");
  gpus.required_for = kExplain | kMax;
  auto& catalogue = text(t, "--catalogue", &Options::catalogue, kWithWorkload | kCatalogue, "",
                         "extra GPU catalogue JSON: adds or overrides accelerators");
  catalogue.api = ApiUse::refused;
  catalogue.api_refusal = "the web API reads no files; the embedded GPU catalogue applies";
  t.push_back(entry("--gpu", "GPU family to search (repeatable; default: every catalogue family)", "",
                    &Options::gpu_families, kFit | kSweep));
  text(t, "--max-gpus", &Options::max_gpus, kFit, "", "largest count searched (default 256)");
  text(t, "--counts", &Options::counts, kSweep, "",
       "GPU counts: A..B (powers of two up to one node, then whole nodes) or a list 8,16,32 (default 1..256)");
  auto& solve =
      text(t, "--solve", &Options::solve, kMax, "",
           "what to maximise: context, concurrency or rate (--context / --concurrency / --rate of the same name "
           "set the ceiling); rate: the highest requests/s whose estimate meets --ttft / --tpot");
  solve.choices = {"context", "concurrency", "rate"};
  solve.required_for = kMax;
  auto& only = text(t, "--only", &Options::only, kExplain, "",
                    "one section: weights, state (recurrent state, activations, reserve), kv, engine, perf or disk "
                    "(with cold start)");
  only.choices = {"weights", "state", "kv", "engine", "perf", "disk"};
  only.api = ApiUse::none;
  flag(t, "--tensors", &Options::tensors, kInspect,
       "list every stored tensor: name, dtype, shape, bytes (the generated manifest)")
      .api = ApiUse::value;
}

// The workload: context, concurrency, mixes, cache and state dtypes, offload; latency targets and what the estimate
// reads.
void add_workload_options(std::vector<OptionSpec>& t) {
  text(t, "--context", &Options::context, kWithWorkload, kWorkload,
       "tokens per request: 131072, 128K, 1M (default: the model's window)");
  text(t, "--concurrency", &Options::concurrency, kWithWorkload, kWorkload,
       "running requests (default 1; with a mix, the total)");
  text(t, "--mix", &Options::mix, kWithWorkload, kWorkload,
       "a request mix instead of --context: LENGTH:SHARE% of the running requests, e.g. 2K:70%,32K:25%,1M:5%");
  text(t, "--mix-file", &Options::mix_file, kWithWorkload, kWorkload,
       "a request mix from a trace: a CSV of lengths (running requests), or input,output pairs (arrivals, weighted by "
       "output tokens); the latency estimate takes each request's lengths from the pairs, and with a third column, "
       "arrival (seconds), replays the arrivals unless --rate is given")
      .api = ApiUse::none;
  text(t, "--kv-dtype", &Options::kv_dtype, kWithWorkload, kWorkload, "KV / MLA cache dtype: bf16 (default) or fp8");
  text(t, "--state-dtype", &Options::state_dtype, kWithWorkload, kWorkload,
       "recurrent state dtype: fp32 (default, engines' default) or bf16");
  text(t, "--state-slots", &Options::state_slots, kWithWorkload, kWorkload,
       "recurrent state slots per running request (default 5, SGLang's buffering)");
  text(t, "--reserve", &Options::reserve, kWithWorkload, kWorkload,
       "runtime reserve per GPU: 10% (default) or bytes such as 8GiB (generic engine)");
  text(t, "--chunk", &Options::chunk, kWithWorkload, kWorkload,
       "prefill chunk tokens for the activation estimate (default 16384)");
  text(t, "--kv-offload", &Options::kv_offload, kWithWorkload, kWorkload,
       "host memory per node for KV evicted from the GPUs (vLLM offloading connector, LMCache, SGLang HiCache), e.g. "
       "512GiB: the tokens each tier holds; never changes the verdict");
  text(t, "--ttft", &Options::ttft, kWithWorkload, kLatency, "time-to-first-token target, e.g. 2s or 500ms");
  text(t, "--tpot", &Options::tpot, kWithWorkload, kLatency, "time-per-output-token target, e.g. 50ms");
  text(t, "--rate", &Options::rate, kWithWorkload, kLatency,
       "requests per second: the running requests follow by Little's law (needs --tpot; instead of --concurrency), and "
       "prefill and decode share the GPUs; `inf`: --requests sent at once");
  text(t, "--requests", &Options::requests, kWithWorkload, kLatency,
       "requests the latency estimate simulates over the cluster (default 1000 per DP group; with --rate inf, sent at "
       "once)");
  text(t, "--seed", &Options::seed, kWithWorkload, kLatency, "seed of the simulated Poisson arrivals (default 1)");
  text(t, "--power-price", &Options::power_price, kWithWorkload, kLatency,
       "electricity in USD per kWh: the estimate's energy cost per million output tokens");
  text(t, "--pue", &Options::pue, kWithWorkload, kLatency, "power usage effectiveness of the facility (default 1.0)");
  text(t, "--latency-percentile", &Options::latency_percentile, kWithWorkload, kLatency,
       "the estimate percentile a plan (and fit's, max's, sweep's answers) must meet --ttft / --tpot at, beside the "
       "bounds: 50, 90 (default) or 99");
  text(t, "--latency-efficiency", &Options::latency_efficiency, kWithWorkload, kLatency,
       "a JSON of step efficiencies in data/latency_efficiency.json's form, to calibrate the estimate on your own "
       "measurements (tools/fit_latency.py writes one)");
  text(t, "--input-tokens", &Options::input_tokens, kWithWorkload, kLatency,
       "prompt tokens per request (default: the length less the output)");
  text(t, "--output-tokens", &Options::output_tokens, kWithWorkload, kLatency,
       "output tokens per request (default min(1024, half the length))");
}

// The parallel layout, whole and per pool of a prefill/decode split.
void add_layout_options(std::vector<OptionSpec>& t) {
  text(t, "--tp", &Options::tp, kWithLayout, kParallel, "attention tensor parallel size");
  text(t, "--ep", &Options::ep, kWithLayout, kParallel,
       "expert parallel size (default: every GPU of a pipeline stage for MoE models)");
  text(t, "--pp", &Options::pp, kWithLayout, kParallel, "pipeline parallel stages (default 1)");
  text(t, "--dp", &Options::dp, kWithLayout, kParallel, "data-parallel attention groups (default: GPUs / (TP x PP))");
  text(t, "--dcp", &Options::dcp, kWithLayout, kParallel, "decode context parallel size dividing TP (default 1)");
  text(t, "--gpus-per-node", &Options::gpus_per_node, kWithLayout, kParallel,
       "GPUs per node / NVLink domain (default: the catalogue's)");

  text(t, "--prefill-gpus", &Options::prefill_gpus, kPools_, kPools, "the prefill pool, COUNTxFAMILY, e.g. 8xB300");
  text(t, "--decode-gpus", &Options::decode_gpus, kPools_, kPools, "the decode pool, COUNTxFAMILY, e.g. 16xH200");
  text(t, "--prefill-tp", &Options::prefill_tp, kPools_, kPools, "prefill pool's TP");
  text(t, "--prefill-ep", &Options::prefill_ep, kPools_, kPools, "prefill pool's EP");
  text(t, "--prefill-pp", &Options::prefill_pp, kPools_, kPools, "prefill pool's PP");
  text(t, "--prefill-dp", &Options::prefill_dp, kPools_, kPools, "prefill pool's DP");
  text(t, "--decode-tp", &Options::decode_tp, kPools_, kPools, "decode pool's TP");
  text(t, "--decode-ep", &Options::decode_ep, kPools_, kPools, "decode pool's EP");
  text(t, "--decode-pp", &Options::decode_pp, kPools_, kPools, "decode pool's PP");
  text(t, "--decode-dp", &Options::decode_dp, kPools_, kPools, "decode pool's DP");
}

// The engine, its release and settings, and how the model is cast or served.
void add_engine_options(std::vector<OptionSpec>& t) {
  text(t, "--engine", &Options::engine, kWithWorkload, kEngine, "memory rules: generic (default), vllm, sglang");
  text(t, "--engine-version", &Options::engine_version, kWithWorkload, kEngine,
       "engine release whose rules apply (default: the newest modelled, as `engines` lists it; the plan warns when the "
       "model's recipe needs a newer one)");
  text(t, "--gpu-memory-utilization", &Options::gpu_memory_utilization, kWithWorkload, kEngine,
       "vLLM: share of device memory (default 0.9)");
  text(t, "--mem-fraction-static", &Options::mem_fraction_static, kWithWorkload, kEngine,
       "SGLang: static share (default: SGLang's formula)");
  text(t, "--max-num-batched-tokens", &Options::max_num_batched_tokens, kWithWorkload, kEngine,
       "tokens per scheduler step (vLLM) / chunked prefill size (SGLang)");
  text(t, "--max-num-seqs", &Options::max_num_seqs, kWithWorkload, kEngine,
       "vLLM --max-num-seqs / SGLang --max-running-requests");
  text(t, "--block-size", &Options::block_size, kWithWorkload, kEngine,
       "vLLM KV block size / SGLang page size, tokens");
  text(t, "--mamba-full-memory-ratio", &Options::mamba_full_memory_ratio, kWithWorkload, kEngine,
       "SGLang: state pool to KV pool ratio (default 0.9)");
  text(t, "--radix-cache", &Options::radix_cache, kWithWorkload, kEngine,
       "SGLang radix cache: on (default), off, lazy");
  t.push_back(entry("--enforce-eager", "no CUDA graphs (vLLM --enforce-eager)", kEngine, &Options::enforce_eager,
                    kWithWorkload));
  text(t, "--quantize", &Options::quantize, kWithWorkload | kInspect, kOverride,
       "a quantized variant: fp8 (online), fp8-dynamic, w8a8, w4a16 (compressed-tensors, lm_head kept)");
  text(t, "--dtype", &Options::dtype, kWithWorkload | kInspect, kOverride,
       "weight dtype the engine loads unquantized tensors in: auto, bfloat16, float16, float32");
  text(t, "--runner", &Options::runner, kWithWorkload | kInspect, kOverride,
       "auto (default: pooling when the repo has a Sentence Transformers modules.json), generate, or pooling (an "
       "embedding service: no LM head, no sampler)");
}

// Throughput, cost, cold start and speculative decoding.
void add_throughput_options(std::vector<OptionSpec>& t) {
  text(t, "--prompt-tokens", &Options::prompt_tokens, kWithWorkload, kPerf,
       "prompt for the time-to-first-token bound (default min(context, 8192))");
  text(t, "--price", &Options::price, kWithWorkload, kPerf,
       "USD per GPU-hour (default: the catalogue's dated list price, where it has one)");
  text(t, "--utilisation", &Options::utilisation, kWithWorkload, kPerf,
       "share of the throughput bound sustained on average: 0.5 (default) or 50%");
  text(t, "--api-price", &Options::api_price, kWithWorkload, kPerf,
       "an API's USD per million output tokens, for the break-even");
  text(t, "--staging-copies", &Options::staging_copies, kWithWorkload, kPerf,
       "full copies of the artifact kept on disk (default 1)");
  text(t, "--download-gbps", &Options::download_gbps, kWithWorkload, kPerf,
       "your download line rate in Gb/s (10 and 100 are always shown)");
  text(t, "--read-gb-s", &Options::read_gb_s, kWithWorkload, kPerf,
       "storage read rate per node in GB/s for loading (default 2)");
  text(t, "--scale-out-gb-s", &Options::scale_out_gb_s, kWithWorkload, kPerf,
       "network between nodes per GPU, GB/s each way (default 50: one 400 Gb/s NIC per GPU)");
  text(t, "--spec-tokens", &Options::spec_tokens, kWithWorkload, kPerf,
       "speculative decoding: draft tokens per step (adds state slots and lookahead KV; default 0)");
  text(t, "--spec-acceptance", &Options::spec_acceptance, kWithWorkload, kPerf,
       "per-token acceptance rate assumed for the draft (default 0.7)");
  text(t, "--draft", &Options::draft, kWithWorkload, kPerf,
       "draft model for --spec-tokens (catalogue name or config path): weights and cache join the ledger");
}

// The output format, and the server's own options.
void add_output_and_serve_options(std::vector<OptionSpec>& t) {
  auto& format = text(t, "--format", &Options::format, kWithModel | kCatalogue, "",
                      "output: table (default), json, md; fit and sweep also csv (one row per family or cell)");
  format.choices = {"table", "json", "md"};
  format.extra_choice = "csv";
  format.extra_choice_commands = kFit | kSweep;
  format.api = ApiUse::ignored;  // the API always answers JSON
  flag(t, "--brief", &Options::brief, kPlan,
       "the verdict, first boundary, headroom and the figures behind them in at most 12 lines")
      .api = ApiUse::none;

  for (auto [name, member, help] :
       {std::tuple<std::string_view, S, std::string_view>{"--host", &Options::host,
                                                          "address to bind (default 127.0.0.1: loopback only)"},
        {"--port", &Options::port, "port (default 8080; 0 picks a free one and prints it)"},
        {"--max-body", &Options::max_body, "request body limit, 1KiB to 256MiB (default 4MiB)"},
        {"--threads", &Options::threads,
         "worker threads, 1 to 256: the requests computed at once (default: one per core, at least 2); waiting "
         "connections hold no thread"},
        {"--request-timeout", &Options::request_timeout,
         "seconds a request may take from its arrival, queueing included, 1 to 3600 (default 30): then 503; a grid "
         "stops within one plan, and as soon as its client disconnects"},
        {"--max-cells", &Options::max_cells,
         "largest solver grid one request may ask for, GPU families x counts (default 4096; the CLI has no bound)"},
        {"--max-response", &Options::max_response, "largest answer, e.g. 64MiB (default)"}})
    text(t, name, member, kServe, "", help).api = ApiUse::none;
  flag(
      t, "--hub", &Options::allow_hub, kServe,
      "let requests name Hugging Face hub models (org/name@rev, hf://): their metadata is fetched from HF_ENDPOINT and "
      "cached by commit; off by default, so no request causes network traffic")
      .api = ApiUse::none;
}

std::vector<OptionSpec> make_table() {
  std::vector<OptionSpec> t;
  add_model_and_cluster_options(t);
  add_workload_options(t);
  add_layout_options(t);
  add_engine_options(t);
  add_throughput_options(t);
  add_output_and_serve_options(t);
  return t;
}

}  // namespace

const std::vector<OptionSpec>& option_table() {
  static const std::vector<OptionSpec> table = make_table();
  return table;
}

std::string api_key(const OptionSpec& spec) {
  if (spec.flag == "MODEL") return "model";
  std::string key(spec.flag.substr(spec.flag.starts_with("--") ? 2 : 0));
  std::replace(key.begin(), key.end(), '-', '_');
  return key;
}

const OptionSpec* option_for_key(std::string_view key) {
  for (const auto& spec : option_table())
    if (spec.api != ApiUse::none && api_key(spec) == key) return &spec;
  return nullptr;
}

namespace {
template <typename Member>
const char* flag_of_member(Member member) {
  for (const auto& spec : option_table())
    if (const auto* m = std::get_if<Member>(&spec.member); m && *m == member)
      return spec.flag.data();  // a literal: NUL-terminated
  return "option";
}
}  // namespace

const char* flag_of(std::string Options::*member) { return flag_of_member(member); }
const char* flag_of(bool Options::*member) { return flag_of_member(member); }
const char* flag_of(std::vector<std::string> Options::*member) { return flag_of_member(member); }

std::optional<std::vector<std::string_view>> flags_on_line(int argc, const char* const* argv) {
  std::vector<std::string_view> names;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a(argv[i]);
    if (a == "--") break;  // the rest is positional
    if (a == "-h" || a == "--help" || a == "--help-all" || a == "--version") return std::nullopt;
    if (a.starts_with("--")) names.push_back(a.substr(0, a.find('=')));
  }
  return names;
}

void add_table_options(CLI::App& app, Options& o, Command command, const std::vector<std::string_view>* only) {
  for (const auto& spec : option_table()) {
    if ((spec.commands & command) == 0) continue;
    // `only`: the flags on the line; the positional and the required ones always.
    if (only != nullptr && spec.flag != "MODEL" && (spec.required_for & command) == 0 &&
        std::find(only->begin(), only->end(), spec.flag) == only->end())
      continue;
    const std::string name(spec.flag);
    const std::string help(spec.help);
    CLI::Option* option = nullptr;
    if (const auto* s = std::get_if<std::string Options::*>(&spec.member))
      option = app.add_option(name, o.**s, help);
    else if (const auto* b = std::get_if<bool Options::*>(&spec.member))
      option = app.add_flag(name, o.**b, help);
    else
      option = app.add_option(name, o.*std::get<std::vector<std::string> Options::*>(spec.member), help);
    if (!spec.group.empty()) option->group(std::string(spec.group));
    if (!spec.default_text.empty()) option->default_str(std::string(spec.default_text));
    if (!spec.choices.empty()) {
      std::vector<std::string> choices(spec.choices.begin(), spec.choices.end());
      if ((spec.extra_choice_commands & command) != 0) choices.emplace_back(spec.extra_choice);
      option->check(CLI::IsMember(choices));
    }
    if ((spec.required_for & command) != 0) option->required();
  }
}

}  // namespace preflight::cli
