// Decode roofline: a lower bound on the time of one decode step, hence an upper
// bound on tokens/s. Never a promise.
//
// Per rank, the step cannot take less than the longest of three terms
// (Williams, Waterman and Patterson, "Roofline", CACM 2009, with the network
// as a third roof):
//   memory        = bytes the rank reads (decode_bytes.h) / HBM bandwidth
//   compute       = sum over rate classes of FLOPs (step_flops.h) / dense rate
//   communication = bytes the rank sends (communication.h) / link bandwidth
// assuming the three overlap perfectly. A stage takes as long as its slowest
// rank; a token crosses the PP stages one after another, so a step (one token
// for each request of the batch) takes the sum over stages. The binding term
// is the longest term of the slowest rank of the slowest stage.
//
// Tokens/s: each request gains one token per step (no speculation), so per
// request 1 / step; the cluster completes batch x DP tokens per slowest-stage
// time (a full pipeline keeps PP microbatches in flight, so the concurrency
// is batch x DP x PP); per GPU, that over the world.
// Left out, all of which make real systems slower: kernel launch and
// collective latencies, imperfect overlap, attention kernels below peak,
// sampling, scheduling and detokenization.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/figure.h"
#include "perf/communication.h"
#include "perf/decode_bytes.h"
#include "perf/format_placement.h"
#include "perf/perf_inputs.h"
#include "perf/step_flops.h"

namespace preflight {

enum class BindingTerm { memory, compute, communication };
std::string_view binding_term_key(BindingTerm t);  // "memory_bandwidth" | "compute" | "communication"

// One rank's three terms.
struct RankTerms {
  std::uint64_t rank = 0;
  double memory_s = 0;
  double compute_s = 0;
  double communication_s = 0;
  double seconds = 0;  // the largest
  BindingTerm binding = BindingTerm::memory;
};

RankTerms rank_terms(const Accelerator& gpu, const RankStepBytes& bytes, const RankStepFlops& flops,
                     const RankStepComm& comm);

// One step of a given shape over the whole layout.
struct StepEstimate {
  StepShape shape;
  std::uint64_t world = 0;
  std::vector<double> stage_seconds;  // slowest rank of each stage
  double step_seconds = 0;            // sum over stages: one token through every stage
  double slowest_stage_seconds = 0;
  RankTerms binding;  // the slowest rank of the slowest stage
  RankStepBytes binding_bytes;
  RankStepFlops binding_flops;
  RankStepComm binding_comm;
  std::uint64_t tokens_per_step = 0;  // tokens a microbatch completes: batch x active DP groups
  std::map<std::string, std::uint64_t> cluster_bytes_by_format;  // summed over every rank
  std::uint64_t cluster_bytes = 0;
  std::uint64_t cluster_flops = 0;
  std::uint64_t cluster_comm_bytes = 0;
  // Some rank sends bytes over a link of unknown bandwidth: the communication
  // term is unknown and left out of every rank's max (see communication.h).
  bool communication_unknown = false;
};

// A communication-term figure as it is, or marked unknown (display "unknown",
// the reason in its formula) when the step sent bytes over a link of unknown bandwidth.
Figure communication_figure(const StepEstimate& s, const Accelerator& gpu, Figure f);

// `weights`: every rank's FormatPlacement::rank_weights, in rank order.
StepEstimate estimate_step(const PerfInputs& in, const FormatPlacement& placement,
                           const std::vector<RankFormatWeights>& weights, const StepShape& shape);
std::vector<RankFormatWeights> all_rank_weights(const FormatPlacement& placement, const Layout& layout);

struct DecodeEstimate {
  StepEstimate batch1;                        // one request per DP group (a single request when DP is 1)
  StepEstimate at_batch;                      // inputs.batch_per_group per DP group
  std::uint64_t concurrency = 0;              // batch x DP x PP requests in flight
  double tokens_per_s_per_request_bound = 0;  // batch 1
  double tokens_per_s_per_gpu_bound = 0;      // batch 1
  double tokens_per_s_per_request_at_batch = 0;
  double tokens_per_s_at_batch = 0;  // the whole cluster
  double tokens_per_s_per_gpu_at_batch = 0;
  std::vector<Figure> figures;  // perf.* ids, every one labelled
  std::vector<std::string> assumptions;
};

// Validates the inputs (an Error names the bad one) and computes both steps.
Result<DecodeEstimate> estimate_decode(const PerfInputs& in);
Result<DecodeEstimate> estimate_decode(const PerfInputs& in, const FormatPlacement& placement);
// With every rank's weights already split (all_rank_weights), shared with prefill and speculation.
Result<DecodeEstimate> estimate_decode(const PerfInputs& in, const FormatPlacement& placement,
                                       const std::vector<RankFormatWeights>& weights);

// The solvers' fast path: the bounds from a subset of ranks, the heaviest of
// each stage (PlacementIndex::representative_ranks: local rank 0 holds the
// extra TP slices and experts, and with uneven expert sizes one rank per EP
// group). Same step times as estimate_decode; no cluster sums, no figures.
struct DecodeBound {
  double tokens_per_s_per_request = 0;  // batch 1
  double tokens_per_s_at_batch = 0;     // the cluster, at batch_per_group
  double tokens_per_s_per_gpu_at_batch = 0;
  BindingTerm binding_at_batch = BindingTerm::memory;
};
Result<DecodeBound> estimate_decode_bound(const PerfInputs& in, const FormatPlacement& placement,
                                          const std::vector<std::uint64_t>& ranks);

}  // namespace preflight
