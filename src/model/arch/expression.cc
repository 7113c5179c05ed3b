#include "model/arch/expression.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/json_read.h"

namespace preflight::arch {

enum class Op {
  literal,
  field_text,
  field_root,
  variable,
  index,
  member,
  call,
  list,
  neg,
  not_,
  mul,
  div,
  floordiv,
  mod,
  add,
  sub,
  lt,
  le,
  gt,
  ge,
  eq,
  ne,
  and_,
  or_,
  coalesce,
  cond,
};

struct Node {
  Op op = Op::literal;
  nlohmann::json literal;  // literal value
  std::string name;        // field path, variable, member or function name
  std::vector<std::shared_ptr<const Node>> args;
};

namespace {

using NodePtr = std::shared_ptr<const Node>;

// A recursive-descent parser; the grammar is the one in expression.h, lowest
// precedence first: ?: , ??, ||, &&, comparisons, + -, * / // %, unary, postfix.
class Parser {
 public:
  Parser(std::string_view text, std::string_view origin, std::string_view where)
      : s_(text), origin_(origin), where_(where) {}

  Result<NodePtr> parse() {
    auto e = conditional();
    if (!e) return e;
    skip();
    if (pos_ != s_.size()) return fail("unexpected text");
    return e;
  }

 private:
  Error fail(std::string_view what) const {
    // The expression is quoted whole when short, cut otherwise (errors stay one bounded line).
    const std::string shown = s_.size() <= 120 ? std::string(s_) : std::string(s_.substr(0, 117)) + "...";
    return Error{std::string(origin_), std::string(where_),
                 fmt::format("{} at offset {} of expression \"{}\"", what, pos_, shown)};
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(std::string_view tok) {
    skip();
    if (s_.substr(pos_, tok.size()) != tok) return false;
    pos_ += tok.size();
    return true;
  }
  static NodePtr make(Op op, std::vector<NodePtr> args, std::string name = "") {
    auto n = std::make_shared<Node>();
    n->op = op;
    n->args = std::move(args);
    n->name = std::move(name);
    return n;
  }

  Result<NodePtr> conditional() {
    // Parentheses, lists and calls recurse through here: bound the nesting.
    if (++nesting_ > 64) return fail("expression nested too deeply");
    auto out = conditional_body();
    --nesting_;
    return out;
  }
  Result<NodePtr> conditional_body() {
    auto c = coalesce();
    if (!c) return c;
    if (!eat("?")) return c;
    auto a = conditional();
    if (!a) return a;
    if (!eat(":")) return fail("expected ':'");
    auto b = conditional();
    if (!b) return b;
    return make(Op::cond, {*c, *a, *b});
  }
  Result<NodePtr> coalesce() {
    auto l = logic_or();
    if (!l) return l;
    NodePtr left = *l;
    while (eat("??")) {
      auto r = logic_or();
      if (!r) return r;
      left = make(Op::coalesce, {left, *r});
    }
    return left;
  }
  Result<NodePtr> logic_or() {
    auto l = logic_and();
    if (!l) return l;
    NodePtr left = *l;
    while (eat("||")) {
      auto r = logic_and();
      if (!r) return r;
      left = make(Op::or_, {left, *r});
    }
    return left;
  }
  Result<NodePtr> logic_and() {
    auto l = comparison();
    if (!l) return l;
    NodePtr left = *l;
    while (eat("&&")) {
      auto r = comparison();
      if (!r) return r;
      left = make(Op::and_, {left, *r});
    }
    return left;
  }
  Result<NodePtr> comparison() {
    auto l = additive();
    if (!l) return l;
    static const std::pair<std::string_view, Op> kOps[] = {{"==", Op::eq}, {"!=", Op::ne}, {"<=", Op::le},
                                                           {">=", Op::ge}, {"<", Op::lt},  {">", Op::gt}};
    for (const auto& [tok, op] : kOps)
      if (eat(tok)) {
        auto r = additive();
        if (!r) return r;
        return make(op, {*l, *r});
      }
    return l;
  }
  Result<NodePtr> additive() {
    auto l = multiplicative();
    if (!l) return l;
    NodePtr left = *l;
    for (;;) {
      Op op;
      if (eat("+"))
        op = Op::add;
      else if (peek_minus())
        op = Op::sub;
      else
        return left;
      auto r = multiplicative();
      if (!r) return r;
      left = make(op, {left, *r});
    }
  }
  bool peek_minus() {
    skip();
    if (pos_ < s_.size() && s_[pos_] == '-') {
      ++pos_;
      return true;
    }
    return false;
  }
  Result<NodePtr> multiplicative() {
    auto l = unary();
    if (!l) return l;
    NodePtr left = *l;
    for (;;) {
      Op op;
      if (eat("*"))
        op = Op::mul;
      else if (eat("//"))
        op = Op::floordiv;
      else if (eat("/"))
        op = Op::div;
      else if (eat("%"))
        op = Op::mod;
      else
        return left;
      auto r = unary();
      if (!r) return r;
      left = make(op, {left, *r});
    }
  }
  Result<NodePtr> unary() {
    if (++depth_ > 64) return fail("expression nested too deeply");
    Result<NodePtr> out = Error{};
    if (eat("!")) {
      auto a = unary();
      out = a ? Result<NodePtr>(make(Op::not_, {*a})) : a;
    } else if (peek_minus()) {
      auto a = unary();
      out = a ? Result<NodePtr>(make(Op::neg, {*a})) : a;
    } else {
      out = postfix();
    }
    --depth_;
    return out;
  }
  Result<NodePtr> postfix() {
    auto p = primary();
    if (!p) return p;
    NodePtr left = *p;
    for (;;) {
      if (eat("[")) {
        auto i = conditional();
        if (!i) return i;
        if (!eat("]")) return fail("expected ']'");
        left = make(Op::index, {left, *i});
      } else if (eat(".")) {
        auto id = identifier();
        if (id.empty()) return fail("expected a member name");
        left = make(Op::member, {left}, id);
      } else {
        return left;
      }
    }
  }
  std::string identifier() {
    skip();
    std::size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    return std::string(s_.substr(start, pos_ - start));
  }
  Result<NodePtr> primary() {
    skip();
    if (pos_ >= s_.size()) return fail("unexpected end");
    const char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      auto e = conditional();
      if (!e) return e;
      if (!eat(")")) return fail("expected ')'");
      return e;
    }
    if (c == '[') {
      ++pos_;
      std::vector<NodePtr> items;
      if (!eat("]")) {
        for (;;) {
          auto e = conditional();
          if (!e) return e;
          items.push_back(*e);
          if (eat("]")) break;
          if (!eat(",")) return fail("expected ',' or ']'");
        }
      }
      return make(Op::list, std::move(items));
    }
    if (c == '\'') {
      const auto end = s_.find('\'', pos_ + 1);
      if (end == std::string_view::npos) return fail("unterminated string");
      auto n = std::make_shared<Node>();
      n->literal = std::string(s_.substr(pos_ + 1, end - pos_ - 1));
      pos_ = end + 1;
      return NodePtr(n);
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t start = pos_;
      while (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.' ||
                                  s_[pos_] == 'e' || s_[pos_] == '_'))
        ++pos_;
      std::string digits;
      for (char d : s_.substr(start, pos_ - start))
        if (d != '_') digits += d;
      char* end = nullptr;
      const double v = std::strtod(digits.c_str(), &end);
      if (end != digits.c_str() + digits.size()) return fail("bad number");
      auto n = std::make_shared<Node>();
      n->literal = v;
      return NodePtr(n);
    }
    if (c == '$' || c == '@') {
      ++pos_;
      std::string path = identifier();
      if (path.empty()) return fail("expected a field name");
      // Dotted paths read nested objects: $vision_config.hidden_size.
      while (pos_ < s_.size() && s_[pos_] == '.') {
        ++pos_;
        auto part = identifier();
        if (part.empty()) return fail("expected a field name");
        path += "/" + part;
      }
      return make(c == '$' ? Op::field_text : Op::field_root, {}, path);
    }
    auto id = identifier();
    if (id.empty()) return fail("unexpected character");
    if (id == "true" || id == "false" || id == "null") {
      auto n = std::make_shared<Node>();
      n->literal = id == "null" ? nlohmann::json(nullptr) : nlohmann::json(id == "true");
      return NodePtr(n);
    }
    if (eat("(")) {
      std::vector<NodePtr> args;
      if (!eat(")")) {
        for (;;) {
          auto e = conditional();
          if (!e) return e;
          args.push_back(*e);
          if (eat(")")) break;
          if (!eat(",")) return fail("expected ',' or ')'");
        }
      }
      static const std::pair<std::string_view, std::size_t> kArity[] = {
          {"has", 1}, {"len", 1},   {"min", 2},    {"max", 2},     {"ceil_div", 2}, {"round_up", 2},   {"contains", 2},
          {"int", 1}, {"floor", 1}, {"max_of", 1}, {"version", 1}, {"item", 2},     {"union_size", 2}, {"numbers", 1}};
      for (const auto& [fn, arity] : kArity)
        if (fn == id) {
          if (args.size() != arity) return fail(fmt::format("{}() takes {} arguments", id, arity));
          return make(Op::call, std::move(args), id);
        }
      return fail(fmt::format("unknown function {}()", id));
    }
    return make(Op::variable, {}, id);
  }

  std::string_view s_;
  std::string_view origin_;
  std::string_view where_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  int nesting_ = 0;
};

// A value read in place (a stored variable) or computed here (owned).
class ValueRef {
 public:
  ValueRef(Value v) : owned_(std::move(v)) {}  // NOLINT: implicit, as Result<Value> converts
  static ValueRef borrow(const Value& stored) {
    ValueRef r{Value{}};
    r.stored_ = &stored;
    return r;
  }
  const Value& operator*() const { return stored_ ? *stored_ : owned_; }
  const Value* operator->() const { return &**this; }

 private:
  Value owned_;
  const Value* stored_ = nullptr;
};

// Evaluation with the scope; errors name the config field involved.
class Eval {
 public:
  explicit Eval(const Scope& scope, const std::string& text) : scope_(scope), text_(text) {}

  Result<Value> run(const Node& n) {
    switch (n.op) {
      case Op::literal:
        return Value::of(n.literal);
      case Op::field_text:
        return field(n.name, true);
      case Op::field_root:
        return field(n.name, false);
      case Op::variable: {
        if (scope_.stored)
          if (const Value* v = scope_.stored(n.name)) return *v;
        return computed_variable(n);
      }
      case Op::list: {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& a : n.args) {
          auto v = present(*a);
          if (!v) return v.error();
          out.push_back(v->json);
        }
        return Value::of(std::move(out));
      }
      case Op::index: {
        auto base_ref = look(*n.args[0]);
        if (!base_ref) return base_ref.error();
        const Value* base = &**base_ref;
        auto i = present(*n.args[1]);
        if (!i) return i.error();
        if (base->missing) return Value::absent(base->pointer);
        // An object indexed by a string: a member whose key is no identifier (DeepSeek-OCR-2's
        // width['qwen2-0-5b']); absent when the object lacks it, as x.key is.
        if (base->json.is_object() && i->json.is_string()) {
          const auto& key = i->json.get_ref<const std::string&>();
          const std::string where = base->pointer + "/" + key;
          auto it = base->json.find(key);
          if (it == base->json.end() || it->is_null()) return Value::absent(where);
          return Value::of(*it, where);
        }
        // A string indexes its characters (Nemotron-H's hybrid_override_pattern "M-M*...").
        const bool text = base->json.is_string();
        if (!base->json.is_array() && !text) return mistyped(*base, "a list");
        auto k = as_number(*i, scope_.config_origin, "index");
        if (!k) return k.error();
        const auto size = text ? base->json.get_ref<const std::string&>().size() : base->json.size();
        if (*k < 0 || *k >= static_cast<double>(size) || *k != std::floor(*k))
          return Error{scope_.config_origin, base->pointer,
                       fmt::format("has {} entries; entry {} is needed", size, *k)};
        const auto at = static_cast<std::size_t>(*k);
        if (text) return Value::of(std::string(1, base->json.get_ref<const std::string&>()[at]), base->pointer);
        return Value::of(base->json[at], fmt::format("{}/{}", base->pointer, at));
      }
      case Op::member: {
        auto base_ref = look(*n.args[0]);
        if (!base_ref) return base_ref.error();
        const Value* base = &**base_ref;
        const std::string where = base->pointer + "/" + n.name;
        if (base->absent_or_null()) return Value::absent(where);
        if (!base->json.is_object()) return mistyped(*base, "an object");
        auto it = base->json.find(n.name);
        if (it == base->json.end() || it->is_null()) return Value::absent(where);
        return Value::of(*it, where);
      }
      case Op::coalesce: {
        auto a = run(*n.args[0]);
        if (!a) return a;
        if (!a->absent_or_null()) return a;
        return run(*n.args[1]);
      }
      case Op::cond: {
        auto c = truth(*n.args[0]);
        if (!c) return c.error();
        return run(*n.args[*c ? 1 : 2]);
      }
      case Op::and_: {
        auto a = truth(*n.args[0]);
        if (!a) return a.error();
        if (!*a) return Value::of(false);
        auto b = truth(*n.args[1]);
        if (!b) return b.error();
        return Value::of(*b);
      }
      case Op::or_: {
        auto a = truth(*n.args[0]);
        if (!a) return a.error();
        if (*a) return Value::of(true);
        auto b = truth(*n.args[1]);
        if (!b) return b.error();
        return Value::of(*b);
      }
      case Op::not_: {
        auto a = truth(*n.args[0]);
        if (!a) return a.error();
        return Value::of(!*a);
      }
      case Op::eq:
      case Op::ne: {
        auto a_ref = present_ref(*n.args[0]);
        if (!a_ref) return a_ref.error();
        auto b_ref = present_ref(*n.args[1]);
        if (!b_ref) return b_ref.error();
        const Value& a = **a_ref;
        const Value& b = **b_ref;
        bool same = a.json == b.json;
        if (a.json.is_number() && b.json.is_number()) same = a.json.get<double>() == b.json.get<double>();
        return Value::of(n.op == Op::eq ? same : !same);
      }
      case Op::call:
        return call(n);
      default:
        return arithmetic(n);
    }
  }

  Result<bool> truth(const Node& n) {
    auto v = present_ref(n);
    if (!v) return v.error();
    return as_bool(**v, scope_.config_origin, text_);
  }

 private:
  Error unknown(const std::string& name) const {
    return Error{scope_.config_origin, "",
                 fmt::format("architecture description: unknown name '{}' in \"{}\"", name, text_)};
  }
  Error mistyped(const Value& v, std::string_view expected) const {
    return Error{scope_.config_origin, v.pointer, fmt::format("expected {}, got {}", expected, show(v.json))};
  }

  Result<Value> field(const std::string& path, bool text) {
    const nlohmann::json* node = text ? scope_.text : scope_.root;
    std::string pointer = text ? scope_.text_pointer : "";
    // $x falls back to the root when the text config does not have it
    // (wrappers keep tie_word_embeddings or torch_dtype at the top).
    std::size_t from = 0;
    while (node) {
      const auto slash = path.find('/', from);
      const std::string key = path.substr(from, slash == std::string::npos ? std::string::npos : slash - from);
      pointer += "/" + key;
      if (!node->is_object()) {
        node = nullptr;
        break;
      }
      auto it = node->find(key);
      node = (it == node->end() || it->is_null()) ? nullptr : &*it;
      if (slash == std::string::npos) break;
      from = slash + 1;
    }
    if (node) return Value::of(*node, pointer);
    if (text && scope_.text != scope_.root) {
      auto at_root = field(path, false);
      if (at_root && !at_root->missing) return at_root;
    }
    return Value::absent(pointer);
  }

  // A variable the scope does not hold stored: the scope computes it.
  Result<Value> computed_variable(const Node& n) {
    if (!scope_.variable) return unknown(n.name);
    auto v = scope_.variable(n.name);
    if (!v) return unknown(n.name);
    return std::move(*v);
  }

  // A stored variable in place; anything else computed.
  Result<ValueRef> look(const Node& n) {
    if (n.op == Op::variable && scope_.stored) {
      if (const Value* v = scope_.stored(n.name)) return ValueRef::borrow(*v);
      auto v = computed_variable(n);  // not run(n), which would ask stored() again
      if (!v) return v.error();
      return ValueRef(std::move(v).value());
    }
    auto v = run(n);
    if (!v) return v.error();
    return ValueRef(std::move(v).value());
  }

  Result<ValueRef> present_ref(const Node& n) {
    auto v = look(n);
    if (!v) return v;
    if ((*v)->missing) return Error{scope_.config_origin, (*v)->pointer, "missing field"};
    return v;
  }

  // A value that must be present: a missing field is the error.
  Result<Value> present(const Node& n) {
    auto v = run(n);
    if (!v) return v;
    if (v->missing) return Error{scope_.config_origin, v->pointer, "missing field"};
    return v;
  }

  // A node's value as a number. Number literals and arithmetic are computed as
  // doubles here, without a Value (a JSON value and a pointer string) per node
  // (shapes and conditions are evaluated per layer); the result is
  // what as_number would make of the Value that run() builds, errors included.
  Result<double> number(const Node& n) {
    if (n.op == Op::literal && n.literal.is_number()) return finite(n.literal.get<double>());
    if (is_numeric_op(n.op)) {
      auto d = numeric(n);
      if (!d) return d;
      return finite(*d);
    }
    auto v = present_ref(n);
    if (!v) return v.error();
    return as_number(**v, scope_.config_origin, text_);
  }

  static bool is_numeric_op(Op op) {
    return op == Op::neg || op == Op::mul || op == Op::add || op == Op::sub || op == Op::div || op == Op::floordiv ||
           op == Op::mod;
  }

  // as_number of a computed number (its Value has no pointer).
  Result<double> finite(double d) const {
    if (!std::isfinite(d)) return Error{scope_.config_origin, "", "expected a finite number"};
    return d;
  }

  // - * + - / // % on numbers.
  Result<double> numeric(const Node& n) {
    auto a = number(*n.args[0]);
    if (!a) return a.error();
    if (n.op == Op::neg) return -*a;
    auto b = number(*n.args[1]);
    if (!b) return b.error();
    const double x = *a, y = *b;
    auto zero = [&]() { return Error{scope_.config_origin, "", fmt::format("division by zero in \"{}\"", text_)}; };
    switch (n.op) {
      case Op::mul:
        return x * y;
      case Op::add:
        return x + y;
      case Op::sub:
        return x - y;
      case Op::div:
        if (y == 0) return zero();
        return x / y;
      case Op::floordiv:
        if (y == 0) return zero();
        return std::floor(x / y);
      case Op::mod:
        if (y == 0) return zero();
        return x - y * std::floor(x / y);
      default:
        return Error{scope_.config_origin, "", "bad operator"};
    }
  }

  Result<Value> arithmetic(const Node& n) {
    if (is_numeric_op(n.op)) {
      auto d = numeric(n);
      if (!d) return d.error();
      return Value::of(*d);
    }
    auto a = number(*n.args[0]);
    if (!a) return a.error();
    auto b = number(*n.args[1]);
    if (!b) return b.error();
    const double x = *a, y = *b;
    switch (n.op) {
      case Op::lt:
        return Value::of(x < y);
      case Op::le:
        return Value::of(x <= y);
      case Op::gt:
        return Value::of(x > y);
      case Op::ge:
        return Value::of(x >= y);
      default:
        return Error{scope_.config_origin, "", "bad operator"};
    }
  }

  Result<Value> call(const Node& n) {
    const auto& fn = n.name;
    if (fn == "has") {
      auto v = run(*n.args[0]);
      if (!v) return v;
      return Value::of(!v->absent_or_null());
    }
    if (fn == "len") {
      auto ref = present_ref(*n.args[0]);
      if (!ref) return ref.error();
      const Value* v = &**ref;
      if (!v->json.is_array() && !v->json.is_string()) return mistyped(*v, "a list");
      return Value::of(
          static_cast<double>(v->json.is_array() ? v->json.size() : v->json.get_ref<const std::string&>().size()));
    }
    if (fn == "contains") {
      auto list_ref = present_ref(*n.args[0]);
      if (!list_ref) return list_ref.error();
      const Value* list = &**list_ref;
      auto x_ref = present_ref(*n.args[1]);
      if (!x_ref) return x_ref.error();
      const Value* x = &**x_ref;
      if (!list->json.is_array()) return mistyped(*list, "a list");
      if (x->json.is_number()) {  // numbers compare by value (1 == 1.0), read once, not per item
        const double wanted = x->json.get<double>();
        for (const auto& item : list->json.get_ref<const nlohmann::json::array_t&>()) {
          double value;
          switch (item.type()) {  // get<double>() per item costs more than the whole comparison
            case nlohmann::json::value_t::number_unsigned:
              value = static_cast<double>(*item.get_ptr<const std::uint64_t*>());
              break;
            case nlohmann::json::value_t::number_integer:
              value = static_cast<double>(*item.get_ptr<const std::int64_t*>());
              break;
            case nlohmann::json::value_t::number_float:
              value = *item.get_ptr<const double*>();
              break;
            default:
              continue;
          }
          if (value == wanted) return Value::of(true);
        }
        return Value::of(false);
      }
      for (const auto& item : list->json)
        if (item == x->json) return Value::of(true);
      return Value::of(false);
    }
    if (fn == "max_of") {  // the largest number of a list (0 for an empty one)
      auto list_ref = present_ref(*n.args[0]);
      if (!list_ref) return list_ref.error();
      const Value* list = &**list_ref;
      if (!list->json.is_array()) return mistyped(*list, "a list");
      double best = 0;
      for (const auto& item : list->json) {
        if (!item.is_number()) return mistyped(Value::of(item, list->pointer), "a list of numbers");
        best = std::max(best, item.get<double>());
      }
      return Value::of(best);
    }
    if (fn == "numbers") {  // a list as it is, or "4,5,6" (Step3's moe_layers_enum) as [4, 5, 6]
      auto x = present(*n.args[0]);
      if (!x) return x;
      if (x->json.is_array()) return x;
      if (!x->json.is_string()) return mistyped(*x, "a list or a comma-separated string of numbers");
      const auto text = x->json.get<std::string>();
      nlohmann::json list = nlohmann::json::array();
      std::size_t at = 0;
      while (at <= text.size()) {
        auto end = text.find(',', at);
        if (end == std::string::npos) end = text.size();
        std::string item = text.substr(at, end - at);
        while (!item.empty() && item.front() == ' ') item.erase(item.begin());
        while (!item.empty() && item.back() == ' ') item.pop_back();
        if (!item.empty()) {
          if (item.size() > 9 || item.find_first_not_of("0123456789") != std::string::npos)
            return mistyped(*x, "a comma-separated string of whole numbers");
          list.push_back(std::stoll(item));
        }
        at = end + 1;
      }
      return Value::of(std::move(list), x->pointer);
    }
    if (fn == "union_size") {                // how many distinct values two lists hold together (a cover of the layers)
      auto first = present_ref(*n.args[0]);  // each checked before the next is read
      if (!first) return first.error();
      if (!(*first)->json.is_array()) return mistyped(**first, "a list");
      auto second = present_ref(*n.args[1]);
      if (!second) return second.error();
      if (!(*second)->json.is_array()) return mistyped(**second, "a list");
      const Value* lists[] = {&**first, &**second};
      // Layer numbers (non-negative integers, as the reader stores them): sorted
      // and counted once, not compared pairwise (K3's 69 + 24, in two checks).
      std::vector<std::uint64_t> numbers;
      bool all_unsigned = true;
      for (const auto* list : lists)
        for (const auto& item : list->json) {
          if (!item.is_number_unsigned()) {
            all_unsigned = false;
            break;
          }
          numbers.push_back(item.get<std::uint64_t>());
        }
      if (all_unsigned) {
        std::sort(numbers.begin(), numbers.end());
        return Value::of(static_cast<double>(std::unique(numbers.begin(), numbers.end()) - numbers.begin()));
      }
      std::vector<const nlohmann::json*> seen;  // anything else by JSON equality (1 == 1.0)
      for (const auto* list : lists)
        for (const auto& item : list->json)
          if (std::none_of(seen.begin(), seen.end(), [&](const nlohmann::json* s) { return *s == item; }))
            seen.push_back(&item);
      return Value::of(static_cast<double>(seen.size()));
    }
    if (fn == "item") {  // item(x, i): x[i] for a list, x itself for a scalar (a per-layer list or one value)
      auto x_ref = present_ref(*n.args[0]);
      if (!x_ref) return x_ref.error();
      const Value* x = &**x_ref;
      if (!x->json.is_array()) return *x;
      auto i = number(*n.args[1]);
      if (!i) return i.error();
      if (*i < 0 || *i >= static_cast<double>(x->json.size()))
        return Error{scope_.config_origin, x->pointer,
                     fmt::format("has {} entries; entry {} is needed", x->json.size(), *i)};
      const auto at = static_cast<std::size_t>(*i);
      return Value::of(x->json[at], x->pointer + "/" + std::to_string(at));
    }
    if (fn == "version") {  // "4.31.0" -> 4,031,000: release strings compared as numbers (".dev0" ignored)
      auto v = present(*n.args[0]);
      if (!v) return v;
      if (!v->json.is_string()) return mistyped(*v, "a version string");
      const auto s = v->json.get<std::string>();
      double parts[3] = {0, 0, 0};
      std::size_t at = 0;
      for (int k = 0; k < 3 && at < s.size(); ++k) {
        std::size_t digits = 0;
        while (at + digits < s.size() && digits < 6 && s[at + digits] >= '0' && s[at + digits] <= '9') ++digits;
        if (digits == 0) break;
        parts[k] = std::stod(s.substr(at, digits));
        at += digits;
        if (at >= s.size() || s[at] != '.') break;
        ++at;
      }
      return Value::of(parts[0] * 1e6 + parts[1] * 1e3 + parts[2]);
    }
    auto a = number(*n.args[0]);
    if (!a) return a.error();
    if (fn == "int" || fn == "floor") return Value::of(std::floor(*a));
    auto b = number(*n.args[1]);
    if (!b) return b.error();
    if (fn == "min") return Value::of(std::min(*a, *b));
    if (fn == "max") return Value::of(std::max(*a, *b));
    if (*b == 0) return Error{scope_.config_origin, "", fmt::format("division by zero in \"{}\"", text_)};
    if (fn == "ceil_div") return Value::of(std::ceil(*a / *b));
    return Value::of(std::ceil(*a / *b) * *b);  // round_up
  }

  const Scope& scope_;
  const std::string& text_;
};

}  // namespace

Expression::Expression() = default;
Expression::~Expression() = default;
Expression::Expression(Expression&&) noexcept = default;
Expression& Expression::operator=(Expression&&) noexcept = default;
Expression::Expression(const Expression&) = default;
Expression& Expression::operator=(const Expression&) = default;

Result<Expression> Expression::parse(std::string_view text, std::string_view origin, std::string_view where) {
  Parser p(text, origin, where);
  auto root = p.parse();
  if (!root) return root.error();
  Expression e;
  e.text_ = std::string(text);
  e.root_ = *root;
  return e;
}

Result<Value> Evaluator::evaluate(const Expression& e, const Scope& scope) {
  if (!e.root_) return Error{scope.config_origin, "", "empty expression"};
  Eval ev(scope, e.text_);
  return ev.run(*e.root_);
}

Result<double> as_number(const Value& v, std::string_view origin, std::string_view what) {
  if (v.missing) return Error{std::string(origin), v.pointer, "missing field"};
  if (v.json.is_boolean()) return v.json.get<bool>() ? 1.0 : 0.0;
  if (!v.json.is_number())
    return Error{std::string(origin), v.pointer,
                 fmt::format("expected a number for \"{}\", got {}", what, show(v.json))};
  const double d = v.json.get<double>();
  if (!std::isfinite(d)) return Error{std::string(origin), v.pointer, "expected a finite number"};
  return d;
}

Result<std::uint64_t> as_dimension(const Value& v, std::string_view origin, std::string_view what) {
  auto d = as_number(v, origin, what);
  if (!d) return d.error();
  // 2^40 bounds any real dimension and keeps products of a few of them exact.
  if (*d < 0 || *d != std::floor(*d) || *d > 1099511627776.0)
    return Error{std::string(origin), v.pointer,
                 fmt::format("\"{}\" gives {}, which is not a non-negative whole dimension", what, *d)};
  return static_cast<std::uint64_t>(*d);
}

Result<bool> as_bool(const Value& v, std::string_view origin, std::string_view what) {
  if (v.missing) return Error{std::string(origin), v.pointer, "missing field"};
  if (v.json.is_boolean()) return v.json.get<bool>();
  if (v.json.is_null()) return false;
  if (v.json.is_number()) return v.json.get<double>() != 0;
  return Error{std::string(origin), v.pointer,
               fmt::format("expected true or false for \"{}\", got {}", what, show(v.json))};
}

Result<std::string> as_string(const Value& v, std::string_view origin, std::string_view what) {
  if (v.missing) return Error{std::string(origin), v.pointer, "missing field"};
  if (v.json.is_string()) return v.json.get<std::string>();
  if (v.json.is_number()) {
    const double d = v.json.get<double>();
    if (d == std::floor(d) && std::fabs(d) < 1e15) return fmt::format("{}", static_cast<long long>(d));
  }
  return Error{std::string(origin), v.pointer, fmt::format("expected text for \"{}\", got {}", what, show(v.json))};
}

}  // namespace preflight::arch
