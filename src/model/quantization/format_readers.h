// One reader per quantization method: each fills `scheme` (method already set
// by the caller, parse_quantization) from the config's quantization object `q`,
// one file each beside this header.
#pragma once

#include "core/result.h"
#include "model/json_fields.h"
#include "model/quantization.h"

namespace preflight {

Result<QuantizationScheme> parse_compressed_tensors(const JsonFields& q,
                                                    QuantizationScheme scheme);             // compressed_tensors.cc
Result<QuantizationScheme> parse_fp8(const JsonFields& q, QuantizationScheme scheme);       // fp8.cc
Result<QuantizationScheme> parse_mxfp4(const JsonFields& q, QuantizationScheme scheme);     // gpt_oss_mxfp4.cc
Result<QuantizationScheme> parse_awq(const JsonFields& q, QuantizationScheme scheme);       // awq.cc
Result<QuantizationScheme> parse_gptq(const JsonFields& q, QuantizationScheme scheme);      // gptq.cc
Result<QuantizationScheme> parse_mlx(const JsonFields& q, QuantizationScheme scheme);       // mlx.cc
Result<QuantizationScheme> parse_modelopt(const JsonFields& q, QuantizationScheme scheme);  // modelopt.cc
Result<QuantizationScheme> parse_bnb(const JsonFields& q, QuantizationScheme scheme);       // bitsandbytes.cc

}  // namespace preflight
