#include "core/text.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace preflight {
namespace {

TEST(Text, EscapeControl) {
  struct Case {
    std::string in, out;
  };
  for (const auto& c : std::vector<Case>{
           {"kimi-k3", "kimi-k3"},
           {"kimi\nk3", "kimi\\nk3"},
           {"\x1b[2J", "\\x1b[2J"},
           {"tab\there", "tab\\there"},
           {std::string("nul\0byte", 8), "nul\\x00byte"},
           {"del\x7f", "del\\x7f"},
           {"\xc2\x85next line", "\\u0085next line"},
           {"rtl\xe2\x80\xaegnp.exe", "rtl\\u202egnp.exe"},
           {"line\xe2\x80\xa8"
            "break\xe2\x80\xa9",
            "line\\u2028break\\u2029"},
           {"iso\xe2\x81\xa6x", "iso\\u2066x"},
           {"\xff\xfe", "\\xff\\xfe"},
           {"\xc0\xaf", "\\xc0\\xaf"},           // overlong '/'
           {"\xed\xa0\x80", "\\xed\\xa0\\x80"},  // a surrogate
           {"\xe2\x82", "\\xe2\\x82"},           // truncated
           {"H100 \xe2\x86\x92 B300", "H100 \xe2\x86\x92 B300"},
           // The edges of the printable-ASCII runs copied whole: ' ' and '~' kept, 0x1f and 0x7f not.
           {" ~\x1f~ \x7f \xc2\x9f~", " ~\\x1f~ \\x7f \\u009f~"},
       }) {
    EXPECT_EQ(escape_control(c.in), c.out) << c.in;
    // has_control answers what escape_control would do, without escaping.
    EXPECT_EQ(has_control(c.in), c.in != c.out) << c.in;
  }
  EXPECT_EQ(terminal_safe("a\nb\tc\x1b"), "a\nb\tc\\x1b");
}

TEST(Text, EchoQuotesEscapesAndBounds) {
  EXPECT_EQ(echo("128K"), "'128K'");
  EXPECT_EQ(echo("a\nb"), "'a\\nb'");
  const std::string long_value(50'000, '9');
  EXPECT_EQ(echo(long_value), "'" + std::string(80, '9') + "'... (50000 bytes in all)");
  // Never splits a UTF-8 character.
  std::string arrows;
  for (int i = 0; i < 30; ++i) arrows += "\xe2\x86\x92";
  EXPECT_EQ(echo(arrows, 10), "'\xe2\x86\x92\xe2\x86\x92\xe2\x86\x92'... (90 bytes in all)");
}

TEST(Text, OneLineIsOneBoundedLine) {
  EXPECT_EQ(one_line("MODEL: unknown model 'a\nb'"), "MODEL: unknown model 'a\\nb'");
  const std::string flood = "x: " + std::string(100'000, '[');
  const auto line = one_line(flood);
  EXPECT_LE(line.size(), 1100u);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_NE(line.find("(100003 bytes in all)"), std::string::npos);
  std::string controls(5000, '\x1b');
  const auto escaped = one_line(controls, 100);
  EXPECT_EQ(escaped.substr(0, 8), "\\x1b\\x1b");
  EXPECT_LE(escaped.size(), 130u);
}

}  // namespace
}  // namespace preflight
