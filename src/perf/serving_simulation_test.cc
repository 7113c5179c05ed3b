#include "perf/serving_simulation.h"

#include <gtest/gtest.h>

#include <cmath>

namespace preflight {
namespace {

// A step model with round numbers: 10 ms of weights, 1 us per context token
// read, 0.1 ms per decoded sequence and 0.05 ms per prompt token of compute.
StepTimeModel round_model() {
  StepTimeModel m;
  m.weights_s_1 = 0.010;
  m.weights_s_64 = 0.010;
  m.kv_s_per_context_token = 1e-6;
  m.decode_compute_s_per_seq = 1e-4;
  m.prefill_compute_s_per_token = 5e-5;
  return m;
}

SimulationInputs base() {
  SimulationInputs in;
  in.model = round_model();
  in.max_num_seqs = 64;
  in.max_num_batched_tokens = 2048;
  in.input_tokens = 500;
  in.output_tokens = 100;
  in.requests = 200;
  return in;
}

// One client: every request runs alone. TTFT is one prefill step of 500
// tokens: 10 ms + 500 x 0.05 ms = 35 ms. Decode step g (g = 1..99 tokens
// already generated) reads 500 + g context tokens: 10 ms + 0.1 ms + (500 + g) us;
// TPOT is their mean: 10.1 ms + 550 us = 10.65 ms.
TEST(ServingSimulation, OneClientMatchesTheStepModelByHand) {
  auto in = base();
  in.arrivals = ArrivalKind::closed_loop;
  in.concurrency = 1;
  const auto r = simulate_serving(in).value_or_throw();
  EXPECT_EQ(r.completed, 200u);
  EXPECT_NEAR(r.ttft_s.mean, 0.035, 1e-9);
  EXPECT_NEAR(r.ttft_s.p99, 0.035, 1e-9);
  EXPECT_NEAR(r.tpot_s.mean, 0.01065, 1e-9);
  EXPECT_NEAR(r.e2e_s.mean, 0.035 + 99 * 0.01065, 1e-9);
  EXPECT_NEAR(r.output_tokens_per_s, 100 / (0.035 + 99 * 0.01065), 1e-6);
}

// Little's law on a steady Poisson run: the time-averaged number of requests
// in the system equals the completion rate times the mean time in the system.
TEST(ServingSimulation, LittlesLawHoldsOnASteadyRun) {
  auto in = base();
  in.arrivals = ArrivalKind::poisson;
  in.rate_per_s = 20;
  in.requests = 10000;
  const auto r = simulate_serving(in).value_or_throw();
  const double little = r.requests_per_s * r.e2e_s.mean;
  EXPECT_NEAR(r.mean_running / little, 1.0, 0.02) << r.mean_running << " vs " << little;
  EXPECT_LE(r.ttft_s.p50, r.ttft_s.p90);
  EXPECT_LE(r.ttft_s.p90, r.ttft_s.p99);
}

TEST(ServingSimulation, SameSeedSameRunOtherSeedOtherRun) {
  auto in = base();
  in.arrivals = ArrivalKind::poisson;
  in.rate_per_s = 30;
  const auto a = simulate_serving(in).value_or_throw();
  const auto b = simulate_serving(in).value_or_throw();
  EXPECT_EQ(a.ttft_s.p99, b.ttft_s.p99);
  EXPECT_EQ(a.tpot_s.mean, b.tpot_s.mean);
  EXPECT_EQ(a.steps, b.steps);
  in.seed = 2;
  const auto c = simulate_serving(in).value_or_throw();
  EXPECT_NE(a.ttft_s.p99, c.ttft_s.p99);
}

// A burst of 64 requests with a 2,048-token budget: prompts are chunked four
// per step, so the last first token comes after the 16th prefill step, and the
// batch decodes together. A cache of 20,000 tokens holds 33 requests of 600:
// the rest wait or are preempted, and every request still completes.
TEST(ServingSimulation, BurstChunksPromptsAndTheCacheLimitsTheBatch) {
  auto in = base();
  in.arrivals = ArrivalKind::burst;
  in.requests = 64;
  const auto open = simulate_serving(in).value_or_throw();
  EXPECT_EQ(open.completed, 64u);
  EXPECT_GT(open.ttft_s.p99, 10 * open.ttft_s.p50 / 16);  // the last prompts wait for the first ones
  EXPECT_EQ(open.preemptions, 0u);
  in.kv_capacity_tokens = 20000;
  const auto tight = simulate_serving(in).value_or_throw();
  EXPECT_EQ(tight.completed, 64u);
  EXPECT_GT(tight.e2e_s.p99, open.e2e_s.p99);
}

// A trace replayed: requests far apart each run alone, with their own
// lengths, so each one's TTFT and TPOT follow the step model by hand as in
// OneClientMatchesTheStepModelByHand: a 500-token prompt 35 ms; a 1,000-token
// prompt 10 ms + 1,000 x 0.05 ms = 60 ms; decode steps of a 1,000-token prompt
// with 11 outputs read 1,000 + g tokens (g = 1..10): 10.1 ms + 1,005.5 us.
TEST(ServingSimulation, ATraceIsReplayedWithItsOwnLengths) {
  auto in = base();
  in.arrivals = ArrivalKind::trace;
  in.shapes = {{500, 100}, {1000, 11}};
  in.arrival_times = {0, 100, 200, 300};
  const auto r = simulate_serving(in).value_or_throw();
  EXPECT_EQ(r.completed, 4u);  // the trace's requests, fewer than in.requests
  EXPECT_NEAR(r.ttft_s.mean, (0.035 + 0.060) / 2, 1e-9);
  EXPECT_NEAR(r.tpot_s.p50, 0.01065, 1e-9);  // nearest rank of {10.65, 10.65, 11.1055, 11.1055} ms
  EXPECT_NEAR(r.tpot_s.p99, 0.0111055, 1e-9);
  // The last request ends 300 s + 60 ms + 10 decode steps after time 0.
  EXPECT_NEAR(r.duration_s, 300 + 0.060 + 10 * 0.0111055, 1e-9);
  EXPECT_NEAR(r.output_tokens_per_s, (2 * 100 + 2 * 11) / r.duration_s, 1e-9);
  // Shapes cycle under any arrivals: a closed loop of one client alternates them.
  auto loop = base();
  loop.shapes = in.shapes;
  loop.concurrency = 1;
  loop.requests = 4;
  const auto l = simulate_serving(loop).value_or_throw();
  EXPECT_NEAR(l.ttft_s.mean, (0.035 + 0.060) / 2, 1e-9);
  EXPECT_NEAR(l.duration_s, 2 * (0.035 + 99 * 0.01065) + 2 * (0.060 + 10 * 0.0111055), 1e-9);
}

TEST(ServingSimulation, RefusesABadTrace) {
  auto in = base();
  in.arrivals = ArrivalKind::trace;
  EXPECT_FALSE(simulate_serving(in).ok());  // no arrival times
  in.arrival_times = {0, 2, 1};
  EXPECT_FALSE(simulate_serving(in).ok());  // out of order
  in.arrival_times = {0, 1};
  in.shapes = {{500, 100}, {30000, 100}};
  in.kv_capacity_tokens = 20000;
  auto r = simulate_serving(in);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().origin, "--mix-file");
}

// The engine's front end holds each request before the scheduler sees it:
// one client's TTFT grows by exactly the delay, and every round with it.
TEST(ServingSimulation, TheFrontEndDelaysEveryRequestBeforeItIsQueued) {
  auto in = base();
  in.arrivals = ArrivalKind::closed_loop;
  in.concurrency = 1;
  in.admission_delay_s = 0.1;
  const auto r = simulate_serving(in).value_or_throw();
  EXPECT_NEAR(r.ttft_s.mean, 0.1 + 0.035, 1e-9);
  EXPECT_NEAR(r.tpot_s.mean, 0.01065, 1e-9);  // decoding is untouched
  EXPECT_NEAR(r.duration_s, 200 * (0.1 + 0.035 + 99 * 0.01065), 1e-6);
  EXPECT_NEAR(r.busy_s, 200 * (0.035 + 99 * 0.01065), 1e-6);  // the GPUs idle while the front end works
  in.admission_delay_s = -1;
  EXPECT_FALSE(simulate_serving(in).ok());
}

// A MoE step reads the experts a wider batch touches beyond one token's at
// moe_memory of peak: W(1) = 10 ms, W(64) = 30 ms; at 64 sequences the 20 ms
// beyond one token's take 40 ms at 0.5, and a dense model (W(64) = W(1)) is untouched.
TEST(ServingSimulation, ExpertsBeyondOneTokenReadAtTheMoeShare) {
  StepTimeModel m;
  m.weights_s_1 = 0.010;
  m.weights_s_64 = 0.030;
  StepEfficiency e;
  EXPECT_NEAR(step_seconds(m, e, 64, 0, 0), 0.030, 1e-12);
  e.moe_memory = 0.5;
  EXPECT_NEAR(step_seconds(m, e, 64, 0, 0), 0.010 + 0.040, 1e-12);
  EXPECT_NEAR(step_seconds(m, e, 1, 0, 0), 0.010, 1e-12);
  m.weights_s_64 = m.weights_s_1;
  EXPECT_NEAR(step_seconds(m, e, 64, 0, 0), 0.010, 1e-12);
}

// SGLang's policy: prompt work first, decoding waits. Against vLLM V1's
// (decode first, prompts take what is left) on the same Poisson stream, first
// tokens come sooner and output tokens later; Little's law holds for both.
TEST(ServingSimulation, PrefillFirstTradesTpotForTtft) {
  auto in = base();
  in.arrivals = ArrivalKind::poisson;
  in.rate_per_s = 6;
  in.requests = 4000;
  const auto decode_first = simulate_serving(in).value_or_throw();
  in.prefill_first = true;
  const auto prefill_first = simulate_serving(in).value_or_throw();
  EXPECT_LT(prefill_first.ttft_s.mean, decode_first.ttft_s.mean);
  EXPECT_GT(prefill_first.tpot_s.mean, decode_first.tpot_s.mean);
  for (const auto* r : {&decode_first, &prefill_first})
    EXPECT_NEAR(r->mean_running / (r->requests_per_s * r->e2e_s.mean), 1.0, 0.02);
  // One client: nothing waits beside a prompt, so the two policies agree.
  auto one = base();
  one.concurrency = 1;
  one.prefill_first = true;
  EXPECT_NEAR(simulate_serving(one).value_or_throw().tpot_s.mean, 0.01065, 1e-9);
}

// A burst far larger than the cache under prefill-first: admission sets
// aside room for the running requests' coming tokens, so the run finishes
// (it once admitted, preempted and re-admitted one request forever).
TEST(ServingSimulation, PrefillFirstBurstLargerThanTheCacheFinishes) {
  auto in = base();
  in.arrivals = ArrivalKind::burst;
  in.prefill_first = true;
  in.requests = 3000;
  in.kv_capacity_tokens = 20000;
  for (std::uint64_t i = 0; i < 97; ++i) in.shapes.push_back({1 + (i * 37) % 1024, 1 + (i * 53) % 1024});
  const auto r = simulate_serving(in).value_or_throw();
  EXPECT_EQ(r.completed, 3000u);
  EXPECT_LT(r.preemptions, r.completed);
}

TEST(ServingSimulation, RefusesWhatCannotRun) {
  auto in = base();
  in.kv_capacity_tokens = 100;
  const auto r = simulate_serving(in);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().to_string().find("does not fit the 100-token KV cache"), std::string::npos);
  in = base();
  in.requests = 0;
  EXPECT_FALSE(simulate_serving(in).ok());
  in = base();
  in.arrivals = ArrivalKind::poisson;
  in.rate_per_s = INFINITY;
  EXPECT_FALSE(simulate_serving(in).ok());
}

}  // namespace
}  // namespace preflight
