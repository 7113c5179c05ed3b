// Reading JSON that came from outside: the one parser every reader uses
// (config.json, quantization configs, a --catalogue file, safetensors headers,
// model.safetensors.index.json, hub listings, web API bodies, the embedded data).
//
// These documents come from the network, a half-finished download or a web
// page, so the parser is stricter than nlohmann's defaults where it matters:
//   - nesting deeper than kMaxJsonDepth levels is an error at parse time (no
//     file preflight reads nests more than a handful of levels). This bound is
//     what makes everything after parsing safe: nlohmann's dump(), its
//     comparison and copies recurse once per level, so a document of 10^5
//     nested arrays would exhaust the stack the first time anything printed it;
//   - a NUL byte is an error (nlohmann's lexer treats NUL as the end of input,
//     so "{...}\0anything" would otherwise parse);
//   - a duplicate object key is an error where the format forbids it (the
//     safetensors README: "Duplicate keys are disallowed"; our own catalogue;
//     API bodies), named by its JSON pointer; config.json keeps the last value,
//     as Python's json module (and so transformers and the engines) does;
//   - errors are one line: the parser's message with control characters
//     escaped and its quote of the input shortened.
// The DOM is built by a SAX handler with an explicit stack, never recursion; a
// document in the plain shape is read by core/plain_json.h first.
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace preflight {

inline constexpr std::size_t kMaxJsonDepth = 512;

enum class DuplicateKeys {
  reject,     // an error naming the key's JSON pointer
  last_wins,  // Python's json.load: the later value replaces the earlier
};

// Parses a whole document. `field` is what a syntax error is reported against
// ("" for the document itself, "header" for a safetensors header).
Result<nlohmann::json> parse_json(std::string_view text, std::string_view origin, std::string_view field = "",
                                  DuplicateKeys duplicates = DuplicateKeys::reject);

// The same without the fast path (core/plain_json.h), which only ever returns what
// this returns and declines everything else (errors included) to it: what the tests
// and the differential fuzz target compare it with.
Result<nlohmann::json> parse_json_full(std::string_view text, std::string_view origin, std::string_view field = "",
                                       DuplicateKeys duplicates = DuplicateKeys::reject);

// Streams the string members of one top-level object (the root's member `object`,
// e.g. "weight_map") to `take` as they are read, instead of storing them in the
// DOM: an index of 497,220 names then costs no DOM node per name. Members whose
// value is not a string stay in the DOM (the reader reports them). `take` may move
// from both strings; an error it returns stops the parse and is returned.
struct StreamedMembers {
  std::string object;
  std::function<std::optional<Error>(std::string& key, std::string& value)> take;
};
Result<nlohmann::json> parse_json(std::string_view text, std::string_view origin, std::string_view field,
                                  DuplicateKeys duplicates, StreamedMembers& streamed);

// Equal values of equal nlohmann types: nlohmann's operator== calls 1u and 1 (and
// 0.0 and -0.0) equal; readers and the differential checks of the fast paths must not.
bool identical_json(const nlohmann::json& a, const nlohmann::json& b);

// One JSON-pointer reference token (RFC 6901: '~' -> "~0", '/' -> "~1"), with
// control characters shown as \u00XX so the pointer stays on one line.
std::string pointer_token(std::string_view key);

// A value as the file wrote it, on one line, at most ~60 characters; bounded
// in depth and length however large the value is (it never calls dump() on a
// container, so it is safe on any DOM).
std::string show(const nlohmann::json& value);

// A string from the input, JSON-quoted (control characters, DEL, C1 controls
// and bidirectional overrides escaped), shortened to ~80 characters.
std::string quote(std::string_view text);

}  // namespace preflight
