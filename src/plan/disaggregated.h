// Disaggregated prefill and decode (seed 001's split recipe
// for Kimi K3): two pools, each a plan of its own, and the KV cache of every
// prompt sent from the prefill pool to the decode pool.
//
//  - the prefill pool holds the weights, one chunk's activations and the KV
//    (and recurrent state) of the prompts in flight: the prompt length, one
//    prompt per attention group, or rate x TTFT prompts with --rate;
//  - the decode pool holds the weights and the KV and state of every running
//    request, at their full length (the workload as `plan` reads it);
//  - the transfer: each decode rank receives its share of a prompt's cache
//    (its TP shard; MLA latents whole) over its own scale-out link, in
//    parallel with the others, so the time is the largest per-rank share over
//    the per-GPU link rate. It adds to the TTFT.
#pragma once

#include <cstdint>
#include <vector>

#include "core/figure.h"
#include "plan/plan.h"

namespace preflight {

struct KvTransfer {
  std::uint64_t prompt_tokens = 0;
  std::uint64_t bytes_per_request = 0;      // the whole model's cache and state for one prompt (TP 1)
  std::uint64_t bytes_per_decode_rank = 0;  // the largest share one decode rank receives
  double link_gb_s = 0;                     // per GPU, each way
  double seconds = 0;                       // bytes_per_decode_rank / link
  double rate_per_s = 0;                    // --rate (0: none)
  double link_share = 0;                    // rate x bytes_per_request / (decode GPUs x link): the links' busy share
  std::vector<Figure> figures;              // disagg.kv_transfer.*
};

// `decode_layout`: the decode pool's; `link_gb_s` > 0 (the scale-out rate per GPU).
KvTransfer kv_transfer(const ModelSpec& model, const Layout& decode_layout, const WorkloadOptions& decode_workload,
                       std::uint64_t prompt_tokens, double link_gb_s, double rate_per_s);

// Both pools must fit and meet their phase's target; the first red one names
// the boundary, with the pool in the summary.
Verdict combined_verdict(const Plan& prefill, const Plan& decode, const KvTransfer& transfer);

}  // namespace preflight
