#include "engine/engine_options.h"

#include <fmt/format.h>

#include <optional>

#include "core/text.h"

namespace preflight {

std::string_view engine_key(EngineKind kind) {
  switch (kind) {
    case EngineKind::generic:
      return "generic";
    case EngineKind::vllm:
      return "vllm";
    case EngineKind::sglang:
      return "sglang";
  }
  return "generic";
}

Result<EngineKind> parse_engine(std::string_view text, const std::string& flag) {
  const auto key = to_lower(std::string(text));
  if (key == "generic" || key.empty()) return EngineKind::generic;
  if (key == "vllm") return EngineKind::vllm;
  if (key == "sglang") return EngineKind::sglang;
  return Error{flag, "", fmt::format("expected vllm, sglang or generic, got '{}'", text)};
}

Result<EngineOptions> validate_engine_options(EngineOptions o) {
  const auto fraction = [](double v, const char* flag) -> std::optional<Error> {
    if (v < 0 || v > 1) return Error{flag, "", fmt::format("expected a fraction in (0, 1], got {}", v)};
    return std::nullopt;
  };
  if (auto e = fraction(o.gpu_memory_utilization, "--gpu-memory-utilization")) return *e;
  if (auto e = fraction(o.mem_fraction_static, "--mem-fraction-static")) return *e;
  if (o.mamba_full_memory_ratio < 0 || o.mamba_full_memory_ratio > 100)
    return Error{"--mamba-full-memory-ratio", "",
                 fmt::format("expected a ratio in (0, 100], got {}", o.mamba_full_memory_ratio)};
  if (o.radix_cache != "on" && o.radix_cache != "off" && o.radix_cache != "lazy")
    return Error{"--radix-cache", "", fmt::format("expected on, off or lazy, got '{}'", o.radix_cache)};
  return o;
}

}  // namespace preflight
