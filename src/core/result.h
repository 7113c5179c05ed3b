// Result<T>: the library's single error mechanism for bad input.
//
// Readers and validators return Result<T>; only the front ends (app/, server/)
// turn an Error into text and an exit or status code. An Error always says
// where (origin: a file name or "--flag"), what (field: a JSON pointer or option)
// and why, so the user gets one line they can act on:
//   config.json: /text_config/num_attention_heads: expected a positive integer, got -4
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace preflight {

struct Error {
  std::string origin;   // file name, "--gpus", "catalogue", ...
  std::string field;    // JSON pointer or sub-field; may be empty
  std::string message;  // what is wrong, with the offending value

  std::string to_string() const {
    std::string out = origin;
    if (!field.empty()) out += (out.empty() ? "" : ": ") + field;
    out += (out.empty() ? "" : ": ") + message;
    return out;
  }
};

// Thrown only by value-level arithmetic (checked byte arithmetic overflow) that
// has no natural place to return an Error; the front ends catch it as bad input.
class InputError : public std::runtime_error {
 public:
  explicit InputError(Error error) : std::runtime_error(error.to_string()), error_(std::move(error)) {}
  const Error& error() const { return error_; }

 private:
  Error error_;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : state_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  const T& value() const& { return checked(); }
  T& value() & { return const_cast<T&>(checked()); }
  T&& value() && { return std::move(const_cast<T&>(checked())); }
  const T& operator*() const& { return checked(); }
  const T* operator->() const { return &checked(); }

  const Error& error() const { return std::get<Error>(state_); }

  // Returns the value or throws InputError: for callers that already sit at a
  // boundary where an exception is the conversion (tests, solvers' inner loops).
  const T& value_or_throw() const {
    if (!ok()) throw InputError(error());
    return std::get<T>(state_);
  }

 private:
  const T& checked() const {
    if (!ok()) throw InputError(error());
    return std::get<T>(state_);
  }
  std::variant<T, Error> state_;
};

}  // namespace preflight
