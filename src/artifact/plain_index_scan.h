// A fast path for model.safetensors.index.json: the shape every writer
// produces, scanned without a general JSON parser. Kimi K3's index
// (497,220 names, 40 MB) costs 5.5G instructions through nlohmann's lexer,
// about 100 per byte; this scanner reads each byte once.
//
// It accepts only the plain shape and declines everything else, so it never
// decides what is an error: the caller falls back to the full reader, which
// words every error. Accepted:
//   - one top-level object; JSON whitespace between tokens; nothing after it;
//   - strings of printable ASCII without escapes (0x20-0x7E, no '\\'): every
//     name a writer emits; anything else declines;
//   - "weight_map": an object of string -> string;
//   - other top-level members (normally "metadata"): any value whose containers
//     nest at most one level (an object of scalars), returned as text for the
//     full reader to parse, so their numbers are read exactly as it reads them.
// A repeated top-level key declines (the full reader names the duplicate).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace preflight {

struct PlainIndexScan {
  bool has_weight_map = false;
  std::size_t weight_map_entries = 0;
  // Every other top-level member: key and its value's text.
  std::vector<std::pair<std::string_view, std::string_view>> others;
};

// weight_map members go to `take` in file order, as views into `text` (nothing
// is stored per member); `take` returns false to decline.
using IndexMemberSink = std::function<bool(std::string_view name, std::string_view file)>;
std::optional<PlainIndexScan> scan_plain_index(std::string_view text, const IndexMemberSink& take);

}  // namespace preflight
