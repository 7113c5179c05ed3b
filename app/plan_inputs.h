// Turning command-line options into library inputs: the GPU catalogue (with
// --catalogue merged), the model (with --quantize / --dtype overrides), and the
// PlanRequest (workload, layout and engine knobs parsed by the unit parsers so
// errors name the flag). Every command that plans shares these.
#pragma once

#include <string>

#include "cli_options.h"
#include "io.h"
#include "core/result.h"
#include "hardware/gpu_catalogue.h"
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
Result<PlanRequest> plan_request(const Options& o);
Result<LoadedModel> load_model_for(const Options& o);
// What an engine plan needs beyond the options, once the model is loaded:
// - the release the model's own engine recipe needs (data/launch/recipes.json
//   min_version), so the plan can say when it applies an older release's rules
//   (`gpu` null: the recipes that hold on any GPU, for the solvers over families);
// - the model as the engine holds it under `--dtype auto` when no --dtype was
//   given (engine/engine_dtype.h: a float32 config in 16 bits).
// Nothing for the generic engine.
std::optional<Error> prepare_engine_inputs(LoadedModel& loaded, const Options& o, PlanRequest& request,
                                           const Accelerator* gpu, std::uint64_t gpu_count);

// The plan for --gpus, the model and the request options; `loaded` (when
// given) receives the model it planned and how its files compare with config.json.
// `preloaded`: the model the caller already loaded from the same options (a
// disaggregated plan's two pools share one load); null: load it here.
Result<Plan> make_plan(const Options& o, LoadedModel* loaded = nullptr, const LoadedModel* preloaded = nullptr);

// An overflow in the plan's checked arithmetic, named by the workload flags
// that caused it (or MODEL when none was given).
Error overflow_error(const Options& o, const Error& arithmetic);

// Prints "preflight: <error>" to io.err and returns exit code 2.
int fail(Io& io, const Error& e);

}  // namespace preflight::cli
