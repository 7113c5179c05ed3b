#include "model/json_fields.h"

#include <fmt/format.h>

namespace preflight {

bool JsonFields::has(std::string_view key) const {
  return node_->is_object() && node_->contains(std::string(key)) && !(*node_)[std::string(key)].is_null();
}

Result<JsonFields> JsonFields::object(std::string_view key) const {
  if (!has(key)) return error(key, "missing object");
  const auto& v = (*node_)[std::string(key)];
  if (!v.is_object()) return error(key, fmt::format("expected an object, got {}", show(v)));
  return JsonFields(v, origin_, pointer_to(key));
}

Result<std::uint64_t> JsonFields::non_negative_integer(std::string_view key) const {
  if (!has(key)) return error(key, "missing integer");
  const auto& v = (*node_)[std::string(key)];
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(v.get<std::int64_t>());
  return error(key, fmt::format("expected a non-negative integer, got {}", show(v)));
}

Result<std::uint64_t> JsonFields::positive_integer(std::string_view key) const {
  if (!has(key)) return error(key, "missing positive integer");
  const auto& v = (*node_)[std::string(key)];
  if ((v.is_number_unsigned() && v.get<std::uint64_t>() > 0) || (v.is_number_integer() && v.get<std::int64_t>() > 0)) {
    const auto n = v.get<std::uint64_t>();
    if (n > (1ULL << 40)) return error(key, fmt::format("value {} is implausibly large", n));
    return n;
  }
  return error(key, fmt::format("expected a positive integer, got {}", show(v)));
}

Result<std::uint64_t> JsonFields::positive_integer_or(std::string_view key, std::uint64_t fallback) const {
  if (!has(key)) return fallback;
  return positive_integer(key);
}

Result<std::string> JsonFields::string(std::string_view key) const {
  if (!has(key)) return error(key, "missing string");
  const auto& v = (*node_)[std::string(key)];
  if (!v.is_string()) return error(key, fmt::format("expected a string, got {}", show(v)));
  return v.get<std::string>();
}

Result<std::string> JsonFields::string_or(std::string_view key, std::string fallback) const {
  if (!has(key)) return fallback;
  return string(key);
}

Result<std::vector<std::uint64_t>> JsonFields::integer_list(std::string_view key) const {
  if (!has(key)) return error(key, "missing list of integers");
  const auto& v = (*node_)[std::string(key)];
  if (!v.is_array()) return error(key, fmt::format("expected a list of integers, got {}", show(v)));
  std::vector<std::uint64_t> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto& item = v[i];
    if (!item.is_number_integer() || item.get<std::int64_t>() < 0)
      return Error{origin_, fmt::format("{}/{}", pointer_to(key), i),
                   fmt::format("expected a non-negative integer, got {}", show(item))};
    out.push_back(item.get<std::uint64_t>());
  }
  return out;
}

Result<std::vector<std::string>> JsonFields::string_list(std::string_view key) const {
  if (!has(key)) return std::vector<std::string>{};
  const auto& v = (*node_)[std::string(key)];
  if (!v.is_array()) return error(key, fmt::format("expected a list of strings, got {}", show(v)));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string())
      return Error{origin_, fmt::format("{}/{}", pointer_to(key), i),
                   fmt::format("expected a string, got {}", show(v[i]))};
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

}  // namespace preflight
