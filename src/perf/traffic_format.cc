#include "perf/traffic_format.h"

#include <fmt/format.h>

#include <cctype>

namespace preflight {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string traffic_format_key(const StoredTensor& t) {
  switch (t.format) {
    case StorageFormat::plain:
      return lower(dtype_name(t.dtype));
    case StorageFormat::mxfp4_packed:
      return "mxfp4";
    case StorageFormat::mxfp4_scale:
      return "mxfp4_scale";
    case StorageFormat::nvfp4_packed:
      return "nvfp4";
    case StorageFormat::fp8:
      return "fp8";
    case StorageFormat::int8:
      return "int8";
    case StorageFormat::int_packed: {
      // Bits per value from the counting rule (logical params = values), as the inventory does.
      const auto bits = t.logical_params_each > 0 ? t.bytes_each * 8 / t.logical_params_each : 0;
      return fmt::format("int{}", bits);
    }
    case StorageFormat::weight_scale:
      return "weight_scale";
    case StorageFormat::zero_point:
      return "zero_point";
    case StorageFormat::quant_metadata:
      return "quant_metadata";
    case StorageFormat::activation_scale:
      return "activation_scale";
  }
  return lower(dtype_name(t.dtype));
}

std::string_view rate_class_key(RateClass c) {
  switch (c) {
    case RateClass::bf16:
      return "bf16";
    case RateClass::fp8:
      return "fp8";
    case RateClass::fp4:
      return "fp4";
  }
  return "bf16";
}

FormatRate bf16_rate(const Accelerator& gpu) {
  return FormatRate{RateClass::bf16, gpu.bf16_dense_tflops, "BF16 dense tensor-core rate"};
}

FormatRate format_rate(const Accelerator& gpu, std::string_view key) {
  if (key == "mxfp4" || key == "nvfp4") {
    if (gpu.fp4_native && gpu.fp4_dense_tflops > 0)
      return FormatRate{RateClass::fp4, gpu.fp4_dense_tflops, "native FP4 tensor cores"};
    return FormatRate{
        RateClass::bf16, gpu.bf16_dense_tflops,
        fmt::format("no FP4 tensor cores on {}: dequantized to BF16 math (Marlin W4A16)", gpu.architecture)};
  }
  if (key == "fp8" || key == "int8") {
    if (gpu.fp8_dense_tflops > 0)
      return FormatRate{RateClass::fp8, gpu.fp8_dense_tflops, "FP8/INT8 dense tensor-core rate"};
    return FormatRate{RateClass::bf16, gpu.bf16_dense_tflops, "no FP8 rate in the catalogue: BF16 math"};
  }
  if (key.substr(0, 3) == "int")
    return FormatRate{RateClass::bf16, gpu.bf16_dense_tflops,
                      "packed integer weights dequantized to BF16 math (W4A16)"};
  return bf16_rate(gpu);
}

}  // namespace preflight
