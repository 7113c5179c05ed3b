// quant_method fp8 (transformers FineGrainedFP8 / vLLM Fp8Config): block-wise or per-tensor FP8 weights.
#include <fmt/format.h>

#include "core/bytes.h"
#include "model/quantization/config_reads.h"
#include "model/quantization/format_readers.h"
#include "model/quantization/name_pattern.h"

namespace preflight {

Result<QuantizationScheme> parse_fp8(const JsonFields& q, QuantizationScheme scheme) {
  QuantGroup g;
  g.name = "fp8";
  g.pointer = scheme.pointer;
  g.format = "fp8";
  g.kind = QuantFormat::fp8;
  g.num_bits = 8;
  g.type = "float";
  g.scale_dtype = Dtype::F32;
  auto fmt_name = q.string_or("fmt", "e4m3");
  if (!fmt_name) return fmt_name.error();
  if (*fmt_name != "e4m3" && *fmt_name != "float8_e4m3fn")
    return q.error("fmt",
                   fmt::format("FP8 format '{}' is not supported (expected \"e4m3\" or \"float8_e4m3fn\")", *fmt_name));
  auto activation = q.string_or("activation_scheme", "dynamic");
  if (!activation) return activation.error();
  if (*activation != "dynamic" && *activation != "static")
    return q.error("activation_scheme", fmt::format("expected \"dynamic\" or \"static\", got \"{}\"", *activation));
  if (q.has("weight_block_size")) {
    auto block = q.integer_list("weight_block_size");
    if (!block) return block.error();
    if (block->size() != 2)
      return q.error("weight_block_size", fmt::format("expected [rows, columns], got {} values", block->size()));
    for (std::size_t i = 0; i < 2; ++i)
      if (auto e = check_block_dim((*block)[i], q, "weight_block_size", i)) return *e;
    if (*activation == "static")
      return q.error("activation_scheme",
                     "static activation scales with weight_block_size: block-wise FP8 checkpoints use dynamic "
                     "activation scaling (vLLM rejects this combination)");
    g.strategy = ScaleStrategy::block;
    g.block_rows = (*block)[0];
    g.block_cols = (*block)[1];
    g.group_size = checked_mul(g.block_rows, g.block_cols, "weight_block_size");
  } else {
    g.strategy = ScaleStrategy::tensor;
    g.group_size = 0;
    if (*activation == "static") g.input = QuantGroup::Input::static_scale;
    scheme.notes.push_back(
        "fp8 without weight_block_size: per-tensor scales as AutoFP8 writes them (weight_scale F32 [], plus "
        "input_scale F32 [] when activation_scheme is static)");
  }
  auto ignore = read_not_convert(q, {"modules_to_not_convert", "ignored_layers"});
  if (!ignore) return ignore.error();
  scheme.ignore = std::move(ignore).value();
  scheme.groups.push_back(std::move(g));
  return scheme;
}

}  // namespace preflight
