#include "placement/layout.h"

#include <fmt/format.h>

#include <optional>

namespace preflight {

namespace {

using Divisors = std::vector<std::pair<std::uint64_t, std::string>>;

// TP must divide every head count that TP shards (`divisors`: m.tp_divisors(),
// computed once by the caller: the solvers try thousands of layouts).
std::optional<std::string> heads_not_divided(const ModelSpec& m, const Divisors& divisors, std::uint64_t tp) {
  for (const auto& [count, what] : divisors)
    if (count % tp != 0) return what;
  // KV heads are split when there are at least TP of them and replicated
  // otherwise; either way the two must divide one another.
  const auto kv = m.gqa.kv_heads;
  if (kv > 0 && m.gqa.heads > 0 && kv % tp != 0 && tp % kv != 0)
    return fmt::format("{} KV heads (TP must divide them or be a multiple of them)", kv);
  return std::nullopt;
}

bool is_moe(const ModelSpec& m) { return m.moe.routed_experts > 0; }

std::uint64_t decoder_layers(const ModelSpec& m) { return m.layers.size(); }

}  // namespace

std::vector<std::uint64_t> pipeline_stage_layers(std::uint64_t layers, std::uint64_t pp) {
  std::vector<std::uint64_t> parts(pp, layers / pp);
  const auto remainder = layers % pp;
  // partitions[-i] += 1 for i in 2 .. remainder + 1
  for (std::uint64_t i = 2; i < remainder + 2 && i <= pp; ++i) parts[pp - i] += 1;
  return parts;
}

Result<Layout> choose_layout(const ModelSpec& model, std::uint64_t world, const LayoutOptions& options,
                             const Divisors* cached_divisors, bool explain) {
  Layout layout;
  layout.world = world;
  layout.pp = options.pp > 0 ? options.pp : 1;
  if (layout.pp > world)
    return Error{"--pp", "", fmt::format("PP {} needs more ranks than the {} GPUs", layout.pp, world)};
  if (world % layout.pp != 0)
    return Error{"--pp", "", fmt::format("PP {} does not divide the {} GPUs", layout.pp, world)};
  if (layout.pp > decoder_layers(model))
    return Error{"--pp", "", fmt::format("PP {} exceeds the {} decoder layers", layout.pp, decoder_layers(model))};
  const auto per_stage = world / layout.pp;
  const Divisors computed = cached_divisors ? Divisors{} : model.tp_divisors();
  const Divisors& divisors = cached_divisors ? *cached_divisors : computed;

  std::vector<std::string> why;
  if (options.tp > 0) {
    if (auto heads = heads_not_divided(model, divisors, options.tp))
      return Error{"--tp", "", fmt::format("TP {} does not divide the {}", options.tp, *heads)};
    if (options.tp > per_stage)
      return Error{"--tp", "",
                   fmt::format("TP {} x PP {} needs more ranks than the {} GPUs", options.tp, layout.pp, world)};
    if (per_stage % options.tp != 0)
      return Error{"--tp", "", fmt::format("TP {} does not divide the {} GPUs of a stage", options.tp, per_stage)};
    layout.tp = options.tp;
    if (explain) why.push_back(fmt::format("--tp {}", options.tp));
  } else if (options.dp > 0) {
    if (per_stage % options.dp != 0)
      return Error{"--dp", "", fmt::format("DP {} does not divide the {} GPUs of a stage", options.dp, per_stage)};
    layout.tp = per_stage / options.dp;
    if (auto heads = heads_not_divided(model, divisors, layout.tp))
      return Error{"--dp", "",
                   fmt::format("DP {} leaves TP {}, which does not divide the {}", options.dp, layout.tp, *heads)};
    if (explain) why.push_back(fmt::format("TP {} = {} GPUs per stage / DP {}", layout.tp, per_stage, options.dp));
  } else {
    for (std::uint64_t tp = per_stage; tp >= 1; --tp) {
      if (per_stage % tp == 0 && !heads_not_divided(model, divisors, tp)) {
        layout.tp = tp;
        break;
      }
    }
    if (explain)
      why.push_back(layout.tp == per_stage
                        ? fmt::format("TP {} over all GPUs of a stage (divides the heads)", layout.tp)
                        : fmt::format("TP {}: the largest size dividing both the heads and the {} GPUs of a stage; "
                                      "attention repeated {} times (data-parallel attention)",
                                      layout.tp, per_stage, per_stage / layout.tp));
  }
  layout.dp = per_stage / layout.tp;
  if (options.dp > 0 && options.dp != layout.dp)
    return Error{"--dp", "",
                 fmt::format("TP {} x DP {} x PP {} = {} ranks, but there are {} GPUs", layout.tp, options.dp,
                             layout.pp, layout.tp * options.dp * layout.pp, world)};

  if (is_moe(model)) {
    layout.ep = options.ep > 0 ? options.ep : per_stage;
    if (per_stage % layout.ep != 0)
      return Error{"--ep", "",
                   fmt::format("EP {} does not divide the {} GPUs of a stage (TP {} x DP {})", layout.ep, per_stage,
                               layout.tp, layout.dp)};
    if (layout.ep > model.moe.routed_experts)
      return Error{options.ep > 0 ? "--ep" : "--gpus", "",
                   fmt::format("expert parallelism over {} GPUs exceeds the {} routed experts", layout.ep,
                               model.moe.routed_experts)};
    layout.moe_tp = per_stage / layout.ep;
  } else {
    if (options.ep > 1)
      return Error{"--ep", "", fmt::format("EP {} given, but {} has no routed experts", options.ep, model.name)};
    layout.ep = 1;
    layout.moe_tp = per_stage;
  }
  if (options.dcp == 0) return Error{"--dcp", "", "DCP must be at least 1"};
  if (layout.tp % options.dcp != 0)
    return Error{"--dcp", "",
                 fmt::format("DCP {} does not divide TP {} (DCP splits a TP group)", options.dcp, layout.tp)};
  layout.dcp = options.dcp;
  layout.dense_over_stage = options.dense_over_stage && layout.dp > 1;
  layout.gpus_per_node = options.gpus_per_node;
  layout.nodes = options.gpus_per_node > 0 ? (world + options.gpus_per_node - 1) / options.gpus_per_node : 1;
  layout.stage_layers = pipeline_stage_layers(decoder_layers(model), layout.pp);
  layout.stage_first.assign(layout.pp, 0);
  for (std::uint64_t s = 1; s < layout.pp; ++s)
    layout.stage_first[s] = layout.stage_first[s - 1] + layout.stage_layers[s - 1];
  if (explain && layout.pp > 1) why.push_back(fmt::format("PP {} by layers", layout.pp));
  layout.chosen_by.clear();
  for (const auto& w : why) layout.chosen_by += (layout.chosen_by.empty() ? "" : "; ") + w;
  return layout;
}

std::vector<LayoutOptions> practical_layouts(const ModelSpec& model, std::uint64_t world, std::uint64_t gpus_per_node) {
  std::vector<LayoutOptions> out;
  const auto layers = decoder_layers(model);
  const auto divisors = model.tp_divisors();
  const std::uint64_t node = gpus_per_node > 0 ? gpus_per_node : world;
  const auto tp_ok = [&](std::uint64_t tp) { return (tp & (tp - 1)) == 0 && !heads_not_divided(model, divisors, tp); };
  // The largest TP the model allows inside a node: where it is below the node
  // size, the heads (not the GPU count) stop TP growing.
  std::uint64_t tp_cap = 1;
  for (std::uint64_t tp = 1; tp <= node; tp *= 2)
    if (tp_ok(tp)) tp_cap = tp;
  for (std::uint64_t pp = 1; pp <= world && pp <= layers; ++pp) {
    if (world % pp != 0) continue;
    const auto per_stage = world / pp;
    // Pipeline stages span whole nodes; inside a node only when each stage is
    // one TP group that the heads keep below the node size.
    if (pp > 1 && per_stage % node != 0 && !(per_stage == tp_cap && tp_cap < node)) continue;
    if (is_moe(model) && per_stage > model.moe.routed_experts) continue;
    for (std::uint64_t tp = 1; tp <= per_stage && tp <= node; tp *= 2) {
      if (per_stage % tp != 0 || !tp_ok(tp)) continue;
      LayoutOptions o;
      o.tp = tp;
      o.pp = pp;
      o.dp = per_stage / tp;
      o.ep = is_moe(model) ? per_stage : 1;
      o.gpus_per_node = gpus_per_node;
      out.push_back(o);
    }
  }
  return out;
}

std::string layout_summary(const Layout& l) {
  return fmt::format("TP {} x DP {}, EP {}, PP {}, DCP {}", l.tp, l.dp, l.ep, l.pp, l.dcp);
}

}  // namespace preflight
