// A request mix: running requests of several lengths.
//
// Seed 000's checklist asks for "the expected context distribution"; teams
// size clusters from traffic, not from one context x N identical requests.
// A mix is a list of lengths with weights: `--mix 2K:70%,32K:25%,1M:5%`
// (shares of the running requests; `--concurrency` is the total) or
// `--mix-file` (a CSV from a trace). The ledger sizes each pool for it: the
// token cache by length (window layers capped per request), the recurrent
// state once per request whatever its length.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace preflight {

struct MixClass {
  std::uint64_t tokens = 0;  // the length a request of this class reaches (prompt + output)
  std::uint64_t weight = 0;  // relative share of the running requests (parts per million from --mix)
};

// Classes sorted by length, one per distinct length, weights > 0.
using RequestMix = std::vector<MixClass>;

inline constexpr std::size_t kMaxMixClasses = 256;

// "2K:70%,32K:25%,1M:5%": lengths as --context takes them, shares in percent
// summing to 100 (within 0.01). Errors name `origin` and the bad member.
Result<RequestMix> parse_mix(std::string_view text, std::string_view origin);

// A CSV of requests, one per line; `#` comments and blank lines are skipped, and
// a UTF-8 byte-order mark. An optional first line names the columns, each cell
// one of tokens, length, input, output, input_tokens, output_tokens,
// prompt_tokens, completion_tokens (any case); any other line is data and every
// value must be a length (no NaN, no sign):
//  - one column, `tokens`: each line one running request of that length;
//  - two columns, `input,output`: each line one arriving request. It reaches
//    input + output tokens, and by Little's law requests are running in
//    proportion to how long they run, which decode dominates: weight = output
//    tokens (at least 1).
// More than 64 distinct lengths are bucketed: each length rounded up to the
// next multiple of 2^(floor(log2 length) - 2) (at most +25%: never smaller).
// A third column, `arrival` (or arrival_s, timestamp, time), gives each
// request's arrival in seconds from the trace's start: the latency estimate
// replays them (workload/request_trace.h); the mix ignores it.
Result<RequestMix> parse_mix_file(std::string_view text, std::string_view origin);

// One request line of a --mix-file: `input` alone (split false) for the one
// column form, else input and output, and the arrival when the file has one (NaN: none).
struct MixFileRow {
  std::size_t line = 0;
  std::uint64_t input = 0;
  std::uint64_t output = 0;
  bool split = false;
  double arrival_s = std::numeric_limits<double>::quiet_NaN();
};

// The reader both parse_mix_file and parse_request_trace use: each request row
// in file order, after the checks above; `visit` may stop the read with an error.
std::optional<Error> for_each_mix_file_row(std::string_view text, std::string_view origin,
                                           const std::function<std::optional<Error>(const MixFileRow&)>& visit);

// The mix's running requests in one attention group: `requests` split by
// weight with the largest-remainder method (Hamilton), ties to the longer
// class, so the counts sum to `requests` and the cache lies between the
// shortest and the longest member's. One count per class, in the mix's order.
std::vector<std::uint64_t> apportion(const RequestMix& mix, std::uint64_t requests);

// The heaviest of `groups` attention groups (DP) sharing `total` running
// requests: the mix apportioned over the total, each class spread evenly over
// the groups, and the group that gets every class's rounding-up, longest
// first, filled to ceil(total / groups) requests. One group: apportion(mix, total).
std::vector<std::uint64_t> heaviest_group(const RequestMix& mix, std::uint64_t total, std::uint64_t groups);

std::uint64_t longest(const RequestMix& mix);
// The running requests' mean length, weighted by share, rounded up: what a
// decode step's attention reads per request on average (perf/).
std::uint64_t mean_tokens(const RequestMix& mix);
// "2,048:70%, 32,768:25%, 1,048,576:5%" (shares to 2 decimals where needed).
std::string describe_mix(const RequestMix& mix);
// A class's share in percent.
double share_percent(const RequestMix& mix, std::size_t i);

}  // namespace preflight
