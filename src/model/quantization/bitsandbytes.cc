// bitsandbytes 4-bit (NF4 / FP4) and 8-bit (LLM.int8), as transformers saves them.
#include <fmt/format.h>

#include "core/text.h"
#include "model/quantization/config_reads.h"
#include "model/quantization/format_readers.h"
#include "model/quantization/name_pattern.h"

namespace preflight {

// bitsandbytes 4-bit or 8-bit, as transformers saves it.
Result<QuantizationScheme> parse_bnb(const JsonFields& q, QuantizationScheme scheme) {
  QuantGroup g;
  g.pointer = scheme.pointer;
  g.type = "int";
  auto four = read_bool(q, "load_in_4bit", false);
  if (!four) return four.error();
  auto eight = read_bool(q, "load_in_8bit", false);
  if (!eight) return eight.error();
  if (*four == *eight) return q.error("load_in_4bit", "exactly one of load_in_4bit and load_in_8bit must be true");
  if (*four) {
    g.name = g.format = "bnb-4bit";
    g.kind = QuantFormat::bnb_4bit;
    g.num_bits = 4;
    g.group_size = 64;
    auto type = q.string_or("bnb_4bit_quant_type", "fp4");
    if (!type) return type.error();
    if (*type != "nf4" && *type != "fp4")
      return q.error("bnb_4bit_quant_type", fmt::format("expected nf4 or fp4, got {}", echo(*type)));
    g.bnb_type = *type;
    auto dq = read_bool(q, "bnb_4bit_use_double_quant", false);
    if (!dq) return dq.error();
    g.double_quant = *dq;
    auto storage = q.string_or("bnb_4bit_quant_storage", "uint8");
    if (!storage) return storage.error();
    if (*storage != "uint8")
      return q.error("bnb_4bit_quant_storage",
                     fmt::format("storage {} is not supported yet (uint8 is)", echo(*storage)));
  } else {
    g.name = g.format = "bnb-8bit";
    g.kind = QuantFormat::bnb_8bit;
    g.num_bits = 8;
  }
  scheme.groups.push_back(std::move(g));
  auto skip = read_not_convert(q, {"llm_int8_skip_modules"});
  if (!skip) return skip.error();
  scheme.ignore = std::move(skip).value();
  return scheme;
}

}  // namespace preflight
