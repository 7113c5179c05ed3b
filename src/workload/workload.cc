#include "workload/workload.h"

#include <algorithm>

#include "core/bytes.h"

namespace preflight {

std::uint64_t longest_request_tokens(const WorkloadOptions& w, std::uint64_t max_context) {
  if (!w.mix.empty()) return longest(w.mix);
  return w.context_tokens > 0 ? w.context_tokens : max_context;
}

WorkloadOptions resolved_workload(WorkloadOptions w, std::uint64_t max_context, std::uint64_t model_dtype_bits,
                                  std::optional<KvDtype> declared_kv) {
  w.context_tokens = longest_request_tokens(w, max_context);
  if (w.kv_dtype == KvDtype::automatic && declared_kv) w.kv_dtype = *declared_kv;
  w.kv_dtype = resolve_kv_dtype(w.kv_dtype, model_dtype_bits);
  return w;
}

std::uint64_t typical_length(const WorkloadOptions& w) { return w.mix.empty() ? w.context_tokens : mean_tokens(w.mix); }

RequestsByLength requests_by_length(const WorkloadOptions& w, std::uint64_t groups) {
  RequestsByLength out;
  if (w.mix.empty()) {
    out.tokens = {w.context_tokens};
    out.counts = {ceil_div(w.concurrency, std::max<std::uint64_t>(groups, 1))};
    return out;
  }
  out.counts = heaviest_group(w.mix, w.concurrency, groups);
  for (const auto& c : w.mix) out.tokens.push_back(c.tokens);
  return out;
}

}  // namespace preflight
