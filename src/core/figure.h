// Figure: one number that reaches a report, with the evidence behind it.
//
// The four evidence labels come from seed 000 ("Four labels keep the rest of the
// post honest"): official fact (read from a pinned artifact, report or recipe),
// derived calculation (arithmetic on official facts alone), planning estimate
// (adds an explicit assumption), deployment hypothesis (a configuration that
// still needs a benchmark). Every figure carries one, plus the formula with the
// numbers substituted and the source, so `preflight explain` can show the work.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace preflight {

enum class Evidence { official, derived, estimate, hypothesis };

std::string_view evidence_key(Evidence e);    // "official" | "derived" | "estimate" | "hypothesis"
std::string_view evidence_label(Evidence e);  // "official fact" | "derived calculation" | ...

struct Figure {
  std::string id;           // stable key for scripts, e.g. "weights.flat_4bit_bound"
  std::string label;        // what a person reads, e.g. "flat 4-bit lower bound"
  double value = 0;         // the number in `unit`
  std::uint64_t exact = 0;  // the exact integer when `is_exact` (bytes, counts)
  bool is_exact = false;
  std::string unit;  // "B", "params", "tokens", "s", "GB", "%", ...
  Evidence evidence = Evidence::derived;
  std::string formula;  // arithmetic with the numbers substituted
  std::string source;   // where the inputs come from
  std::string display;  // human rendering of the value with units (GB and GiB labelled)
};

// Builders keep call sites short and make every figure state its evidence.
Figure exact_figure(std::string id, std::string label, std::uint64_t value, std::string unit, Evidence evidence,
                    std::string formula, std::string source);
Figure real_figure(std::string id, std::string label, double value, std::string unit, Evidence evidence,
                   std::string formula, std::string source);

// A byte figure whose display shows B, GB and GiB.
Figure bytes_figure(std::string id, std::string label, std::uint64_t bytes, Evidence evidence, std::string formula,
                    std::string source);

const Figure* find_figure(const std::vector<Figure>& figures, std::string_view id);

}  // namespace preflight
