// Which quantization group, if any, each logical tensor takes.
#include "model/quantization/tensor_decision.h"

namespace preflight {

bool is_ct(const QuantizationScheme& s) { return s.method == "compressed-tensors"; }

// What the HF quantizers convert before any modules_to_not_convert entry.
bool eligible(const QuantizationScheme& s, const LogicalTensor& t) {
  if (is_ct(s)) return true;
  // nn.Linear and nn.Embedding with to_quantized, if group_size divides the input;
  // mlx-vlm leaves the vision tower and projector in the model dtype.
  if (s.method == "mlx")
    return t.text && (t.linear_weight || t.module == ModuleClass::embedding) && t.shape.size() == 2 &&
           s.model_wide_group() != nullptr && t.shape[1] % s.model_wide_group()->group_size == 0;
  if (!t.linear_weight) return false;
  if (s.method == "mxfp4") return t.module == ModuleClass::routed_experts;  // only GptOssExperts are replaced
  if (s.method == "mlx") return true;  // Linear and Embedding, the head included (decided with the group size)
  if (t.module == ModuleClass::lm_head) return false;  // the output embedding is kept
  if (s.method == "awq" || s.method == "gptq") return t.text && t.module != ModuleClass::mtp;
  return true;  // fp8: every nn.Linear
}

bool any_index_sensitive(const QuantizationScheme& s) {
  for (const auto& p : s.ignore)
    if (p.index_sensitive) return true;
  for (const auto& g : s.groups)
    for (const auto& p : g.targets)
      if (p.index_sensitive) return true;
  return false;
}

}  // namespace preflight
