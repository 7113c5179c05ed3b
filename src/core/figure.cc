#include "core/figure.h"

#include <fmt/format.h>

#include "core/bytes.h"

namespace preflight {

std::string_view evidence_key(Evidence e) {
  switch (e) {
    case Evidence::official:
      return "official";
    case Evidence::derived:
      return "derived";
    case Evidence::estimate:
      return "estimate";
    case Evidence::hypothesis:
      return "hypothesis";
  }
  return "derived";
}

std::string_view evidence_label(Evidence e) {
  switch (e) {
    case Evidence::official:
      return "official fact";
    case Evidence::derived:
      return "derived calculation";
    case Evidence::estimate:
      return "planning estimate";
    case Evidence::hypothesis:
      return "deployment hypothesis";
  }
  return "derived calculation";
}

Figure exact_figure(std::string id, std::string label, std::uint64_t value, std::string unit, Evidence evidence,
                    std::string formula, std::string source) {
  Figure f;
  f.id = std::move(id);
  f.label = std::move(label);
  f.value = static_cast<double>(value);
  f.exact = value;
  f.is_exact = true;
  f.display = with_commas(value) + (unit.empty() ? "" : " " + unit);
  f.unit = std::move(unit);
  f.evidence = evidence;
  f.formula = std::move(formula);
  f.source = std::move(source);
  return f;
}

Figure real_figure(std::string id, std::string label, double value, std::string unit, Evidence evidence,
                   std::string formula, std::string source) {
  Figure f;
  f.id = std::move(id);
  f.label = std::move(label);
  f.value = value;
  f.display = fmt::format("{:.4g}{}", value, unit.empty() ? "" : " " + unit);
  f.unit = std::move(unit);
  f.evidence = evidence;
  f.formula = std::move(formula);
  f.source = std::move(source);
  return f;
}

Figure bytes_figure(std::string id, std::string label, std::uint64_t bytes, Evidence evidence, std::string formula,
                    std::string source) {
  Figure f = exact_figure(std::move(id), std::move(label), bytes, "B", evidence, std::move(formula), std::move(source));
  // GB only where it reads well; the binary unit always, both labelled.
  f.display = bytes >= 100'000'000
                  ? fmt::format("{} B = {} = {}", with_commas(bytes), format_gb(bytes), format_binary(bytes, 3))
                  : fmt::format("{} B = {}", with_commas(bytes), format_binary(bytes, 3));
  return f;
}

const Figure* find_figure(const std::vector<Figure>& figures, std::string_view id) {
  for (const auto& f : figures)
    if (f.id == id) return &f;
  return nullptr;
}

}  // namespace preflight
