// libFuzzer target for parse_json's fast path (src/core/plain_json.h).
//
// Differential: on any input the fast path either declines or gives exactly what
// the full reader gives (which must then accept it), values and nlohmann types
// alike; and parse_json with the fast path accepts exactly what the full reader
// accepts. A violation aborts (a crash report).
// Seed corpus: fuzz/corpus/plain_json/ (configs, every token shape, declined shapes).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/json_read.h"
#include "core/plain_json.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

// Equal values of equal nlohmann types (the fast path nests at most kPlainJsonDepth).
bool same(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j)
      if (i.key() != j.key() || !same(*i, *j)) return false;
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!same(a[i], b[i])) return false;
    return true;
  }
  if (a.is_number_float()) {
    const double x = a.get<double>(), y = b.get<double>();
    return x == y && std::signbit(x) == std::signbit(y);
  }
  return a == b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto full = preflight::parse_json_full(text, "fuzz.json");
  if (const auto fast = preflight::parse_plain_json(text)) {
    check(full.ok());
    check(same(*fast, *full));
  }
  const auto either = preflight::parse_json(text, "fuzz.json");
  check(either.ok() == full.ok());
  if (!either.ok()) check(either.error().to_string() == full.error().to_string());
  return 0;
}
