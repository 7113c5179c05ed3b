#include "shell_completion.h"

#include <fmt/format.h>

#include <algorithm>

#include "cli_reference.h"
#include "command_table.h"
#include "hardware/gpu_catalogue.h"
#include "model/model_catalogue.h"

namespace preflight::cli {

namespace {

enum class ValueKind { none, choices, gpu_family, model_or_file, file, free_text };

// What is offered after an option that takes a value. Paths: the extra GPU
// catalogue and the trace file; --draft names a model as MODEL does.
ValueKind value_kind(const OptionSpec& spec) {
  if (std::holds_alternative<bool Options::*>(spec.member)) return ValueKind::none;
  if (!spec.choices.empty()) return ValueKind::choices;
  const auto is = [&](auto member) { return spec.flag == std::string_view(flag_of(member)); };
  if (is(&Options::gpu_families)) return ValueKind::gpu_family;
  if (is(&Options::model) || is(&Options::draft)) return ValueKind::model_or_file;
  if (is(&Options::catalogue) || is(&Options::mix_file)) return ValueKind::file;
  return ValueKind::free_text;
}

std::vector<std::string> choices_for(const OptionSpec& spec, std::uint32_t command) {
  std::vector<std::string> out(spec.choices.begin(), spec.choices.end());
  if (!spec.extra_choice.empty() && (spec.extra_choice_commands & command) != 0) out.emplace_back(spec.extra_choice);
  return out;
}

std::string words(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : " ") + item;
  return out;
}

// "a|b|c": the alternatives of a bash case pattern.
std::string alternatives(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : "|") + item;
  return out;
}

std::vector<std::string> command_names() {
  std::vector<std::string> out;
  for (const auto& row : command_table()) out.emplace_back(row.name);
  return out;
}

// The first clause of an option's help, short enough for a completion menu.
std::string short_help(std::string_view help) {
  auto end = help.find_first_of(";(");
  std::string_view text = help.substr(0, end);
  while (!text.empty() && (text.back() == ' ' || text.back() == ',' || text.back() == ':')) text.remove_suffix(1);
  if (text.size() > 72) {
    text = text.substr(0, 72);
    text = text.substr(0, text.rfind(' '));
  }
  return std::string(text);
}

// Text inside a single-quoted zsh _arguments spec's [description]: brackets,
// colons and backslashes escaped for _arguments, a quote closed and reopened.
std::string zsh_description(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\'')
      out += "'\\''";
    else if (c == '[' || c == ']' || c == ':' || c == '\\')
      out += std::string("\\") + c;
    else
      out += c;
  }
  return out;
}

}  // namespace

CompletionNames catalogue_completion_names() {
  CompletionNames names;
  for (const auto& gpu : GpuCatalogue::embedded().all())
    names.gpu_families.push_back(gpu.aliases.empty() ? gpu.id : gpu.aliases.front());
  for (const auto& model : model_catalogue()) names.models.push_back(model.name);
  return names;
}

std::string bash_completion(const CompletionNames& names) {
  std::string s;
  s += "# bash completion for preflight(1): generated from app/command_table.cc and app/option_table.cc\n";
  s += "# by preflight-reference bash.\n";
  s += "_preflight() {\n";
  s += "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n";
  s += "  # --option=value: bash splits at '='\n";
  s += "  if [[ $cur == = ]]; then cur=\"\"; fi\n";
  s += "  if [[ $prev == = && $COMP_CWORD -ge 2 ]]; then prev=${COMP_WORDS[COMP_CWORD-2]}; fi\n";
  s += fmt::format("  local gpus=\"{}\"\n", words(names.gpu_families));
  s += fmt::format("  local models=\"{}\"\n", words(names.models));
  s += "  local command=\"\" i\n";
  s += "  for ((i = 1; i < COMP_CWORD; i++)); do\n";
  s += fmt::format("    case ${{COMP_WORDS[i]}} in {}) command=${{COMP_WORDS[i]}}; break ;; esac\n",
                   alternatives(command_names()));
  s += "  done\n";
  s += "  if [[ -z $command ]]; then\n";
  s += fmt::format("    COMPREPLY=($(compgen -W \"{} --help --version\" -- \"$cur\"))\n", words(command_names()));
  s += "    return\n  fi\n";
  // The value after an option: per command where the choices differ by command.
  s += "  case $command:$prev in\n";
  std::vector<std::string> free_text;
  for (const auto& spec : option_table()) {
    if (spec.flag == flag_of(&Options::model)) continue;
    switch (value_kind(spec)) {
      case ValueKind::none:
        break;
      case ValueKind::choices:
        for (const auto& row : command_table())
          if ((spec.commands & row.options) != 0 && (spec.extra_choice_commands & row.options) != 0)
            s += fmt::format("    {}:{}) COMPREPLY=($(compgen -W \"{}\" -- \"$cur\")); return ;;\n", row.name,
                             spec.flag, words(choices_for(spec, row.options)));
        s += fmt::format("    *:{}) COMPREPLY=($(compgen -W \"{}\" -- \"$cur\")); return ;;\n", spec.flag,
                         words(choices_for(spec, 0)));
        break;
      case ValueKind::gpu_family:
        s += fmt::format("    *:{}) COMPREPLY=($(compgen -W \"$gpus\" -- \"$cur\")); return ;;\n", spec.flag);
        break;
      case ValueKind::model_or_file:
        s += fmt::format(
            "    *:{}) COMPREPLY=($(compgen -W \"$models\" -- \"$cur\") $(compgen -f -- \"$cur\")); return ;;\n",
            spec.flag);
        break;
      case ValueKind::file:
        s += fmt::format("    *:{}) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", spec.flag);
        break;
      case ValueKind::free_text:
        free_text.push_back("*:" + std::string(spec.flag));
        break;
    }
  }
  // A value the user types (a count, a length, a size): nothing to offer, and no option names.
  if (!free_text.empty()) s += fmt::format("    {}) return ;;\n", alternatives(free_text));
  s += "  esac\n";
  s += "  local flags=\"\"\n  case $command in\n";
  for (const auto& row : command_table()) {
    std::vector<std::string> flags;
    for (const auto* spec : command_options(row.options))
      if (spec->flag != flag_of(&Options::model)) flags.emplace_back(spec->flag);
    flags.emplace_back("--help");
    s += fmt::format("    {}) flags=\"{}\" ;;\n", row.name, words(flags));
  }
  s += "  esac\n";
  s += "  if [[ $cur == -* ]]; then\n    COMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))\n    return\n  fi\n";
  std::vector<std::string> with_model;
  for (const auto& row : command_table())
    for (const auto* spec : command_options(row.options))
      if (spec->flag == flag_of(&Options::model)) with_model.emplace_back(row.name);
  s += fmt::format(
      "  case $command in {}) COMPREPLY=($(compgen -W \"$models\" -- \"$cur\") $(compgen -f -- \"$cur\")) ;; esac\n",
      alternatives(with_model));
  s += "}\n";
  s += "complete -o filenames -F _preflight preflight\n";
  return s;
}

std::string zsh_completion(const CompletionNames& names) {
  std::string s;
  s += "#compdef preflight\n";
  s += "# zsh completion for preflight(1): generated from app/command_table.cc and app/option_table.cc\n";
  s += "# by preflight-reference zsh.\n\n";
  s += fmt::format("_preflight_models() {{\n  _alternative 'models:catalogue model:({})' 'files:file:_files'\n}}\n\n",
                   words(names.models));
  s += "_preflight() {\n";
  s += "  local -a commands\n  commands=(\n";
  for (const auto& row : command_table())
    s += fmt::format("    '{}:{}'\n", row.name, zsh_description(short_help(row.summary)));
  s += "  )\n";
  s += "  if (( CURRENT == 2 )); then\n";
  s += "    _describe -t commands 'preflight command' commands\n";
  s += "    return\n  fi\n";
  s += "  local command=${words[2]}\n";
  s += "  shift words\n  (( CURRENT-- ))\n";
  s += "  case $command in\n";
  for (const auto& row : command_table()) {
    s += fmt::format("    {})\n      _arguments -s \\\n", row.name);
    s += "        '(- *)'{-h,--help}'[show the options of this command]' \\\n";
    for (const auto* spec : command_options(row.options)) {
      const std::string help = zsh_description(short_help(spec->help));
      std::string action;
      switch (value_kind(*spec)) {
        case ValueKind::none:
          break;
        case ValueKind::choices:
          action = fmt::format(":value:({})", words(choices_for(*spec, row.options)));
          break;
        case ValueKind::gpu_family:
          action = fmt::format(":GPU family:({})", words(names.gpu_families));
          break;
        case ValueKind::model_or_file:
          action = ":model:_preflight_models";
          break;
        case ValueKind::file:
          action = ":file:_files";
          break;
        case ValueKind::free_text:
          action = ":value: ";
          break;
      }
      if (spec->flag == flag_of(&Options::model)) {
        s += "        '1:model:_preflight_models' \\\n";
        continue;
      }
      const bool repeatable = std::holds_alternative<std::vector<std::string> Options::*>(spec->member);
      const bool takes_value = value_kind(*spec) != ValueKind::none;
      s += fmt::format("        '{}{}{}[{}]{}' \\\n", repeatable ? "*" : "", spec->flag, takes_value ? "=" : "", help,
                       action);
    }
    s += "      ;;\n";
  }
  s += "  esac\n}\n\n";
  s += "_preflight \"$@\"\n";
  return s;
}

}  // namespace preflight::cli
