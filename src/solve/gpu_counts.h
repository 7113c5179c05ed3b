// Which GPU counts the solvers try.
//
// Clusters grow by whole nodes: within one node (NVLink / scale-up domain) a
// power-of-two slice, beyond it only multiples of the node size. fit
// searches 1..max under that rule; sweep takes --counts:
//   A..B    the counts in [A, B] that are a power of two up to one node, or a
//           whole number of nodes (1..256 on 8-GPU nodes: 1 2 4 8 16 24 ... 256)
//   a,b,c   exactly those counts (sorted, duplicates dropped)
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace preflight {

// The largest count a solver accepts (--max-gpus, --counts): far beyond any
// single deployment, and a bound on the work one command can ask for.
inline constexpr std::uint64_t kMaxSolverGpus = 4096;

struct CountSpec {
  bool range = true;
  std::uint64_t first = 1;  // range: [first, last]
  std::uint64_t last = 256;
  std::vector<std::uint64_t> list;  // !range: exactly these
};

// Parses --counts ("1..256", "8,16,32", "64"). Errors name `flag` and the value.
Result<CountSpec> parse_counts(std::string_view text, std::string_view flag);

// The counts of `spec` for a family with `node_size` GPUs per node, ascending.
std::vector<std::uint64_t> counts_for(const CountSpec& spec, std::uint64_t node_size);

// fit's search order: the powers of two up to min(node, max), then whole nodes up to max.
std::vector<std::uint64_t> whole_node_counts(std::uint64_t max_gpus, std::uint64_t node_size);

}  // namespace preflight
