#include "cli_reference.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "command_table.h"

namespace preflight::cli {

namespace {

// Options without a group are the command's own; --help lists them first, unheaded.
constexpr std::string_view kGeneralGroup = "Model, cluster and output";

std::string_view group_title(const OptionSpec& spec) { return spec.group.empty() ? kGeneralGroup : spec.group; }

// Groups in the order the table first uses them.
std::vector<std::string_view> groups() {
  std::vector<std::string_view> out;
  for (const auto& spec : option_table())
    if (std::find(out.begin(), out.end(), group_title(spec)) == out.end()) out.push_back(group_title(spec));
  return out;
}

bool is_flag(const OptionSpec& spec) { return std::holds_alternative<bool Options::*>(spec.member); }
bool is_repeatable(const OptionSpec& spec) {
  return std::holds_alternative<std::vector<std::string> Options::*>(spec.member);
}

std::string api_use(const OptionSpec& spec) {
  switch (spec.api) {
    case ApiUse::value:
      return fmt::format("`{}`", api_key(spec));
    case ApiUse::ignored:
      return "ignored (the API answers JSON)";
    case ApiUse::refused:
      return fmt::format("refused: {}", spec.api_refusal);
    case ApiUse::none:
      break;
  }
  return "command line only";
}

// A markdown anchor as GitHub makes it: lower case, spaces to '-', punctuation dropped.
std::string anchor(std::string_view heading) {
  std::string out;
  for (char c : heading) {
    if (c == ' ')
      out += '-';
    else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')
      out += c;
    else if (c >= 'A' && c <= 'Z')
      out += static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Markdown table cells: a '|' would end the cell.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else
      out += c;
  }
  return out;
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : std::string(separator)) + item;
  return out;
}

// "  preflight plan --gpus 8xH100   # comment" -> the command lines of an examples block, unindented.
std::vector<std::string> example_lines(std::string_view examples) {
  std::vector<std::string> lines;
  std::istringstream in{std::string(examples)};
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find_first_not_of(' ');
    if (first != std::string::npos) lines.push_back(line.substr(first));
  }
  return lines;
}

std::string usage(const CommandRow& row) {
  std::string out = fmt::format("preflight {}", row.name);
  for (const auto* spec : command_options(row.options)) {
    if (spec->flag == "MODEL")
      out += " [MODEL]";
    else if ((spec->required_for & row.options) != 0)
      out += " " + option_synopsis(*spec, row.options);
  }
  return out + " [OPTIONS]";
}

// roff: a backslash is \e, every '-' of an option is \- (a real minus, so man
// pages can be searched and copied), and a line may not start with '.' or '\''.
std::string roff(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  std::string lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && (line[0] == '.' || line[0] == '\'')) line = "\\&" + line;
    lines += line + "\n";
  }
  if (!text.empty() && text.back() != '\n' && !lines.empty()) lines.pop_back();
  return lines;
}

}  // namespace

std::string option_synopsis(const OptionSpec& spec, std::uint32_t command) {
  if (spec.flag == "MODEL") return "MODEL";
  std::string out(spec.flag);
  if (is_flag(spec)) return out;
  if (!spec.choices.empty()) {
    std::vector<std::string> choices(spec.choices.begin(), spec.choices.end());
    if (!spec.extra_choice.empty() && (command == 0 || (spec.extra_choice_commands & command) != 0))
      choices.emplace_back(spec.extra_choice);
    out += " " + join(choices, "|");
  } else {
    out += " VALUE";
  }
  if (is_repeatable(spec)) out += " (repeatable)";
  return out;
}

std::vector<std::string> option_commands(const OptionSpec& spec) {
  std::vector<std::string> names;
  for (const auto& row : command_table())
    if ((spec.commands & row.options) != 0) {
      std::string name(row.name);
      if ((spec.required_for & row.options) != 0) name += " (required)";
      names.push_back(name);
    }
  return names;
}

std::vector<const OptionSpec*> command_options(Command command) {
  std::vector<const OptionSpec*> out;
  for (const auto& spec : option_table())
    if ((spec.commands & command) != 0) out.push_back(&spec);
  return out;
}

std::string cli_reference_markdown() {
  std::string md;
  md += "# Command-line reference\n\n";
  md +=
      "<!-- Generated from app/command_table.cc and app/option_table.cc by `build/preflight-reference markdown`;\n"
      "     ctest `cli_reference` fails when this file differs from what the tables give. -->\n\n";
  md += fmt::format("{}\n\n{}\n\n", kToolQuestion, kExitCodes);
  md +=
      "Every command prints a table by default; `--format json` gives the same figures for scripts, and "
      "`preflight COMMAND --help` lists one command's options. The web API (`preflight serve`) takes the same "
      "options under the keys in the last column of each option table.\n\n";

  md += "## Commands\n\n| command | answers |\n|---|---|\n";
  for (const auto& row : command_table())
    md += fmt::format("| [`{}`](#preflight-{}) | {} |\n", row.name, anchor(row.name), cell(row.summary));
  md += "\n";

  for (const auto& row : command_table()) {
    md += fmt::format("### preflight {}\n\n{}.\n\n```\n{}\n```\n\n", row.name, row.summary, usage(row));
    std::vector<std::string> by_group;
    for (const auto title : groups()) {
      std::vector<std::string> flags;
      for (const auto* spec : command_options(row.options))
        if (group_title(*spec) == title) flags.push_back(fmt::format("`{}`", spec->flag));
      if (!flags.empty()) by_group.push_back(fmt::format("- [{}](#{}): {}", title, anchor(title), join(flags, ", ")));
    }
    if (!by_group.empty()) md += "Options:\n\n" + join(by_group, "\n") + "\n\n";
    md += "Examples:\n\n```sh\n" + join(example_lines(row.examples), "\n") + "\n```\n\n";
  }

  md += "## Options\n\n";
  md +=
      "Each option with the value it takes, what it sets, the commands that take it, and its key in the web "
      "API.\n\n";
  for (const auto title : groups()) {
    md += fmt::format("### {}\n\n| option | what it sets | commands | web API |\n|---|---|---|---|\n", title);
    for (const auto& spec : option_table()) {
      if (group_title(spec) != title) continue;
      std::string help(spec.help);
      if (!spec.default_text.empty()) help += fmt::format(" (default {})", spec.default_text);
      md += fmt::format("| `{}` | {} | {} | {} |\n", cell(option_synopsis(spec)), cell(help),
                        cell(join(option_commands(spec), ", ")), cell(api_use(spec)));
    }
    md += "\n";
  }
  md +=
      "Every command also takes `--help` (`-h`); `preflight --version` prints the release and the git revision "
      "it was built from.\n";
  return md;
}

std::string man_page(std::string_view version) {
  std::string m;
  m += ".\\\" Generated from app/command_table.cc and app/option_table.cc by preflight-reference man.\n";
  m += fmt::format(".TH PREFLIGHT 1 \"\" \"{}\" \"User Commands\"\n", roff(version));
  m += ".SH NAME\npreflight \\- will this model serve on that cluster, and if not, which resource runs out first\n";
  m += ".SH SYNOPSIS\n.B preflight\n.I COMMAND\n[\\fIMODEL\\fR] [\\fIOPTIONS\\fR]\n";
  m += ".SH DESCRIPTION\n" + roff(kToolQuestion) + "\n.PP\n";
  m += roff(
           "It reads a model's released files (config.json with its quantization_config, the safetensors index or "
           "the shards' headers), places them on a cluster, adds the workload, and prints a per-rank ledger and a "
           "verdict in which every figure carries its evidence label (official fact, derived calculation, planning "
           "estimate, deployment hypothesis) and the formula behind it. A green verdict is a deployment hypothesis, "
           "never proof.") +
       "\n.PP\n" +
       roff(
           "MODEL is a catalogue name (preflight models; default kimi-k3), a Hugging Face snapshot folder, a path "
           "to a config.json, a model.safetensors.index.json, one .safetensors shard or a saved hub listing, or a "
           "hub id org/name[@revision].") +
       "\n";
  m += ".SH COMMANDS\n";
  for (const auto& row : command_table()) {
    m += fmt::format(".TP\n.B {}\n{}.\n", roff(usage(row)), roff(row.summary));
    std::vector<std::string> flags;
    for (const auto* spec : command_options(row.options)) flags.push_back(std::string(spec->flag));
    if (!flags.empty()) m += "Options: " + roff(join(flags, ", ")) + ".\n";
  }
  m += ".SH OPTIONS\n";
  for (const auto title : groups()) {
    m += fmt::format(".SS {}\n", roff(title));
    for (const auto& spec : option_table()) {
      if (group_title(spec) != title) continue;
      const std::string synopsis = option_synopsis(spec);
      const auto space = synopsis.find(' ');
      m += ".TP\n";
      if (space == std::string::npos)
        m += fmt::format("\\fB{}\\fR\n", roff(synopsis));
      else
        m += fmt::format("\\fB{}\\fR \\fI{}\\fR\n", roff(synopsis.substr(0, space)), roff(synopsis.substr(space + 1)));
      std::string help(spec.help);
      if (!spec.default_text.empty()) help += fmt::format(" (default {})", spec.default_text);
      m += roff(help) + ".\n";
      m += roff("Commands: " + join(option_commands(spec), ", ")) + ".\n";
    }
  }
  m += ".SH EXIT STATUS\n" + roff(kExitCodes) + " 3: an internal error.\n";
  m += ".SH ENVIRONMENT\n";
  const std::pair<std::string_view, std::string_view> environment[] = {
      {"HF_TOKEN", "token for gated or private hub models; else the file HF_TOKEN_PATH names, else $HF_HOME/token"},
      {"HF_HOME", "where huggingface-cli login keeps its token (default $XDG_CACHE_HOME/huggingface)"},
      {"HF_ENDPOINT", "the Hub or a mirror (default https://huggingface.co; http and https only)"},
      {"HF_HUB_OFFLINE", "1: no network; hub models from the metadata cache only"},
      {"XDG_CACHE_HOME", "the hub metadata cache is $XDG_CACHE_HOME/preflight/hub (default ~/.cache)"},
      {"PREFLIGHT_HUB_TIMEOUT_MS", "one attempt of one hub request, 1 to 600000 (default 60000)"},
      {"PREFLIGHT_HUB_ATTEMPTS", "attempts per hub request, 1 to 10 (default 5)"},
      {"PREFLIGHT_HUB_CONCURRENCY", "hub requests in flight, 1 to 64 (default 16)"},
      {"PREFLIGHT_HUB_TOTAL_S", "the whole read of one model, 1 to 3600 seconds (default 300)"},
      {"PREFLIGHT_HUB_STALL_S", "a transfer with no byte for this long has stalled, 1 to 600 seconds (default 15)"},
  };
  for (const auto& [name, what] : environment) m += fmt::format(".TP\n.B {}\n{}.\n", roff(name), roff(what));
  m += ".SH EXAMPLES\n";
  m += ".nf\n";
  for (const auto& line : example_lines(kToolExamples)) m += roff(line) + "\n";
  for (const auto& row : command_table())
    for (const auto& line : example_lines(row.examples)) m += roff(line) + "\n";
  m += ".fi\n";
  m += ".SH SEE ALSO\n" + roff("docs/cli.md in the source tree: the same reference with the web API keys.") + "\n";
  return m;
}

}  // namespace preflight::cli
