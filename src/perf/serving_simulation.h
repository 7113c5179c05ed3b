// ServingSimulation: one DP group of an engine serving a stream of requests,
// step by step, as vLLM V1's and SGLang's schedulers do by default:
//
//   - continuous batching: every step decodes one token for each running
//     request that has finished its prompt, then spends what is left of the
//     token budget (max_num_batched_tokens) on prompt chunks, first of the
//     running requests, then of waiting ones admitted in arrival order
//     (chunked prefill);
//   - at most max_num_seqs running requests;
//   - the KV cache holds kv_capacity_tokens: a request is admitted only while
//     its prompt fits beside the others, and when decoding would overflow it
//     the latest-admitted request is preempted (its cache freed, recomputed
//     from the start later, as vLLM's recompute preemption does);
//   - a request's first token comes at the end of the step that finishes its
//     prompt; its TPOT is (last token - first token) / (output - 1).
//
// Step times come from StepTimeModel with the given efficiencies. Arrivals:
// a closed loop of `concurrency` clients (each sends its next request when the
// last one finishes: benchmark tools' --concurrency), a Poisson stream at
// `rate_per_s`, a burst of every request at time 0 (rate infinite), or a
// trace's own arrival times; each request's lengths fixed or from a trace.
// Deterministic for a given seed.
#pragma once

#include <cstdint>
#include <vector>

#include "core/result.h"
#include "perf/step_time_model.h"

namespace preflight {

enum class ArrivalKind { closed_loop, poisson, burst, trace };

// One request's prompt and output tokens.
struct RequestShape {
  std::uint64_t input = 1;
  std::uint64_t output = 1;
};

struct SimulationInputs {
  StepTimeModel model;
  StepEfficiency efficiency;
  std::uint64_t max_num_seqs = 256;
  std::uint64_t max_num_batched_tokens = 8192;
  std::uint64_t kv_capacity_tokens = 0;  // 0: unlimited
  ArrivalKind arrivals = ArrivalKind::closed_loop;
  std::uint64_t concurrency = 1;  // closed loop
  double rate_per_s = 0;          // poisson
  std::uint64_t requests = 1000;
  std::uint64_t input_tokens = 1;
  std::uint64_t output_tokens = 1;
  std::uint64_t seed = 1;
  // Each request's own prompt and output, taken in turn (request i has
  // shapes[i % size]); empty: input_tokens and output_tokens for every one.
  std::vector<RequestShape> shapes;
  // ArrivalKind::trace: each request's arrival in seconds, ascending; the
  // simulation runs min(requests, its size) requests.
  std::vector<double> arrival_times;
  // The engine's front end (perf/latency_efficiency.h): a request enters the
  // scheduler's queue this long after it arrives; TTFT counts from arrival.
  double admission_delay_s = 0;
  // SGLang's scheduler: a step with prompt work to do is a prefill batch
  // alone (up to the chunked-prefill budget), decoding waits for the next
  // step without one (Scheduler.get_next_batch_to_run: a new prefill batch
  // first, else the running batch decodes; mixed chunks off by default).
  // false: vLLM V1's, every running request decodes, prompts take what is left.
  bool prefill_first = false;
};

struct Distribution {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0;
};

struct SimulationResult {
  Distribution ttft_s, tpot_s, e2e_s;
  double output_tokens_per_s = 0;  // this group
  double requests_per_s = 0;       // completions over the run
  double mean_running = 0;         // time-averaged requests in the system (waiting or running)
  double duration_s = 0;
  double busy_s = 0;  // time spent in steps (the rest the GPUs wait for arrivals)
  std::uint64_t completed = 0;
  std::uint64_t steps = 0;
  std::uint64_t preemptions = 0;
};

// Errors for inputs that cannot run (no requests, a prompt larger than the
// cache, a zero budget); the message names the field.
Result<SimulationResult> simulate_serving(const SimulationInputs& in);

}  // namespace preflight
