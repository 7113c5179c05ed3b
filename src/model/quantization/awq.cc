// quant_method awq (AutoAWQ GEMM): packed INT4 with per-group scales and zero points.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "model/quantization/config_reads.h"
#include "model/quantization/format_readers.h"
#include "model/quantization/name_pattern.h"

namespace preflight {

Result<QuantizationScheme> parse_awq(const JsonFields& q, QuantizationScheme scheme) {
  QuantGroup g;
  g.name = "awq";
  g.pointer = scheme.pointer;
  g.format = "awq";
  g.kind = QuantFormat::awq_gemm;
  g.type = "int";
  g.scale_dtype = Dtype::F16;
  g.symmetric = false;
  // AutoAWQ always writes bits and group_size; zero_point and version default
  // as in transformers' AwqConfig (true, "gemm").
  auto bits = q.positive_integer("bits");
  if (!bits) return bits.error();
  if (*bits != 4) return q.error("bits", fmt::format("AWQ (GEMM) packs 4-bit weights, got {}", *bits));
  g.num_bits = *bits;
  auto gs = read_group_size(q, "group_size");
  if (!gs) return gs.error();
  g.group_size = *gs;
  g.strategy = g.group_size == 0 ? ScaleStrategy::channel : ScaleStrategy::group;
  auto zp = read_bool(q, "zero_point", true);
  if (!zp) return zp.error();
  auto version = q.string_or("version", "gemm");
  if (!version) return version.error();
  std::string lower = *version;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower != "gemm")
    return q.error("version", fmt::format("AWQ version '{}' is not supported yet (only \"gemm\")", *version));
  auto ignore = read_not_convert(q, {"modules_to_not_convert"});
  if (!ignore) return ignore.error();
  scheme.ignore = std::move(ignore).value();
  scheme.groups.push_back(std::move(g));
  return scheme;
}

}  // namespace preflight
