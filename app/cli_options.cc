#include "cli_options.h"

#include <tuple>

namespace preflight::cli {

namespace {
void add_format(CLI::App& app, Options& o, bool with_md = true) {
  app.add_option("--format", o.format, with_md ? "output: table (default), json, md" : "output: table, json")
      ->check(CLI::IsMember(with_md ? std::vector<std::string>{"table", "json", "md"}
                                    : std::vector<std::string>{"table", "json"}));
}
}  // namespace

namespace {
constexpr const char* kWorkload = "Workload (turns on the second pass)";
constexpr const char* kParallel = "Parallelism (default: a layout the engine supports, chosen and reported)";
constexpr const char* kEngine = "Engine (--engine picks vLLM or SGLang memory rules)";
constexpr const char* kOverride = "Model overrides (what the engine loads)";
constexpr const char* kPerf = "Throughput, cost and cold start (bounds and estimates)";
constexpr const char* kLatency = "Latency targets (against the roofline bounds: a miss is certain, a meet a hypothesis)";

void add_hub_flags(CLI::App& app, Options& o) {
  app.add_flag("--no-cache", o.no_cache, "hub models: neither read nor write the metadata cache");
  app.add_flag("--refresh", o.refresh, "hub models: fetch the metadata again and overwrite the cache");
  app.add_option("--shard-headers", o.shard_headers,
                 "hub models: all (every shard header, exact per tensor), lengths (the index and each header's "
                 "8-byte length, exact bytes per shard; headers only of shards that differ), or auto (all when the "
                 "headers are estimated at <= 2 MB, else lengths)")
      ->default_str("auto");
}

constexpr const char* kModelHelp =
    "catalogue name (default kimi-k3), a path to config.json or its folder, or a Hugging Face hub id "
    "org/name[@revision] or hf://org/name (metadata only; HF_TOKEN, HF_ENDPOINT, HF_HUB_OFFLINE honoured)";

void add_model_and_cluster(CLI::App& app, Options& o, bool gpus_required) {
  app.add_option("MODEL", o.model, kModelHelp);
  add_hub_flags(app, o);
  auto* g = app.add_option("--gpus", o.gpus, "COUNTxFAMILY, e.g. 8xH100, 16xH200, 8xB300");
  if (gpus_required) g->required();
  app.add_option("--catalogue", o.catalogue, "extra GPU catalogue JSON: adds or overrides accelerators");
}

void add_workload(CLI::App& app, Options& o) {
  app.add_option("--context", o.context, "tokens per request: 131072, 128K, 1M (default: the model's window)")
      ->group(kWorkload);
  app.add_option("--concurrency", o.concurrency, "running requests (default 1; with a mix, the total)")->group(kWorkload);
  app.add_option("--mix", o.mix,
                 "a request mix instead of --context: LENGTH:SHARE% of the running requests, e.g. 2K:70%,32K:25%,1M:5%")
      ->group(kWorkload);
  app.add_option("--mix-file", o.mix_file,
                 "a request mix from a trace: a CSV of lengths (running requests), or input,output pairs (arrivals, "
                 "weighted by output tokens)")
      ->group(kWorkload);
  app.add_option("--kv-dtype", o.kv_dtype, "KV / MLA cache dtype: bf16 (default) or fp8")->group(kWorkload);
  app.add_option("--state-dtype", o.state_dtype, "recurrent state dtype: fp32 (default, engines' default) or bf16")
      ->group(kWorkload);
  app.add_option("--state-slots", o.state_slots, "recurrent state slots per running request (default 5, SGLang's buffering)")
      ->group(kWorkload);
  app.add_option("--reserve", o.reserve, "runtime reserve per GPU: 10% (default) or bytes such as 8GiB (generic engine)")
      ->group(kWorkload);
  app.add_option("--chunk", o.chunk, "prefill chunk tokens for the activation estimate (default 16384)")->group(kWorkload);
  app.add_option("--kv-offload", o.kv_offload,
                 "host memory per node for KV evicted from the GPUs (vLLM offloading connector, LMCache, SGLang "
                 "HiCache), e.g. 512GiB: the tokens each tier holds; never changes the verdict")
      ->group(kWorkload);
  app.add_option("--ttft", o.ttft, "time-to-first-token target, e.g. 2s or 500ms")->group(kLatency);
  app.add_option("--tpot", o.tpot, "time-per-output-token target, e.g. 50ms")->group(kLatency);
  app.add_option("--rate", o.rate,
                 "requests per second: the running requests follow by Little's law (needs --tpot; instead of "
                 "--concurrency), and prefill and decode share the GPUs")
      ->group(kLatency);
  app.add_option("--input-tokens", o.input_tokens, "prompt tokens per request (default: the length less the output)")
      ->group(kLatency);
  app.add_option("--output-tokens", o.output_tokens, "output tokens per request (default min(1024, half the length))")
      ->group(kLatency);
}

void add_perf(CLI::App& app, Options& o) {
  app.add_option("--prompt-tokens", o.prompt_tokens, "prompt for the time-to-first-token bound (default min(context, 8192))")
      ->group(kPerf);
  app.add_option("--price", o.price, "USD per GPU-hour (default: the catalogue's dated list price, where it has one)")
      ->group(kPerf);
  app.add_option("--utilisation", o.utilisation, "share of the throughput bound sustained on average: 0.5 (default) or 50%")
      ->group(kPerf);
  app.add_option("--api-price", o.api_price, "an API's USD per million output tokens, for the break-even")->group(kPerf);
  app.add_option("--staging-copies", o.staging_copies, "full copies of the artifact kept on disk (default 1)")->group(kPerf);
  app.add_option("--download-gbps", o.download_gbps, "your download line rate in Gb/s (10 and 100 are always shown)")
      ->group(kPerf);
  app.add_option("--read-gb-s", o.read_gb_s, "storage read rate per node in GB/s for loading (default 2)")->group(kPerf);
  app.add_option("--scale-out-gb-s", o.scale_out_gb_s,
                 "network between nodes per GPU, GB/s each way (default 50: one 400 Gb/s NIC per GPU)")
      ->group(kPerf);
  app.add_option("--spec-tokens", o.spec_tokens,
                 "speculative decoding: draft tokens per step (adds state slots and lookahead KV; default 0)")
      ->group(kPerf);
  app.add_option("--spec-acceptance", o.spec_acceptance, "per-token acceptance rate assumed for the draft (default 0.7)")
      ->group(kPerf);
  app.add_option("--draft", o.draft, "draft model for --spec-tokens (catalogue name or config path): weights and cache join the ledger")
      ->group(kPerf);
}

void add_parallelism(CLI::App& app, Options& o) {
  app.add_option("--tp", o.tp, "attention tensor parallel size")->group(kParallel);
  app.add_option("--ep", o.ep, "expert parallel size (default: every GPU of a pipeline stage for MoE models)")
      ->group(kParallel);
  app.add_option("--pp", o.pp, "pipeline parallel stages (default 1)")->group(kParallel);
  app.add_option("--dp", o.dp, "data-parallel attention groups (default: GPUs / (TP x PP))")->group(kParallel);
  app.add_option("--dcp", o.dcp, "decode context parallel size dividing TP (default 1)")->group(kParallel);
  app.add_option("--gpus-per-node", o.gpus_per_node, "GPUs per node / NVLink domain (default: the catalogue's)")
      ->group(kParallel);
}

void add_engine(CLI::App& app, Options& o) {
  app.add_option("--engine", o.engine, "memory rules: generic (default), vllm, sglang")->group(kEngine);
  app.add_option("--engine-version", o.engine_version, "engine release whose rules apply (default: the newest modelled, as `engines` lists it; the plan warns when the model's recipe needs a newer one)")
      ->group(kEngine);
  app.add_option("--gpu-memory-utilization", o.gpu_memory_utilization, "vLLM: share of device memory (default 0.9)")
      ->group(kEngine);
  app.add_option("--mem-fraction-static", o.mem_fraction_static, "SGLang: static share (default: SGLang's formula)")
      ->group(kEngine);
  app.add_option("--max-num-batched-tokens", o.max_num_batched_tokens,
                 "tokens per scheduler step (vLLM) / chunked prefill size (SGLang)")
      ->group(kEngine);
  app.add_option("--max-num-seqs", o.max_num_seqs, "vLLM --max-num-seqs / SGLang --max-running-requests")->group(kEngine);
  app.add_option("--block-size", o.block_size, "vLLM KV block size / SGLang page size, tokens")->group(kEngine);
  app.add_option("--mamba-full-memory-ratio", o.mamba_full_memory_ratio, "SGLang: state pool to KV pool ratio (default 0.9)")
      ->group(kEngine);
  app.add_option("--radix-cache", o.radix_cache, "SGLang radix cache: on (default), off, lazy")->group(kEngine);
  app.add_flag("--enforce-eager", o.enforce_eager, "no CUDA graphs (vLLM --enforce-eager)")->group(kEngine);
  app.add_option("--quantize", o.quantize,
                 "plan a quantized variant: fp8 (online), fp8-dynamic, w8a8, w4a16 (compressed-tensors, lm_head kept)")
      ->group(kOverride);
  app.add_option("--dtype", o.dtype, "weight dtype the engine loads unquantized tensors in: auto, bfloat16, float16, float32")
      ->group(kOverride);
}
}  // namespace

void add_plan_options(CLI::App& app, Options& o) {
  add_model_and_cluster(app, o, true);
  add_workload(app, o);
  add_parallelism(app, o);
  add_engine(app, o);
  add_perf(app, o);
  add_format(app, o);
}

void add_explain_options(CLI::App& app, Options& o) {
  add_plan_options(app, o);
  app.add_option("--only", o.only,
                 "one section: weights, state (recurrent state, activations, reserve), kv, engine, perf or disk "
                 "(with cold start)")
      ->check(CLI::IsMember(std::vector<std::string>{"weights", "state", "kv", "engine", "perf", "disk"}));
}

void add_fit_options(CLI::App& app, Options& o) {
  add_model_and_cluster(app, o, false);
  app.add_option("--gpu", o.gpu_families, "GPU family to search (repeatable; default: every catalogue family)");
  app.add_option("--max-gpus", o.max_gpus, "largest count searched (default 256)");
  add_workload(app, o);
  add_parallelism(app, o);
  add_engine(app, o);
  add_perf(app, o);
  app.add_option("--format", o.format,
                 "output: table (default), json, md, csv (gpu,gpus_per_node,fits,min_gpus,nodes,tp,dp,ep,pp,dcp,"
                 "headroom_bytes,headroom_gb,binding,binding_at_gpus,note)")
      ->check(CLI::IsMember(std::vector<std::string>{"table", "json", "md", "csv"}));
}

void add_max_options(CLI::App& app, Options& o) {
  add_plan_options(app, o);
  app.add_option("--solve", o.solve,
                 "what to maximise: context or concurrency (--context / --concurrency of the same name set the ceiling)")
      ->required()
      ->check(CLI::IsMember(std::vector<std::string>{"context", "concurrency"}));
}

void add_sweep_options(CLI::App& app, Options& o) {
  add_model_and_cluster(app, o, false);
  app.add_option("--gpu", o.gpu_families, "GPU family (repeatable; default: every catalogue family)");
  app.add_option("--counts", o.counts,
                 "GPU counts: A..B (powers of two up to one node, then whole nodes) or a list 8,16,32 (default 1..256)");
  add_workload(app, o);
  add_engine(app, o);
  add_perf(app, o);
  app.add_option("--format", o.format,
                 "output: table (default), json, md, csv (gpu,gpus_per_node,gpus,nodes,verdict,headroom_bytes,"
                 "headroom_gb,binding,tp,dp,ep,pp,dcp,note)")
      ->check(CLI::IsMember(std::vector<std::string>{"table", "json", "md", "csv"}));
}

namespace {

// plan and launch: --gpus, or --prefill-gpus and --decode-gpus (the command checks which).
void add_plan_or_pools(CLI::App& app, Options& o) {
  add_model_and_cluster(app, o, false);
  add_workload(app, o);
  add_parallelism(app, o);
  add_engine(app, o);
  add_perf(app, o);
  add_format(app, o);
  constexpr const char* kDisaggregated =
      "Disaggregated prefill and decode (instead of --gpus: a ledger per pool and the KV transfer)";
  app.add_option("--prefill-gpus", o.prefill_gpus, "the prefill pool, COUNTxFAMILY, e.g. 8xB300")->group(kDisaggregated);
  app.add_option("--decode-gpus", o.decode_gpus, "the decode pool, COUNTxFAMILY, e.g. 16xH200")->group(kDisaggregated);
  for (auto [flag, target, what] : {std::tuple<const char*, std::string*, const char*>{"--prefill-tp", &o.prefill_tp, "prefill pool's TP"},
                                    {"--prefill-ep", &o.prefill_ep, "prefill pool's EP"},
                                    {"--prefill-pp", &o.prefill_pp, "prefill pool's PP"},
                                    {"--prefill-dp", &o.prefill_dp, "prefill pool's DP"},
                                    {"--decode-tp", &o.decode_tp, "decode pool's TP"},
                                    {"--decode-ep", &o.decode_ep, "decode pool's EP"},
                                    {"--decode-pp", &o.decode_pp, "decode pool's PP"},
                                    {"--decode-dp", &o.decode_dp, "decode pool's DP"}})
    app.add_option(flag, *target, what)->group(kDisaggregated);
}

}  // namespace

void add_launch_options(CLI::App& app, Options& o) { add_plan_or_pools(app, o); }

void add_plan_command_options(CLI::App& app, Options& o) {
  add_plan_or_pools(app, o);
  app.add_flag("--brief", o.brief, "the verdict, first boundary, headroom and the figures behind them in at most 12 lines");
}

void add_inspect_options(CLI::App& app, Options& o) {
  app.add_option("MODEL", o.model, kModelHelp);
  add_hub_flags(app, o);
  app.add_option("--quantize", o.quantize,
                 "inspect a quantized variant: fp8 (online), fp8-dynamic, w8a8, w4a16 (compressed-tensors, lm_head kept)")
      ->group(kOverride);
  app.add_option("--dtype", o.dtype, "weight dtype for unquantized tensors: auto, bfloat16, float16, float32")->group(kOverride);
  app.add_flag("--tensors", o.tensors, "list every stored tensor: name, dtype, shape, bytes (the generated manifest)");
  add_format(app, o);
}

void add_catalogue_options(CLI::App& app, Options& o) {
  app.add_option("--catalogue", o.catalogue, "extra GPU catalogue JSON: adds or overrides accelerators");
  add_format(app, o);
}

void add_serve_options(CLI::App& app, Options& o) {
  app.add_option("--host", o.host, "address to bind (default 127.0.0.1: loopback only)");
  app.add_option("--port", o.port, "port (default 8080; 0 picks a free one and prints it)");
  app.add_option("--max-body", o.max_body, "request body limit, 1KiB to 256MiB (default 4MiB)");
  app.add_option("--threads", o.threads,
                 "worker threads, 1 to 256: the requests computed at once (default: one per core, at least 2); "
                 "waiting connections hold no thread");
  app.add_option("--request-timeout", o.request_timeout,
                 "seconds a request may take from its arrival, queueing included, 1 to 3600 (default 30): "
                 "then 503; a grid stops within one plan, and as soon as its client disconnects");
  app.add_option("--max-cells", o.max_cells,
                 "largest solver grid one request may ask for, GPU families x counts (default 4096; the CLI has no bound)");
  app.add_option("--max-response", o.max_response, "largest answer, e.g. 64MiB (default)");
  app.add_flag("--hub", o.allow_hub,
               "let requests name Hugging Face hub models (org/name@rev, hf://): their metadata is fetched from "
               "HF_ENDPOINT and cached by commit; off by default, so no request causes network traffic");
}

}  // namespace preflight::cli
