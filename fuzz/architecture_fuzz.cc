// Fuzzes the architecture-description reader and engine (model/arch): the input
// is read as one description (beside the embedded ones it may extend) and, when
// accepted, built against a small Llama config. Any bytes must give a value or an
// Error of one line, never a crash or an endless loop (loops are bounded by the engine).
// Seed corpus: fuzz/corpus/architecture/.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/result.h"
#include "embedded_files.h"
#include "model/arch/architecture.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::pair<std::string, std::string>> files;
  for (auto path : preflight::embedded::embedded_paths())
    if (path == "data/architectures/llama.json")
      files.emplace_back(std::string(path), std::string(preflight::embedded::embedded_file(path)));
  files.emplace_back("fuzz", text);
  auto table = preflight::arch::ArchitectureTable::parse(files);
  if (!table) {
    if (table.error().to_string().find('\n') != std::string::npos) std::abort();
    return 0;
  }
  static const nlohmann::json config = nlohmann::json::parse(
      R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
          "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 100, "max_position_embeddings": 256})");
  for (const auto& d : table->all()) {
    try {
      (void)preflight::arch::build_described(*table, *d, config, "fuzz");
    } catch (const preflight::InputError&) {
    }
  }
  return 0;
}
