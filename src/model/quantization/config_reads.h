// Typed reads of quantization_config fields that several formats share; errors
// name the file and the field's JSON pointer.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "model/json_fields.h"
#include "model/quantization/name_pattern.h"

namespace preflight {

Result<bool> read_bool(const JsonFields& node, std::string_view key, bool fallback);

// group_size as AWQ / GPTQ write it: a positive integer, or -1 for one group
// per row (returned as 0). Required: both producers always write it.
Result<std::uint64_t> read_group_size(const JsonFields& node, std::string_view key);

// One dimension of a scale block ([rows, columns]), located on its list entry.
std::optional<Error> check_block_dim(std::uint64_t value, const JsonFields& node, std::string_view key, std::size_t i);

// A kv_cache_scheme (compressed-tensors, and ModelOpt's config.json form) that
// is 8-bit float declares an FP8 KV cache.
Result<bool> declares_fp8_kv(const JsonFields& kv);

// The modules a HF quantizer leaves unconverted, from each of `keys` present.
Result<std::vector<NamePattern>> read_not_convert(const JsonFields& q, std::initializer_list<std::string_view> keys);

}  // namespace preflight
