// holds_large_transients: which command lines keep the heap in 4 KiB pages (the
// server, a hub id or a path) and which may ask for huge pages (a catalogue plan).
#include "heap.h"

#include <gtest/gtest.h>

#include <vector>

namespace preflight::cli {
namespace {

TEST(Heap, WhichCommandLinesHoldLargeTransients) {
  struct Row {
    std::vector<const char*> argv;
    bool large;
  };
  const Row rows[] = {
      {{"preflight", "plan", "--gpus", "8xB300", "--context", "1M"}, false},
      {{"preflight", "plan", "kimi-k3", "--format", "json"}, false},
      {{"preflight", "sweep", "--counts", "1..256"}, false},
      {{"preflight", "--help"}, false},
      {{"preflight"}, false},
      {{"preflight", "serve", "--port", "8080"}, true},
      {{"preflight", "--color", "never", "serve"}, true},
      {{"preflight", "inspect", "moonshotai/Kimi-K3"}, true},
      {{"preflight", "plan", "./config.json", "--gpus", "8xH100"}, true},
  };
  for (const auto& r : rows) {
    auto argv = r.argv;
    argv.push_back(nullptr);
    EXPECT_EQ(holds_large_transients(static_cast<int>(r.argv.size()), argv.data()), r.large)
        << r.argv[1 % r.argv.size()];
  }
}

}  // namespace
}  // namespace preflight::cli
