// The sub-commands: read files at the edge, call the library, print.
#pragma once

#include "cli_options.h"

namespace preflight::cli {

int run_plan(const Options& o);
int run_explain(const Options& o);
int run_inspect(const Options& o);
int run_gpus(const Options& o);
int run_models(const Options& o);
int run_engines(const Options& o);

// Solvers (solve_commands.cc).
int run_fit(const Options& o);
int run_max(const Options& o);
int run_sweep(const Options& o);

// Engine command line (launch_command.cc).
int run_launch(const Options& o);

}  // namespace preflight::cli
