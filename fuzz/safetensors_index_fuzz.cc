// libFuzzer target for the model.safetensors.index.json reader
// (src/artifact/safetensors_index.h).
//
// Any text must give an index or one Error on one line, never a crash, hang or
// exception. For every index that is accepted: the shard files are the sorted,
// distinct weight_map values, and no file name leaves the model folder.
// Differential: the fast path (plain_index_scan.h) must give exactly what the
// full reader gives, the same index or the same error.
// Seed corpus: fuzz/corpus/safetensors_index/.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "artifact/artifact_json.h"
#include "artifact/safetensors_index.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto index = preflight::parse_safetensors_index(text, "fuzz.index.json");
  const auto full = preflight::parse_safetensors_index_full(text, "fuzz.index.json");
  check(index.ok() == full.ok());
  if (index.ok())
    check(index->weight_map == full->weight_map && index->shard_files == full->shard_files &&
          index->total_size == full->total_size && index->total_parameters == full->total_parameters);
  else
    check(index.error().to_string() == full.error().to_string());
  if (!index.ok()) {
    const std::string line = index.error().to_string();
    check(!index.error().message.empty());
    check(line.find('\n') == std::string::npos && line.find('\r') == std::string::npos);
    return 0;
  }
  const auto& files = index->shard_files;
  check(std::is_sorted(files.begin(), files.end()));
  check(std::adjacent_find(files.begin(), files.end()) == files.end());
  check(index->weight_map.empty() == files.empty());
  for (const auto& [tensor, file] : index->weight_map) {
    check(std::binary_search(files.begin(), files.end(), file));
    check(preflight::artifact::relative_path_problem(file).empty());
  }
  return 0;
}
