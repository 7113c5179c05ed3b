// The reading half of the fast paths for large JSON files: a cursor
// that accepts only plain tokens (printable-ASCII strings without escapes,
// unsigned integers, one level of containers) and says false for anything else,
// so its callers decline and leave the text to the full JSON reader
// (core/json_read.h), which words every error.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace preflight {

// A cursor over the text; every reader returns false to decline.
class PlainJsonScanner {
 public:
  explicit PlainJsonScanner(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  bool at_end() const { return p_ == end_; }

  // JSON whitespace (RFC 8259: space, tab, line feed, carriage return).
  void skip_space() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }

  bool take(char c) {
    skip_space();
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }

  // A JSON integer in 0..2^64-1 without sign, fraction, exponent or leading zero.
  bool count(std::uint64_t& out) {
    skip_space();
    const char* start = p_;
    std::uint64_t n = 0;
    while (p_ != end_ && *p_ >= '0' && *p_ <= '9') {
      const auto digit = static_cast<std::uint64_t>(*p_ - '0');
      if (n > (UINT64_MAX - digit) / 10) return false;
      n = n * 10 + digit;
      ++p_;
    }
    if (p_ == start || (*start == '0' && p_ - start > 1)) return false;
    if (p_ != end_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E')) return false;
    out = n;
    return true;
  }

  bool peek(char c) {
    skip_space();
    return p_ != end_ && *p_ == c;
  }

  // A string of printable ASCII without escapes, its contents into `out`.
  bool plain_string(std::string_view& out) {
    if (!take('"')) return false;
    const char* start = p_;
    const void* quote = std::memchr(p_, '"', static_cast<std::size_t>(end_ - p_));
    if (quote == nullptr) return false;
    const char* stop = static_cast<const char*>(quote);
    for (const char* c = start; c != stop; ++c) {
      const auto b = static_cast<unsigned char>(*c);
      if (b < 0x20 || b > 0x7e || b == '\\') return false;
    }
    out = std::string_view(start, static_cast<std::size_t>(stop - start));
    p_ = stop + 1;
    return true;
  }

  // A scalar token: the run of bytes up to the next delimiter. Its validity is
  // the full reader's to judge (the value's text is parsed again there).
  bool scalar() {
    skip_space();
    const char* start = p_;
    while (p_ != end_) {
      const char c = *p_;
      if (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t') break;
      const auto b = static_cast<unsigned char>(c);
      if (b < 0x20 || b > 0x7e || c == '"' || c == '\\' || c == '{' || c == '[' || c == ':') return false;
      ++p_;
    }
    return p_ != start;
  }

  // {"key": "value", ...}: each pair to `sink`, which returns false to decline.
  template <typename Sink>
  bool string_object(Sink&& sink) {
    if (!take('{')) return false;
    if (take('}')) return true;
    do {
      std::string_view key, value;
      if (!plain_string(key) || !take(':') || !peek('"') || !plain_string(value) || !sink(key, value)) return false;
    } while (take(','));
    return take('}');
  }

  // The whole text as one object: each member's key to `member`, which reads
  // the member's value (false declines); nothing but whitespace after it.
  template <typename Member>
  bool object_document(Member&& member) {
    if (!take('{')) return false;
    if (!take('}')) {
      do {
        std::string_view key;
        if (!plain_string(key) || !take(':') || !member(key)) return false;
      } while (take(','));
      if (!take('}')) return false;
    }
    skip_space();
    return at_end();
  }

  // A value: a plain string, a scalar, or (when `depth` allows) an object or
  // array of such values. Its text into `out`.
  bool value(std::string_view& out, int depth) {
    skip_space();
    const char* start = p_;
    if (p_ == end_) return false;
    if (*p_ == '"') {
      std::string_view ignored;
      if (!plain_string(ignored)) return false;
    } else if (*p_ == '{' || *p_ == '[') {
      if (depth == 0) return false;
      const char close = *p_ == '{' ? '}' : ']';
      const bool object = *p_ == '{';
      ++p_;
      if (!take(close)) {
        do {
          std::string_view ignored;
          if (object && (!plain_string(ignored) || !take(':'))) return false;
          if (!value(ignored, depth - 1)) return false;
        } while (take(','));
        if (!take(close)) return false;
      }
    } else if (!scalar()) {
      return false;
    }
    out = std::string_view(start, static_cast<std::size_t>(p_ - start));
    return true;
  }

 private:
  const char* p_;
  const char* end_;
};

}  // namespace preflight
