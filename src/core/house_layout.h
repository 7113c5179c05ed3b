// Reading one entry of an embedded catalogue without parsing the whole file:
// the GPU and model catalogues are written in one layout (a
// top-level list whose entries open and close at four spaces, their keys at
// six), so a plan finds the entry it needs by its key lines and parses only
// that entry. Every reader falls back to the full parse when the text is not in
// this layout; the callers' tests check that the quick answers equal the full
// parse's and that the quick path is taken.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace preflight {

// The text of each entry ("{" to "}") of the top-level list `key`; nullopt when
// the text does not have it in the layout.
std::optional<std::vector<std::string_view>> house_layout_entries(std::string_view text, std::string_view key);

// The value of an entry's own `key` (a line at six spaces), read from its first
// character up to the first `close` (a string's '"', a list's ']'): some lines
// hold two keys. nullopt when absent or not plain JSON (core/plain_json.h).
std::optional<nlohmann::json> house_layout_value(std::string_view entry, std::string_view key, char close);

// An entry's own string value (its "id", "name"); nullopt when absent or not a string.
std::optional<std::string> house_layout_string(std::string_view entry, std::string_view key);

// An entry's list of strings (its "aliases"): empty when the key is absent,
// nullopt when its line is not a plain list of strings.
std::optional<std::vector<std::string>> house_layout_strings(std::string_view entry, std::string_view key);

}  // namespace preflight
