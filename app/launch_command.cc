// launch: the engine command line for a plan.
#include <iostream>

#include "commands.h"
#include "plan_inputs.h"

namespace preflight::cli {

int run_launch(const Options&) { return fail(Error{"launch", "", "not implemented yet"}); }

}  // namespace preflight::cli
