#include "core/parallel_for.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

namespace preflight {
namespace {

TEST(ParallelFor, EveryItemRunsExactlyOnceWhateverTheThreadCount) {
  for (const unsigned threads : {0u, 1u, 2u, 3u, 8u}) {
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{97}}) {
      std::vector<std::atomic<int>> runs(n);
      parallel_for(n, threads, [&](std::size_t i) { runs[i].fetch_add(1); });
      for (std::size_t i = 0; i < n; ++i)
        EXPECT_EQ(runs[i].load(), 1) << "threads " << threads << ", n " << n << ", item " << i;
    }
  }
}

TEST(ParallelFor, AnExceptionReachesTheCaller) {
  for (const unsigned threads : {1u, 2u, 4u}) {
    std::atomic<int> ran{0};
    EXPECT_THROW(parallel_for(50, threads,
                              [&](std::size_t i) {
                                ran.fetch_add(1);
                                if (i == 7) throw std::runtime_error("item 7");
                              }),
                 std::runtime_error)
        << "threads " << threads;
    // Items after the failure may be skipped, never run twice.
    EXPECT_LE(ran.load(), 50);
    EXPECT_GE(ran.load(), 8);
  }
}

}  // namespace
}  // namespace preflight
