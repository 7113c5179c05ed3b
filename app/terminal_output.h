// The CLI's standard output, made safe for a terminal.
//
// Reports print text that came from files and arguments (a model name, a
// config's "architectures", tensor names from shard headers, a --catalogue
// entry's name). TerminalSafeBuffer sits between the commands and std::cout and
// passes everything through core/text.h's terminal_safe: newlines and tabs
// stay, every other control character, C1 control and bidirectional override
// is shown as an escape, so no input can move the cursor, clear the screen or
// reorder what the user reads. JSON and CSV pass through unchanged in meaning
// (their strings are already escaped; a raw C1 character inside a JSON string
// becomes its \uXXXX escape).
//
// Text is passed on line by line (a newline never sits inside a UTF-8
// sequence), so `serve`'s "listening on" line appears at once; a long line
// without newlines is passed on in 64 KiB pieces cut at UTF-8 boundaries.
#pragma once

#include <streambuf>
#include <string>

namespace preflight::cli {

class TerminalSafeBuffer final : public std::streambuf {
 public:
  explicit TerminalSafeBuffer(std::streambuf* destination) : destination_(destination) {}
  ~TerminalSafeBuffer() override { flush_all(); }

 protected:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* text, std::streamsize count) override;
  int sync() override;

 private:
  void flush_complete();  // whole lines, or a long line's UTF-8-complete prefix
  void flush_all();
  void write(std::string_view text);

  std::streambuf* destination_;
  std::string pending_;
};

}  // namespace preflight::cli
