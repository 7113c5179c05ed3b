// Typed reads of quantization_config fields that several formats share.
#include "model/quantization/config_reads.h"

#include <fmt/format.h>

#include <optional>
#include <string_view>

#include "model/quantization/name_pattern.h"

namespace preflight {

// Small typed reads

Result<bool> read_bool(const JsonFields& node, std::string_view key, bool fallback) {
  if (!node.has(key)) return fallback;
  const auto& v = node.node()[std::string(key)];
  if (!v.is_boolean()) return node.error(key, fmt::format("expected true or false, got {}", show(v)));
  return v.get<bool>();
}

// group_size as AWQ / GPTQ write it: a positive integer, or -1 for one group
// per row (returned as 0). Required: both producers always write it.
Result<std::uint64_t> read_group_size(const JsonFields& node, std::string_view key) {
  if (!node.has(key)) return node.error(key, "missing positive integer or -1");
  const auto& v = node.node()[std::string(key)];
  // nlohmann reads non-negative literals as unsigned and negative ones as signed.
  if (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() == -1) return std::uint64_t{0};
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > 0) return node.positive_integer(key);
  return node.error(key, fmt::format("expected a positive integer or -1, got {}", show(v)));
}

// One dimension of a scale block ([rows, columns]), located on its list entry.
std::optional<Error> check_block_dim(std::uint64_t value, const JsonFields& node, std::string_view key, std::size_t i) {
  const auto pointer = fmt::format("{}/{}", node.pointer_to(key), i);
  if (value == 0) return Error{node.origin(), pointer, "block size must be positive, got 0"};
  if (value > (1ULL << 20))
    return Error{node.origin(), pointer, fmt::format("block size {} is implausibly large", value)};
  return std::nullopt;
}

// A kv_cache_scheme (compressed-tensors, and ModelOpt's config.json form) that
// is 8-bit float declares an FP8 KV cache (vLLM ModelOptQuantConfigBase.from_config:
// type "float" and num_bits 8 -> kv_cache_quant_algo "FP8").
Result<bool> declares_fp8_kv(const JsonFields& kv) {
  auto bits = kv.positive_integer_or("num_bits", 0);
  if (!bits) return bits.error();
  auto type = kv.string_or("type", "");
  if (!type) return type.error();
  return *bits == 8 && *type == "float";
}

Result<std::vector<NamePattern>> read_not_convert(const JsonFields& q, std::initializer_list<std::string_view> keys) {
  std::vector<NamePattern> out;
  for (auto key : keys) {
    auto list = compile_list(q, key, compile_module_pattern);
    if (!list) return list.error();
    for (auto& p : *list) out.push_back(std::move(p));
  }
  return out;
}

}  // namespace preflight
