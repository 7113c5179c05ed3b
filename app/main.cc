// preflight: will this model serve on that cluster, and if not, what runs out first?
//
// A thin front end: parse arguments into option structs, call the library,
// render, and map errors to exit codes (0 fits, 1 does not fit, 2 bad input).
// Sub-commands are rows of command_table() (command_table.cc).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <optional>
#include <regex>
#include <string_view>
#include <vector>

#include "cli_options.h"
#include "command_table.h"
#include "core/result.h"
#include "core/text.h"
#include "option_table.h"
#include "preflight_revision.h"
#include "terminal_output.h"

namespace {

// "preflight 0.1.0 (git 8b74f56a1c2d)": the release and the commit it was built from.
constexpr std::string_view kVersionLine = "preflight " PREFLIGHT_VERSION " (git " PREFLIGHT_REVISION ")";

// CLI11's parse errors in the tool's own one-line form; any other message is kept.
std::string usage_error(const std::string& what, const std::string& command_names) {
  static const std::regex kTimes(R"(^(\S+): At Most 1 required but received (\d+)$)");
  static const std::regex kUnexpected(R"(^The following arguments? (?:was|were) not expected: (.*)$)");
  const std::string text = preflight::one_line(what);
  std::smatch m;
  if (std::regex_match(text, m, kTimes)) return fmt::format("{} given {} times; give it once", m[1].str(), m[2].str());
  if (std::regex_match(text, m, kUnexpected)) return fmt::format("unknown option or extra argument: {}", m[1].str());
  if (text == "A subcommand is required") return fmt::format("give a command: {}", command_names);
  return text;
}

// An option given an empty value (--context '', an empty MODEL) is a mistake,
// not a request for the default: say so rather than plan something else.
const CLI::Validator kNonEmpty(
    [](std::string& value) {
      return value.empty() ? std::string("empty value (leave the option out for its default)") : std::string();
    },
    "", "non-empty");

}  // namespace

namespace {

// Parses the line and runs its command. `lazy`: only the options the line names
// (and the command's positional and required ones) are declared to CLI11, which
// checks each new option against every one declared before it (a K3 plan spent
// ~1.2M instructions declaring plan's ~60). Options left undeclared
// are options not given, so a line that parses reads the same either way; a
// line that does not is parsed again with every option declared, for CLI11's
// own error, help or version text.
int run_line(int argc, char** argv, bool lazy) {
  std::optional<std::vector<std::string_view>> given;
  if (lazy) {
    given = preflight::cli::flags_on_line(argc, argv);
    if (!given) return run_line(argc, argv, false);
  }
  CLI::App app{fmt::format("{}\n\n{}", preflight::cli::kToolQuestion, preflight::cli::kExitCodes), "preflight"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(kVersionLine), "print the version and the git revision, and exit");
  app.footer(fmt::format("Examples:\n{}", preflight::cli::kToolExamples));
  preflight::cli::Options options;
  // Only the command named on the line gets its options declared: declaring
  // every command's (about 400 CLI11 options) was 6% of a plan's process time.
  // Without a command name (preflight --help, a typo) none are: the
  // top-level help lists commands only, and a line without a command is an error
  // ("give a command: ...") whatever its options.
  const preflight::cli::CommandRow* named = nullptr;
  for (int i = 1; i < argc && named == nullptr; ++i)
    for (const auto& row : preflight::cli::command_table())
      if (std::string_view(argv[i]) == row.name) {
        named = &row;
        break;
      }
  std::vector<std::pair<CLI::App*, const preflight::cli::CommandRow*>> subs;
  for (const auto& row : preflight::cli::command_table()) {
    auto* sub = app.add_subcommand(std::string(row.name), std::string(row.summary));
    sub->footer(fmt::format("Examples:\n{}", row.examples));
    if (named != &row) {
      subs.emplace_back(sub, &row);
      continue;
    }
    preflight::cli::add_table_options(*sub, options, row.options, given ? &*given : nullptr);
    for (CLI::Option* option : sub->get_options())
      if (option->get_expected_max() > 0) option->check(kNonEmpty);
    subs.emplace_back(sub, &row);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Error&) {
    if (lazy) return run_line(argc, argv, false);  // every option declared: CLI11's own answer
    try {
      throw;
    } catch (const CLI::CallForHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForVersion&) {
      std::cout << kVersionLine << "\n";
      return 0;
    } catch (const CLI::ParseError& e) {
      std::string names;
      for (const auto& row : preflight::cli::command_table())
        names += (names.empty() ? "" : ", ") + std::string(row.name);
      std::cerr << "preflight: " << usage_error(e.what(), names) << " (see preflight --help)\n";
      return 2;
    }
  }
  // Reports echo text from files and arguments: standard output goes through
  // the terminal-safe filter (errors are made one line by fail()).
  preflight::cli::TerminalSafeBuffer safe_stdout(std::cout.rdbuf());
  std::ostream out(&safe_stdout);
  try {
    for (const auto& [sub, row] : subs)
      if (sub->parsed()) {
        preflight::cli::Io io{out, std::cerr};
        const int code = row->run(options, io);
        out.flush();
        return code;
      }
  } catch (const preflight::InputError& e) {
    out.flush();
    std::cerr << "preflight: " << preflight::one_line(e.what()) << "\n";
    return 2;
  } catch (const std::exception& e) {
    out.flush();
    std::cerr << "preflight: internal error: " << preflight::one_line(e.what()) << "\n";
    return 3;
  }
  return 2;
}

}  // namespace

int main(int argc, char** argv) { return run_line(argc, argv, true); }
