// longest_request_tokens / resolved_workload: the one rule for "context 0 means
// the model's window", and a mix's longest member taking its place.
#include "workload/workload.h"

#include <gtest/gtest.h>

namespace preflight {
namespace {

TEST(Workload, TheLongestRequestIsTheMixElseTheContextElseTheWindow) {
  struct Case {
    const char* what;
    std::uint64_t context;
    std::vector<std::uint64_t> mix;
    std::uint64_t want;
  };
  const Case cases[] = {
      {"no context: the window", 0, {}, 131072},
      {"a context", 8192, {}, 8192},
      {"a mix: its longest member", 0, {2048, 4096, 32768}, 32768},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    WorkloadOptions w;
    w.context_tokens = c.context;
    for (auto tokens : c.mix) w.mix.push_back(MixClass{tokens, 1});
    EXPECT_EQ(longest_request_tokens(w, 131072), c.want);
    EXPECT_EQ(resolved_workload(w, 131072, 16).context_tokens, c.want);
  }
}

}  // namespace
}  // namespace preflight
