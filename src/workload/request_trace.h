// A request trace: the requests of a --mix-file with input,output columns, in
// arrival order, and their arrival times when the file has an `arrival` column.
//
// The ledger sizes memory from the mix (request_mix.h); the latency estimate
// (perf/serving_simulation.h) takes each simulated request's prompt and output
// from the trace, in turn, and with arrival times replays them: the estimate
// of a real day's traffic rather than of identical requests.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace preflight {

struct TraceRequest {
  std::uint64_t input = 0;
  std::uint64_t output = 0;
  double arrival_s = 0;  // from the trace's first arrival; 0 without an arrival column
};

struct RequestTrace {
  std::vector<TraceRequest> requests;  // sorted by arrival (stable: file order among equal times)
  bool has_arrivals = false;
  std::uint64_t rows = 0;  // request rows in the file (more than kept when cut)
  double span_s() const { return requests.empty() ? 0 : requests.back().arrival_s; }
  // Requests per second over the trace: (n - 1) / span; 0 with fewer than two or no span.
  double rate_per_s() const;
  // The mean prompt and output over the kept requests, rounded to the nearest (0: none).
  std::uint64_t mean_input_tokens() const;
  std::uint64_t mean_output_tokens() const;
};

// The trace keeps at most this many requests (the simulation runs thousands;
// a 10^7-line file still sizes the mix from every line).
inline constexpr std::size_t kMaxTraceRequests = 1'000'000;

// Nothing (no requests) for a one-column file of lengths: it has no prompt and
// output to replay. Errors as parse_mix_file's, and for a file that gives
// arrival times to some rows only (impossible by the column rule).
Result<RequestTrace> parse_request_trace(std::string_view text, std::string_view origin);

}  // namespace preflight
