// Communication: the bytes one rank sends per step, and their time on the links.
//
// Collectives per decoder layer of the rank's stage, T the tokens of its DP
// group, h the hidden size, a the activation width (model dtype unless given):
//  - TP all-reduce after attention (TP > 1): a ring all-reduce sends
//    2 x (n - 1) / n of the message from every rank (reduce-scatter then
//    all-gather; NCCL's ring algorithm): 2 x (TP - 1) / TP x T x h x a.
//  - dense FFN layers: the same all-reduce after the row-parallel down projection.
//  - MoE layers, EP > 1: dispatch and combine all-to-all. Each token goes to k
//    experts and comes back (x 2), carrying the expert input (h, or the latent
//    size for latent MoE), and (EP - 1) / EP of it leaves the rank's EP group.
//    The stage's T x DP tokens are dispatched evenly from its TP x DP ranks:
//    2 x ceil(T x DP / (TP x DP)) x k x width x a x (EP - 1) / EP. Plus a TP
//    all-reduce for the TP-split parts of the layer (shared experts, latent
//    projections) when TP > 1, and an all-reduce over MoE-TP of the expert
//    outputs when experts are split (MoE-TP > 1).
//  - MoE layers, EP 1: one all-reduce over MoE-TP (= TP x DP) of the stage's tokens.
//  - PP > 1: each stage but the last sends T x h x a to the next.
// A link of unknown bandwidth (interconnect_gb_s 0, e.g. an accelerator whose
// vendor publishes none) times nothing: its bytes are counted in
// unknown_rate_bytes and the term is said to be unknown, never 0 s.
// Links: the catalogue's interconnect_gb_s is per GPU and bidirectional
// (NVLink 4: 18 links x 25 GB/s each way = 450 GB/s each way, 900 GB/s total),
// so a rank sends at interconnect_gb_s / 2. A group of consecutive ranks wider
// than a node crosses the scale-out network: at scale_out_gb_s (each way) when
// given, else at the NVLink rate with the bound marked optimistic. The
// all-to-all sends the share of its destinations outside the node over the
// scale-out link, the rest over NVLink, both at once (the slower sets the time).
// Collectives run one after another in a layer: their times add. Left out:
// per-collective latency (microseconds each, which dominates at batch 1 on
// real systems: this is why the bound is a bound), FP8 dispatch (DeepEP can
// halve the dispatch bytes), and overlap of communication with math.
#pragma once

#include <cstdint>
#include <string>

#include "perf/format_placement.h"
#include "perf/perf_inputs.h"
#include "perf/step_shape.h"

namespace preflight {

struct RankStepComm {
  std::uint64_t rank = 0;
  std::uint64_t tp_allreduce = 0;   // bytes sent: attention, dense FFN and MoE TP parts
  std::uint64_t moe_allreduce = 0;  // bytes sent: all-reduce over MoE-TP
  std::uint64_t ep_alltoall = 0;    // bytes sent: dispatch + combine
  std::uint64_t pipeline = 0;       // bytes sent to the next stage
  std::uint64_t total = 0;
  std::uint64_t intra_node = 0;  // of the total, over NVLink
  std::uint64_t inter_node = 0;  // of the total, over the scale-out network
  bool crosses_nodes = false;
  bool scale_out_modelled = false;  // false: inter-node bytes were timed at the NVLink rate
  // Bytes sent over a link whose bandwidth the catalogue does not know (an
  // interconnect_gb_s of 0): they are not timed, and the communication term is
  // reported as unknown rather than as 0 s.
  std::uint64_t unknown_rate_bytes = 0;
  double seconds = 0;
};

RankStepComm rank_step_comm(const PerfInputs& in, const FormatPlacement& placement, std::uint64_t rank,
                            const StepShape& shape);

// Bytes a rank sends in a ring all-reduce of `rows` rows of `width` elements of
// `element` bytes over `n` ranks: 2 x (n - 1) x rows x width x element / n.
std::uint64_t ring_allreduce_bytes(std::uint64_t n, std::uint64_t rows, std::uint64_t width, std::uint64_t element);

}  // namespace preflight
