#include "artifact/plain_index_scan.h"

#include <cstring>

namespace preflight {

namespace {

// A cursor over the text; every reader returns false to decline.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

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

}  // namespace

std::optional<PlainIndexScan> scan_plain_index(std::string_view text) {
  Scanner s(text);
  PlainIndexScan out;
  if (!s.take('{')) return std::nullopt;
  if (!s.take('}')) {
    do {
      std::string_view key;
      if (!s.plain_string(key) || !s.take(':')) return std::nullopt;
      if (key == "weight_map") {
        if (out.has_weight_map) return std::nullopt;
        out.has_weight_map = true;
        if (!s.take('{')) return std::nullopt;
        if (s.take('}')) continue;
        do {
          std::string_view name, file;
          if (!s.plain_string(name) || !s.take(':') || !s.peek('"') || !s.plain_string(file)) return std::nullopt;
          out.weight_map.emplace_back(name, file);
        } while (s.take(','));
        if (!s.take('}')) return std::nullopt;
      } else {
        for (const auto& [seen, ignored] : out.others)
          if (seen == key) return std::nullopt;
        std::string_view value;
        if (!s.value(value, 1)) return std::nullopt;
        out.others.emplace_back(key, value);
      }
    } while (s.take(','));
    if (!s.take('}')) return std::nullopt;
  }
  s.skip_space();
  if (!s.at_end()) return std::nullopt;
  return out;
}

}  // namespace preflight
