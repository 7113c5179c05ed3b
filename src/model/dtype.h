// Storage dtypes as safetensors names them, with their size in bits.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace preflight {

enum class Dtype { BF16, F16, F32, F64, F8_E4M3, F8_E5M2, U8, I8, I16, I32, I64, BOOL, U16, U32, U64 };

std::string_view dtype_name(Dtype d);                                // "BF16"
std::uint64_t dtype_bits(Dtype d);                                   // 16
std::optional<Dtype> dtype_from_safetensors(std::string_view name);  // "BF16" -> BF16
// Hugging Face `torch_dtype` / `dtype` strings: "bfloat16", "float16", "float32".
std::optional<Dtype> dtype_from_torch(std::string_view name);
// The torch name of a floating dtype as str(torch.dtype) minus "torch." ("bfloat16"); "" for others.
std::string_view dtype_torch_name(Dtype d);

}  // namespace preflight
