// write_json against nlohmann's dump(indent, ' ', false, replace) on documents
// built to reach every branch: escapes, control bytes, UTF-8 (valid, invalid,
// truncated), empty and nested containers, integers at their limits, doubles.
#include "core/json_write.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace preflight {
namespace {

using json = nlohmann::json;

std::string nlohmann_dump(const json& j, int indent) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

TEST(JsonWrite, SameBytesAsNlohmann) {
  std::string controls;
  for (int c = 0; c < 0x20; ++c) controls += static_cast<char>(c);
  controls += "\x7f \"quoted\" back\\slash /";
  const json docs[] = {
      json(nullptr),
      json(true),
      json::object(),
      json::array(),
      json("plain"),
      json(controls),
      json("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80"),  // valid UTF-8: copied
      json("bad \xff byte"),                              // invalid: U+FFFD
      json("cut \xe2\x82"),                               // truncated sequence
      json(std::numeric_limits<std::int64_t>::min()),
      json(std::numeric_limits<std::uint64_t>::max()),
      json(-0.0),
      json(0.1),
      json(1e300),
      json(123456789.0),
      json(std::nan("")),
      json(std::numeric_limits<double>::infinity()),
      json{{"b", {1, 2, {{"x", json::array()}, {"y", json::object()}}}},
           {"a", "first\tkey"},
           {"k\xc3\xa9y \"q\"", {{"deep", {{"deeper", {nullptr, false, 2.5, -3}}}}}}},
      json::array({json::array({json::array()}), json::object({{"", ""}})}),
  };
  for (const auto& d : docs)
    for (int indent : {-1, 0, 2, 4}) EXPECT_EQ(write_json(d, indent), nlohmann_dump(d, indent)) << nlohmann_dump(d, -1);
}

}  // namespace
}  // namespace preflight
