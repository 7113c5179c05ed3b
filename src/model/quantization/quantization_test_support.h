// Helpers of the quantization tests: logical tensors of small synthetic models,
// and a quantization_config parsed and applied in one call.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/json_fields.h"
#include "model/quantization.h"
#include "model/tensor_manifest.h"

namespace preflight::quantization_test {

using Shape = std::vector<std::uint64_t>;
using MC = ModuleClass;
using PR = ParallelRole;

inline LogicalTensor tensor(std::string name, Shape shape, Dtype dtype = Dtype::BF16, bool linear = true,
                            MC module = MC::gqa_attention, PR role = PR::column, std::uint32_t instances = 1,
                            bool text = true) {
  return LogicalTensor{std::move(name), std::move(shape), dtype, linear, module, role, 0, instances, text};
}

inline LogicalTensor expert(std::string name, Shape shape, std::uint32_t instances, Dtype dtype = Dtype::BF16) {
  return tensor(std::move(name), std::move(shape), dtype, true, MC::routed_experts, PR::expert, instances);
}

inline Result<QuantizationScheme> parse(const std::string& quantization_config) {
  static std::vector<std::unique_ptr<nlohmann::json>> keep;  // JsonFields keeps a pointer
  keep.push_back(std::make_unique<nlohmann::json>(
      nlohmann::json::parse("{\"quantization_config\": " + quantization_config + "}")));
  return parse_quantization(JsonFields(*keep.back(), "config.json"));
}

inline TensorManifest quantize(const std::string& config, const std::vector<LogicalTensor>& logical) {
  const auto scheme = parse(config);
  if (!scheme) throw std::runtime_error(scheme.error().to_string());
  const auto manifest = apply_quantization(logical, *scheme);
  if (!manifest) throw std::runtime_error(manifest.error().to_string());
  return *manifest;
}

// The first decoder layer's name prefix.
inline const std::string kL0 = "model.layers.0.";

}  // namespace preflight::quantization_test
