#include "plan/layout.h"

#include <fmt/format.h>

namespace preflight {

namespace {
// TP must divide every head count that TP shards.
std::optional<std::string> heads_not_divided(const ModelSpec& m, std::uint64_t tp) {
  for (const auto& [count, what] : m.tp_divisors())
    if (count % tp != 0) return what;
  // KV heads are split when there are at least TP of them and replicated
  // otherwise; either way the two must divide one another.
  const auto kv = m.gqa.kv_heads;
  if (kv > 0 && m.gqa.heads > 0 && kv % tp != 0 && tp % kv != 0)
    return fmt::format("{} KV heads (TP must divide them or be a multiple of them)", kv);
  return std::nullopt;
}
}  // namespace

Result<Layout> choose_layout(const ModelSpec& model, std::uint64_t world, const LayoutOptions& options) {
  Layout layout;
  layout.world = world;
  if (options.tp > 0) {
    if (auto heads = heads_not_divided(model, options.tp))
      return Error{"--tp", "", fmt::format("TP {} does not divide the {}", options.tp, *heads)};
    if (options.tp > world)
      return Error{"--tp", "", fmt::format("TP {} needs more ranks than the {} GPUs", options.tp, world)};
    if (world % options.tp != 0)
      return Error{"--tp", "", fmt::format("TP {} does not divide the {} GPUs", options.tp, world)};
    layout.tp = options.tp;
    layout.chosen_by = fmt::format("--tp {}", options.tp);
  } else {
    for (std::uint64_t tp = world; tp >= 1; --tp) {
      if (world % tp == 0 && !heads_not_divided(model, tp)) {
        layout.tp = tp;
        break;
      }
    }
    layout.chosen_by = layout.tp == world
                           ? fmt::format("TP {} over all GPUs (divides the heads)", layout.tp)
                           : fmt::format("TP {}: the largest size dividing both the heads and the {} GPUs; "
                                         "attention repeated {} times (data-parallel attention)",
                                         layout.tp, world, world / layout.tp);
  }
  layout.dp = world / layout.tp;
  layout.ep = world;
  if (model.moe.routed_experts > 0 && layout.ep > model.moe.routed_experts)
    return Error{"--gpus", "",
                 fmt::format("expert parallelism over {} GPUs exceeds the {} routed experts", layout.ep,
                             model.moe.routed_experts)};
  if (options.dcp == 0) return Error{"--dcp", "", "DCP must be at least 1"};
  if (layout.tp % options.dcp != 0)
    return Error{"--dcp", "", fmt::format("DCP {} does not divide TP {} (DCP splits a TP group)", options.dcp, layout.tp)};
  layout.dcp = options.dcp;
  return layout;
}

std::vector<LayoutOptions> candidate_layouts(const ModelSpec&, std::uint64_t, std::uint64_t) {
  return {LayoutOptions{}};  // TODO(issue 4): enumerate TP x DP x PP x EP
}

}  // namespace preflight
