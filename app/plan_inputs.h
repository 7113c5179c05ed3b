// Turning command-line options into library inputs, once: resolve_request
// gives the GPU catalogue's cluster or families (with --catalogue merged), the
// model (with --quantize / --dtype overrides and the engine's auto dtype) and
// the typed PlanRequest (workload, layout and engine knobs parsed by the unit
// parsers so errors name the flag). Every command that plans goes through it.
#pragma once

#include <string>

#include "cli_options.h"
#include "core/result.h"
#include "hardware/gpu_catalogue.h"
#include "io.h"
#include "model_source.h"
#include "plan/plan.h"

namespace preflight::cli {

Result<GpuCatalogue> resolve_catalogue(const Options& o);

// --gpus COUNTxFAMILY resolved against the catalogue (with --catalogue merged).
struct Cluster {
  Accelerator gpu;
  std::uint64_t count = 0;
};
Result<Cluster> resolve_cluster(const Options& o);
// MODEL (or the uploaded config) as read, before any engine rule: inspect's
// model, and what launch's recipes are chosen by.
Result<LoadedModel> load_model_for(const Options& o);

// Everything a command hands the library, resolved once from the options:
// the model as the engine will hold it, the cluster or the GPU
// families, and the typed request (dtypes as enums, the engine version parsed,
// layout constraints, the workload). Commands adjust this, never the option
// strings; nothing below app/ sees Options. The context stays 0 when --context
// was not given: the library resolves it against the model in one place
// (resolved_workload), and the reports say "the model's context window".
struct ResolvedRequest {
  LoadedModel loaded;
  std::optional<Cluster> cluster;     // --gpus COUNTxFAMILY (plan, explain, max, launch)
  std::vector<Accelerator> families;  // --gpu FAMILY ... (fit, sweep): the catalogue's all when none is named
  PlanRequest request;                // gpu_count set when there is a cluster
  // How the plan runs, not what it plans:
  bool suggest = true;                    // a red plan searches the changes that plan green
  const RequestBudget* budget = nullptr;  // the web API's deadline, checked between plans
  std::string workload_flags;             // "--context 1M --concurrency 64": what an overflow error names
};

// Which cluster options a command reads.
enum class ClusterFrom { gpus, families };

// The options resolved: `preloaded` is a model the caller already loaded from
// the same options (a disaggregated plan's two pools share one load); null:
// load it here. Errors name the flag, the file or the field.
Result<ResolvedRequest> resolve_request(const Options& o, ClusterFrom from, const LoadedModel* preloaded = nullptr);

// One pool of a disaggregated plan is planned as a cluster of its own, from
// options whose --gpus and layout flags are the pool's: an error (from resolving
// or from planning) names the flag the user typed (--prefill-tp), not the one it
// was copied to (--tp). Unchanged outside a pool (LatencyPhase::both).
Error named_for_pool(Error e, LatencyPhase phase);

// --prefill-tp and the other pool flags without --prefill-gpus and --decode-gpus:
// refused by name rather than ignored.
std::optional<Error> refuse_pool_flags_without_pools(const Options& o);

// The plan of a resolved request with a cluster: its layout flags, or the
// practical layout `fit` picks at that count; suggestions when red.
Result<Plan> make_plan(const ResolvedRequest& r);

// An overflow in the plan's checked arithmetic, named by the workload flags
// that caused it (ResolvedRequest::workload_flags; MODEL when none was given).
Error overflow_error(const std::string& workload_flags, const Error& arithmetic);

// Prints "preflight: <error>" to io.err and returns exit code 2.
int fail(Io& io, const Error& e);

}  // namespace preflight::cli
