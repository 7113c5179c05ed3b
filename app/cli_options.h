// Command-line options of every sub-command, as one plain struct (the strings
// are parsed by the library's unit parsers so errors name the flag). Which
// sub-command takes which option, its flag, help and API key: option_table.h.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "perf/latency.h"
#include "request_budget.h"

namespace preflight::cli {

// A model sent to the web API as text (an uploaded config.json, optionally its
// index and a saved hub listing): read from the request, never from disk.
struct UploadedModel {
  std::string name;  // shown in reports; default "uploaded config.json"
  std::string config;
  std::string index;    // model.safetensors.index.json text, or empty
  std::string listing;  // saved hub listing text, or empty
};

struct Options {
  std::string model;             // catalogue name or path; empty = kimi-k3
  std::string gpus;              // "8xH100"
  std::string format = "table";  // table | json | md
  bool suggest = true;           // a red plan carries the changes that plan green (off for launch's own plans)
  bool brief = false;            // plan --brief: the verdict and the figures behind it, at most 12 lines
  std::string only;              // explain --only: weights | state | kv | engine | perf | disk ("" = all)
  std::string catalogue;         // extra GPU catalogue file
  // Workload (any of these turns on the second pass).
  std::string context;  // "1M", "128K", "131072"
  std::string concurrency;
  std::string mix;       // "2K:70%,32K:25%,1M:5%" (shares of the running requests)
  std::string mix_file;  // CSV of request lengths, or input,output pairs, from a trace
  std::string kv_dtype;
  std::string state_dtype;
  std::string state_slots;
  std::string reserve;  // "10%" or "8GiB"
  std::string chunk;
  std::string kv_offload;  // host memory per node for evicted KV: 512GiB (a bare number is GiB)
  // Latency targets (plan and fit): checked against the roofline bounds.
  std::string ttft;                // "2s", "500ms"
  std::string tpot;                // "50ms"
  std::string rate;                // requests per second; sets the concurrency by Little's law; "inf": a burst
  std::string requests;            // simulated requests for the latency estimate
  std::string seed;                // seed of the simulated arrivals
  std::string latency_efficiency;  // a latency_efficiency.json to use instead of the embedded one
  std::string power_price;         // USD per kWh, for the energy cost
  std::string pue;                 // power usage effectiveness (default 1)
  std::string latency_percentile;  // 50 | 90 | 99: the estimate percentile fit sizes against
  std::string input_tokens;
  std::string output_tokens;
  // Parallelism.
  std::string tp;
  std::string ep;
  std::string pp;
  std::string dp;
  std::string dcp;
  std::string gpus_per_node;
  // Disaggregated prefill and decode (plan): each pool's cluster and layout flags.
  std::string prefill_gpus;
  std::string decode_gpus;
  std::string prefill_tp, prefill_ep, prefill_pp, prefill_dp;
  std::string decode_tp, decode_ep, decode_pp, decode_dp;
  // Set by the disaggregated plan for each pool (never by the command line).
  LatencyPhase latency_phase = LatencyPhase::both;
  // Engine and its knobs.
  std::string engine;  // vllm | sglang | generic
  std::string engine_version;
  std::string gpu_memory_utilization;
  std::string mem_fraction_static;
  std::string max_num_batched_tokens;
  std::string max_num_seqs;
  std::string block_size;
  std::string mamba_full_memory_ratio;
  std::string radix_cache;
  bool enforce_eager = false;
  // Model overrides (what the engine loads differs from the files).
  std::string quantize;  // fp8 | fp8-dynamic | w8a8 | w4a16 | none
  std::string dtype;     // auto | bfloat16 | float16 | float32
  std::string runner;    // auto | generate | pooling (model/pooling_runner.h)
  // Throughput, cost, cold start and speculative decoding.
  std::string prompt_tokens;  // TTFT prompt (default min(context, 8192))
  std::string price;          // USD per GPU-hour
  std::string utilisation;    // 0.5 or 50%
  std::string api_price;      // USD per million output tokens
  std::string staging_copies;
  std::string download_gbps;
  std::string read_gb_s;
  std::string scale_out_gb_s;
  std::string spec_tokens;
  std::string spec_acceptance;
  std::string draft;  // a draft model (catalogue name or path)
  // Solvers.
  std::vector<std::string> gpu_families;  // fit / sweep: --gpu H100 --gpu B300
  std::string counts;                     // sweep: "1..64" or "8,16,32"
  std::string max_gpus;                   // fit: search limit
  std::string solve;                      // max: context | concurrency
  bool tensors = false;                   // inspect: list every stored tensor
  // Hub models (MODEL = org/name@revision or hf://...).
  bool no_cache = false;
  bool refresh = false;
  std::string shard_headers;  // auto | all | lengths (default auto)
  // serve.
  std::string host;             // default 127.0.0.1
  std::string port;             // default 8080; 0: any free port (printed)
  std::string max_body;         // request body limit (default 4MiB)
  std::string threads;          // worker threads (the CPU work done at once)
  std::string request_timeout;  // seconds a request may take, queueing included (default 30)
  std::string max_cells;        // solver grid cells one request may ask for (default 4096)
  std::string max_response;     // largest answer, e.g. 64MiB (default)
  // Web API only (never set by the command line).
  std::optional<UploadedModel> upload;    // the model, from the request body
  bool no_files = false;                  // MODEL and --draft must be catalogue names; no --catalogue file
  bool allow_hub = false;                 // with no_files: MODEL and --draft may also be hub ids (serve --hub)
  const RequestBudget* budget = nullptr;  // the request's deadline and client state (checked between plans)
  std::uint64_t cell_bound = 0;           // solver grid cells (GPU families x counts) allowed; 0: no bound (the CLI)
};

}  // namespace preflight::cli
