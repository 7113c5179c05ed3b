// Which quantization group, if any, each logical tensor takes: the method's
// eligible modules, the ignore lists, the groups' targets and per-module entries.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/ascii_runs.h"
#include "model/quantization.h"
#include "model/tensor_manifest.h"

namespace preflight {

bool is_ct(const QuantizationScheme& s);

// What the HF quantizers convert before any modules_to_not_convert entry.
bool eligible(const QuantizationScheme& s, const LogicalTensor& t);

// True when some pattern of the scheme could tell one layer or expert index from another.
bool any_index_sensitive(const QuantizationScheme& s);

// Decides each tensor's group. A pattern that is not index-sensitive gives one
// answer for every name that differs only in its digit runs (layer and expert
// indices), so its answers are kept per name with each digit run folded to "0":
// Kimi K3's 2,904 tensors share a few dozen such names (run for every tensor, the
// pattern tests would be 4.1M of a plan's 54M instructions).
class Decider {
 public:
  explicit Decider(const QuantizationScheme& s) : s_(s) {
    for (const auto& g : s.groups) slots_ += g.targets.size();
    slots_ += s.ignore.size();
  }

  // `module` is viewed, not copied: the memo needs only its folded form, and the
  // patterns get a string (module_text) only when one must be tested.
  const QuantGroup* decide(const LogicalTensor& t, std::string_view module) {
    if (s_.method == "none" || !eligible(s_, t)) return nullptr;
    memo_ = nullptr;
    module_text_ready_ = false;
    std::size_t slot = 0;
    for (const auto& p : s_.ignore) {
      const std::size_t here = slot++;
      // A class name in `ignore` ("Linear") would ignore everything; names and regexes only.
      if (!(p.kind == NamePattern::Kind::exact && p.text == "Linear") && test(p, here, module)) return nullptr;
    }
    if (s_.format == "mixed_precision") {
      // ModelOpt MIXED_PRECISION: the module's path or the nearest listed path above it
      // ("...mlp.experts" holds "...mlp.experts.3.down_proj"); unlisted modules stay unquantized.
      for (std::string_view path = module;;) {
        if (auto it = s_.layer_groups.find(path); it != s_.layer_groups.end()) return &s_.groups[it->second];
        const auto dot = path.rfind('.');
        if (dot == std::string_view::npos) return nullptr;
        path = path.substr(0, dot);
      }
    }
    if (s_.method == "mlx" || s_.method == "gptq") {  // a module override, else the model-wide setting (the last group)
      for (const auto& g : s_.groups) {
        for (const auto& p : g.targets) {
          const std::size_t here = slot++;
          if (test(p, here, module)) return &g;
        }
      }
      return s_.model_wide_group();
    }
    if (!is_ct(s_)) return s_.model_wide_group();
    // compressed-tensors: the most specific target wins (exact name, then regex, then class).
    const QuantGroup* best = nullptr;
    int best_level = 0;
    for (const auto& g : s_.groups) {
      for (const auto& p : g.targets) {
        const std::size_t here = slot++;
        int level = 0;
        if (p.kind == NamePattern::Kind::exact && p.text == "Linear")
          level = t.linear_weight ? 1 : 0;
        else if (test(p, here, module))
          level = p.kind == NamePattern::Kind::exact ? 3 : 2;
        if (level > best_level) {
          best_level = level;
          best = &g;
        }
      }
    }
    return best;
  }

 private:
  bool test(const NamePattern& p, std::size_t slot, std::string_view module) {
    if (p.index_sensitive) return p.matches(module_text(module));
    if (memo_ == nullptr) {
      fold_digits(module, folded_);
      auto it = memo_by_name_.find(folded_);
      if (it == memo_by_name_.end()) it = memo_by_name_.emplace(folded_, std::vector<signed char>(slots_, -1)).first;
      memo_ = &it->second;
    }
    auto& answer = (*memo_)[slot];
    if (answer < 0) answer = p.matches(module_text(module)) ? 1 : 0;
    return answer == 1;
  }

  // The module name as a string, made once per decision and only when a pattern is tested.
  const std::string& module_text(std::string_view module) {
    if (!module_text_ready_) {
      module_text_.assign(module);
      module_text_ready_ = true;
    }
    return module_text_;
  }

  // `name` with each digit run as one "0", into `out` (its buffer reused).
  // Copied a run of non-digits at a time (a name has a few digit runs in ~70
  // characters; every tensor of a model is decided, so this is per tensor).
  static void fold_digits(std::string_view name, std::string& out) {
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    out.clear();
    const char* s = name.data();
    const std::size_t n = name.size();
    std::size_t at = 0;
    while (at < n) {
      const std::size_t run = non_digit_end(s, at, n);
      out.append(s + at, run - at);
      if (run == n) break;
      out.push_back('0');
      at = run;
      while (at < n && digit(s[at])) ++at;
    }
  }

  const QuantizationScheme& s_;
  std::size_t slots_ = 0;
  // Every tensor of a model is looked up here by its folded name (~60 bytes):
  // hashed eight bytes at a time (a multiply-xorshift mix) rather than by
  // std::hash's byte loop, which costs ~130 instructions a lookup.
  struct FoldedNameHash {
    std::size_t operator()(const std::string& s) const {
      std::uint64_t h = 0x9E3779B97F4A7C15ull ^ s.size();
      std::size_t at = 0;
      for (; at + 8 <= s.size(); at += 8) {
        std::uint64_t w;
        std::memcpy(&w, s.data() + at, 8);
        h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
      }
      std::uint64_t tail = 0;
      std::memcpy(&tail, s.data() + at, s.size() - at);
      h = (h ^ tail) * 0x94D049BB133111EBull;
      return static_cast<std::size_t>(h ^ (h >> 29));
    }
  };
  std::unordered_map<std::string, std::vector<signed char>, FoldedNameHash> memo_by_name_;
  std::vector<signed char>* memo_ = nullptr;  // this decision's answers
  std::string folded_;                        // the folded name being looked up
  std::string module_text_;                   // module_text's string, for this decision
  bool module_text_ready_ = false;
};

}  // namespace preflight
