#include "core/text.h"

#include <fmt/format.h>

#include <cstdint>

#include "core/ascii_runs.h"

namespace preflight {

namespace {

// Length of the well-formed UTF-8 sequence at text[i] and its code point;
// 0 when the bytes there are not one (a stray continuation byte, a truncated
// or overlong sequence, a surrogate, a value beyond U+10FFFF).
std::size_t utf8_sequence(std::string_view text, std::size_t i, std::uint32_t& code) {
  const auto lead = static_cast<unsigned char>(text[i]);
  std::size_t length = 0;
  if (lead < 0x80) {
    code = lead;
    return 1;
  }
  if ((lead & 0xE0) == 0xC0)
    length = 2, code = lead & 0x1Fu;
  else if ((lead & 0xF0) == 0xE0)
    length = 3, code = lead & 0x0Fu;
  else if ((lead & 0xF8) == 0xF0)
    length = 4, code = lead & 0x07u;
  else
    return 0;
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    const auto c = static_cast<unsigned char>(text[i + k]);
    if ((c & 0xC0) != 0x80) return 0;
    code = (code << 6) | (c & 0x3Fu);
  }
  static constexpr std::uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < kMin[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return length;
}

// C1 controls, the line and paragraph separators (U+2028, U+2029: a new line
// to JavaScript, Python's splitlines and some editors), and the formatting
// characters that reorder or hide text (bidirectional embeddings, overrides
// and isolates; "Trojan Source", CVE-2021-42574).
bool is_unsafe_code_point(std::uint32_t code) {
  return (code >= 0x80 && code <= 0x9F) || code == 0x2028 || code == 0x2029 || (code >= 0x202A && code <= 0x202E) ||
         (code >= 0x2066 && code <= 0x2069) || code == 0x200E || code == 0x200F || code == 0x061C;
}

std::string escape(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    // A run of printable ASCII (nearly all of a report) is safe as it is: copied
    // whole, not a code point at a time (a K3 JSON plan is ~100 KB through here).
    const std::size_t run = printable_ascii_end(text.data(), i, text.size());
    if (run > i) {
      out.append(text.data() + i, run - i);
      i = run;
      continue;
    }
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7F) {
      if (keep_newlines && (c == '\n' || c == '\t'))
        out.push_back(static_cast<char>(c));
      else if (c == '\n')
        out += "\\n";
      else if (c == '\r')
        out += "\\r";
      else if (c == '\t')
        out += "\\t";
      else
        out += fmt::format("\\x{:02x}", c);
      ++i;
      continue;
    }
    std::uint32_t code = 0;
    const std::size_t length = utf8_sequence(text, i, code);
    if (length == 0) {
      out += fmt::format("\\x{:02x}", c);
      ++i;
      continue;
    }
    if (is_unsafe_code_point(code))
      out += fmt::format("\\u{:04x}", code);
    else
      out.append(text.substr(i, length));
    i += length;
  }
  return out;
}

}  // namespace

std::string_view utf8_prefix(std::string_view text, std::size_t max) {
  if (text.size() <= max) return text;
  std::size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

std::string escape_control(std::string_view text) { return escape(text, false); }

bool has_control(std::string_view text) {
  for (const unsigned char c : text)
    if (c < 0x20 || c >= 0x7f) return escape_control(text) != text;
  return false;
}

std::string terminal_safe(std::string_view text) { return escape(text, true); }

std::string echo(std::string_view text, std::size_t max) {
  // Escape a bounded prefix only: a 100 KB value costs no more than a short one.
  const std::string_view head = utf8_prefix(text, max);
  std::string out = "'" + escape_control(head) + "'";
  if (head.size() < text.size()) out += fmt::format("... ({} bytes in all)", text.size());
  return out;
}

std::string one_line(std::string_view message, std::size_t max) {
  // Escaping turns a byte into at most four (\xHH), so 4 x max bytes of input suffice.
  const std::string_view head = utf8_prefix(message, max * 4);
  std::string out = escape_control(head);
  if (out.size() <= max && head.size() == message.size()) return out;
  out.resize(utf8_prefix(out, max).size());
  return fmt::format("{}... ({} bytes in all)", out, message.size());
}

}  // namespace preflight
