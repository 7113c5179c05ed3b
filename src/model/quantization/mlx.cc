// MLX (mlx-lm, mlx-vlm): `quantization` {bits, group_size} and per-module entries.
#include <fmt/format.h>

#include "model/quantization/config_reads.h"
#include "model/quantization/format_readers.h"
#include "model/quantization/name_pattern.h"

namespace preflight {

// MLX: `bits` and `group_size` with no quant_method; module paths may override.
Result<QuantizationScheme> parse_mlx(const JsonFields& q, QuantizationScheme scheme) {
  scheme.method = "mlx";
  auto group_of = [&](const JsonFields& node, std::string name) -> Result<QuantGroup> {
    QuantGroup g;
    g.name = std::move(name);
    g.pointer = node.pointer_to("bits");
    g.format = "mlx";
    g.kind = QuantFormat::mlx_affine;
    g.type = "int";
    auto bits = node.positive_integer("bits");
    if (!bits) return bits.error();
    if (*bits != 2 && *bits != 3 && *bits != 4 && *bits != 5 && *bits != 6 && *bits != 8)
      return node.error("bits", fmt::format("MLX stores 2, 3, 4, 5, 6 or 8-bit weights, got {}", *bits));
    g.num_bits = *bits;
    auto gs = node.positive_integer("group_size");
    if (!gs) return gs.error();
    g.group_size = *gs;
    auto mode = node.string_or("mode", "affine");
    if (!mode) return mode.error();
    if (*mode != "affine")
      return node.error("mode", fmt::format("MLX quantization mode '{}' is not supported yet (affine is)", *mode));
    return g;
  };
  auto main = group_of(q, "mlx");
  if (!main) return main.error();
  // Per-module overrides come first so the exact name wins (Decider takes the first group whose target matches).
  for (const auto& [key, value] : q.node().items()) {
    if (key == "bits" || key == "group_size" || key == "mode" || key == "quant_method") continue;
    if (value.is_boolean() && !value.get<bool>()) {
      auto p = compile_ct_pattern(key, scheme.origin, q.pointer_to(key));
      if (!p) return p.error();
      scheme.ignore.push_back(std::move(p).value());
    } else if (value.is_object()) {
      JsonFields node(value, scheme.origin, q.pointer_to(key));
      auto g = group_of(node, key);
      if (!g) return g.error();
      auto p = compile_ct_pattern(key, scheme.origin, q.pointer_to(key));
      if (!p) return p.error();
      g.value().targets.push_back(std::move(p).value());
      scheme.groups.push_back(std::move(g).value());
    }
  }
  scheme.groups.push_back(std::move(main).value());
  return scheme;
}

}  // namespace preflight
