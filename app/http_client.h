// A small HTTP GET client over libcurl for the Hub: bounded timeouts, ranges,
// retries with exponential backoff on 429, 5xx and transport failures
// (honouring Retry-After up to a cap), one deadline over every attempt and
// wait, and a count of the bytes received. Requests and redirects speak http
// and https only (libcurl would otherwise follow a URL or a Location header to
// file://, ftp://, smb:// and more).
// Thread-safe: every call uses its own curl handle.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace preflight::cli {

struct HttpOptions {
  long connect_timeout_ms = 10000;
  long total_timeout_ms = 60000;  // per attempt
  int max_attempts = 5;           // 1 + retries
  long backoff_ms = 250;          // first wait; doubles each retry
  long max_backoff_ms = 8000;     // cap, also for Retry-After
  long stall_s = 15;              // below 1 byte/s for this long: the transfer has stalled
  // Every attempt and backoff of every request ends by then (no deadline when unset).
  std::optional<std::chrono::steady_clock::time_point> deadline;
  std::string deadline_text;  // how the deadline is named in the error
  // Polled during every transfer and between attempts: true stops the request
  // at once (a web request whose client has gone). Null: never.
  std::function<bool()> cancelled;
};

struct HttpResult {
  long status = 0;  // the last attempt's HTTP status; 0: no response
  std::string body;
  std::string error;  // transport error of the last attempt, when status is 0
  int attempts = 0;
};

class HttpClient {
 public:
  explicit HttpClient(HttpOptions options = {});
  // GET `url` with optional "Authorization: Bearer TOKEN" and a byte range [first, last].
  HttpResult get(const std::string& url, const std::optional<std::string>& token,
                 std::optional<std::pair<std::uint64_t, std::uint64_t>> range = std::nullopt);
  std::uint64_t bytes_received() const { return bytes_.load(); }
  std::uint64_t requests() const { return requests_.load(); }

 private:
  HttpOptions options_;
  std::atomic<std::uint64_t> bytes_{0};
  std::atomic<std::uint64_t> requests_{0};
};

}  // namespace preflight::cli
