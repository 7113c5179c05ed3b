#include "model/dtype.h"

#include <array>
#include <utility>

namespace preflight {

namespace {
struct DtypeRow {
  Dtype dtype;
  std::string_view name;
  std::uint64_t bits;
};
// safetensors' dtype vocabulary (the format's spec lists these names).
constexpr std::array<DtypeRow, 15> kDtypes{{
    {Dtype::BF16, "BF16", 16},
    {Dtype::F16, "F16", 16},
    {Dtype::F32, "F32", 32},
    {Dtype::F64, "F64", 64},
    {Dtype::F8_E4M3, "F8_E4M3", 8},
    {Dtype::F8_E5M2, "F8_E5M2", 8},
    {Dtype::U8, "U8", 8},
    {Dtype::I8, "I8", 8},
    {Dtype::I16, "I16", 16},
    {Dtype::I32, "I32", 32},
    {Dtype::I64, "I64", 64},
    {Dtype::BOOL, "BOOL", 8},
    {Dtype::U16, "U16", 16},
    {Dtype::U32, "U32", 32},
    {Dtype::U64, "U64", 64},
}};
}  // namespace

std::string_view dtype_name(Dtype d) {
  for (const auto& row : kDtypes)
    if (row.dtype == d) return row.name;
  return "?";
}

std::uint64_t dtype_bits(Dtype d) {
  for (const auto& row : kDtypes)
    if (row.dtype == d) return row.bits;
  return 0;
}

std::optional<Dtype> dtype_from_safetensors(std::string_view name) {
  for (const auto& row : kDtypes)
    if (row.name == name) return row.dtype;
  return std::nullopt;
}

std::optional<Dtype> dtype_from_torch(std::string_view name) {
  if (name.starts_with("torch.")) name.remove_prefix(6);
  static constexpr std::array<std::pair<std::string_view, Dtype>, 13> kTorch{{
      {"uint32", Dtype::U32},
      {"bfloat16", Dtype::BF16},
      {"float16", Dtype::F16},
      {"half", Dtype::F16},
      {"float32", Dtype::F32},
      {"float", Dtype::F32},
      {"uint8", Dtype::U8},
      {"int8", Dtype::I8},
      {"int32", Dtype::I32},
      {"int64", Dtype::I64},
      {"float8_e4m3fn", Dtype::F8_E4M3},
      {"float8_e5m2", Dtype::F8_E5M2},
      {"float64", Dtype::F64},
  }};
  for (const auto& [key, d] : kTorch)
    if (key == name) return d;
  return std::nullopt;
}

std::string_view dtype_torch_name(Dtype d) {
  switch (d) {
    case Dtype::BF16:
      return "bfloat16";
    case Dtype::F16:
      return "float16";
    case Dtype::F32:
      return "float32";
    case Dtype::F64:
      return "float64";
    default:
      return "";
  }
}

}  // namespace preflight
