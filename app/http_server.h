// preflight serve's connection layer: httplib parses each request, routes it
// and writes the response; this class owns the sockets.
//
// httplib gives every connection a worker thread for its whole life, and its
// timeouts are per read() call: a client sending a byte every few seconds
// holds a worker forever, and 64 such clients stop the server. Here one
// thread (the I/O loop, epoll) reads every connection without blocking, and a
// request reaches a worker only once it has arrived whole:
//   - a request's line, headers and body must arrive within `request_read` of
//     its first byte (408 otherwise); an idle keep-alive connection is closed
//     after `idle`; a response must be taken within `write` (else closed);
//   - headers beyond `max_header_bytes` get 431, a Content-Length beyond
//     `max_body_bytes` gets 400 naming --max-body (before the body is read),
//     a chunked body 411; the connection then lingers to drain what the
//     client still sends, so the client reads the answer rather than a reset;
//   - request bytes held over every connection are at most `max_buffered_bytes`
//     (503 for the connection that would pass it); a response's tail beyond
//     1 MiB is not handed to the loop: its worker sends it as the client reads;
//   - at most `max_connections` are open (503 beyond) and `max_queued`
//     requests wait for a worker (503 beyond); `workers` bounds the CPU work
//     done at once;
//   - two lanes: `heavy` (when set) marks a whole request as expensive (a
//     solver grid, a hub fetch, a tensor list). The `workers` take cheap
//     requests first, then heavy ones; `light_workers` more take only cheap
//     ones, so a plan is answered at once however many heavy requests wait;
//   - each request carries a RequestBudget: its deadline (`deadline` from its
//     arrival, queueing included) and whether the client has gone (the peer
//     closed its end while the request was being worked on). Handlers read it
//     with current_request_budget() and long work checks it between plans.
// Workers run httplib's own process_request over the buffered bytes and
// hand the response back to the loop, which writes it without blocking;
// a worker may send the first bytes itself when the socket takes them.
// Nothing here knows preflight's API: serve.cc installs the handlers.
#pragma once

#include <httplib.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "request_budget.h"

namespace preflight::cli {

struct ConnectionLimits {
  std::chrono::milliseconds request_read{10'000};
  std::chrono::milliseconds idle{5'000};
  std::chrono::milliseconds write{30'000};
  std::chrono::milliseconds deadline{30'000};
  std::chrono::milliseconds linger{2'000};  // draining a refused request's body before closing
  std::size_t max_header_bytes = 16 * 1024;
  std::size_t max_body_bytes = 4 * 1024 * 1024;
  std::size_t max_connections = 512;
  std::size_t max_queued = 256;
  std::size_t max_buffered_bytes = 64 * 1024 * 1024;  // request bytes held over all connections (503 beyond)
  unsigned workers = 4;
  unsigned light_workers = 1;  // only cheap requests (with `heavy` set)
  // The raw request (line, headers, body): true when it is expensive. Null: one lane.
  std::function<bool(std::string_view request)> heavy;
  std::string deadline_text = "30 s";  // how the deadline is named in a 503
};

class GuardedServer final : public httplib::Server {
 public:
  explicit GuardedServer(ConnectionLimits limits);
  ~GuardedServer() override;
  GuardedServer(const GuardedServer&) = delete;
  GuardedServer& operator=(const GuardedServer&) = delete;

  // Binds host:port with SO_REUSEADDR only: httplib's default also sets
  // SO_REUSEPORT, with which a second server on a busy port starts silently
  // and the kernel splits connections between the two. Returns the port
  // (the one picked when `port` is 0), or an errno value negated.
  int bind(const std::string& host, int port);

  // Runs the I/O loop and the workers, accepts until stop(); false when the
  // listening socket failed.
  bool serve();

 private:
  bool process_and_close_socket(socket_t sock) override;  // hands the socket to the I/O loop

  struct Loop;
  std::unique_ptr<Loop> loop_;
};

// The budget of the request the calling worker thread is handling; null
// outside a request (the CLI).
const RequestBudget* current_request_budget();

}  // namespace preflight::cli
