// Strict JSON reading for artifact files; see artifact_json.h for the rules.
#include "artifact/artifact_json.h"

#include <fmt/format.h>

#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

namespace preflight::artifact {

namespace {

using nlohmann::json;

// Length in bytes of the UTF-8 sequence starting at text[i], or 0 when the
// bytes there are not a well-formed sequence (structure only: lead byte and
// continuation bytes).
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  std::size_t length = 0;
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) length = 2;
  else if ((lead & 0xF0) == 0xE0) length = 3;
  else if ((lead & 0xF8) == 0xF0) length = 4;
  else return 0;
  if (i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k)
    if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return 0;
  return length;
}

// The longest prefix of at most `max` bytes that does not split a UTF-8 sequence.
std::string_view utf8_prefix(std::string_view text, std::size_t max) {
  if (text.size() <= max) return text;
  std::size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut);
}

// A message that may quote raw input (nlohmann's "last read: '...'") made safe
// for one line: control characters become spaces, broken UTF-8 becomes '?'.
std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7F) {
      out.push_back(' ');
      ++i;
      continue;
    }
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) {
      out.push_back('?');
      ++i;
      continue;
    }
    out.append(text.substr(i, length));
    i += length;
  }
  return out;
}

// nlohmann's "last read: '...'" quotes everything since the previous token,
// which for a long string or trailing garbage can be most of the document; keep
// its tail, where the problem is.
std::string shorten_last_read(std::string message) {
  constexpr std::string_view kOpen = "; last read: '";
  constexpr std::size_t kKeep = 40;
  const std::size_t open = message.find(kOpen);
  if (open == std::string::npos) return message;
  const std::size_t start = open + kOpen.size();
  const std::size_t close = message.find("'; ", start);
  const std::size_t end = close == std::string::npos ? message.size() : close;
  if (end - start <= kKeep) return message;
  std::size_t cut = end - (kKeep - 3);
  while (cut < end && (static_cast<unsigned char>(message[cut]) & 0xC0) == 0x80) ++cut;
  return message.substr(0, start) + "..." + message.substr(cut);
}

// Builds the DOM from SAX events, refusing duplicate keys. It keeps a stack of
// the open containers instead of recursing; a new value goes into the open
// array, or into the slot the last key created in the open object.
class StrictDomBuilder final : public nlohmann::json_sax<json> {
 public:
  explicit StrictDomBuilder(json& root) : root_(root) {}

  bool null() override { return put(json(nullptr)); }
  bool boolean(bool value) override { return put(json(value)); }
  bool number_integer(number_integer_t value) override { return put(json(value)); }
  bool number_unsigned(number_unsigned_t value) override { return put(json(value)); }
  bool number_float(number_float_t value, const string_t& /*text*/) override {
    return put(json(value));
  }
  bool string(string_t& value) override { return put(json(std::move(value))); }
  bool binary(binary_t& value) override { return put(json::binary(std::move(value))); }

  bool start_object(std::size_t /*elements*/) override { return open(json::object()); }
  bool start_array(std::size_t /*elements*/) override { return open(json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }

  bool key(string_t& name) override {
    auto& members = stack_.back()->get_ref<json::object_t&>();
    // try_emplace leaves `name` untouched when the key exists, so it can still be reported.
    auto [it, inserted] = members.try_emplace(std::move(name));
    if (!inserted) {
      duplicate_pointer_ = pointer_of_open_container() + "/" + pointer_token(name);
      return false;  // stops the parse
    }
    slot_ = &it->second;
    return true;
  }

  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/,
                   const json::exception& error) override {
    syntax_error_ = error.what();
    return false;
  }

  const std::string& duplicate_pointer() const { return duplicate_pointer_; }
  const std::string& syntax_error() const { return syntax_error_; }
  bool too_deep() const { return too_deep_; }

  // No artifact file nests more than a handful of levels (a hub listing's
  // config is the deepest); the cap bounds the memory a hostile file can make
  // the container stack use.
  static constexpr std::size_t kMaxDepth = 512;

 private:
  // Where the next value goes: the root, a new element of the open array, or
  // the slot of the key just read.
  json* next_place() {
    if (stack_.empty()) return &root_;
    json& top = *stack_.back();
    if (top.is_array()) {
      auto& elements = top.get_ref<json::array_t&>();
      elements.emplace_back();
      return &elements.back();
    }
    return slot_;
  }

  bool put(json value) {
    *next_place() = std::move(value);
    return true;
  }

  bool open(json container) {
    if (stack_.size() >= kMaxDepth) {
      too_deep_ = true;
      return false;  // stops the parse
    }
    json* place = next_place();
    *place = std::move(container);
    stack_.push_back(place);
    return true;
  }

  bool close() {
    stack_.pop_back();
    return true;
  }

  // The JSON pointer of the innermost open container, found by locating each
  // open container inside its parent. Only computed for an error, so the scan
  // over an object's members costs nothing on valid input.
  std::string pointer_of_open_container() const {
    std::string pointer;
    for (std::size_t level = 0; level + 1 < stack_.size(); ++level) {
      const json& parent = *stack_[level];
      const json* child = stack_[level + 1];
      if (parent.is_array()) {
        pointer += fmt::format("/{}", parent.size() - 1);  // the open child is the last element
        continue;
      }
      for (const auto& [name, value] : parent.get_ref<const json::object_t&>()) {
        if (&value == child) {
          pointer += "/" + pointer_token(name);
          break;
        }
      }
    }
    return pointer;
  }

  json& root_;
  std::vector<json*> stack_;
  json* slot_ = nullptr;
  std::string duplicate_pointer_;
  std::string syntax_error_;
  bool too_deep_ = false;
};

}  // namespace

Result<json> parse_json_document(std::string_view text, std::string_view origin,
                                 std::string_view field) {
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos)
    return Error{std::string(origin), std::string(field),
                 fmt::format("invalid JSON: NUL byte at offset {}", nul)};
  json root;
  StrictDomBuilder builder(root);
  bool ok = false;
  try {
    ok = json::sax_parse(text.begin(), text.end(), &builder);
  } catch (const json::exception& e) {
    // sax_parse reports syntax errors through parse_error(); anything thrown
    // here is still bad input, never a crash.
    return Error{std::string(origin), std::string(field),
                 "invalid JSON: " + printable(e.what())};
  }
  if (ok) return root;
  if (builder.too_deep())
    return Error{std::string(origin), std::string(field),
                 fmt::format("invalid JSON: nested deeper than {} levels",
                             StrictDomBuilder::kMaxDepth)};
  if (!builder.duplicate_pointer().empty())
    return Error{std::string(origin), builder.duplicate_pointer(),
                 "duplicate key (a second value would silently replace the first)"};
  std::string_view what = builder.syntax_error();
  // what() is "[json.exception.parse_error.101] parse error at line 1, ...".
  if (const std::size_t close = what.find("] ");
      what.starts_with("[json.exception.") && close != std::string_view::npos)
    what.remove_prefix(close + 2);
  return Error{std::string(origin), std::string(field),
               "invalid JSON: " + shorten_last_read(printable(what))};
}

std::string pointer_token(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (char c : key) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else if (u < 0x20 || u == 0x7F) out += fmt::format("\\u{:04x}", u);
    else out.push_back(c);
  }
  return out;
}

std::string quote(std::string_view text) {
  constexpr std::size_t kMax = 80;
  const std::string_view head = utf8_prefix(text, kMax);
  std::string out = json(std::string(head)).dump(-1, ' ', false, json::error_handler_t::replace);
  if (head.size() < text.size()) out += "...";
  return out;
}

namespace {

// Appends a short rendering of `value`; stops adding once `budget` characters
// are written and never descends more than three levels.
void render(const json& value, std::string& out, int depth, std::size_t budget) {
  switch (value.type()) {
    case json::value_t::object:
    case json::value_t::array: {
      const bool object = value.is_object();
      if (depth >= 3) {
        out += object ? "{...}" : "[...]";
        return;
      }
      out.push_back(object ? '{' : '[');
      bool first = true;
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (out.size() > budget) {
          out += ",...";
          break;
        }
        if (!first) out.push_back(',');
        first = false;
        if (object) out += quote(it.key()) + ":";
        render(it.value(), out, depth + 1, budget);
      }
      out.push_back(object ? '}' : ']');
      return;
    }
    case json::value_t::string:
      out += quote(value.get_ref<const std::string&>());
      return;
    default:
      out += value.dump(-1, ' ', false, json::error_handler_t::replace);
      return;
  }
}

}  // namespace

std::string show(const json& value) {
  constexpr std::size_t kMax = 60;
  std::string out;
  render(value, out, 0, kMax);
  if (out.size() > kMax) out = std::string(utf8_prefix(out, kMax)) + "...";
  return out;
}

std::optional<std::uint64_t> as_count(const json& value) {
  if (value.is_number_unsigned()) return value.get<std::uint64_t>();
  if (value.is_number_integer() && value.get<std::int64_t>() == 0) return 0;  // "-0"
  return std::nullopt;
}

std::optional<std::uint64_t> count_from_digits(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::uint64_t n = 0;
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (n > (kMax - digit) / 10) return std::nullopt;
    n = n * 10 + digit;
  }
  return n;
}

std::string relative_path_problem(std::string_view path) {
  if (path.empty()) return "is empty";
  if (path.front() == '/') return "is an absolute path";
  for (char c : path) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\\') return "contains a backslash";
    if (u < 0x20 || u == 0x7F) return "contains a control character";
  }
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (path.substr(start, slash - start) == "..") return "has a \"..\" component";
    start = slash + 1;
  }
  return "";
}

}  // namespace preflight::artifact
