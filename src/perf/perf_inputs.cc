#include "perf/perf_inputs.h"

#include <fmt/format.h>

namespace preflight {

std::optional<Error> validate_perf_inputs(const PerfInputs& in) {
  if (in.model == nullptr) return Error{"perf", "model", "no model given"};
  if (in.gpu == nullptr) return Error{"perf", "gpu", "no accelerator given"};
  if (in.layout == nullptr) return Error{"perf", "layout", "no layout given"};
  if (in.layout->world == 0 || in.layout->tp == 0 || in.layout->dp == 0 || in.layout->pp == 0 ||
      in.layout->moe_tp == 0 || in.layout->ep == 0 || in.layout->dcp == 0)
    return Error{"perf", "layout", "the layout has a zero dimension (build it with choose_layout)"};
  if (in.batch_per_group == 0) return Error{"perf", "batch_per_group", "the batch must be at least 1 request"};
  if (in.kv_dtype_bytes == 0) return Error{"perf", "kv_dtype_bytes", "the KV element must be at least 1 byte"};
  if (in.state_dtype_bytes == 0) return Error{"perf", "state_dtype_bytes", "the state element must be at least 1 byte"};
  if (auto missing = missing_latency_figure(*in.gpu)) return Error{"perf", "gpu", *missing};
  if (in.scale_out_gb_s < 0) return Error{"perf", "scale_out_gb_s", "must not be negative"};
  return std::nullopt;
}

std::optional<std::string> missing_latency_figure(const Accelerator& gpu) {
  if (gpu.memory_bandwidth_tb_s <= 0) return fmt::format("no memory bandwidth figure for {} in the catalogue", gpu.id);
  if (gpu.bf16_dense_tflops <= 0) return fmt::format("no BF16 dense throughput figure for {} in the catalogue", gpu.id);
  return std::nullopt;
}

std::uint64_t activation_bytes(const PerfInputs& in) {
  if (in.act_dtype_bytes > 0) return in.act_dtype_bytes;
  const auto width = dtype_bits(in.model->dtype) / 8;
  return width > 0 ? width : 2;
}

std::string format_seconds(double s) {
  if (s >= 1) return fmt::format("{:.3g} s", s);
  if (s >= 1e-3) return fmt::format("{:.3g} ms", s * 1e3);
  return fmt::format("{:.3g} us", s * 1e6);
}

LayerRange stage_layer_range(const Layout& layout, std::uint64_t stage) {
  if (layout.pp <= 1 || stage >= layout.stage_layers.size()) return LayerRange{};
  return LayerRange{layout.first_layer(stage), layout.stage_layers[stage]};
}

}  // namespace preflight
