#include "workload/cache_dtype.h"

#include "core/text.h"

namespace preflight {

std::string_view dtype_key(KvDtype d) {
  switch (d) {
    case KvDtype::automatic:
      return "auto";
    case KvDtype::bf16:
      return "bf16";
    case KvDtype::fp16:
      return "fp16";
    case KvDtype::fp32:
      return "fp32";
    case KvDtype::fp8:
      return "fp8";
  }
  return "auto";
}

std::string_view dtype_key(StateDtype d) {
  switch (d) {
    case StateDtype::fp32:
      return "fp32";
    case StateDtype::bf16:
      return "bf16";
    case StateDtype::fp16:
      return "fp16";
  }
  return "fp32";
}

std::uint64_t kv_dtype_bytes(KvDtype d) {
  switch (d) {
    case KvDtype::automatic:
    case KvDtype::bf16:
    case KvDtype::fp16:
      return 2;
    case KvDtype::fp32:
      return 4;
    case KvDtype::fp8:
      return 1;
  }
  return 2;
}

std::uint64_t state_dtype_bytes(StateDtype d) { return d == StateDtype::fp32 ? 4 : 2; }

Result<KvDtype> parse_kv_dtype(std::string_view text, std::string_view origin) {
  const auto t = to_lower(text);
  if (t == "auto") return KvDtype::automatic;
  if (t == "bf16" || t == "bfloat16") return KvDtype::bf16;
  if (t == "fp16" || t == "float16") return KvDtype::fp16;
  if (t == "fp32" || t == "float32") return KvDtype::fp32;
  if (t == "fp8" || t == "fp8_e4m3" || t == "fp8_e5m2") return KvDtype::fp8;
  return Error{std::string(origin), "", fmt::format("expected auto, bf16, fp16, fp32 or fp8, got {}", echo(text))};
}

Result<StateDtype> parse_state_dtype(std::string_view text, std::string_view origin) {
  const auto t = to_lower(text);
  if (t == "fp32" || t == "float32") return StateDtype::fp32;
  if (t == "bf16" || t == "bfloat16") return StateDtype::bf16;
  if (t == "fp16" || t == "float16") return StateDtype::fp16;
  return Error{std::string(origin), "", fmt::format("expected fp32 or bf16, got {}", echo(text))};
}

KvDtype resolve_kv_dtype(KvDtype d, std::uint64_t model_dtype_bits) {
  if (d != KvDtype::automatic) return d;
  return model_dtype_bits >= 32 ? KvDtype::fp32 : KvDtype::bf16;
}

}  // namespace preflight
