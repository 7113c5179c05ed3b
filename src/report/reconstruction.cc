#include "report/reconstruction.h"

#include <fmt/format.h>

#include "core/bytes.h"

namespace preflight {

std::vector<Figure> two_precision_reconstruction(const ModelSpec& model, const Inventory& inv) {
  std::vector<Figure> out;
  const std::string src = manifest_source_text(model);
  // Labels follow the source: the files' bytes are official facts (unless the
  // engine's cast on load changed them), config + a reader derived, a generic
  // reading's structure a planning estimate.
  const bool cast = model.disk_payload_bytes > 0 && model.disk_payload_bytes != inv.payload_bytes;
  const Evidence structure = model.family_reader ? Evidence::derived : Evidence::estimate;
  const Evidence bytes = model.manifest_source != ManifestSource::config && !cast ? Evidence::official : structure;
  std::uint64_t group_size = 0, bits = 0, scale_bits = 0;
  // One precision for the whole model, when there is one (a mixed-precision
  // checkpoint has none, and gets no effective-bits figure).
  if (const auto* g = model.quantization.model_wide_group()) {
    group_size = g->group_size;
    bits = g->num_bits;
    scale_bits = dtype_bits(g->scale_dtype);
  }
  if (inv.quantized_params > 0 && group_size > 0) {
    const double effective =
        static_cast<double>(bits) + static_cast<double>(scale_bits) / static_cast<double>(group_size);
    out.push_back(real_figure("reconstruction.effective_bits", "effective bits per quantized weight", effective, "bits",
                              Evidence::derived,
                              fmt::format("{} + {}/{} (one {}-bit scale per {} weights)", bits, scale_bits, group_size,
                                          scale_bits, group_size),
                              "quantization_config"));
    out.push_back(bytes_figure(
        "reconstruction.quantized_bytes",
        fmt::format("{} quantized parameters at {:.2f} bits", with_commas(inv.quantized_params), effective),
        inv.quantized_bytes, bytes,
        fmt::format("{} x {} / 8 = codes {} + scales {}", with_commas(inv.quantized_params), effective,
                    with_commas(inv.quantized_params * bits / 8),
                    with_commas(inv.quantized_bytes - inv.quantized_params * bits / 8)),
        src));
  } else if (inv.quantized_params >
             0) {  // several precisions (ModelOpt MIXED_PRECISION): the stored bytes, no single rate
    out.push_back(bytes_figure(
        "reconstruction.quantized_bytes",
        fmt::format("{} quantized parameters, each module at its own precision", with_commas(inv.quantized_params)),
        inv.quantized_bytes, bytes,
        "codes and scales as stored, summed over the quantized tensors (quantization_config "
        "names each module's algorithm)",
        src));
  }
  out.push_back(bytes_figure("reconstruction.unquantized_bytes",
                             fmt::format("{} parameters kept at 16/32 bits", with_commas(inv.unquantized_params)),
                             inv.unquantized_bytes, bytes,
                             "BF16 elements x 2 B + F32 elements x 4 B (the ignore list and non-Linear tensors)", src));
  out.push_back(
      bytes_figure("reconstruction.total", "checkpoint payload = quantized + unquantized", inv.payload_bytes, bytes,
                   fmt::format("{} + {}", with_commas(inv.quantized_bytes), with_commas(inv.unquantized_bytes)), src));
  if (model.artifact && inv.quantized_params > 0 && group_size > 0) {
    const auto logical = model.artifact->logical_parameters;
    const auto flat = logical * (bits * group_size + scale_bits) / (8 * group_size);
    const auto shards = model.artifact->shard_bytes;
    out.push_back(bytes_figure(
        "reconstruction.flat_effective_bits_bound",
        fmt::format("all {} parameters at {}+{}/{} bits", with_commas(logical), bits, scale_bits, group_size), flat,
        Evidence::derived,
        fmt::format("{} x {} / {} / 8", with_commas(logical), bits * group_size + scale_bits, group_size),
        model.artifact->source));
    if (shards > flat)
      out.push_back(
          bytes_figure("reconstruction.residual_over_flat", "shard bytes beyond a flat quantized checkpoint",
                       shards - flat, Evidence::derived,
                       fmt::format("{} - {} B: the 16-bit always-on path and F32 tensors (seed 001's \"73 GB\" "
                                   "used 2.8T; the exact count gives this)",
                                   with_commas(shards), with_commas(flat)),
                       model.artifact->source));
  }
  out.push_back(exact_figure(
      "reconstruction.active", "active parameters per token", inv.active_params, "params", structure,
      fmt::format("{} always-on (every text tensor but the input embedding, routed experts and MTP layers) + "
                  "{} routed ({} of {} experts x {} layers x {} params)",
                  with_commas(inv.active_trunk_params), with_commas(inv.active_routed_params),
                  model.moe.experts_per_token, model.moe.routed_experts, inv.moe_layers,
                  with_commas(inv.routed_params_per_expert)),
      src));
  if (model.moe.routed_experts == 0) return out;
  const double naive = static_cast<double>(inv.logical_params) * static_cast<double>(model.moe.experts_per_token) /
                       static_cast<double>(model.moe.routed_experts == 0 ? 1 : model.moe.routed_experts);
  out.push_back(real_figure(
      "reconstruction.naive_routing_fraction", "the tempting (wrong) active count: all parameters x top-k / experts",
      naive / 1e9, "B params", Evidence::derived,
      fmt::format("{} x {} / {}: applies the routing fraction to non-routed weights too",
                  with_commas(inv.logical_params), model.moe.experts_per_token, model.moe.routed_experts),
      "seed 000"));
  return out;
}

}  // namespace preflight
