// Layout: how the GPUs of a cluster divide the model.
//
// world = TP x DP x PP GPUs, one rank each. Within a pipeline stage, attention
// runs tensor-parallel over TP ranks, repeated DP times (data-parallel
// attention, SGLang's --enable-dp-attention, vLLM's DP); the MoE layers span
// all TP x DP ranks of the stage: experts are dealt over EP groups and each
// expert is split over MoE-TP = TP x DP / EP ranks (vLLM without
// --enable-expert-parallel is EP 1, MoE-TP = TP x DP). PP stages take
// contiguous layer ranges (vLLM's get_pp_indices), embedding on the first and
// LM head on the last. DCP divides the MLA cache's token positions over DCP
// ranks of a TP group.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "model/model_spec.h"

namespace preflight {

struct LayoutOptions {
  std::uint64_t tp = 0;             // 0: choose the largest TP that divides the heads and the GPU count
  std::uint64_t ep = 0;             // 0: every GPU of a pipeline stage (MoE models), 1 for dense models
  std::uint64_t pp = 0;             // 0: 1 stage
  std::uint64_t dp = 0;             // 0: GPUs / (TP x PP)
  std::uint64_t dcp = 1;            // decode context parallel size; must divide TP
  std::uint64_t gpus_per_node = 0;  // 0: the GPU catalogue's scale-up domain
  // Not a flag: set by build_plan for engines whose DP attention splits the
  // dense parts over the stage (SGLang); see Layout::dense_over_stage.
  bool dense_over_stage = false;
};

struct Layout {
  std::uint64_t world = 0;   // GPUs (one rank each)
  std::uint64_t tp = 0;      // attention tensor parallel
  std::uint64_t dp = 0;      // attention data-parallel groups per stage
  std::uint64_t ep = 0;      // expert-parallel groups per stage (1 for dense models)
  std::uint64_t moe_tp = 1;  // ranks each expert is split over: TP x DP / EP
  std::uint64_t pp = 1;      // pipeline stages
  std::uint64_t dcp = 1;
  std::uint64_t gpus_per_node = 0;  // 0 when unknown
  std::uint64_t nodes = 1;          // ceil(world / gpus_per_node)
  // SGLang's DP attention (dp > 1): the LM head, the dense MLPs and the shared
  // experts are split over the stage's TP x DP ranks, as its --tp is the whole
  // stage (deepseek_v2.py: ParallelLMHead without enable_dp_lm_head, the dense
  // MLP without moe_dense_tp_size, the shared experts' default TP); attention
  // and the embedding stay at attention TP. vLLM's DP ranks each hold them.
  bool dense_over_stage = false;
  std::vector<std::uint64_t> stage_layers;  // decoder layers per stage (size pp)
  std::vector<std::uint64_t> stage_first;   // first decoder layer of each stage
  std::string chosen_by;                    // "--tp 8" or why the planner chose it

  std::uint64_t stage_ranks() const { return tp * dp; }
  std::uint64_t stage_of(std::uint64_t rank) const { return rank / stage_ranks(); }
  std::uint64_t tp_rank(std::uint64_t rank) const { return rank % tp; }
  std::uint64_t ep_index(std::uint64_t rank) const { return (rank % stage_ranks()) / moe_tp; }
  std::uint64_t moe_tp_rank(std::uint64_t rank) const { return (rank % stage_ranks()) % moe_tp; }
  // First decoder layer of a stage.
  std::uint64_t first_layer(std::uint64_t stage) const { return stage < stage_first.size() ? stage_first[stage] : 0; }
};

// Decoder layers per stage as vLLM splits them (vllm/distributed/utils.py
// get_pp_indices): layers / pp each, the remainder one each to the stages
// before the last, counting back from the second-to-last.
std::vector<std::uint64_t> pipeline_stage_layers(std::uint64_t layers, std::uint64_t pp);

// The layouts people deploy for `world` GPUs (TP x DP x PP = world, DCP 1),
// the one set plan, fit, max, sweep and launch choose from:
//   - TP a power of two, inside a node, dividing every head count TP shards;
//   - PP only in stages of whole nodes, or inside a node where the heads keep
//     TP below the node size (each stage then one TP group of that size);
//   - DP (data-parallel attention, or replicas of a dense model) fills the rest
//     of a stage; EP spans the stage's TP x DP ranks for MoE models.
// TP 24 over three 8-GPU nodes or PP 7 on one node are valid (choose_layout
// accepts them when asked) but not practical, so the solvers never pick them.
std::vector<LayoutOptions> practical_layouts(const ModelSpec& model, std::uint64_t world, std::uint64_t gpus_per_node);

// Validates or chooses a layout for `world` GPUs. Errors name the flag.
// `tp_divisors`: model.tp_divisors() when the caller has it cached (the solvers).
Result<Layout> choose_layout(const ModelSpec& model, std::uint64_t world, const LayoutOptions& options,
                             const std::vector<std::pair<std::uint64_t, std::string>>* tp_divisors = nullptr,
                             bool explain = true);  // false: leave chosen_by empty (the solvers' fast path)

// "TP 8 x DP 1, EP 8, PP 1, DCP 1": the resolved layout in one phrase.
std::string layout_summary(const Layout& layout);

}  // namespace preflight
