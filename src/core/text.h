// Small text helpers shared by the parsers, and the rules for echoing text
// that came from a user or a file.
//
// Anything preflight did not write itself (a MODEL argument, a flag's value, a
// config's "architectures", a tensor name from a shard header) can hold bytes a
// terminal acts on: a newline that splits a one-line error, ESC sequences that
// clear the screen or retitle the window, C1 controls (U+0080..U+009F, which
// some terminals treat as ESC [), bidirectional overrides that reorder what is
// shown. The helpers below turn those into visible escapes (\n, \x1b, \u202e)
// and bound the length, so an echoed value can neither forge output nor flood it.
#pragma once

#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>

namespace preflight {

inline std::string to_lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Every control character escaped (\n, \r, \t, \xHH for other C0 bytes and
// DEL, \uHHHH for C1 controls and bidirectional formatting characters), and
// each byte of malformed UTF-8 as \xHH. Printable text, UTF-8 included, is kept.
std::string escape_control(std::string_view text);

// Whether escape_control would change `text` (a control character, a C1
// control, a line separator, a bidirectional override or malformed UTF-8):
// printable ASCII is settled byte by byte, without decoding UTF-8.
bool has_control(std::string_view text);

// Like escape_control, but newlines and tabs are kept: for multi-line reports
// (a table, an inventory) whose cells may hold text from files.
std::string terminal_safe(std::string_view text);

// A user's value for an error message: escaped, in single quotes, and cut to
// about `max` bytes (at a UTF-8 boundary) with "..." and how much was left out.
//   echo("kimi\nk3") == "'kimi\\nk3'"
std::string echo(std::string_view text, std::size_t max = 80);

// A whole message made safe for one line: escape_control, then cut to `max`
// bytes with a note of how much was left out. The front ends pass every error
// through it, so no input can make an error span two lines or 100 KB.
std::string one_line(std::string_view message, std::size_t max = 1000);

// The longest prefix of at most `max` bytes that does not split a UTF-8 sequence.
std::string_view utf8_prefix(std::string_view text, std::size_t max);

}  // namespace preflight
