// Every command-line option, declared once: its flag, help,
// group, the Options member it fills, the sub-commands that take it and how
// the web API takes it. The CLI's options, the API's keys and the flag names
// in error messages all come from this table, as ccache's config key table
// or ninja's tool table do; a test holds the page's field list to it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "cli_options.h"

namespace preflight::cli {

// Sub-commands, as bits.
enum Command : std::uint32_t {
  kPlan = 1u << 0,
  kExplain = 1u << 1,
  kFit = 1u << 2,
  kMax = 1u << 3,
  kSweep = 1u << 4,
  kLaunch = 1u << 5,
  kInspect = 1u << 6,
  kServe = 1u << 7,
  kCatalogue = 1u << 8,  // gpus, models, engines
};

// How the web API takes an option: as a value under its key (the flag without
// dashes, '-' as '_'), ignored (the API answers JSON), refused with a reason,
// or not at all.
enum class ApiUse { none, value, ignored, refused };

using OptionMember = std::variant<std::string Options::*, bool Options::*, std::vector<std::string> Options::*>;

struct OptionSpec {
  std::string_view flag;  // "--context", or "MODEL" for the positional
  std::string_view help;
  std::string_view group;  // "" : the command's own options
  OptionMember member;
  std::uint32_t commands = 0;  // the sub-commands that take it
  ApiUse api = ApiUse::value;
  std::string_view api_refusal;             // ApiUse::refused: why
  std::vector<std::string_view> choices;    // accepted values (empty: any)
  std::uint32_t extra_choice_commands = 0;  // commands that also accept `extra_choice`
  std::string_view extra_choice;
  std::uint32_t required_for = 0;  // commands where the option is required
  std::string_view default_text;   // shown in --help
};

const std::vector<OptionSpec>& option_table();

// "context" for "--context", "prefill_gpus" for "--prefill-gpus"; "" for the positional.
std::string api_key(const OptionSpec& spec);
// The entry an API key names, or null.
const OptionSpec* option_for_key(std::string_view key);
// The flag of a member ("--context"): how errors and messages name the
// option. Every member a caller names is in the table (a test holds it).
const char* flag_of(std::string Options::*member);
const char* flag_of(bool Options::*member);
const char* flag_of(std::vector<std::string> Options::*member);

// The option names on a command line (the name of "--name=value"), up to "--";
// nullopt when it asks for help or the version, which list every option.
std::optional<std::vector<std::string_view>> flags_on_line(int argc, const char* const* argv);

// Adds the table's options of `command` to `app`, in table order; with `only`,
// just those whose flag it lists, and the positional and required ones.
void add_table_options(CLI::App& app, Options& o, Command command, const std::vector<std::string_view>* only = nullptr);

}  // namespace preflight::cli
