// Fuzzes the engine-profile reader (parse_engine_profiles, data/engines.json's
// format) and the version parser it uses: any bytes must give a profile or an
// Error of one line naming the origin, never a crash, hang or exception.
// For every accepted profile the target checks what the sizing rules rely on:
// eras are non-empty and strictly ascending, era() picks the last era that
// starts at or before a version, SGLang has at least one reserved-memory tier,
// MXFP4 padding multiples are at least 1.
// Seed corpus: fuzz/corpus/engine_profile/ (the real data/engines.json and broken variants).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "engine/engine_profile.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

void check_error(const preflight::Error& error, const std::string& origin) {
  check(error.origin == origin);
  check(!error.message.empty());
  // Errors are one line whatever the input (texts are quoted).
  check(error.to_string().find('\n') == std::string::npos);
}

void check_profiles(const preflight::EngineProfiles& p) {
  const auto& eras = p.vllm.eras;
  check(!eras.empty());
  for (std::size_t i = 1; i < eras.size(); ++i) check(eras[i - 1].from < eras[i].from);
  // era(): the last era whose start is not after the version (the first one when all are).
  for (const auto& probe : {preflight::EngineVersion{0, 0, 0}, preflight::EngineVersion{0, 19, 0},
                            preflight::EngineVersion{0, 21, 0}, preflight::EngineVersion{99, 0, 0}}) {
    const auto& era = p.vllm.era(probe);
    check(&era >= &eras.front() && &era <= &eras.back());
    if (!(probe < eras.front().from)) check(!(probe < era.from));
    if (&era != &eras.back()) check(probe < (&era + 1)->from);
  }
  check(!p.sglang.tiers.empty());
  for (const auto& [arch, pad] : p.vllm.mxfp4_padding)
    check(pad.intermediate_multiple >= 1 && pad.hidden_multiple >= 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string origin = "fuzz.json";
  try {
    auto parsed = preflight::parse_engine_profiles(text, origin);
    if (parsed.ok())
      check_profiles(*parsed);
    else
      check_error(parsed.error(), origin);
    // The same bytes as an --engine-version value.
    if (size <= 256) {
      auto v = preflight::parse_engine_version(text, "--engine-version");
      if (!v.ok()) check_error(v.error(), "--engine-version");
    }
  } catch (...) {
    // Every problem must come back as an Error, not an exception.
    std::abort();
  }
  return 0;
}
