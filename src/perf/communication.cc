#include "perf/communication.h"

#include <algorithm>

#include "core/bytes.h"

namespace preflight {

std::uint64_t ring_allreduce_bytes(std::uint64_t n, std::uint64_t rows, std::uint64_t width, std::uint64_t element) {
  if (n <= 1 || rows == 0) return 0;
  const auto message = checked_mul(checked_mul(rows, width, "all-reduce bytes"), element, "all-reduce bytes");
  return checked_mul(checked_mul(2, n - 1, "all-reduce bytes"), message, "all-reduce bytes") / n;
}

RankStepComm rank_step_comm(const PerfInputs& in, const FormatPlacement& placement, std::uint64_t rank,
                            const StepShape& shape) {
  const auto& model = *in.model;
  const auto& layout = *in.layout;
  RankStepComm out;
  out.rank = rank;
  const auto stage = layout.stage_of(rank);
  const bool active = rank_active(layout, rank, shape);
  const auto tokens = active ? shape.tokens_per_group : 0;
  const auto range = stage_layer_range(layout, stage);
  const std::uint64_t layers = range.count == UINT64_MAX ? model.layers.size() : range.count;
  const auto moe = placement.moe_layers_in(range.first, layers);
  const auto h = model.hidden_size;
  const auto a = activation_bytes(in);
  const auto k = model.moe.experts_per_token;
  const auto width = model.moe.latent_dim > 0 ? model.moe.latent_dim : h;
  const auto gpn = layout.gpus_per_node;
  const double nvlink = in.gpu->interconnect_gb_s / 2 * 1e9;  // bytes/s each way
  const double nic = in.scale_out_gb_s * 1e9;
  out.scale_out_modelled = nic > 0;

  // Time of `bytes` sent within a group of `n` consecutive ranks.
  const auto send = [&](std::uint64_t n, std::uint64_t bytes) {
    if (bytes == 0) return;
    out.total = checked_add(out.total, bytes, "communication bytes");
    const bool crosses = gpn > 0 && n > gpn;
    if (crosses) {
      out.crosses_nodes = true;
      out.inter_node = checked_add(out.inter_node, bytes, "communication bytes");
      const double rate = nic > 0 ? nic : nvlink;
      if (rate > 0)
        out.seconds += static_cast<double>(bytes) / rate;
      else
        out.unknown_rate_bytes = checked_add(out.unknown_rate_bytes, bytes, "communication bytes");
    } else {
      out.intra_node = checked_add(out.intra_node, bytes, "communication bytes");
      if (nvlink > 0)
        out.seconds += static_cast<double>(bytes) / nvlink;
      else
        out.unknown_rate_bytes = checked_add(out.unknown_rate_bytes, bytes, "communication bytes");
    }
  };

  // TP all-reduces: after attention in every layer, after each dense FFN, and
  // for the TP-split parts of MoE layers when experts go through an all-to-all.
  const auto tp_messages = layers + (layers - moe) + (layout.ep > 1 && layout.tp > 1 ? moe : 0);
  out.tp_allreduce = checked_mul(tp_messages, ring_allreduce_bytes(layout.tp, tokens, h, a), "all-reduce bytes");
  send(layout.tp, out.tp_allreduce);

  if (moe > 0 && model.moe.routed_experts > 0) {
    const auto stage_tokens = shape.moe_tokens();
    if (layout.ep == 1) {
      out.moe_allreduce = checked_mul(moe, ring_allreduce_bytes(layout.moe_tp, stage_tokens, h, a), "all-reduce bytes");
      send(layout.moe_tp, out.moe_allreduce);
    } else {
      // Dispatch + combine from this rank's even share of the stage's tokens.
      const auto sent_rows = checked_mul(ceil_div(stage_tokens, layout.stage_ranks()), k, "all-to-all bytes");
      const auto payload = checked_mul(
          checked_mul(checked_mul(2, sent_rows, "all-to-all bytes"), width, "all-to-all bytes"), a, "all-to-all bytes");
      const auto per_layer = checked_mul(payload, layout.ep - 1, "all-to-all bytes") / layout.ep;
      out.ep_alltoall = checked_mul(moe, per_layer, "all-to-all bytes");
      const auto n = layout.stage_ranks();
      const auto off = gpn > 0 && n > gpn ? out.ep_alltoall / n * (n - gpn) : 0;  // destinations outside the node
      const auto on = out.ep_alltoall - off;
      out.total = checked_add(out.total, out.ep_alltoall, "communication bytes");
      out.intra_node = checked_add(out.intra_node, on, "communication bytes");
      out.inter_node = checked_add(out.inter_node, off, "communication bytes");
      if (off > 0) out.crosses_nodes = true;
      const double t_on = nvlink > 0 ? static_cast<double>(on) / nvlink : 0;
      const double t_off = off == 0     ? 0
                           : nic > 0    ? static_cast<double>(off) / nic
                           : nvlink > 0 ? static_cast<double>(off) / nvlink
                                        : 0;
      if (nvlink <= 0) out.unknown_rate_bytes = checked_add(out.unknown_rate_bytes, on, "communication bytes");
      if (off > 0 && nic <= 0 && nvlink <= 0)
        out.unknown_rate_bytes = checked_add(out.unknown_rate_bytes, off, "communication bytes");
      out.seconds += nic > 0 ? std::max(t_on, t_off) : t_on + t_off;
      // Experts split over MoE-TP: their partial outputs are summed over it.
      const auto received = ceil_div(checked_mul(stage_tokens, k, "all-reduce bytes"), layout.ep);
      out.moe_allreduce = checked_mul(moe, ring_allreduce_bytes(layout.moe_tp, received, width, a), "all-reduce bytes");
      send(layout.moe_tp, out.moe_allreduce);
    }
  }
  if (stage + 1 < layout.pp) {
    out.pipeline = checked_mul(checked_mul(tokens, h, "pipeline bytes"), a, "pipeline bytes");
    // Stages hold whole nodes (or fit in one): the hop leaves the node when a stage fills one.
    send(gpn > 0 && layout.stage_ranks() >= gpn ? gpn + 1 : 1, out.pipeline);
  }
  return out;
}

}  // namespace preflight
