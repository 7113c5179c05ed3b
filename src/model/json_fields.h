// Typed, located reads from a parsed JSON document.
//
// Every config reader goes through these so that a bad value always produces
// the same one-line error: "<origin>: <json pointer>: expected a positive
// integer, got -4". The pointer is built from the path actually walked.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/json_read.h"  // show(): a bounded rendering of a value for error messages
#include "core/result.h"

namespace preflight {

class JsonFields {
 public:
  JsonFields(const nlohmann::json& node, std::string origin, std::string pointer = "")
      : node_(&node), origin_(std::move(origin)), pointer_(std::move(pointer)) {}

  const nlohmann::json& node() const { return *node_; }
  const std::string& origin() const { return origin_; }
  std::string pointer_to(std::string_view key) const { return pointer_ + "/" + std::string(key); }

  bool has(std::string_view key) const;
  Result<JsonFields> object(std::string_view key) const;
  Result<std::uint64_t> positive_integer(std::string_view key) const;
  Result<std::uint64_t> non_negative_integer(std::string_view key) const;
  Result<std::uint64_t> positive_integer_or(std::string_view key, std::uint64_t fallback) const;
  Result<std::string> string(std::string_view key) const;
  Result<std::string> string_or(std::string_view key, std::string fallback) const;
  // A list of integers (1-indexed layer lists and the like).
  Result<std::vector<std::uint64_t>> integer_list(std::string_view key) const;
  Result<std::vector<std::string>> string_list(std::string_view key) const;

  Error error(std::string_view key, std::string message) const {
    return Error{origin_, pointer_to(key), std::move(message)};
  }

 private:
  const nlohmann::json* node_;
  std::string origin_;
  std::string pointer_;
};

}  // namespace preflight
