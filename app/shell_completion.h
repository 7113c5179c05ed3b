// Shell completions for bash and zsh, generated from the command and option
// tables (command_table.h, option_table.h): commands, each command's options,
// the values of options with a fixed set (--format, --solve, --only), GPU
// families for --gpu and catalogue model names for MODEL, files where a path is
// expected. The install puts them where bash-completion and zsh look.
#pragma once

#include <string>
#include <vector>

namespace preflight::cli {

// Names offered where a GPU family (--gpu) or a model (MODEL, --draft) is typed:
// the embedded catalogues' short names.
struct CompletionNames {
  std::vector<std::string> gpu_families;
  std::vector<std::string> models;
};
CompletionNames catalogue_completion_names();

std::string bash_completion(const CompletionNames& names);
std::string zsh_completion(const CompletionNames& names);

}  // namespace preflight::cli
