// preflight: will this model serve on that cluster, and if not, what runs out first?
//
// A thin front end: parse arguments into option structs, call the library,
// render, and map errors to exit codes (0 fits, 1 does not fit, 2 bad input).
// Sub-commands are rows of kCommands; each lives in commands.cc.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>
#include <optional>
#include <string_view>
#include <vector>
#include <regex>

#include "cli_options.h"
#include "option_table.h"
#include "commands.h"
#include "core/result.h"
#include "core/text.h"
#include "terminal_output.h"

namespace {

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

struct CommandRow {
  const char* name;
  const char* summary;
  const char* examples;
  preflight::cli::Command options;  // the option table's column for this command
  int (*run)(const preflight::cli::Options&, preflight::cli::Io&);
};

const CommandRow kCommands[] = {
    {"plan", "the verdict: per-rank ledger, first boundary crossed, headroom",
     "  preflight plan --gpus 8xH100\n"
     "  preflight plan kimi-k3 --gpus 16xH200 --context 128K --concurrency 8\n"
     "  preflight plan --gpus 32xH100 --context 1M --kv-dtype fp8 --dcp 8 --format json\n"
     "  preflight plan deepseek-v3 --gpus 16xH200 --mix 2K:70%,32K:25%,128K:5% --concurrency 64\n"
     "  preflight plan --gpus 8xB300 --context 128K --ttft 5s --tpot 50ms --rate 0.2\n"
     "  preflight plan --prefill-gpus 8xB300 --decode-gpus 16xH200 --context 128K --concurrency 8",
     preflight::cli::kPlan, preflight::cli::run_plan},
    {"explain", "the same plan with the arithmetic, evidence and source behind every figure",
     "  preflight explain --gpus 8xB300 --context 1M --concurrency 4\n"
     "  preflight explain --gpus 8xB300 --context 1M --only kv",
     preflight::cli::kExplain, preflight::cli::run_explain},
    {"fit", "minimum GPU count per family, with the layout that achieves it and the binding resource",
     "  preflight fit kimi-k3\n  preflight fit kimi-k3 --gpu H100 --gpu B300 --context 128K --engine vllm\n"
     "  preflight fit deepseek-v3 --context 32K --ttft 2s --tpot 50ms --rate 4",
     preflight::cli::kFit, preflight::cli::run_fit},
    {"max", "the largest context (or number of concurrent requests) that fits, and what binds",
     "  preflight max --gpus 8xB300 --solve context\n  preflight max --gpus 16xH200 --context 128K --solve concurrency",
     preflight::cli::kMax, preflight::cli::run_max},
    {"sweep", "a family x GPU-count grid of verdicts and headroom (the cheat sheet)",
     "  preflight sweep --gpu H100 --gpu H200 --gpu B300 --counts 8..64 --context 128K\n"
     "  preflight sweep deepseek-v3 --counts 8,16,32 --format csv",
     preflight::cli::kSweep, preflight::cli::run_sweep},
    {"launch", "the vLLM or SGLang command line for a plan",
     "  preflight launch --gpus 8xB300 --engine vllm --context 1M\n"
     "  preflight launch --gpus 32xH100 --engine sglang --context 128K\n"
     "  preflight launch --prefill-gpus 8xB300 --decode-gpus 8xB300 --engine sglang --context 128K",
     preflight::cli::kLaunch, preflight::cli::run_launch},
    {"inspect", "the inventory: parameters and bytes by module and dtype, active parameters, cache and state",
     "  preflight inspect kimi-k3\n  preflight inspect ./Kimi-K3/config.json --format json",
     preflight::cli::kInspect, preflight::cli::run_inspect},
    {"serve", "the web planner and its JSON API (the same library, on loopback by default)",
     "  preflight serve                 # then open http://127.0.0.1:8080/\n"
     "  preflight serve --port 9000\n"
     "  curl -s 'http://127.0.0.1:8080/api/plan?gpus=8xH100&context=128K'\n"
     "  curl -s -X POST http://127.0.0.1:8080/api/plan -d '{\"gpus\": \"8xB300\", \"context\": \"1M\"}'",
     preflight::cli::kServe, preflight::cli::run_serve},
    {"gpus", "the accelerator catalogue with capacities and sources",
     "  preflight gpus\n  preflight gpus --format json --catalogue my-gpus.json",
     preflight::cli::kCatalogue, preflight::cli::run_gpus},
    {"models", "the model catalogue",
     "  preflight models", preflight::cli::kCatalogue, preflight::cli::run_models},
    {"engines", "the engine profiles: defaults and memory rules of vLLM and SGLang, with sources",
     "  preflight engines\n  preflight engines --format json", preflight::cli::kCatalogue,
     preflight::cli::run_engines},
};

// An option given an empty value (--context '', an empty MODEL) is a mistake,
// not a request for the default: say so rather than plan something else.
const CLI::Validator kNonEmpty(
    [](std::string& value) { return value.empty() ? std::string("empty value (leave the option out for its default)") : std::string(); },
    "", "non-empty");

}  // namespace

namespace {

// Parses the line and runs its command. `lazy`: only the options the line names
// (and the command's positional and required ones) are declared to CLI11, which
// checks each new option against every one declared before it (a K3 plan spent
// ~1.2M instructions declaring plan's ~60; issue 18). Options left undeclared
// are options not given, so a line that parses reads the same either way; a
// line that does not is parsed again with every option declared, for CLI11's
// own error, help or version text.
int run_line(int argc, char** argv, bool lazy) {
  std::optional<std::vector<std::string_view>> given;
  if (lazy) {
    given = preflight::cli::flags_on_line(argc, argv);
    if (!given) return run_line(argc, argv, false);
  }
  CLI::App app{
      "preflight: will this model serve on that cluster, under this workload, and if not, which resource runs out "
      "first?\n\nExit codes: 0 the plan fits (a deployment hypothesis), 1 it does not, 2 bad input or usage.",
      "preflight"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("preflight ") + PREFLIGHT_VERSION, "print the version and exit");
  app.footer(
      "Examples:\n"
      "  preflight plan --gpus 8xH100                    # pass 1: do the weights fit?\n"
      "  preflight plan --gpus 8xB300 --context 1M       # pass 2: the per-rank ledger\n"
      "  preflight explain --gpus 32xH100 --context 128K # every figure with its formula\n"
      "  preflight inspect kimi-k3                       # the inventory\n"
      "  preflight COMMAND --help                        # options of one command");
  preflight::cli::Options options;
  // Only the command named on the line gets its options declared: declaring
  // every command's (about 400 CLI11 options) was 6% of a plan's process time
  // (issue 18). Without a command name (preflight --help, a typo) none are: the
  // top-level help lists commands only, and a line without a command is an error
  // ("give a command: ...") whatever its options.
  const CommandRow* named = nullptr;
  for (int i = 1; i < argc && named == nullptr; ++i)
    for (const auto& row : kCommands)
      if (std::string_view(argv[i]) == row.name) {
        named = &row;
        break;
      }
  std::vector<std::pair<CLI::App*, const CommandRow*>> subs;
  for (const auto& row : kCommands) {
    auto* sub = app.add_subcommand(row.name, row.summary);
    sub->footer(std::string("Examples:\n") + row.examples);
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
      std::cout << "preflight " << PREFLIGHT_VERSION << "\n";
      return 0;
    } catch (const CLI::ParseError& e) {
      std::string names;
      for (const auto& row : kCommands) names += (names.empty() ? "" : ", ") + std::string(row.name);
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
