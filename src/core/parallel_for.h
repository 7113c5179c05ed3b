// parallel_for: runs body(i) for i in [0, n) on up to `threads` threads (the
// calling thread is one of them). Items are handed out one at a time, so
// uneven items balance. The first exception a body throws is rethrown on the
// calling thread once every thread has stopped; items not yet started are
// skipped. With threads <= 1 (or n <= 1) it is a plain loop.
//
// The solvers' grids (sweep) use it: every cell is an independent plan, and
// the shared PlanContext memoizes under its own locks.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace preflight {

template <typename Body>
void parallel_for(std::size_t n, unsigned threads, const Body& body) {
  const auto workers = static_cast<std::size_t>(std::min<std::size_t>(threads == 0 ? 1 : threads, n));
  if (workers <= 1) {
    for (std::size_t i = 0; i < n; ++i) body(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr first;
  std::mutex first_mutex;
  const auto work = [&] {
    for (;;) {
      if (stop.load(std::memory_order_relaxed)) return;
      const auto i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= n) return;
      try {
        body(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(first_mutex);
        if (!first) first = std::current_exception();
        stop.store(true, std::memory_order_relaxed);
        return;
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (std::size_t t = 1; t < workers; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (first) std::rethrow_exception(first);
}

// The threads a command line may use: the machine's cores (at least 1).
inline unsigned machine_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

}  // namespace preflight
