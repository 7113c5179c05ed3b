// quant_method mxfp4 (gpt-oss): routed experts stored as *_blocks / *_scales.

#include "model/quantization/config_reads.h"
#include "model/quantization/format_readers.h"
#include "model/quantization/name_pattern.h"

namespace preflight {

Result<QuantizationScheme> parse_mxfp4(const JsonFields& q, QuantizationScheme scheme) {
  QuantGroup g;
  g.name = "mxfp4";
  g.pointer = scheme.pointer;
  g.format = "mxfp4";
  g.kind = QuantFormat::gpt_oss_mxfp4;
  g.num_bits = 4;
  g.type = "float";
  g.group_size = 32;
  g.scale_dtype = Dtype::U8;
  auto ignore = read_not_convert(q, {"modules_to_not_convert"});
  if (!ignore) return ignore.error();
  scheme.ignore = std::move(ignore).value();
  scheme.groups.push_back(std::move(g));
  return scheme;
}

}  // namespace preflight
