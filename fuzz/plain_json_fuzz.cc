// libFuzzer target for parse_json's fast path (src/core/plain_json.h).
//
// Differential: on any input the fast path either declines or gives exactly what
// the full reader gives (which must then accept it), values and nlohmann types
// alike; and parse_json with the fast path accepts exactly what the full reader
// accepts. And the writer (src/core/json_write.h) gives nlohmann's dump bytes for
// every document the reader accepts, one-line and indented. A violation aborts
// (a crash report).
// Seed corpus: fuzz/corpus/plain_json/ (configs, every token shape, declined shapes).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/json_read.h"
#include "core/json_write.h"
#include "core/plain_json.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto full = preflight::parse_json_full(text, "fuzz.json");
  if (const auto fast = preflight::parse_plain_json(text)) {
    check(full.ok());
    check(preflight::identical_json(*fast, *full));
  }
  const auto either = preflight::parse_json(text, "fuzz.json");
  check(either.ok() == full.ok());
  if (!either.ok()) check(either.error().to_string() == full.error().to_string());
  if (full.ok())
    for (int indent : {-1, 2})
      check(preflight::write_json(*full, indent) ==
            full->dump(indent, ' ', false, nlohmann::json::error_handler_t::replace));
  return 0;
}
