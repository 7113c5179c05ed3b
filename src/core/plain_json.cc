// The fast path of parse_json; plain_json.h says what it declines and why.
#include "core/plain_json.h"

#include <charconv>
#include <cstdint>
#include <string>
#include <system_error>

namespace preflight {

namespace {

using nlohmann::json;

// Recursive descent over the text; every reader returns false to decline. The
// recursion is bounded by kPlainJsonDepth.
class PlainJsonReader {
 public:
  explicit PlainJsonReader(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  bool document(json& out) {
    if (!value(out, 0)) return false;
    skip_space();
    return p_ == end_;
  }

 private:
  void skip_space() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }

  bool value(json& out, std::size_t depth) {
    skip_space();
    if (p_ == end_) return false;
    switch (*p_) {
      case '{':
        return object(out, depth + 1);
      case '[':
        return array(out, depth + 1);
      case '"': {
        std::string s;
        if (!string(s)) return false;
        out = std::move(s);
        return true;
      }
      case 't':
        return literal("true", out, json(true));
      case 'f':
        return literal("false", out, json(false));
      case 'n':
        return literal("null", out, json(nullptr));
      default:
        return number(out);
    }
  }

  bool literal(std::string_view word, json& out, json value) {
    if (static_cast<std::size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) return false;
    p_ += word.size();
    out = std::move(value);
    return true;
  }

  bool object(json& out, std::size_t depth) {
    if (depth > kPlainJsonDepth) return false;
    ++p_;  // '{'
    out = json::object();
    auto& members = out.get_ref<json::object_t&>();
    skip_space();
    if (p_ != end_ && *p_ == '}') {
      ++p_;
      return true;
    }
    while (true) {
      skip_space();
      if (p_ == end_ || *p_ != '"') return false;
      std::string key;
      if (!string(key)) return false;
      skip_space();
      if (p_ == end_ || *p_ != ':') return false;
      ++p_;
      auto [slot, inserted] = members.try_emplace(std::move(key));
      if (!inserted) return false;  // a duplicate: the full reader's policy decides
      if (!value(slot->second, depth)) return false;
      skip_space();
      if (p_ == end_) return false;
      if (*p_ == '}') {
        ++p_;
        return true;
      }
      if (*p_ != ',') return false;
      ++p_;
    }
  }

  bool array(json& out, std::size_t depth) {
    if (depth > kPlainJsonDepth) return false;
    ++p_;  // '['
    out = json::array();
    auto& elements = out.get_ref<json::array_t&>();
    skip_space();
    if (p_ != end_ && *p_ == ']') {
      ++p_;
      return true;
    }
    while (true) {
      elements.emplace_back();
      if (!value(elements.back(), depth)) return false;
      skip_space();
      if (p_ == end_) return false;
      if (*p_ == ']') {
        ++p_;
        return true;
      }
      if (*p_ != ',') return false;
      ++p_;
    }
  }

  // RFC 8259 strings; "\u" escapes declined; UTF-8 as RFC 3629 (Unicode's table 3-7).
  bool string(std::string& out) {
    ++p_;  // '"'
    const char* run = p_;
    while (true) {
      if (p_ == end_) return false;
      const auto b = static_cast<unsigned char>(*p_);
      if (b == '"') {
        out.append(run, p_);
        ++p_;
        return true;
      }
      if (b < 0x20) return false;
      if (b == '\\') {
        out.append(run, p_);
        if (end_ - p_ < 2) return false;
        switch (p_[1]) {
          case '"':
            out.push_back('"');
            break;
          case '\\':
            out.push_back('\\');
            break;
          case '/':
            out.push_back('/');
            break;
          case 'b':
            out.push_back('\b');
            break;
          case 'f':
            out.push_back('\f');
            break;
          case 'n':
            out.push_back('\n');
            break;
          case 'r':
            out.push_back('\r');
            break;
          case 't':
            out.push_back('\t');
            break;
          default:
            return false;  // "\u" and anything invalid
        }
        p_ += 2;
        run = p_;
        continue;
      }
      if (b < 0x80) {
        ++p_;
        continue;
      }
      if (!utf8_sequence()) return false;
    }
  }

  // One well-formed multi-byte UTF-8 sequence at p_, stepped over.
  bool utf8_sequence() {
    const auto at = [&](std::ptrdiff_t i) { return static_cast<unsigned char>(p_[i]); };
    const auto in = [](unsigned char b, unsigned char lo, unsigned char hi) { return b >= lo && b <= hi; };
    const std::ptrdiff_t left = end_ - p_;
    const unsigned char b0 = at(0);
    if (in(b0, 0xC2, 0xDF)) {
      if (left < 2 || !in(at(1), 0x80, 0xBF)) return false;
      p_ += 2;
      return true;
    }
    if (in(b0, 0xE0, 0xEF)) {
      if (left < 3) return false;
      const unsigned char lo = b0 == 0xE0 ? 0xA0 : 0x80, hi = b0 == 0xED ? 0x9F : 0xBF;
      if (!in(at(1), lo, hi) || !in(at(2), 0x80, 0xBF)) return false;
      p_ += 3;
      return true;
    }
    if (in(b0, 0xF0, 0xF4)) {
      if (left < 4) return false;
      const unsigned char lo = b0 == 0xF0 ? 0x90 : 0x80, hi = b0 == 0xF4 ? 0x8F : 0xBF;
      if (!in(at(1), lo, hi) || !in(at(2), 0x80, 0xBF) || !in(at(3), 0x80, 0xBF)) return false;
      p_ += 4;
      return true;
    }
    return false;
  }

  // RFC 8259 numbers. Integers as nlohmann types them; "-0" and integers outside
  // int64 / uint64 declined, as are numbers from_chars cannot hold (its doubles are
  // correctly rounded, as the full reader's strtod is).
  bool number(json& out) {
    const char* start = p_;
    const bool negative = p_ != end_ && *p_ == '-';
    if (negative) ++p_;
    const char* digits = p_;
    while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    if (p_ == digits || (*digits == '0' && p_ - digits > 1)) return false;
    bool integer = true;
    if (p_ != end_ && *p_ == '.') {
      integer = false;
      const char* fraction = ++p_;
      while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
      if (p_ == fraction) return false;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      integer = false;
      ++p_;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      const char* exponent = p_;
      while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
      if (p_ == exponent) return false;
    }
    if (integer && negative) {
      std::int64_t v = 0;
      const auto r = std::from_chars(start, p_, v);
      if (r.ec != std::errc() || r.ptr != p_ || v == 0) return false;
      out = v;
      return true;
    }
    if (integer) {
      std::uint64_t v = 0;
      const auto r = std::from_chars(start, p_, v);
      if (r.ec != std::errc() || r.ptr != p_) return false;
      out = v;
      return true;
    }
    double v = 0;
    const auto r = std::from_chars(start, p_, v);
    if (r.ec != std::errc() || r.ptr != p_) return false;
    out = v;
    return true;
  }

  const char* p_;
  const char* end_;
};

}  // namespace

std::optional<nlohmann::json> parse_plain_json(std::string_view text) {
  json root;
  PlainJsonReader reader(text);
  if (!reader.document(root)) return std::nullopt;
  return root;
}

}  // namespace preflight
