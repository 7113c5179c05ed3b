// The sub-commands: read files at the edge, call the library, print.
#pragma once

#include "cli_options.h"

namespace preflight::cli {

int run_plan(const Options& o);
int run_explain(const Options& o);
int run_inspect(const Options& o);
int run_gpus(const Options& o);
int run_models(const Options& o);

}  // namespace preflight::cli
