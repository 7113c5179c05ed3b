#include "plan/workload.h"

#include <algorithm>

#include "core/bytes.h"

namespace preflight {

std::uint64_t kv_dtype_bytes(const std::string& name) {
  if (name == "bf16" || name == "fp16" || name == "auto") return 2;
  if (name == "fp32" || name == "float32") return 4;
  if (name == "fp8" || name == "fp8_e4m3" || name == "fp8_e5m2") return 1;
  return 0;
}

std::string resolve_kv_dtype(const std::string& name, std::uint64_t model_dtype_bits) {
  if (name != "auto") return name;
  return model_dtype_bits >= 32 ? "fp32" : "bf16";
}

std::uint64_t state_dtype_bytes(const std::string& name) {
  if (name == "fp32" || name == "float32") return 4;
  if (name == "bf16" || name == "bfloat16" || name == "fp16") return 2;
  return 0;
}

WorkloadOptions resolved_workload(WorkloadOptions w, std::uint64_t max_context, std::uint64_t model_dtype_bits) {
  if (!w.mix.empty()) w.context_tokens = longest(w.mix);
  if (w.context_tokens == 0) w.context_tokens = max_context;
  w.kv_dtype = resolve_kv_dtype(w.kv_dtype, model_dtype_bits);
  return w;
}

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
