// Names of a logical tensor's instances and modules, as the quantization rules
// match them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace preflight {

// A tensor's module: its name without ".weight".
inline std::string_view module_view(std::string_view tensor_name) {
  constexpr std::string_view kWeight = ".weight";
  if (tensor_name.ends_with(kWeight)) tensor_name.remove_suffix(kWeight.size());
  return tensor_name;
}

inline std::string module_name_of(const std::string& tensor_name) { return std::string(module_view(tensor_name)); }

// The name of instance `index` of a per-expert template ("...experts.{E}.w1.weight").
inline std::string instantiate(const std::string& name, std::uint32_t index) {
  std::string out = name;
  const auto pos = out.find("{E}");
  if (pos != std::string::npos) out.replace(pos, 3, std::to_string(index));
  return out;
}

}  // namespace preflight
