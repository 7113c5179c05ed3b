// Speculative decoding: what N draft tokens per step buy, as an assumption.
//
// A draft proposes N tokens; the target verifies them in one forward pass of
// N + 1 positions per request and keeps the longest accepted prefix plus one
// token of its own. If each draft token is accepted independently with
// probability a, the expected tokens gained per verification step are
//   E = (1 - a^(N+1)) / (1 - a)        (N + 1 when a = 1)
// (Leviathan, Kalman and Matias, "Fast Inference from Transformers via
// Speculative Decoding", ICML 2023, eq. 1). The acceptance rate depends on
// the draft, the task and the sampling temperature: it is the user's
// hypothesis, never a property of the model.
#pragma once

#include <cstdint>

namespace preflight {

// Expected tokens per verification step; 1 when n is 0. `acceptance` in [0, 1].
double expected_tokens_per_verify(std::uint64_t n, double acceptance);

}  // namespace preflight
