#include "options_transfer.h"

#include <gtest/gtest.h>

#include "option_table.h"

namespace preflight::cli {
namespace {

// Every member of the table survives the trip, each with a value unlike its default.
TEST(OptionsTransfer, EveryTableMemberRoundTrips) {
  Options sent;
  int n = 0;
  for (const auto& spec : option_table()) {
    ++n;
    std::visit(
        [&](auto member) {
          using Field = std::remove_reference_t<decltype(sent.*member)>;
          if constexpr (std::is_same_v<Field, bool>)
            sent.*member = !(sent.*member);
          else if constexpr (std::is_same_v<Field, std::string>)
            sent.*member = "value " + std::to_string(n);
          else
            sent.*member = {"a" + std::to_string(n), "b"};
        },
        spec.member);
  }
  const auto got = options_from_transfer(options_to_transfer(sent));
  ASSERT_TRUE(got) << got.error().to_string();
  for (const auto& spec : option_table())
    std::visit([&](auto member) { EXPECT_EQ((*got).*member, sent.*member) << spec.flag; }, spec.member);
}

TEST(OptionsTransfer, BadTextIsAnError) {
  EXPECT_FALSE(options_from_transfer("[]"));
  EXPECT_FALSE(options_from_transfer("{"));
  const auto wrong = options_from_transfer(R"({"--port": 5})");
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().to_string(), "serve options: /--port: unexpected value 5");
  EXPECT_TRUE(options_from_transfer("{}"));
}

}  // namespace
}  // namespace preflight::cli
