// Test helper: table-driven bad configs. Each case sets one JSON pointer of a
// good config to a JSON value (or removes it, with "DELETE") and expects
// build_model_from_config's one-line error, word for word.
#pragma once
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/family_registry.h"

namespace preflight::testing {

struct BadField {
  const char* pointer;
  const char* value;  // JSON text to write there, or "DELETE"
  const char* error;
};

inline void expect_config_errors(const nlohmann::json& good, const std::vector<BadField>& cases) {
  for (const auto& c : cases) {
    SCOPED_TRACE(c.pointer);
    auto doc = good;
    const nlohmann::json::json_pointer ptr(c.pointer);
    if (std::string(c.value) == "DELETE")
      doc[ptr.parent_pointer()].erase(ptr.back());
    else
      doc[ptr] = nlohmann::json::parse(c.value);
    const auto result = build_model_from_config(doc.dump(), "config.json");
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().to_string(), c.error);
  }
}

}  // namespace preflight::testing
