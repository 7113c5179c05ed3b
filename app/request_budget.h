// What one web request may spend: a deadline (from its arrival, queueing
// included) and whether its client is still there. The server's connection
// layer fills it; long-running commands (the solvers' grids) call check()
// between plans, so a request past its deadline, or one whose client has gone,
// stops within one plan instead of running on for minutes.
// The CLI has no budget: a command line runs as long as it takes.
#pragma once

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>

namespace preflight::cli {

// Thrown by RequestBudget::check(); the API answers it with a 503 naming the limit.
class RequestStopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RequestBudget {
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::string deadline_text;             // "30 s (serve --request-timeout)"
  std::atomic<bool> client_gone{false};  // set by the connection layer when the peer closes

  bool expired() const { return std::chrono::steady_clock::now() >= deadline; }

  // `margin`: work that stopped itself just before the deadline (a transfer
  // given the time left, in whole milliseconds) counts as stopped by it.
  void check(std::chrono::milliseconds margin = std::chrono::milliseconds(0)) const {
    if (client_gone.load(std::memory_order_relaxed)) throw RequestStopped("the client closed the connection");
    if (std::chrono::steady_clock::now() + margin >= deadline)
      throw RequestStopped("the request ran past this server's deadline of " + deadline_text);
  }
};

}  // namespace preflight::cli
