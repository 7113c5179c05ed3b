#include "terminal_output.h"

#include "core/text.h"

namespace preflight::cli {

namespace {
constexpr std::size_t kPiece = 64 * 1024;
}

TerminalSafeBuffer::int_type TerminalSafeBuffer::overflow(int_type ch) {
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  pending_.push_back(traits_type::to_char_type(ch));
  if (pending_.back() == '\n' || pending_.size() >= kPiece) flush_complete();
  return ch;
}

std::streamsize TerminalSafeBuffer::xsputn(const char* text, std::streamsize count) {
  pending_.append(text, static_cast<std::size_t>(count));
  if (pending_.size() >= kPiece ||
      pending_.find('\n', pending_.size() - static_cast<std::size_t>(count)) != std::string::npos)
    flush_complete();
  return count;
}

int TerminalSafeBuffer::sync() {
  flush_all();
  return destination_->pubsync();
}

void TerminalSafeBuffer::write(std::string_view text) {
  const std::string safe = terminal_safe(text);
  destination_->sputn(safe.data(), static_cast<std::streamsize>(safe.size()));
}

void TerminalSafeBuffer::flush_complete() {
  const std::size_t newline = pending_.rfind('\n');
  std::size_t end = newline == std::string::npos ? 0 : newline + 1;
  // A long run without a newline: pass it on but for its last UTF-8 sequence,
  // which may still be incomplete.
  if (pending_.size() - end >= kPiece) end = utf8_prefix(pending_, pending_.size() - 1).size();
  if (end == 0) return;
  write(std::string_view(pending_).substr(0, end));
  pending_.erase(0, end);
}

void TerminalSafeBuffer::flush_all() {
  if (pending_.empty()) return;
  write(pending_);
  pending_.clear();
}

}  // namespace preflight::cli
