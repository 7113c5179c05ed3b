// fit, max and sweep: the solvers' front ends.
#include <iostream>

#include "commands.h"
#include "plan_inputs.h"

namespace preflight::cli {

int run_fit(const Options&) { return fail(Error{"fit", "", "not implemented yet"}); }
int run_max(const Options&) { return fail(Error{"max", "", "not implemented yet"}); }
int run_sweep(const Options&) { return fail(Error{"sweep", "", "not implemented yet"}); }

}  // namespace preflight::cli
