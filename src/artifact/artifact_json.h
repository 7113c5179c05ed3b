// Strict JSON reading shared by the artifact readers (safetensors header,
// model.safetensors.index.json, Hugging Face hub listing).
//
// These files come from the network or from a half-finished download, so the
// readers are stricter than nlohmann's defaults in the ways that matter for a
// memory plan:
//   - a duplicate object key is an error (nlohmann keeps the last silently; the
//     safetensors README: "Duplicate keys are disallowed"), named by its JSON
//     pointer;
//   - a NUL byte is an error (nlohmann's lexer treats NUL as the end of input,
//     so "{...}\0anything" would otherwise parse);
//   - nesting deeper than 512 levels is an error (no artifact file needs more);
//   - parse errors, pointers and quoted values are rendered on one line, with
//     control characters escaped, so an Error always prints as one line.
// The DOM is built by a SAX handler that never recurses, so deeply nested input
// cannot exhaust the stack (nlohmann's own parser and destructor are iterative too).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace preflight::artifact {

// Parses a whole document. `field` is what a syntax error is reported against
// ("" for the document itself, "header" for a safetensors header).
Result<nlohmann::json> parse_json_document(std::string_view text, std::string_view origin,
                                           std::string_view field);

// One JSON-pointer reference token (RFC 6901: '~' -> "~0", '/' -> "~1"), with
// control characters shown as \u00XX so the pointer stays on one line.
std::string pointer_token(std::string_view key);

// A value as the file wrote it, on one line, at most ~60 characters; bounded
// in depth and length however large the value is.
std::string show(const nlohmann::json& value);

// A string from the input, JSON-quoted (escapes control characters), shortened
// to ~80 characters.
std::string quote(std::string_view text);

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
