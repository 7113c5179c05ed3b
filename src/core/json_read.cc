// Strict JSON reading; see json_read.h for the rules.
#include "core/json_read.h"

#include <fmt/format.h>

#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

#include "core/plain_json.h"
#include "core/text.h"

namespace preflight {

namespace {

using nlohmann::json;

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

// Builds the DOM from SAX events under the duplicate-key policy. It keeps a stack of
// the open containers instead of recursing; a new value goes into the open
// array, or into the slot the last key created in the open object.
class StrictDomBuilder final : public nlohmann::json_sax<json> {
 public:
  StrictDomBuilder(json& root, DuplicateKeys duplicates, StreamedMembers* streamed = nullptr)
      : root_(root), duplicates_(duplicates), streamed_(streamed) {}

  bool null() override { return put(json(nullptr)); }
  bool boolean(bool value) override { return put(json(value)); }
  bool number_integer(number_integer_t value) override { return put(json(value)); }
  bool number_unsigned(number_unsigned_t value) override { return put(json(value)); }
  bool number_float(number_float_t value, const string_t& /*text*/) override { return put(json(value)); }
  bool string(string_t& value) override {
    if (pending_) {
      pending_ = false;
      if (auto e = streamed_->take(pending_key_, value)) {
        streamed_error_ = std::move(*e);
        return false;  // stops the parse
      }
      return true;
    }
    return put(json(std::move(value)));
  }
  bool binary(binary_t& value) override { return put(json::binary(std::move(value))); }

  bool start_object(std::size_t /*elements*/) override {
    if (!settle_pending()) return false;
    // The streamed object: a member of the root, under the name the caller gave.
    const bool streamed = streamed_ != nullptr && stack_.size() == 1 && stack_.back()->is_object() &&
                          slot_ != nullptr && root_key_ == streamed_->object;
    if (!open(json::object())) return false;
    if (streamed) streamed_container_ = stack_.back();
    return true;
  }
  bool start_array(std::size_t /*elements*/) override {
    if (!settle_pending()) return false;
    return open(json::array());
  }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }

  bool key(string_t& name) override {
    if (streamed_container_ != nullptr && stack_.back() == streamed_container_) {
      pending_ = true;  // a string value goes to the sink; anything else settles into the DOM
      pending_key_ = std::move(name);
      return true;
    }
    if (streamed_ != nullptr && stack_.size() == 1) root_key_ = name;
    return insert_key(name);
  }

  bool insert_key(string_t& name) {
    auto& members = stack_.back()->get_ref<json::object_t&>();
    // try_emplace leaves `name` untouched when the key exists, so it can still be reported.
    auto [it, inserted] = members.try_emplace(std::move(name));
    if (!inserted && duplicates_ == DuplicateKeys::last_wins) {
      it->second = json();  // the later value replaces the earlier, as Python's json does
    } else if (!inserted) {
      duplicate_pointer_ = pointer_of_open_container() + "/" + pointer_token(name);
      return false;  // stops the parse
    }
    slot_ = &it->second;
    return true;
  }

  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/, const json::exception& error) override {
    syntax_error_ = error.what();
    return false;
  }

  const std::string& duplicate_pointer() const { return duplicate_pointer_; }
  const std::optional<Error>& streamed_error() const { return streamed_error_; }
  const std::string& syntax_error() const { return syntax_error_; }
  bool too_deep() const { return too_deep_; }

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

  // A streamed member whose value is not a string: into the DOM after all.
  bool settle_pending() {
    if (!pending_) return true;
    pending_ = false;
    return insert_key(pending_key_);
  }

  bool put(json value) {
    if (!settle_pending()) return false;
    *next_place() = std::move(value);
    return true;
  }

  bool open(json container) {
    if (stack_.size() >= kMaxJsonDepth) {
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
  DuplicateKeys duplicates_;
  std::vector<json*> stack_;
  json* slot_ = nullptr;
  StreamedMembers* streamed_;
  std::string root_key_;  // the root member being read (only when streaming)
  const json* streamed_container_ = nullptr;
  bool pending_ = false;  // a key of the streamed object awaits its value
  std::string pending_key_;
  std::optional<Error> streamed_error_;
  std::string duplicate_pointer_;
  std::string syntax_error_;
  bool too_deep_ = false;
};

}  // namespace

namespace {

Result<json> parse_json_with(std::string_view text, std::string_view origin, std::string_view field,
                             DuplicateKeys duplicates, StreamedMembers* streamed) {
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos)
    return Error{std::string(origin), std::string(field), fmt::format("invalid JSON: NUL byte at offset {}", nul)};
  json root;
  StrictDomBuilder builder(root, duplicates, streamed);
  bool ok = false;
  try {
    ok = json::sax_parse(text.begin(), text.end(), &builder);
  } catch (const json::exception& e) {
    // sax_parse reports syntax errors through parse_error(); anything thrown
    // here is still bad input, never a crash.
    return Error{std::string(origin), std::string(field), "invalid JSON: " + escape_control(e.what())};
  }
  if (ok) return root;
  if (builder.streamed_error()) return *builder.streamed_error();
  if (builder.too_deep())
    return Error{std::string(origin), std::string(field),
                 fmt::format("invalid JSON: nested deeper than {} levels", kMaxJsonDepth)};
  if (!builder.duplicate_pointer().empty())
    return Error{std::string(origin), builder.duplicate_pointer(),
                 "duplicate key (a second value would silently replace the first)"};
  std::string_view what = builder.syntax_error();
  // what() is "[json.exception.parse_error.101] parse error at line 1, ...".
  if (const std::size_t close = what.find("] ");
      what.starts_with("[json.exception.") && close != std::string_view::npos)
    what.remove_prefix(close + 2);
  return Error{std::string(origin), std::string(field), "invalid JSON: " + shorten_last_read(escape_control(what))};
}

}  // namespace

Result<json> parse_json(std::string_view text, std::string_view origin, std::string_view field,
                        DuplicateKeys duplicates) {
  if (auto dom = parse_plain_json(text)) return std::move(*dom);  // declines all it would not read alike
  return parse_json_with(text, origin, field, duplicates, nullptr);
}

Result<json> parse_json_full(std::string_view text, std::string_view origin, std::string_view field,
                             DuplicateKeys duplicates) {
  return parse_json_with(text, origin, field, duplicates, nullptr);
}

Result<json> parse_json(std::string_view text, std::string_view origin, std::string_view field,
                        DuplicateKeys duplicates, StreamedMembers& streamed) {
  return parse_json_with(text, origin, field, duplicates, &streamed);
}

bool identical_json(const json& a, const json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j)
      if (i.key() != j.key() || !identical_json(*i, *j)) return false;  // depth: parse_json's bound
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!identical_json(a[i], b[i])) return false;
    return true;
  }
  if (a.is_number_float()) {
    const double x = a.get<double>(), y = b.get<double>();
    return x == y && std::signbit(x) == std::signbit(y);
  }
  return a == b;
}

std::string pointer_token(std::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (char c : key) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else if (u < 0x20 || u == 0x7F)
      out += fmt::format("\\u{:04x}", u);
    else
      out.push_back(c);
  }
  return out;
}

std::string quote(std::string_view text) {
  constexpr std::size_t kMax = 80;
  const std::string_view head = utf8_prefix(text, kMax);
  // dump() escapes C0 controls; escape_control then catches DEL, C1 controls and
  // bidirectional overrides, which JSON leaves raw.
  std::string out = escape_control(json(std::string(head)).dump(-1, ' ', false, json::error_handler_t::replace));
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

}  // namespace preflight
