// The sub-commands: read files at the edge, call the library, print.
#pragma once

#include "cli_options.h"
#include "io.h"

namespace preflight::cli {

int run_plan(const Options& o, Io& io);
// plan --prefill-gpus --decode-gpus (disaggregated_command.cc).
int run_disaggregated_plan(const Options& o, Io& io);
// One pool's options: its --prefill-*/--decode-* cluster and layout as --gpus and --tp..., its latency phase.
Options disaggregated_pool_options(const Options& o, bool prefill);
int run_explain(const Options& o, Io& io);
int run_inspect(const Options& o, Io& io);
int run_gpus(const Options& o, Io& io);
int run_models(const Options& o, Io& io);
int run_engines(const Options& o, Io& io);

// Solvers (solve_commands.cc).
int run_fit(const Options& o, Io& io);
int run_max(const Options& o, Io& io);
int run_sweep(const Options& o, Io& io);

// Engine command line (launch_subcommand.cc).
int run_launch(const Options& o, Io& io);

// The web planner and its JSON API (serve.cc).
int run_serve(const Options& o, Io& io);

}  // namespace preflight::cli
