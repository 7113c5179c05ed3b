// The element types of the request state a plan sizes (parsed once, typed from
// the command line down): the KV / MLA cache (--kv-dtype) and the recurrent
// state (--state-dtype).
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string_view>

#include "core/result.h"

namespace preflight {

// `automatic`: the model's dtype, as engines do (resolved by resolved_workload).
enum class KvDtype { automatic, bf16, fp16, fp32, fp8 };
// Engines keep recurrent state in FP32 by default.
enum class StateDtype { fp32, bf16, fp16 };

std::string_view dtype_key(KvDtype d);     // "auto", "bf16", "fp16", "fp32", "fp8"
std::string_view dtype_key(StateDtype d);  // "fp32", "bf16", "fp16"
std::uint64_t kv_dtype_bytes(KvDtype d);   // automatic: 2 (the 16-bit default until resolved)
std::uint64_t state_dtype_bytes(StateDtype d);

// The names the flags accept (fp8_e4m3 and fp8_e5m2 are fp8; float32 is fp32;
// bfloat16 is bf16). Errors name `origin` and the value.
Result<KvDtype> parse_kv_dtype(std::string_view text, std::string_view origin);
Result<StateDtype> parse_state_dtype(std::string_view text, std::string_view origin);

// automatic -> the model's: fp32 for a 32-bit model, else bf16.
KvDtype resolve_kv_dtype(KvDtype d, std::uint64_t model_dtype_bits);

}  // namespace preflight

template <>
struct fmt::formatter<preflight::KvDtype> : fmt::formatter<std::string_view> {
  template <typename Context>
  auto format(preflight::KvDtype d, Context& ctx) const {
    return fmt::formatter<std::string_view>::format(preflight::dtype_key(d), ctx);
  }
};

template <>
struct fmt::formatter<preflight::StateDtype> : fmt::formatter<std::string_view> {
  template <typename Context>
  auto format(preflight::StateDtype d, Context& ctx) const {
    return fmt::formatter<std::string_view>::format(preflight::dtype_key(d), ctx);
  }
};
