// The command-line reference, generated from the command and option tables
// (command_table.h, option_table.h) so it cannot drift from what the binary
// parses: docs/cli.md (markdown, checked by ctest `cli_reference`) and the man
// page the install puts in share/man/man1. Pure: text in, text out.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "option_table.h"

namespace preflight::cli {

// How an option is written on the command line: its flag, then VALUE, or its choices
// joined by '|', "(repeatable)" after one given many times; MODEL alone. `command` adds its extra choices
// (fit and sweep also take --format csv); 0 lists every choice.
std::string option_synopsis(const OptionSpec& spec, std::uint32_t command = 0);

// The commands (by name) that take an option, with "(required)" after those that need it.
std::vector<std::string> option_commands(const OptionSpec& spec);

// The options of one command, in table order.
std::vector<const OptionSpec*> command_options(Command command);

// docs/cli.md: every command (summary, usage, options, examples) and every option
// (its value, the commands that take it, its web API key), grouped as --help groups them.
std::string cli_reference_markdown();

// The man page, preflight(1), in roff; `version` goes in its header line.
std::string man_page(std::string_view version);

}  // namespace preflight::cli
