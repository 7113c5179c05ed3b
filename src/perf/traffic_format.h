// Traffic formats: the storage format a decode step reads a tensor in, and the
// tensor-core rate its matmul can run at on a given accelerator.
//
// The seeds ask whether MXFP4 "cuts traffic 4x". It cuts the bytes of the
// tensors stored in it (4.25 bits per weight with the E8M0 scales, against 16),
// and nothing else: the BF16 trunk, the KV cache and the state are read as
// stored. So bytes are kept by the format each stored tensor is in
// (StoredTensor::format, ::dtype), never by the model's nominal precision.
#pragma once

#include <string>
#include <string_view>

#include "hardware/accelerator.h"
#include "model/tensor_manifest.h"

namespace preflight {

// "bf16", "f32", "fp8", "int8", "mxfp4" (codes), "mxfp4_scale" (E8M0),
// "nvfp4", "int4" (packed), "weight_scale", "zero_point", "quant_metadata",
// "activation_scale": a stable key for figure ids (perf.bytes_per_token_by_dtype.<key>).
std::string traffic_format_key(const StoredTensor& t);

// The matmul rate class a weight format runs at.
enum class RateClass { bf16, fp8, fp4 };
std::string_view rate_class_key(RateClass c);  // "bf16" | "fp8" | "fp4"

struct FormatRate {
  RateClass rate = RateClass::bf16;
  double dense_tflops = 0;  // the accelerator's dense rate for that class
  std::string basis;        // why this rate: "native FP4 tensor cores", "dequantized to BF16 (Marlin W4A16)"
};

// The fastest dense rate the accelerator offers for weights of this format
// (a lower bound on math time must not assume a slower path than exists):
//  - mxfp4 / nvfp4: the FP4 rate where the GPU has FP4 tensor cores
//    (Blackwell); else BF16 math on dequantized weights, as Hopper runs MXFP4
//    experts through Marlin (vLLM's Mxfp4MoEMethod picks Marlin on SM90).
//  - fp8 / int8: the FP8 rate where there is one (Hopper INT8 and FP8 dense
//    rates are equal, 1,979 TFLOPS on H100 SXM); else BF16.
//  - packed int4 (W4A16) and every plain float: BF16.
// Scale, zero-point and metadata formats carry no parameters (no FLOPs); they
// get the BF16 class.
FormatRate format_rate(const Accelerator& gpu, std::string_view format_key);

// The BF16 class: attention scores (FlashAttention / FlashMLA run BF16 math).
FormatRate bf16_rate(const Accelerator& gpu);

}  // namespace preflight
