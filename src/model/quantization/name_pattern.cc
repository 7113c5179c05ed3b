// Module-name patterns of quantization configs (ignore lists, targets, per-module
// overrides): compiled once, matched as Python re.match / substring does.
#include "model/quantization/name_pattern.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>

namespace preflight {

namespace {

// Module patterns

// The subset of Python regex syntax that module patterns use in practice:
// literal characters, escaped punctuation ("\\."), '.' (any character) and
// 'x*'. Matching it by hand keeps per-expert decisions cheap (std::regex is slow
// on ".*" prefixes); anything else goes to std::regex. Returns false when the
// pattern needs the regex engine.
bool simple_atoms(std::string_view re, std::vector<SimpleAtom>& out) {
  out.clear();
  for (std::size_t i = 0; i < re.size(); ++i) {
    SimpleAtom a;
    const char c = re[i];
    if (c == '\\') {
      if (i + 1 >= re.size() || std::isalnum(static_cast<unsigned char>(re[i + 1]))) return false;  // \d, \w, \1...
      a.c = re[++i];
    } else if (c == '.') {
      a.any = true;
    } else if (std::string_view("[](){}|+?^$*").find(c) != std::string_view::npos) {
      return false;  // classes, groups, alternation, other quantifiers, anchors, a '*' with nothing to repeat
    } else {
      a.c = c;
    }
    if (i + 1 < re.size() && re[i + 1] == '*') {
      a.star = true;
      ++i;
      if (i + 1 < re.size() && (re[i + 1] == '*' || re[i + 1] == '?' || re[i + 1] == '+')) return false;
    }
    out.push_back(a);
  }
  return true;
}

// A form of `re` for the built-in matcher, or nullopt when it needs std::regex.
std::optional<SimpleForm> simple_form(std::string_view re) {
  SimpleForm f;
  if (!simple_atoms(re, f.atoms)) return std::nullopt;
  f.glob = std::all_of(f.atoms.begin(), f.atoms.end(), [](const SimpleAtom& a) { return a.star ? a.any : !a.any; });
  if (f.glob) {
    f.anchored = f.atoms.empty() || !f.atoms.front().star;
    std::string run;
    for (const auto& a : f.atoms) {
      if (a.star) {
        if (!run.empty()) f.segments.push_back(std::move(run));
        run.clear();
      } else {
        run.push_back(a.c);
      }
    }
    if (!run.empty()) f.segments.push_back(std::move(run));
    if (!f.atoms.empty() && f.atoms.front().star) f.anchored = false;
  }
  return f;
}

// The forms of `re`: one, or one per alternative when the only group is a
// literal alternation ("mlp\.(gate|up|gate_up|down)_proj"): re.match with
// backtracking tries each alternative, so the pattern matches when one does.
// Empty when std::regex is needed.
std::vector<SimpleForm> simple_forms(std::string_view re) {
  std::vector<SimpleForm> out;
  const auto open = re.find('(');
  if (open == std::string_view::npos) {
    if (auto f = simple_form(re)) out.push_back(std::move(*f));
    return out;
  }
  const auto close = re.find(')', open);
  if (close == std::string_view::npos || re.find_first_of("()", close + 1) != std::string_view::npos ||
      (open > 0 && re[open - 1] == '\\') ||
      (close + 1 < re.size() && std::string_view("*+?{").find(re[close + 1]) != std::string_view::npos))
    return out;
  const auto body = re.substr(open + 1, close - open - 1);
  if (body.empty() || body.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_|") !=
                          std::string_view::npos)
    return out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= body.size(); ++i) {
    if (i < body.size() && body[i] != '|') continue;
    const std::string alternative = std::string(re.substr(0, open)) + std::string(body.substr(start, i - start)) +
                                    std::string(re.substr(close + 1));
    auto f = simple_form(alternative);
    if (!f) return {};
    out.push_back(std::move(*f));
    start = i + 1;
  }
  return out;
}

// re.match semantics: the atoms must match a prefix of the text.
bool match_atoms(const SimpleAtom* a, const SimpleAtom* end, std::string_view text) {
  if (a == end) return true;
  if (a->star) {
    for (std::size_t i = 0;; ++i) {
      if (match_atoms(a + 1, end, text.substr(i))) return true;
      if (i >= text.size() || !(a->any || text[i] == a->c)) return false;
    }
  }
  if (!text.empty() && (a->any || text[0] == a->c)) return match_atoms(a + 1, end, text.substr(1));
  return false;
}

bool match_form(const SimpleForm& f, std::string_view text) {
  if (!f.glob) return match_atoms(f.atoms.data(), f.atoms.data() + f.atoms.size(), text);
  std::size_t pos = 0;
  for (std::size_t i = 0; i < f.segments.size(); ++i) {
    const auto& seg = f.segments[i];
    if (i == 0 && f.anchored) {
      if (!text.starts_with(seg)) return false;
      pos = seg.size();
      continue;
    }
    const auto at = text.find(seg, pos);
    if (at == std::string_view::npos) return false;
    pos = at + seg.size();
  }
  return true;
}

bool regex_match_start(const NamePattern& p, const std::string& text) {
  if (p.simple)
    return std::any_of(p.forms.begin(), p.forms.end(), [&](const SimpleForm& f) { return match_form(f, text); });
  return std::regex_search(text, p.regex, std::regex_constants::match_continuous);
}

bool has_digit(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Why std::regex must not run `re`, or "" when it may. std::regex backtracks
// without bound, so a quantifier applied to what is already repeated
// ("layers**", "(a+)+") takes exponential time on a module name (a fuzzed
// config held a 90-star pattern for minutes). Python's re refuses the first
// shape too ("multiple repeat"); real ignore lists use neither.
std::string repetition_problem(std::string_view re) {
  enum class Prev { none, atom, quantified, lazy, repeated_group };
  Prev prev = Prev::none;
  std::vector<bool> group_repeats;                                // per open group: whether something inside it repeats
  const auto quantifier_at = [&](std::size_t i) -> std::size_t {  // its length, or 0
    const char c = re[i];
    if (c == '*' || c == '+' || c == '?') return 1;
    if (c != '{') return 0;
    std::size_t j = i + 1, digits = 0;
    while (j < re.size() && std::isdigit(static_cast<unsigned char>(re[j]))) ++j, ++digits;
    if (j < re.size() && re[j] == ',') {
      ++j;
      while (j < re.size() && std::isdigit(static_cast<unsigned char>(re[j]))) ++j, ++digits;
    }
    return digits > 0 && j < re.size() && re[j] == '}' ? j + 1 - i : 0;
  };
  for (std::size_t i = 0; i < re.size(); ++i) {
    const char c = re[i];
    if (const auto length = quantifier_at(i)) {
      if (c == '?' && prev == Prev::quantified) {  // lazy: "*?"
        prev = Prev::lazy;
        continue;
      }
      if (prev == Prev::quantified || prev == Prev::lazy) return "a repeat of a repeat (Python: multiple repeat)";
      if (prev == Prev::repeated_group) return "a repeated group that itself repeats (exponential backtracking)";
      if (!group_repeats.empty()) group_repeats.back() = true;
      prev = Prev::quantified;
      i += length - 1;
      continue;
    }
    if (c == '\\') {
      ++i;
      prev = Prev::atom;
    } else if (c == '[') {  // a class: to its closing ']' (a ']' first is literal)
      std::size_t j = i + 1;
      if (j < re.size() && re[j] == '^') ++j;
      if (j < re.size() && re[j] == ']') ++j;
      while (j < re.size() && re[j] != ']') j += re[j] == '\\' ? 2 : 1;
      i = j;
      prev = Prev::atom;
    } else if (c == '(') {
      group_repeats.push_back(false);
      prev = Prev::none;
    } else if (c == ')') {
      const bool repeats = !group_repeats.empty() && group_repeats.back();
      if (!group_repeats.empty()) group_repeats.pop_back();
      if (repeats && !group_repeats.empty()) group_repeats.back() = true;
      prev = repeats ? Prev::repeated_group : Prev::atom;
    } else if (c == '|') {
      prev = Prev::none;
    } else {
      prev = Prev::atom;
    }
  }
  return "";
}

}  // namespace

// compressed-tensors `ignore` / `targets` entry: "re:<regex>" or an exact name.
Result<NamePattern> compile_ct_pattern(const std::string& text, const std::string& origin, const std::string& pointer) {
  NamePattern p;
  p.text = text;
  if (text.starts_with("re:")) {
    p.kind = NamePattern::Kind::regex;
    p.is_regex = true;
    p.forms = simple_forms(std::string_view(text).substr(3));
    p.simple = !p.forms.empty();
    if (!p.simple) {
      if (const auto why = repetition_problem(std::string_view(text).substr(3)); !why.empty())
        return Error{origin, pointer, fmt::format("regular expression '{}' is refused: {}", text, why)};
      try {
        p.regex = std::regex(text.substr(3), std::regex::ECMAScript | std::regex::optimize);
      } catch (const std::regex_error&) {
        return Error{origin, pointer, fmt::format("invalid regular expression '{}'", text)};
      }
    }
    p.index_sensitive = pattern_is_index_sensitive(text.substr(3));
  } else {
    // An exact name can single out one expert only by naming its index.
    p.index_sensitive = has_digit(text);
  }
  return p;
}

// modules_to_not_convert / ignored_layers entry (substring or re.match).
Result<NamePattern> compile_module_pattern(const std::string& text, const std::string& origin,
                                           const std::string& pointer) {
  NamePattern p;
  p.text = text;
  p.kind = NamePattern::Kind::module;
  if (text.empty()) return Error{origin, pointer, "empty module pattern (it would exclude every module)"};
  p.forms = simple_forms(text);
  p.simple = !p.forms.empty();
  if (!p.simple) {
    if (const auto why = repetition_problem(text); !why.empty())
      return Error{origin, pointer, fmt::format("'{}' is refused as a regular expression: {}", text, why)};
    try {
      p.regex = std::regex(text, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error&) {
      return Error{origin, pointer, fmt::format("'{}' is neither a module name nor a valid regular expression", text)};
    }
  }
  p.index_sensitive = has_digit(text) || pattern_is_index_sensitive(text);
  return p;
}

Result<std::vector<NamePattern>> compile_list(const JsonFields& node, std::string_view key, PatternCompiler compile) {
  auto list = node.string_list(key);
  if (!list) return list.error();
  std::vector<NamePattern> out;
  for (std::size_t i = 0; i < list->size(); ++i) {
    auto p = compile((*list)[i], node.origin(), fmt::format("{}/{}", node.pointer_to(key), i));
    if (!p) return p.error();
    out.push_back(std::move(p).value());
  }
  return out;
}

bool NamePattern::matches(const std::string& module_name) const {
  switch (kind) {
    case Kind::exact:
      return module_name == text;
    case Kind::regex:
      return regex_match_start(*this, module_name);  // Python re.match: anchored at the start only
    case Kind::module:
      return module_name.find(text) != std::string::npos || regex_match_start(*this, module_name);
  }
  return false;
}

bool pattern_is_index_sensitive(const std::string& regex_text) {
  // Conservative: anything that can distinguish one digit string from another.
  for (std::size_t i = 0; i < regex_text.size(); ++i) {
    const char c = regex_text[i];
    if (c == '\\') {
      if (i + 1 < regex_text.size()) {
        const char n = regex_text[i + 1];
        // \S matches one character of a digit run as of anything else: "experts\.\S\." tells 7 from 12.
        if (n == 'd' || n == 'D' || n == 'w' || n == 'W' || n == 'b' || n == 'B' || n == 'S' || (n >= '0' && n <= '9'))
          return true;
      }
      ++i;  // escaped literal such as '\.'
      continue;
    }
    if (c >= '0' && c <= '9') return true;
    if (c == '[' || c == '{' || c == '?' || c == '$') return true;
    if (c == '.') {
      const char n = i + 1 < regex_text.size() ? regex_text[i + 1] : '\0';
      if (n != '*' && n != '+') return true;  // a bare '.' counts characters
    }
  }
  return false;
}

}  // namespace preflight
