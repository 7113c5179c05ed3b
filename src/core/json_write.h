// Writing a JSON document as the commands print it: the same bytes as
// nlohmann's dump(indent, ' ', false, error_handler_t::replace), written without
// its per-byte UTF-8 state machine. A Kimi K3 plan's JSON is ~93 KB, and
// nlohmann's escaping decodes every byte of it (~2.3M instructions). Strings of
// plain ASCII are escaped here; a string with any other byte, and every floating
// number, is written by nlohmann itself, so those keep its exact rules (U+FFFD
// for invalid UTF-8, shortest round-trip doubles, null for NaN).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace preflight {

// `j` with `indent` spaces per level (negative: one line), as dump() writes it.
std::string write_json(const nlohmann::json& j, int indent);

}  // namespace preflight
