// Layout: how the GPUs of a cluster divide the model.
//
// In this release: attention tensor parallelism (TP) over `tp` ranks, repeated
// `dp = world / tp` times (data-parallel attention) when TP is smaller than the
// cluster; routed experts spread over every GPU (EP = world, SGLang's and
// vLLM's expert-parallel MoE); decode context parallelism (DCP) dividing the
// MLA cache's token positions over `dcp` ranks of a TP group.
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
};

struct Layout {
  std::uint64_t world = 0;  // GPUs (one rank each)
  std::uint64_t tp = 0;     // attention tensor parallel
  std::uint64_t dp = 0;     // attention data-parallel groups: world / tp
  std::uint64_t ep = 0;     // expert parallel: world
  std::uint64_t pp = 1;     // pipeline stages (always 1 in this release)
  std::uint64_t dcp = 1;
  std::string chosen_by;    // "--tp 8" or why the planner chose it
};

// Every layout the planner may try for `world` GPUs (TP x DP x PP = world,
// EP over a stage for MoE models, DCP 1), valid for the model; the solvers
// (fit, sweep) search these. Honours gpus_per_node: TP stays inside a node.
std::vector<LayoutOptions> candidate_layouts(const ModelSpec& model, std::uint64_t world, std::uint64_t gpus_per_node);

// Validates or chooses a layout for `world` GPUs. Errors name the flag.
Result<Layout> choose_layout(const ModelSpec& model, std::uint64_t world, const LayoutOptions& options);

}  // namespace preflight
