#include "terminal_output.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace preflight::cli {
namespace {

std::string through_filter(const std::string& text, bool in_pieces) {
  std::ostringstream sink;
  {
    TerminalSafeBuffer buffer(sink.rdbuf());
    std::ostream out(&buffer);
    if (in_pieces)
      for (char c : text) out << c;
    else
      out << text;
    out.flush();
  }
  return sink.str();
}

TEST(TerminalSafeBuffer, EscapesControlsKeepsLinesAndUtf8) {
  struct Case {
    std::string in, out;
  };
  for (const auto& c : std::vector<Case>{
           {"plain\nlines\n", "plain\nlines\n"},
           {"a\tb\n", "a\tb\n"},
           {"\x1b[2Jcleared\n", "\\x1b[2Jcleared\n"},
           {"bell\a and CR\r\n", "bell\\x07 and CR\\r\n"},
           {"DeepSeek\xe2\x80\xae"
            "evil\n",
            "DeepSeek\\u202eevil\n"},  // a bidirectional override
           {"c1 \xc2\x9b"
            "31m\n",
            "c1 \\u009b31m\n"},  // C1 CSI
           {"caf\xc3\xa9 \xe2\x86\x92 GiB\n", "caf\xc3\xa9 \xe2\x86\x92 GiB\n"},
           {"broken \xff\n", "broken \\xff\n"},
           {"{\"name\": \"\\u001b\"}\n", "{\"name\": \"\\u001b\"}\n"},  // JSON's own escapes pass as text
       }) {
    EXPECT_EQ(through_filter(c.in, false), c.out) << c.in;
    EXPECT_EQ(through_filter(c.in, true), c.out) << c.in << " (a character at a time)";
  }
}

TEST(TerminalSafeBuffer, LongLinesPassInPiecesWithoutSplittingCharacters) {
  std::string line;
  for (int i = 0; i < 50'000; ++i) line += "\xe2\x86\x92";  // 150 KB of a 3-byte character, no newline
  line += "\n";
  EXPECT_EQ(through_filter(line, false), line);
  EXPECT_EQ(through_filter(line, true), line);
}

}  // namespace
}  // namespace preflight::cli
