// Module-name patterns of quantization configs: compressed-tensors `ignore` and
// `targets` ("re:<regex>" or an exact name), HF modules_to_not_convert /
// ignored_layers (substring or re.match). Compiled once; the common shapes are
// matched without std::regex.
#pragma once

#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "model/json_fields.h"

namespace preflight {

// One element of a regex simple enough to match without std::regex: a literal
// character (possibly escaped, "\\."), '.' (any character), each optionally
// followed by '*'.
struct SimpleAtom {
  char c = 0;
  bool any = false;
  bool star = false;
};

// One alternative of a pattern the built-in matcher handles. When it is only
// literals and ".*" (the common "re:.*self_attn.*"), `segments` holds the
// literal runs and matching is a left-to-right search for each in turn
// (leftmost is optimal for such patterns); else the atoms are matched by
// backtracking.
struct SimpleForm {
  std::vector<SimpleAtom> atoms;
  bool glob = false;                  // only literals and ".*"
  bool anchored = false;              // glob: the first segment must start the text
  std::vector<std::string> segments;  // glob: the literal runs between the ".*"s
};

// A module-name pattern as a config writes it.
struct NamePattern {
  enum class Kind {
    exact,   // compressed-tensors name or class ("lm_head", "Linear")
    regex,   // compressed-tensors "re:<regex>", Python re.match
    module,  // HF modules_to_not_convert: substring or re.match
  };
  std::string text;  // as written in the config
  Kind kind = Kind::exact;
  bool is_regex = false;          // kind == regex (kept for callers that read it)
  std::regex regex;               // compiled when the pattern is a regex that is not `simple`
  bool simple = false;            // matched by the built-in matcher (`forms`, any of them) instead of std::regex
  std::vector<SimpleForm> forms;  // one, or one per alternative of a single literal group "(gate|up)"
  bool index_sensitive = false;   // could tell expert 0 from expert 7 (digits, classes, bare '.')

  bool matches(const std::string& module_name) const;
};

// compressed-tensors `ignore` / `targets` entry: "re:<regex>" or an exact name.
Result<NamePattern> compile_ct_pattern(const std::string& text, const std::string& origin, const std::string& pointer);

// modules_to_not_convert / ignored_layers entry (substring or re.match).
Result<NamePattern> compile_module_pattern(const std::string& text, const std::string& origin,
                                           const std::string& pointer);

using PatternCompiler = Result<NamePattern> (*)(const std::string&, const std::string&, const std::string&);

// The list at `key` of `node` (absent: empty), each entry compiled; errors name the entry.
Result<std::vector<NamePattern>> compile_list(const JsonFields& node, std::string_view key, PatternCompiler compile);

// True when a regex could match some index values and not others.
bool pattern_is_index_sensitive(const std::string& regex_text);

}  // namespace preflight
