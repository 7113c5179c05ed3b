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

#include "core/result.h"
#include "model/model_spec.h"

namespace preflight {

struct LayoutOptions {
  std::uint64_t tp = 0;   // 0: choose the largest TP that divides the heads and the GPU count
  std::uint64_t dcp = 1;  // decode context parallel size; must divide TP
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

// Validates or chooses a layout for `world` GPUs. Errors name the flag.
Result<Layout> choose_layout(const ModelSpec& model, std::uint64_t world, const LayoutOptions& options);

}  // namespace preflight
