#include "perf/speculative.h"

#include <cmath>

namespace preflight {

double expected_tokens_per_verify(std::uint64_t n, double acceptance) {
  if (n == 0) return 1.0;
  if (acceptance >= 1.0) return static_cast<double>(n + 1);
  if (acceptance <= 0.0) return 1.0;
  return (1.0 - std::pow(acceptance, static_cast<double>(n + 1))) / (1.0 - acceptance);
}

}  // namespace preflight
