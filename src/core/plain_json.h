// The fast path of parse_json (json_read.h) for documents in the plain shape every
// file preflight embeds or reads is written in: nlohmann's lexer reads a byte at a
// time, about 85 instructions a byte here, and through it the embedded GPU catalogue
// (52 KB), model catalogue and architecture descriptions take 8.5M of a Kimi K3
// plan's 52M instructions.
//
// It accepts only what the full reader accepts, with the identical DOM (the same
// nlohmann types: non-negative integers unsigned, negative ones signed, the rest
// double), and declines everything else to it, so only the full reader words
// errors. It declines:
//   - any syntax error, and a document nested deeper than kPlainJsonDepth;
//   - "\u" escapes (the other escapes are read), control bytes, and bytes >= 0x80
//     that are not well-formed UTF-8 (RFC 3629: no overlongs, surrogates or values
//     above U+10FFFF);
//   - "-0", integers outside int64 / uint64, numbers std::from_chars cannot hold;
//   - any duplicate key (the full reader refuses it or keeps the last, by policy);
//   - a byte-order mark (the full reader skips it).
// Checked by tests over every JSON file of the repository (core/plain_json_test.cc)
// and the differential fuzz target fuzz/plain_json_fuzz.cc.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

namespace preflight {

inline constexpr std::size_t kPlainJsonDepth = 64;

// The document's DOM, or nullopt where the full reader must read it.
std::optional<nlohmann::json> parse_plain_json(std::string_view text);

}  // namespace preflight
