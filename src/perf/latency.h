// Latency targets: time to first token (TTFT) and time per
// output token (TPOT) against the roofline bounds, at a request rate.
//
// The bounds (roofline.h, prefill.h) are lower bounds on time, so a target
// below them cannot be met: the plan is red with `ttft` or `tpot` as its first
// boundary (a derived calculation from the bounds). Meeting them is a
// deployment hypothesis, never proof: launch and collective latencies,
// kernels below peak and scheduling all make real serving slower.
//
// With a rate R (requests per second), chunked prefill shares every step with
// decode (vLLM V1 and SGLang by default), and the time each phase needs comes
// out of the same GPUs:
//   prefill share = R x prefill time of one prompt (slowest stage) / DP groups
//   decode share  = R x output tokens / cluster tokens per second at the batch
// Their sum at or above 1 means the queue grows without bound: TTFT fails.
// Below 1, the planning estimate spreads each phase over the time the other
// leaves: TTFT = prefill bound / (1 - decode share), TPOT = step bound /
// (1 - prefill share). Without a rate, the bounds are checked as they are
// (one prompt alone; the decode step at the plan's concurrency).
//
// Running requests follow from the rate by Little's law over a request's
// duration at the targets: concurrency = ceil(R x (TTFT + output x TPOT)).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/figure.h"
#include "core/result.h"
#include "perf/latency_efficiency.h"
#include "perf/step_time_model.h"
#include "workload/request_trace.h"

namespace preflight {

// Disaggregated serving (plan/disaggregated.h): each pool checks its own
// phase; the prefill pool's TTFT includes the KV transfer to the decode pool.
enum class LatencyPhase { both, prefill, decode };

struct LatencyTargets {
  double ttft_s = 0;                // --ttft; 0: none
  double tpot_s = 0;                // --tpot; 0: none
  double rate_per_s = 0;            // --rate, requests per second; 0: none
  std::uint64_t input_tokens = 0;   // --input-tokens; 0: the request length less the output
  std::uint64_t output_tokens = 0;  // --output-tokens; 0: min(1,024, half the request length)
  LatencyPhase phase = LatencyPhase::both;
  double kv_transfer_s = 0;    // prefill pool: added to the TTFT (the prompt's KV sent to the decode pool)
  std::uint64_t requests = 0;  // --requests: simulated requests, all DP groups (0: 1,000 per group); burst: at once
  std::uint64_t seed = 1;      // --seed of the simulated arrivals
  unsigned percentile = 90;    // --latency-percentile: the estimate's percentile checked against the targets
  bool burst = false;          // --rate inf: every request at time 0
  double power_price_usd_per_kwh = 0;  // --power-price; 0: no energy cost
  double pue = 1.0;                    // --pue: facility power over IT power
  // --latency-efficiency FILE: the step efficiencies in place of the embedded table (null: embedded).
  std::shared_ptr<const LatencyEfficiencyTable> efficiency;
  // --mix-file with input,output columns: each simulated request's lengths in
  // turn; with replay_arrivals (the file has arrival times and no --rate was
  // given) the estimate replays its arrivals too. Null: every request alike.
  std::shared_ptr<const RequestTrace> trace;
  bool replay_arrivals = false;
  bool any() const {
    return ttft_s > 0 || tpot_s > 0 || rate_per_s > 0 || burst || input_tokens > 0 || output_tokens > 0;
  }
};

// The planning estimate beside the bounds (perf/serving_simulation.h): the
// engine's scheduler simulated with step times from the roofline's terms and
// the GPU's fitted efficiencies (perf/latency_efficiency.h).
struct LatencyEstimate {
  double ttft_mean_s = 0, ttft_p50_s = 0, ttft_p90_s = 0, ttft_p99_s = 0;
  double tpot_mean_s = 0, tpot_p50_s = 0, tpot_p90_s = 0, tpot_p99_s = 0;
  double output_tokens_per_s = 0;  // the whole cluster
  double band = 0;                 // relative error band (held-out residuals)
  std::string arrivals;            // "closed loop of 8 clients per DP group", "Poisson at 2 requests/s", ...
  std::uint64_t requests = 0;      // simulated per DP group
  std::uint64_t preemptions = 0;
  std::uint64_t kv_capacity_tokens = 0;  // per DP group (0: not limiting)
  std::string efficiency;                // which fit, with its figures
  StepTimeModel step_model;              // the roofline's terms the simulation priced its steps with
  // Energy: every GPU at its board power while the simulated steps run
  // (busy_share of the time), times the PUE; idle draw not counted. 0: no
  // board power in the catalogue.
  double busy_share = 0;
  double joules_per_output_token = 0;
  double kwh_per_million_output_tokens = 0;
  double energy_usd_per_million_output_tokens = 0;  // 0 without --power-price
};

// Little's law: requests running when R arrive per second and each runs
// TTFT + output x TPOT (the targets: the longest a request may take). Needs a
// TPOT target; at least 1.
Result<std::uint64_t> concurrency_from_rate(const LatencyTargets& t, std::uint64_t output_tokens);

// The defaults of input and output tokens for requests of `length` tokens.
std::uint64_t default_output_tokens(std::uint64_t length);
std::uint64_t default_input_tokens(std::uint64_t length, std::uint64_t output_tokens);

// The bounds a plan computed (seconds; shares of the cluster's time).
struct LatencyBounds {
  double prefill_s = 0;                // one prompt of input_tokens alone on a DP group, summed over stages
  double prefill_slowest_stage_s = 0;  // what a pipeline of prompts is paced by
  double decode_step_s = 0;            // one decode step at the plan's batch, summed over stages
  double decode_tokens_per_s = 0;      // the cluster at that batch
  std::uint64_t dp_groups = 1;
};

struct LatencyCheck {
  LatencyTargets targets;         // with input and output tokens resolved
  std::uint64_t concurrency = 0;  // the plan's running requests
  bool concurrency_from_rate = false;
  LatencyBounds bounds;
  double prefill_share = 0;  // of the cluster's time, at the rate (0 without one)
  double decode_share = 0;
  double ttft_s = 0;            // bound, stretched by the decode share under a rate
  double tpot_s = 0;            // bound, stretched by the prefill share under a rate
  bool saturated = false;       // prefill + decode shares >= 1
  std::string binding;          // "" (met), "ttft" or "tpot"
  std::string why;              // one sentence when a target is missed
  std::vector<Figure> figures;  // latency.*, every one labelled
  std::vector<std::string> assumptions;
  std::optional<LatencyEstimate> estimate;  // full plans
};

// Pure: the targets against the bounds.
LatencyCheck check_latency(const LatencyTargets& targets, std::uint64_t concurrency, bool from_rate,
                           const LatencyBounds& bounds);

// The estimate's percentile (50, 90 or 99) against the targets: nullopt when
// met or when there is no estimate; else the target missed ("ttft" or "tpot",
// the larger overshoot when both are) and the sentence.
struct EstimateShortfall {
  std::string target;
  std::string why;
};
std::optional<EstimateShortfall> estimate_shortfall(const LatencyCheck& check, unsigned percentile);

}  // namespace preflight
