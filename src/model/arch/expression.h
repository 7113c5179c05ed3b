// Expressions of an architecture description (data/architectures/*.json).
//
// A description states shapes and conditions as small expressions over the
// config's fields, e.g. "(heads + 2 * kv) * hd" or "$head_dim ?? H // heads".
// The language, parsed once and evaluated per layer:
//   numbers, 'strings', true, false, null, [lists]
//   $a.b   a field of the language-model config (text_config when nested), else the root
//   @a.b   a field of the root config
//   name   a variable of the description's `let` table or a loop variable (i: the layer)
//   x[i]   list element (or a string's character), x.key or x['key'] object member
//   ! - * / // % + - < <= > >= == != && || ?? ?:
//   a ?? b b when a is missing or null (a field the config does not have)
//   calls: has(x) len(x) min(a,b) max(a,b) ceil_div(a,b) round_up(a,m) contains(list,x) int(x) floor(x) max_of(list)
//          version(s): "4.31.0" as 4031000, to compare transformers_version
//          item(x, i): x[i] when x is a list, else x (a per-layer list or one value for all)
//          union_size(a, b): how many distinct values the two lists hold together
//          numbers(x): a list as it is, or a comma-separated string ("4,5,6") as a list of numbers
// Numbers are doubles (exact for every dimension below 2^53); `//` floors.
// Using a missing field in any other way is an error naming the field.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace preflight::arch {

// A value: missing (a field the config lacks, with its JSON pointer), or a JSON value.
struct Value {
  bool missing = false;
  std::string pointer;  // where a missing or read value came from ("/text_config/head_dim")
  nlohmann::json json;  // null when missing

  static Value of(nlohmann::json j, std::string from = "") { return Value{false, std::move(from), std::move(j)}; }
  static Value absent(std::string from) { return Value{true, std::move(from), nullptr}; }
  bool absent_or_null() const { return missing || json.is_null(); }
};

struct Node;  // the parsed expression tree (expression.cc)

class Expression {
 public:
  Expression();
  ~Expression();
  Expression(Expression&&) noexcept;
  Expression& operator=(Expression&&) noexcept;
  Expression(const Expression&);
  Expression& operator=(const Expression&);

  // Parses `text`; errors name `where` (the description's JSON pointer).
  static Result<Expression> parse(std::string_view text, std::string_view origin, std::string_view where);
  const std::string& text() const { return text_; }

 private:
  friend class Evaluator;
  std::string text_;
  std::shared_ptr<const Node> root_;
};

// What an expression can see: the configs and the description's variables.
struct Scope {
  const nlohmann::json* text = nullptr;  // the language-model config object
  const nlohmann::json* root = nullptr;  // the whole config.json
  std::string text_pointer;              // "" or "/text_config"
  std::string config_origin;             // the config's file, for errors
  // A named variable (let table or loop variable); nullopt when unknown.
  std::function<std::optional<Result<Value>>(std::string_view name)> variable;
  // Optional: a variable's value already stored by the caller (nullptr when not),
  // read in place: a list or object variable (K3's linear_attn_config) is then
  // not copied each time a member or element of it is read.
  std::function<const Value*(std::string_view name)> stored;
};

class Evaluator {
 public:
  static Result<Value> evaluate(const Expression& e, const Scope& scope);
};

// Conversions with errors that name the config field behind the value.
Result<double> as_number(const Value& v, std::string_view origin, std::string_view what);
Result<std::uint64_t> as_dimension(const Value& v, std::string_view origin, std::string_view what);
Result<bool> as_bool(const Value& v, std::string_view origin, std::string_view what);
Result<std::string> as_string(const Value& v, std::string_view origin, std::string_view what);

}  // namespace preflight::arch
