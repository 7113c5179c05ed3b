// Checks of a plan's ledgers against totals computed independently of them,
// as bloaty checks its rows against the file's size: check_reconciles
// (ledger.h) proves each ledger adds up to its own rows; this proves the rows
// hold what the manifest says they should.
//
// Weights: summed over every rank, module by module, the weight rows must
// equal the manifest's bytes of that module counted once per copy the layout
// keeps: a replicated tensor once per rank of its stage, a TP-split tensor once
// per DP group (its slices over a TP group add up to it), a routed expert once
// (one EP group holds it, split over MoE-TP). The computation walks the
// manifest, not the placement index, so an error in either shows. The LM head
// is left out when an engine skips a tied one.
#pragma once

#include <optional>
#include <string>

#include "model/model_spec.h"
#include "plan/plan.h"

namespace preflight {

// "" when the rows agree; else what differs. Needs a full plan (rows by module).
std::string weights_disagreement(const Plan& plan, const ModelSpec& model);

// KV cache: in a vLLM plan of one pipeline stage whose cache layers all grow
// with the context (full attention, MLA; no sliding window, chunk or
// recurrent state; no DCP or speculation; not DeepSeek-V3.2's own DSA layout),
// each rank's KV row must be its DP group's requests x the blocks of
// max_model_len x block_size tokens x the model's
// cache bytes per token on one rank, computed from the config by
// request_state.h, not by the engine layer. "" when they agree or the plan is
// not of that kind.
std::string kv_disagreement(const Plan& plan, const ModelSpec& model);

// Every check above on one full plan: each rank's ledger adds up to its rows
// (check_reconciles), the weight rows hold the manifest, the KV rows the cache
// per token. "" when all hold; else which failed and how. A failure is a bug in
// preflight, never bad input: every command that prints a plan runs this on it
// (plan, explain, launch, both pools of a prefill/decode split).
std::string plan_invariant_violation(const Plan& plan, const ModelSpec& model);

}  // namespace preflight
