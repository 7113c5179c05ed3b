#include "http_client.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <mutex>
#include <string_view>
#include <thread>

#include "curl_library.h"

namespace preflight::cli {

namespace {

struct Transfer {
  std::string body;
  long retry_after_s = -1;
  std::uint64_t limit = 0;  // stop a response larger than this (0: none)
};

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const auto bytes = size * n;
  if (t->limit > 0 && t->body.size() + bytes > t->limit) return 0;  // aborts the transfer
  t->body.append(data, bytes);
  return bytes;
}

// The body's announced size, reserved up front: a 45 MB index appended chunk by
// chunk doubles into a 64 MiB buffer. Only a hint: never more than the transfer's
// limit or kMaxReserve (a server cannot make us reserve what it does not send).
constexpr std::uint64_t kMaxReserve = 256ull << 20;

void reserve_for(Transfer& t, std::string_view line) {
  constexpr std::string_view kLength = "content-length:";
  if (line.size() <= kLength.size() || !t.body.empty()) return;
  for (std::size_t i = 0; i < kLength.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(line[i])) != kLength[i]) return;
  std::uint64_t length = 0;
  for (char c : line.substr(kLength.size())) {
    if (c == ' ' || c == '\t') continue;
    if (c < '0' || c > '9') break;
    length = length * 10 + static_cast<std::uint64_t>(c - '0');
    if (length > kMaxReserve) return;
  }
  if (t.limit > 0) length = std::min(length, t.limit);
  t.body.reserve(length);
}

std::size_t on_header(char* data, std::size_t size, std::size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::string line(data, size * n);
  reserve_for(*t, line);
  constexpr std::string_view kRetry = "retry-after:";
  if (line.size() > kRetry.size()) {
    std::string head = line.substr(0, kRetry.size());
    std::transform(head.begin(), head.end(), head.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (head == kRetry) {
      try {
        t->retry_after_s = std::stol(line.substr(kRetry.size()));
      } catch (...) {
        t->retry_after_s = -1;  // an HTTP date: use our own backoff
      }
    }
  }
  return size * n;
}

bool retryable(long status) { return status == 0 || status == 429 || status >= 500; }

// Transport failures that another attempt cannot mend: a redirect loop, a
// redirect to a scheme we refuse, a URL libcurl cannot use.
bool permanent(CURLcode code) {
  return code == CURLE_TOO_MANY_REDIRECTS || code == CURLE_UNSUPPORTED_PROTOCOL || code == CURLE_URL_MALFORMAT ||
         code == CURLE_WRITE_ERROR;
}

// libcurl's progress callback: a non-zero return aborts the transfer.
int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* cancelled = static_cast<const std::function<bool()>*>(user);
  return (*cancelled)() ? 1 : 0;
}

// One libcurl handle per thread, reset between requests: a reset handle keeps its
// connection cache, so the requests a thread makes to the Hub and its CDN reuse
// their connections (and TLS sessions) instead of opening one per request.
// curl_easy_reset clears every option, so nothing of one request (its token
// header) carries over to the next.
struct ThreadHandle {
  const CurlLibrary* api = nullptr;
  CURL* handle = nullptr;
  ~ThreadHandle() {
    if (handle != nullptr) api->easy_cleanup(handle);
  }
  CURL* get(const CurlLibrary& c) {
    if (handle == nullptr) {
      api = &c;
      handle = c.easy_init();
    } else {
      c.easy_reset(handle);
    }
    return handle;
  }
};

}  // namespace

HttpClient::HttpClient(HttpOptions options) : options_(options) {}

HttpResult HttpClient::get(const std::string& url, const std::optional<std::string>& token,
                           std::optional<std::pair<std::uint64_t, std::uint64_t>> range) {
  HttpResult r;
  const CurlLibrary* curl_api = curl_library(&r.error);
  if (curl_api == nullptr) return r;  // status 0 with the reason, no retry: it will not appear
  const auto& c = *curl_api;
  long wait_ms = options_.backoff_ms;
  using Clock = std::chrono::steady_clock;
  // Milliseconds left before the deadline (the per-attempt timeout when there is none).
  const auto left_ms = [&]() -> long {
    if (!options_.deadline) return options_.total_timeout_ms;
    return static_cast<long>(
        std::chrono::duration_cast<std::chrono::milliseconds>(*options_.deadline - Clock::now()).count());
  };
  for (int attempt = 1; attempt <= options_.max_attempts; ++attempt) {
    if (left_ms() <= 0) {
      r.status = 0;
      r.error = fmt::format("out of time: {}", options_.deadline_text);
      return r;
    }
    if (options_.cancelled && options_.cancelled()) {
      r.status = 0;
      r.error = "stopped: the request was cancelled";
      return r;
    }
    r.attempts = attempt;
    Transfer t;
    // A range asks for a known size; a server that ignores it must not make us download a shard.
    if (range)
      t.limit = range->second - range->first + 1 + 1024;
    else
      t.limit = 64ull * 1024 * 1024;  // listings, configs and indexes are far smaller
    thread_local ThreadHandle thread_handle;
    CURL* curl = thread_handle.get(c);
    if (curl == nullptr) {
      r.error = "curl_easy_init failed";
      return r;
    }
    curl_slist* headers = nullptr;
    if (token) headers = c.slist_append(headers, ("Authorization: Bearer " + *token).c_str());
    headers = c.slist_append(headers, "User-Agent: preflight");
    const std::string range_text = range ? fmt::format("{}-{}", range->first, range->second) : "";
    c.easy_setopt(curl, CURLOPT_URL, url.c_str());
    c.easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    // The Hub redirects resolve/ to its CDN (a signed URL on another host): libcurl then
    // drops the Authorization header, so the token never reaches the CDN. Never set
    // CURLOPT_UNRESTRICTED_AUTH (tests/hub: auth_leaks).
    c.easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
    c.easy_setopt(curl, CURLOPT_MAXREDIRS, 5L);
    // http and https only, for the request and for every redirect: HF_ENDPOINT is
    // checked too (hub/hub_settings.h), but a server's Location header is not ours.
    c.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    c.easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    const long attempt_ms = std::max(1L, std::min(options_.total_timeout_ms, left_ms()));
    c.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, std::min(options_.connect_timeout_ms, attempt_ms));
    c.easy_setopt(curl, CURLOPT_TIMEOUT_MS, attempt_ms);
    c.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    if (options_.cancelled) {
      c.easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
      c.easy_setopt(curl, CURLOPT_XFERINFODATA, &options_.cancelled);
      c.easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    }
    c.easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    // Below 1 byte/s for stall_s the transfer has stalled (a server that announced
    // more bytes than it sends): it ends then, not at the attempt's timeout.
    c.easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, options_.stall_s);
    c.easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    c.easy_setopt(curl, CURLOPT_WRITEDATA, &t);
    c.easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    c.easy_setopt(curl, CURLOPT_HEADERDATA, &t);
    if (range) c.easy_setopt(curl, CURLOPT_RANGE, range_text.c_str());
    const CURLcode code = c.easy_perform(curl);
    long status = 0;
    c.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_off_t received = 0;
    c.easy_getinfo(curl, CURLINFO_SIZE_DOWNLOAD_T, &received);
    c.slist_free_all(headers);
    requests_ += 1;
    bytes_ += static_cast<std::uint64_t>(received);
    if (code != CURLE_OK) {
      r.status = 0;
      r.error = code == CURLE_WRITE_ERROR ? "the response was larger than asked for" : c.easy_strerror(code);
      if (code == CURLE_ABORTED_BY_CALLBACK) {
        r.error = "stopped: the request was cancelled";
        return r;
      }
      if (code == CURLE_OPERATION_TIMEDOUT && received > 0)
        r.error = fmt::format("the transfer stalled after {} bytes (nothing for {} s, PREFLIGHT_HUB_STALL_S)", received,
                              options_.stall_s);
      if (permanent(code)) return r;
    } else {
      r.status = status;
      r.error.clear();
      r.body = std::move(t.body);
    }
    if (!retryable(r.status) || attempt == options_.max_attempts) return r;
    long sleep_ms = wait_ms;
    // Retry-After is the server's number: capped before it is scaled, so no value overflows.
    if (t.retry_after_s >= 0)
      sleep_ms =
          std::min(std::min(t.retry_after_s, options_.max_backoff_ms / 1000 + 1) * 1000, options_.max_backoff_ms);
    sleep_ms = std::min(sleep_ms, std::max(0L, left_ms()));
    std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
    wait_ms = std::min(wait_ms * 2, options_.max_backoff_ms);
  }
  return r;
}

}  // namespace preflight::cli
