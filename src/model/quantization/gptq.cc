// quant_method gptq (AutoGPTQ / GPTQModel), with GPTQModel `dynamic` per-module overrides.
#include <fmt/format.h>

#include <string_view>

#include "model/quantization/config_reads.h"
#include "model/quantization/format_readers.h"
#include "model/quantization/name_pattern.h"

namespace preflight {

Result<QuantizationScheme> parse_gptq(const JsonFields& q, QuantizationScheme scheme) {
  QuantGroup g;
  g.name = "gptq";
  g.pointer = scheme.pointer;
  g.format = "gptq";
  g.kind = QuantFormat::gptq;
  g.type = "int";
  g.scale_dtype = Dtype::F16;
  auto bits = q.positive_integer("bits");
  if (!bits) return bits.error();
  if (*bits != 2 && *bits != 3 && *bits != 4 && *bits != 8)
    return q.error("bits", fmt::format("GPTQ stores 2, 3, 4 or 8-bit weights, got {}", *bits));
  g.num_bits = *bits;
  auto gs = read_group_size(q, "group_size");
  if (!gs) return gs.error();
  g.group_size = *gs;
  g.strategy = g.group_size == 0 ? ScaleStrategy::channel : ScaleStrategy::group;
  // desc_act and sym change values, not what is stored (g_idx and qzeros are
  // always written), but a wrong type is still a bad config.
  for (const char* key : {"desc_act", "sym"}) {
    auto flag = read_bool(q, key, key == std::string_view("sym"));
    if (!flag) return flag.error();
    if (key == std::string_view("sym")) g.symmetric = *flag;
  }
  auto ckpt = q.string_or("checkpoint_format", "gptq");
  if (!ckpt) return ckpt.error();
  if (*ckpt != "gptq" && *ckpt != "gptq_v2")
    return q.error("checkpoint_format",
                   fmt::format("GPTQ checkpoint format '{}' is not supported yet (expected gptq or gptq_v2)", *ckpt));
  // AutoGPTQ (model_file_base_name) and optimum's GPTQ integration (use_exllama,
  // exllama_config) build every QuantLinear with a bias; GPTQModel (meta) follows the layer.
  // Seen in Qwen-7B-Chat-Int4 (AutoGPTQ) and Qwen1.5-14B-Chat-GPTQ-Int4 (optimum keys).
  g.bias_always = (q.has("model_file_base_name") || q.has("use_exllama") || q.has("exllama_config")) && !q.has("meta");
  auto ignore = read_not_convert(q, {"modules_to_not_convert"});
  if (!ignore) return ignore.error();
  scheme.ignore = std::move(ignore).value();
  // GPTQModel's per-module overrides (gptqmodel/utils/model.py dynamic_get, read
  // the same way by vLLM's gptq_utils.get_dynamic_override): each key is a
  // Python re.match pattern on the module name; "-:" leaves the module
  // unquantized, "+:" (or no prefix) overrides bits / group_size. Overrides are
  // groups tried before the model-wide one (the last group).
  if (q.has("dynamic")) {
    const auto& d = q.node()["dynamic"];
    if (!d.is_object()) return q.error("dynamic", fmt::format("expected an object, got {}", show(d)));
    for (const auto& [key, value] : d.items()) {
      const auto pointer = fmt::format("{}/{}", q.pointer_to("dynamic"), pointer_token(key));
      const bool negative = key.starts_with("-:");
      const std::string pattern = key.starts_with("-:") || key.starts_with("+:") ? key.substr(2) : key;
      auto p = compile_ct_pattern("re:" + pattern, scheme.origin, pointer);
      if (!p) return p.error();
      if (negative) {
        scheme.ignore.push_back(std::move(p).value());
        continue;
      }
      if (!value.is_object())
        return Error{scheme.origin, pointer, fmt::format("expected an object, got {}", show(value))};
      JsonFields node(value, scheme.origin, pointer);
      QuantGroup o = g;
      o.name = key;
      o.pointer = pointer;
      auto obits = node.positive_integer_or("bits", g.num_bits);
      if (!obits) return obits.error();
      if (*obits != 2 && *obits != 3 && *obits != 4 && *obits != 8)
        return node.error("bits", fmt::format("GPTQ stores 2, 3, 4 or 8-bit weights, got {}", *obits));
      o.num_bits = *obits;
      if (node.has("group_size")) {
        auto ogs = read_group_size(node, "group_size");
        if (!ogs) return ogs.error();
        o.group_size = *ogs;
        o.strategy = o.group_size == 0 ? ScaleStrategy::channel : ScaleStrategy::group;
      }
      o.targets.push_back(std::move(p).value());
      scheme.groups.push_back(std::move(o));
    }
  }
  scheme.groups.push_back(std::move(g));
  return scheme;
}

}  // namespace preflight
