#include "core/json_write.h"

#include <charconv>
#include <string_view>

#include "core/ascii_runs.h"

namespace preflight {

namespace {

using json = nlohmann::json;

// nlohmann's own writing of one value, for what the fast path leaves to it.
void append_by_nlohmann(const json& j, std::string& out) {
  out += j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// A string in quotes, escaped as serializer::dump_escaped does with ensure_ascii
// off: \b \t \n \f \r \" \\ by name, other bytes below 0x20 as \u00xx (lowercase
// hex), everything else as it is. Returns false, having written nothing, when the
// string has a byte of 0x80 or more (UTF-8, valid or not: nlohmann decides).
bool append_ascii_string(std::string_view s, std::string& out) {
  const std::size_t start = out.size();
  out += '"';
  std::size_t run = 0;  // start of the bytes not yet written
  for (std::size_t i = 0; i < s.size(); ++i) {
    i = json_plain_end(s.data(), i, s.size());
    if (i == s.size()) break;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      out.resize(start);
      return false;
    }
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      default: {
        constexpr char kHex[] = "0123456789abcdef";
        const char u[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
        out.append(u, sizeof u);
      }
    }
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
  return true;
}

void append_string(const std::string& s, std::string& out) {
  if (!append_ascii_string(s, out)) append_by_nlohmann(json(s), out);
}

template <typename Int>
void append_integer(Int v, std::string& out) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void write(const json& j, int indent, int depth, std::string& out);

// An object's members or an array's elements between `open` and `close`, each
// on its own line when indented: "{\n  \"a\": 1,\n  \"b\": 2\n}" (dump's layout).
void write_container(const json& j, char open, char close, int indent, int depth, std::string& out) {
  if (j.empty()) {
    out += open;
    out += close;
    return;
  }
  const bool pretty = indent >= 0;
  out += open;
  bool first = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!first) out += ',';
    first = false;
    if (pretty) {
      out += '\n';
      out.append(static_cast<std::size_t>(indent) * (depth + 1), ' ');
    }
    if (j.is_object()) {
      append_string(it.key(), out);
      out += pretty ? ": " : ":";
    }
    write(it.value(), indent, depth + 1, out);
  }
  if (pretty) {
    out += '\n';
    out.append(static_cast<std::size_t>(indent) * depth, ' ');
  }
  out += close;
}

void write(const json& j, int indent, int depth, std::string& out) {
  switch (j.type()) {
    case json::value_t::object:
      write_container(j, '{', '}', indent, depth, out);
      return;
    case json::value_t::array:
      write_container(j, '[', ']', indent, depth, out);
      return;
    case json::value_t::string:
      append_string(j.get_ref<const std::string&>(), out);
      return;
    case json::value_t::boolean:
      out += j.get<bool>() ? "true" : "false";
      return;
    case json::value_t::null:
      out += "null";
      return;
    case json::value_t::number_integer:
      append_integer(j.get<std::int64_t>(), out);
      return;
    case json::value_t::number_unsigned:
      append_integer(j.get<std::uint64_t>(), out);
      return;
    case json::value_t::number_float:
    case json::value_t::discarded:
      append_by_nlohmann(j, out);
      return;
    case json::value_t::binary:  // never in preflight's documents: nlohmann writes it, on one line
      append_by_nlohmann(j, out);
      return;
  }
}

}  // namespace

std::string write_json(const json& j, int indent) {
  std::string out;
  write(j, indent, 0, out);
  return out;
}

}  // namespace preflight
