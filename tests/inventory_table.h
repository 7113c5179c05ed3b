// Test helper: a verbatim tensor-inventory table from tests/data/reference/models
// (`| `model.layers.0-2,4-6.mlp.x.weight` (xN layers) | `[shape]` | `torch.dtype` |`).
// Layer ranges are expanded, one name per layer, so tensors of different layer
// kinds are told apart; an expert range becomes "{E}", as the manifest names
// expert groups; dtypes are given in safetensors spelling (BF16, F32, F8_E4M3).
#pragma once
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "reference_files.h"

namespace preflight::testing {

struct InventoryRow {
  std::vector<std::string> names;
  std::string shape;
  std::string dtype;
};

inline std::string safetensors_dtype(const std::string& torch) {
  if (torch == "torch.bfloat16") return "BF16";
  if (torch == "torch.float32") return "F32";
  if (torch == "torch.float8_e4m3fn") return "F8_E4M3";
  return torch;
}

inline std::vector<InventoryRow> read_inventory_table(const std::string& reference_rel) {
  std::vector<InventoryRow> rows;
  std::stringstream in(read_reference(reference_rel));
  static const std::regex line_re(R"(^\| `([^`]+)`[^|]*\| `(\[[0-9, ]+\])` \| `([a-z0-9_.]+)` \|)");
  static const std::regex layered(R"(^(.*layers\.)([0-9,\-]+)\.(.*)$)");
  static const std::regex experts(R"(experts\.[0-9,\-]+\.)");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, line_re)) continue;
    InventoryRow row{{}, m[2], safetensors_dtype(m[3])};
    const std::string name = std::regex_replace(std::string(m[1]), experts, "experts.{E}.");
    std::smatch lm;
    if (!std::regex_match(name, lm, layered)) {
      row.names.push_back(name);
    } else {
      std::stringstream spec(lm[2]);
      for (std::string part; std::getline(spec, part, ',');) {
        const auto dash = part.find('-');
        const int lo = std::stoi(part.substr(0, dash));
        const int hi = dash == std::string::npos ? lo : std::stoi(part.substr(dash + 1));
        for (int l = lo; l <= hi; ++l)
          row.names.push_back(std::string(lm[1]) + std::to_string(l) + "." + std::string(lm[3]));
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace preflight::testing
