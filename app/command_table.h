// The sub-commands as data: name, one-line summary, examples, the option
// table's column and the function that runs it. The command line (main.cc),
// the CLI reference, the man page and the shell completions (cli_reference.h)
// all read this one table, so none of them can list a command the others lack.
#pragma once

#include <span>
#include <string_view>

#include "cli_options.h"
#include "io.h"
#include "option_table.h"

namespace preflight::cli {

struct CommandRow {
  std::string_view name;
  std::string_view summary;
  std::string_view examples;  // lines of "  preflight ...", with optional "# comment"
  Command options;            // the option table's column for this command
  int (*run)(const Options&, Io&);
};

std::span<const CommandRow> command_table();

// What the tool answers, and how it exits: the top of --help and of the man page.
inline constexpr std::string_view kToolQuestion =
    "preflight: will this model serve on that cluster, under this workload, and if not, which resource runs out "
    "first?";
inline constexpr std::string_view kExitCodes =
    "Exit codes: 0 the plan fits (a deployment hypothesis), 1 it does not, 2 bad input or usage.";
// The examples under the top-level --help.
inline constexpr std::string_view kToolExamples =
    "  preflight plan --gpus 8xH100                    # pass 1: do the weights fit?\n"
    "  preflight plan --gpus 8xB300 --context 1M       # pass 2: the per-rank ledger\n"
    "  preflight explain --gpus 32xH100 --context 128K # every figure with its formula\n"
    "  preflight inspect kimi-k3                       # the inventory\n"
    "  preflight COMMAND --help                        # options of one command";

}  // namespace preflight::cli
