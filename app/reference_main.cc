// preflight-reference: writes what is generated from the command and option
// tables. The build runs it for the man page and the shell completions, and
// ctest `cli_reference` compares its markdown with docs/cli.md.
//   preflight-reference markdown|man|bash|zsh
#include <iostream>
#include <string_view>

#include "cli_reference.h"
#include "shell_completion.h"

int main(int argc, char** argv) {
  const std::string_view what = argc == 2 ? argv[1] : "";
  if (what == "markdown")
    std::cout << preflight::cli::cli_reference_markdown();
  else if (what == "man")
    std::cout << preflight::cli::man_page(std::string("preflight ") + PREFLIGHT_VERSION);
  else if (what == "bash")
    std::cout << preflight::cli::bash_completion(preflight::cli::catalogue_completion_names());
  else if (what == "zsh")
    std::cout << preflight::cli::zsh_completion(preflight::cli::catalogue_completion_names());
  else {
    std::cerr << "usage: preflight-reference markdown|man|bash|zsh\n";
    return 2;
  }
  return std::cout.good() ? 0 : 1;
}
