// A fast path for safetensors shard headers: the shape every writer produces,
// scanned without a general JSON parser (Kimi K3's 96 headers hold 497,220
// entries, and nlohmann's lexer takes most of the time of reading them).
//
// It accepts only the plain shape and declines everything else, so it never
// decides what is an error: the caller falls back to the full reader, which
// words every error. Accepted: one object of
//   "NAME": {"dtype": "BF16", "shape": [N, ...], "data_offsets": [BEGIN, END]}
// (the three keys once each, in any order, no others) and at most one
// "__metadata__": {"key": "value", ...}; strings of printable ASCII without
// escapes; integers without sign, fraction, exponent or leading zero, below
// 2^64; JSON whitespace (the format's space padding included); nothing after.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace preflight {

struct PlainHeaderEntry {
  std::string_view name;
  std::string_view dtype;
  std::vector<std::uint64_t> shape;
  std::vector<std::uint64_t> offsets;  // data_offsets as written (the reader checks there are two)
};

struct PlainHeaderScan {
  std::vector<PlainHeaderEntry> tensors;  // in file order
  std::vector<std::pair<std::string_view, std::string_view>> metadata;
  bool has_metadata = false;
};

std::optional<PlainHeaderScan> scan_plain_header(std::string_view text);

}  // namespace preflight
