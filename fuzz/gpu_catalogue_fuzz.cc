// libFuzzer target for the GPU catalogue reader (GpuCatalogue::parse and
// GpuCatalogue::merged_with).
//
// `--catalogue FILE.json` feeds user text straight into these functions, so they
// must never crash, hang or throw on any input: every problem must come back as
// an Error of one line. Beyond "no crash", the target checks the invariants the
// planners rely on for every catalogue that is accepted: each entry has a
// positive device total with a source, and each id, name and alias finds its
// own entry. A violation aborts, which libFuzzer reports as a crash.
// Seed corpus: fuzz/corpus/gpu_catalogue/.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "hardware/gpu_catalogue.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

void check_error(const preflight::Error& error) { check(error.to_string().find('\n') == std::string::npos); }

void check_catalogue(const preflight::GpuCatalogue& catalogue) {
  for (const auto& a : catalogue.all()) {
    check(a.device_total_bytes > 0);
    check(!a.device_total_source.empty());
    check(!a.sources.empty());
    check(a.smi_total_bytes == 0 || a.device_total_bytes <= a.smi_total_bytes);
    auto by_id = catalogue.find(a.id, "fuzz");
    check(by_id.ok() && *by_id == &a);
    auto by_name = catalogue.find(a.name, "fuzz");
    check(by_name.ok() && *by_name == &a);
    for (const auto& alias : a.aliases) {
      auto by_alias = catalogue.find(alias, "fuzz");
      check(by_alias.ok() && *by_alias == &a);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  // As a whole catalogue.
  auto parsed = preflight::GpuCatalogue::parse(text, "fuzz.json");
  if (parsed.ok()) {
    check_catalogue(*parsed);
    // A valid catalogue merged onto itself overrides every entry with itself.
    auto self = parsed->merged_with(text, "fuzz.json");
    check(self.ok() && self->all().size() == parsed->all().size());
  } else {
    check_error(parsed.error());
  }

  // As a --catalogue override of the built-in catalogue.
  const auto& embedded = preflight::GpuCatalogue::embedded();
  auto merged = embedded.merged_with(text, "fuzz.json");
  if (merged.ok()) {
    check(merged->all().size() >= embedded.all().size());
    check_catalogue(*merged);
  } else {
    check_error(merged.error());
  }

  // As a GPU name typed on the command line (did-you-mean path).
  if (size <= 256) {
    auto found = embedded.find(text, "--gpus");
    if (!found.ok()) check(!found.error().message.empty());
  }
  return 0;
}
