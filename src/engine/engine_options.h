// Engine options: which serving engine's memory rules a plan applies, and the
// engine's own knobs. A zero / empty knob means "the engine's default", which
// the engine profile (data/engines.json) resolves and the plan reports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "engine/engine_version.h"

namespace preflight {

enum class EngineKind { generic, vllm, sglang };

std::string_view engine_key(EngineKind kind);  // "generic" | "vllm" | "sglang"
Result<EngineKind> parse_engine(std::string_view text, const std::string& flag = "--engine");

struct EngineOptions {
  EngineKind kind = EngineKind::generic;
  std::optional<EngineVersion> version;  // --engine-version; none: the profile's default version
  // The oldest release the model's own recipe supports (data/launch/recipes.json
  // min_version), and that recipe's label; none = no recipe says.
  std::optional<EngineVersion> required_version;
  std::string required_by;
  // Set when the model was cast to what `--dtype auto` serves (engine/engine_dtype.h): the rule, for the plan.
  std::string auto_dtype_rule;
  double gpu_memory_utilization = 0;         // vLLM; 0 = the profile default
  double mem_fraction_static = 0;            // SGLang; 0 = SGLang's default formula
  std::uint64_t max_num_batched_tokens = 0;  // vLLM / SGLang chunked prefill; 0 = default
  std::uint64_t max_num_seqs = 0;            // vLLM --max-num-seqs / SGLang --max-running-requests
  std::uint64_t block_size = 0;              // vLLM block size / SGLang page size (tokens); 0 = default
  double mamba_full_memory_ratio = 0;        // SGLang; 0 = default 0.9
  std::string radix_cache = "on";            // SGLang radix cache: on | off | lazy
  bool enforce_eager = false;                // no CUDA graphs
};

// Checks ranges (fractions in (0, 1], radix mode names); errors name the flag.
Result<EngineOptions> validate_engine_options(EngineOptions options);

}  // namespace preflight
