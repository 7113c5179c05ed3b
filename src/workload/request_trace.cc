#include "workload/request_trace.h"

#include <algorithm>
#include <cmath>

#include "workload/request_mix.h"

namespace preflight {

double RequestTrace::rate_per_s() const {
  if (!has_arrivals || requests.size() < 2 || !(span_s() > 0)) return 0;
  return static_cast<double>(requests.size() - 1) / span_s();
}

namespace {
template <typename Field>
std::uint64_t mean_of(const std::vector<TraceRequest>& requests, Field field) {
  if (requests.empty()) return 0;
  // At most 10^6 requests of 2^30 tokens: the sum fits 64 bits.
  std::uint64_t sum = 0;
  for (const auto& r : requests) sum += field(r);
  const auto n = static_cast<std::uint64_t>(requests.size());
  return (sum + n / 2) / n;
}
}  // namespace

std::uint64_t RequestTrace::mean_input_tokens() const {
  return mean_of(requests, [](const TraceRequest& r) { return r.input; });
}

std::uint64_t RequestTrace::mean_output_tokens() const {
  return mean_of(requests, [](const TraceRequest& r) { return r.output; });
}

Result<RequestTrace> parse_request_trace(std::string_view text, std::string_view origin) {
  RequestTrace trace;
  bool one_column = false;
  auto e = for_each_mix_file_row(text, origin, [&](const MixFileRow& row) -> std::optional<Error> {
    ++trace.rows;
    if (!row.split) {
      one_column = true;
      return std::nullopt;
    }
    if (trace.requests.size() >= kMaxTraceRequests) return std::nullopt;
    trace.has_arrivals = !std::isnan(row.arrival_s);
    // Output 0 (a prompt scored, nothing generated) still produces one token.
    trace.requests.push_back(
        {row.input, std::max<std::uint64_t>(row.output, 1), trace.has_arrivals ? row.arrival_s : 0});
    return std::nullopt;
  });
  if (e) return *e;
  if (one_column) return RequestTrace{};
  if (trace.has_arrivals) {
    std::stable_sort(trace.requests.begin(), trace.requests.end(),
                     [](const TraceRequest& a, const TraceRequest& b) { return a.arrival_s < b.arrival_s; });
    const double first = trace.requests.empty() ? 0 : trace.requests.front().arrival_s;
    for (auto& r : trace.requests) r.arrival_s -= first;
  }
  return trace;
}

}  // namespace preflight
