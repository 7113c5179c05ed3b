#include "artifact/generated_names.h"

namespace preflight {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Where an "{E}" entry's number would run into other digits ("w{E}1"), its names
// cannot be told apart by digit runs: those few are listed whole.
bool number_touches_digits(std::string_view name, std::size_t brace) {
  return (brace > 0 && is_digit(name[brace - 1])) || (brace + 3 < name.size() && is_digit(name[brace + 3]));
}

// A digit run as concrete_name writes a number (std::to_string: no leading zero), or nullopt.
std::optional<std::uint64_t> canonical_number(std::string_view digits) {
  if (digits.empty() || digits.size() > 10 || (digits.size() > 1 && digits[0] == '0')) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : digits) v = v * 10 + static_cast<std::uint64_t>(c - '0');
  return v;
}

}  // namespace

GeneratedNames::GeneratedNames(const TensorManifest& manifest) : manifest_(manifest) {
  const auto& tensors = manifest_.tensors;
  templated_.reserve(tensors.size());
  offset_.reserve(tensors.size());
  std::size_t slots = 0;
  for (std::uint32_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    const bool templated = is_expert_template(t);
    templated_.push_back(templated);
    offset_.push_back(slots);
    if (!templated) {
      direct_.emplace(t.name, Slot{i, 0});
      ++slots;
      continue;
    }
    slots += t.instances;
    if (number_touches_digits(t.name, t.name.find("{E}"))) {
      for (std::uint32_t k = 0; k < t.instances; ++k) direct_.emplace(concrete_name(t, k), Slot{i, k});
      continue;
    }
    templates_[t.name].push_back(i);
  }
  seen_.assign(slots, false);
}

std::optional<GeneratedNames::Slot> GeneratedNames::find(std::string_view name) const {
  std::optional<Slot> best;
  if (auto it = direct_.find(name); it != direct_.end()) best = it->second;
  if (templates_.empty()) return best;
  for (std::size_t a = 0; a < name.size();) {
    if (!is_digit(name[a])) {
      ++a;
      continue;
    }
    std::size_t b = a;
    while (b < name.size() && is_digit(name[b])) ++b;
    if (const auto number = canonical_number(name.substr(a, b - a))) {
      key_.assign(name.substr(0, a));
      key_ += "{E}";
      key_ += name.substr(b);
      if (auto it = templates_.find(std::string_view(key_)); it != templates_.end()) {
        for (const auto e : it->second) {
          if (best && best->entry <= e) break;  // entries are listed in manifest order
          const auto& t = manifest_.tensors[e];
          if (*number >= t.first_instance && *number - t.first_instance < t.instances)
            best = Slot{e, static_cast<std::uint32_t>(*number - t.first_instance)};
        }
      }
    }
    a = b;
  }
  return best;
}

std::string GeneratedNames::name(Slot s) const { return concrete_name(entry(s), s.instance); }

void GeneratedNames::for_each_unseen(const std::function<void(Slot)>& fn) const {
  for (std::uint32_t e = 0; e < templated_.size(); ++e) {
    const std::uint32_t count = templated_[e] ? manifest_.tensors[e].instances : 1;
    for (std::uint32_t k = 0; k < count; ++k)
      if (!seen_[offset_[e] + k]) fn(Slot{e, k});
  }
}

}  // namespace preflight
