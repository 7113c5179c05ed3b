// Value rules shared by the artifact readers (safetensors header,
// model.safetensors.index.json, Hugging Face hub listing). The documents
// themselves are parsed by core/json_read.h.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace preflight::artifact {

// A JSON integer >= 0 that fits in 64 bits (nlohmann keeps non-negative literals
// as unsigned; "-0" arrives as a signed zero). Floats, even 4.0, are not integers.
std::optional<std::uint64_t> as_count(const nlohmann::json& value);

// A decimal string of digits that fits in 64 bits ("13761264768"); no sign, no
// spaces, no exponent.
std::optional<std::uint64_t> count_from_digits(std::string_view text);

// Why a file name from an index or listing is unusable as a path relative to
// the model folder ("" when it is fine): empty, absolute, a ".." component, a
// backslash or a control character.
std::string relative_path_problem(std::string_view path);

}  // namespace preflight::artifact
