#include "perf/serving_simulation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <optional>
#include <random>
#include <vector>

namespace preflight {

namespace {

struct Active {
  std::uint64_t id = 0;
  std::uint64_t input = 0;      // prompt tokens
  std::uint64_t output = 0;     // output tokens
  std::uint64_t prefilled = 0;  // prompt tokens in the cache
  std::uint64_t generated = 0;  // output tokens produced
  double first_token_s = 0;
};

Distribution distribution(std::vector<double> v) {
  Distribution d;
  if (v.empty()) return d;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  d.mean = sum / static_cast<double>(v.size());
  // Nearest rank: the smallest value with at least q of the values at or below it.
  const auto at = [&](double q) {
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
    return v[std::clamp<std::size_t>(rank, 1, v.size()) - 1];
  };
  d.p50 = at(0.50);
  d.p90 = at(0.90);
  d.p99 = at(0.99);
  return d;
}

class Simulator {
 public:
  explicit Simulator(const SimulationInputs& in) : in_(in), requests_(count(in)), rng_(in.seed) {
    arrival_.assign(requests_, std::numeric_limits<double>::infinity());
    ttft_.reserve(requests_);
    tpot_.reserve(requests_);
    e2e_.reserve(requests_);
    switch (in.arrivals) {
      case ArrivalKind::trace:
        std::copy_n(in.arrival_times.begin(), requests_, arrival_.begin());
        issued_ = requests_;
        break;
      case ArrivalKind::burst:
        for (auto& a : arrival_) a = 0;
        issued_ = requests_;
        break;
      case ArrivalKind::poisson: {
        std::exponential_distribution<double> gap(in.rate_per_s);
        double t = 0;
        for (auto& a : arrival_) {
          a = t;
          t += gap(rng_);
        }
        issued_ = requests_;
        break;
      }
      case ArrivalKind::closed_loop:
        issued_ = std::min(in.concurrency, requests_);
        for (std::uint64_t i = 0; i < issued_; ++i) arrival_[i] = 0;
        break;
    }
  }

  static std::uint64_t count(const SimulationInputs& in) {
    return in.arrivals == ArrivalKind::trace ? std::min<std::uint64_t>(in.requests, in.arrival_times.size())
                                             : in.requests;
  }

  RequestShape shape_of(std::uint64_t id) const {
    if (in_.shapes.empty()) return {in_.input_tokens, in_.output_tokens};
    return in_.shapes[id % in_.shapes.size()];
  }

  Result<SimulationResult> run() {
    // Steps without a decoded token: a run of prompts only, however long its
    // queue, reaches a decode long before this many (the cache fills); more
    // means a scheduling rule that cannot progress: an error, never a hang.
    constexpr std::uint64_t kMaxStepsWithoutDecode = 10'000'000;
    while (completed_ < requests_) {
      if (steps_ - last_decode_step_ > kMaxStepsWithoutDecode)
        return Error{"latency estimate", "",
                     fmt::format("the simulated scheduler decoded nothing in {} steps", kMaxStepsWithoutDecode)};
      admit_arrivals();
      if (running_.empty() && waiting_.empty()) {
        now_ = std::max(now_, next_arrival());
        continue;
      }
      if (!fast_forward()) step();
    }
    SimulationResult r;
    r.ttft_s = distribution(ttft_);
    r.tpot_s = distribution(tpot_);
    r.e2e_s = distribution(e2e_);
    r.duration_s = now_;
    r.busy_s = busy_;
    r.completed = completed_;
    r.steps = steps_;
    r.preemptions = preemptions_;
    if (now_ > 0) {
      r.output_tokens_per_s = static_cast<double>(output_done_) / now_;
      r.requests_per_s = static_cast<double>(completed_) / now_;
      r.mean_running = in_system_area_ / now_;
    }
    return r;
  }

 private:
  // When the next issued request reaches the scheduler's queue: its arrival
  // plus the front end's delay.
  double next_arrival() const {
    return next_ < issued_ ? arrival_[next_] + in_.admission_delay_s : std::numeric_limits<double>::infinity();
  }

  // Arrivals are issued in time order (closed-loop clients re-issue at "now"),
  // so the queue of issued requests is consumed front to back.
  void admit_arrivals() {
    while (next_ < issued_ && arrival_[next_] + in_.admission_delay_s <= now_) waiting_.push_back(next_++);
  }

  std::uint64_t cached_tokens() const {
    std::uint64_t s = 0;
    for (const auto& a : running_) s += a.prefilled + a.generated;
    return s;
  }

  bool capacity_limited() const { return in_.kv_capacity_tokens > 0; }

  void advance(double dt) {
    in_system_area_ += dt * static_cast<double>(running_.size() + waiting_.size());
    now_ += dt;
    busy_ += dt;
  }

  void finish(std::size_t i) {
    const auto& a = running_[i];
    const double start = arrival_[a.id];
    ttft_.push_back(a.first_token_s - start);
    if (a.output > 1) tpot_.push_back((now_ - a.first_token_s) / static_cast<double>(a.output - 1));
    e2e_.push_back(now_ - start);
    ++completed_;
    output_done_ += a.output;
    if (in_.arrivals == ArrivalKind::closed_loop && issued_ < requests_) arrival_[issued_++] = now_;
  }

  // Several identical decode-only steps at once: nothing waits that could be
  // admitted, no prompt is in flight, and the batch does not change until the
  // first running request finishes, the next arrival comes or the cache fills.
  bool fast_forward() {
    if (running_.empty()) return false;
    for (const auto& a : running_)
      if (a.prefilled < a.input) return false;
    if (!waiting_.empty() && running_.size() < in_.max_num_seqs) return false;
    const std::uint64_t b = running_.size();
    std::uint64_t k = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t context = 0;
    for (const auto& a : running_) {
      k = std::min(k, a.output - a.generated);
      context += a.input + a.generated;
    }
    if (capacity_limited()) {
      const auto cached = cached_tokens();
      if (cached + b > in_.kv_capacity_tokens) return false;
      k = std::min(k, (in_.kv_capacity_tokens - cached) / b);
    }
    if (k <= 2) return false;
    --k;  // the step that finishes a request runs in step(), which records it
    // Step j (0-based) reads context + j x b tokens: dt_j = base + slope x (context + j x b).
    const auto& m = in_.model;
    const auto& e = in_.efficiency;
    const double base = step_seconds(m, e, b, 0, 0);
    const double slope = m.kv_s_per_context_token / e.memory + m.attention_compute_s_per_context_token / e.compute;
    const auto elapsed = [&](std::uint64_t steps) {
      const double n = static_cast<double>(steps);
      return n * (base + slope * static_cast<double>(context)) + slope * static_cast<double>(b) * n * (n - 1) / 2;
    };
    const double gap = next_arrival() - now_;
    if (std::isfinite(gap)) {
      if (elapsed(1) > gap) return false;
      std::uint64_t lo = 1, hi = k;  // the most steps that end at or before the next arrival
      while (lo < hi) {
        const auto mid = lo + (hi - lo + 1) / 2;
        if (elapsed(mid) <= gap)
          lo = mid;
        else
          hi = mid - 1;
      }
      k = lo;
    }
    advance(elapsed(k));
    for (auto& a : running_) a.generated += k;
    steps_ += k;
    last_decode_step_ = steps_;
    return true;
  }

  // Prompt work a step could take: a running request's unfinished prompt, or
  // a waiting one with room to be admitted.
  bool prompt_work_waits() const {
    for (const auto& a : running_)
      if (a.prefilled < a.input) return true;
    if (waiting_.empty() || running_.size() >= in_.max_num_seqs) return false;
    return !capacity_limited() ||
           cached_tokens() + admission_reserve() + shape_of(waiting_.front()).input <= in_.kv_capacity_tokens;
  }

  // Prefill-first admits a prompt only with room left for the running
  // requests' coming tokens: SGLang's PrefillAdder sets aside each running
  // request's remaining output x new_token_ratio (which decays to its floor,
  // 0.1, while nothing is retracted), plus the next step's token for each and
  // the new request's own first two. Without it a full cache would admit,
  // preempt and re-admit one request with no decode step in between.
  std::uint64_t admission_reserve() const {
    if (!in_.prefill_first) return 0;
    constexpr double kNewTokenRatioFloor = 0.1;
    double reserve = 2;
    for (const auto& a : running_)
      if (a.prefilled == a.input)
        reserve += 1 + kNewTokenRatioFloor * static_cast<double>(a.output > a.generated ? a.output - a.generated : 0);
    return static_cast<std::uint64_t>(std::ceil(reserve));
  }

  void step() {
    std::uint64_t budget = in_.max_num_batched_tokens;
    // Decoding sequences first; preempt the newest while the cache cannot
    // take one more token for each.
    if (capacity_limited()) {
      while (!running_.empty()) {
        std::uint64_t decoding = 0;
        for (const auto& a : running_) decoding += a.prefilled == a.input ? 1 : 0;
        if (cached_tokens() + decoding <= in_.kv_capacity_tokens) break;
        waiting_.push_front(running_.back().id);
        running_.pop_back();
        ++preemptions_;
      }
    }
    std::uint64_t decode = 0, context = 0, prefill = 0;
    std::vector<std::uint64_t> chunk(running_.size(), 0);
    std::vector<char> decoded(running_.size(), 0);
    const bool prefill_only = in_.prefill_first && prompt_work_waits();
    for (std::size_t i = 0; i < running_.size() && budget > 0 && !prefill_only; ++i) {
      const auto& a = running_[i];
      if (a.prefilled == a.input) {
        decoded[i] = 1;
        ++decode;
        context += a.input + a.generated;
        --budget;
      }
    }
    for (std::size_t i = 0; i < running_.size() && budget > 0; ++i) {
      const auto& a = running_[i];
      if (a.prefilled < a.input) {
        chunk[i] = std::min(a.input - a.prefilled, budget);
        budget -= chunk[i];
        prefill += chunk[i];
      }
    }
    std::uint64_t cached = cached_tokens() + prefill + decode + admission_reserve();
    while (budget > 0 && !waiting_.empty() && running_.size() < in_.max_num_seqs) {
      // Admitted only when its whole prompt fits beside what is cached (vLLM
      // allocates a prompt's blocks as its chunks are scheduled; this keeps a
      // request from being admitted only to be preempted at once).
      const auto shape = shape_of(waiting_.front());
      if (capacity_limited() && cached + shape.input > in_.kv_capacity_tokens) break;
      Active a;
      a.id = waiting_.front();
      a.input = shape.input;
      a.output = shape.output;
      waiting_.pop_front();
      running_.push_back(a);
      chunk.push_back(std::min(a.input, budget));
      budget -= chunk.back();
      prefill += chunk.back();
      cached += a.input;
    }
    const double dt = step_seconds(in_.model, in_.efficiency, decode, context, prefill);
    advance(dt);
    ++steps_;
    if (decode > 0) last_decode_step_ = steps_;
    for (std::size_t i = 0; i < running_.size(); ++i) {
      auto& a = running_[i];
      if (i < decoded.size() && decoded[i]) {
        a.generated += 1;  // decoded this step
      } else if (chunk[i] > 0) {
        a.prefilled += chunk[i];
        if (a.prefilled == a.input) {
          a.generated = 1;  // the prompt's last chunk yields the first token
          a.first_token_s = now_;
        }
      }
    }
    for (std::size_t i = running_.size(); i-- > 0;) {
      if (running_[i].generated >= running_[i].output) {
        finish(i);
        running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
  }

  const SimulationInputs& in_;
  std::uint64_t requests_ = 0;  // simulated: in_.requests, or the trace's when shorter
  std::uint64_t output_done_ = 0;
  std::uint64_t last_decode_step_ = 0;
  std::mt19937_64 rng_;
  std::vector<double> arrival_;
  std::uint64_t issued_ = 0, next_ = 0, completed_ = 0, steps_ = 0, preemptions_ = 0;
  std::deque<std::uint64_t> waiting_;
  std::vector<Active> running_;
  double now_ = 0, in_system_area_ = 0, busy_ = 0;
  std::vector<double> ttft_, tpot_, e2e_;
};

}  // namespace

Result<SimulationResult> simulate_serving(const SimulationInputs& in) {
  if (in.requests == 0) return Error{"--requests", "", "the simulation needs at least 1 request"};
  if (in.input_tokens == 0 || in.output_tokens == 0)
    return Error{"--input-tokens", "", "requests need at least 1 input and 1 output token"};
  if (in.max_num_seqs == 0) return Error{"--max-num-seqs", "", "must be at least 1"};
  if (in.max_num_batched_tokens == 0) return Error{"--max-num-batched-tokens", "", "must be at least 1"};
  if (in.arrivals == ArrivalKind::closed_loop && in.concurrency == 0)
    return Error{"--concurrency", "", "the closed loop needs at least 1 client"};
  if (in.arrivals == ArrivalKind::poisson && !(in.rate_per_s > 0 && std::isfinite(in.rate_per_s)))
    return Error{"--rate", "", "a Poisson stream needs a positive, finite rate"};
  if (in.arrivals == ArrivalKind::trace) {
    if (in.arrival_times.empty()) return Error{"--mix-file", "", "the trace has no arrival times"};
    for (std::size_t i = 0; i < in.arrival_times.size(); ++i)
      if (!(in.arrival_times[i] >= 0) || !std::isfinite(in.arrival_times[i]) ||
          (i > 0 && in.arrival_times[i] < in.arrival_times[i - 1]))
        return Error{"--mix-file", "", "arrival times must be finite, at least 0 and in order"};
  }
  const auto too_long = [&](std::uint64_t input, std::uint64_t output) -> std::optional<Error> {
    if (input == 0 || output == 0)
      return Error{"--input-tokens", "", "requests need at least 1 input and 1 output token"};
    if (in.kv_capacity_tokens > 0 && input + output > in.kv_capacity_tokens)
      return Error{in.shapes.empty() ? "--input-tokens" : "--mix-file", "",
                   fmt::format("one request of {} + {} tokens does not fit the {}-token KV cache of a DP group", input,
                               output, in.kv_capacity_tokens)};
    return std::nullopt;
  };
  if (in.shapes.empty()) {
    if (auto e = too_long(in.input_tokens, in.output_tokens)) return *e;
  } else {
    for (const auto& s : in.shapes)
      if (auto e = too_long(s.input, s.output)) return *e;
  }
  if (!(in.admission_delay_s >= 0) || !std::isfinite(in.admission_delay_s))
    return Error{"latency efficiency", "", "the front end's delay must be finite and at least 0"};
  if (in.efficiency.memory <= 0 || in.efficiency.compute <= 0)
    return Error{"latency efficiency", "", "efficiencies must be positive"};
  return Simulator(in).run();
}

}  // namespace preflight
