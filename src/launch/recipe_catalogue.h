// Launch recipes: the model-specific engine flags the serving projects publish
// (vLLM recipes, SGLang cookbook cells, public deployment scripts), as data.
//
// data/launch/recipes.json (embedded at build time) keys each recipe by engine,
// model (catalogue name or model family) and optionally GPU architecture
// (data/launch/architectures.json), accelerator ids and GPU count. Every recipe
// names its source; a flag may name its own. Selection orders the matching
// recipes from the most general to the most specific, the order in which
// their flags are applied (a later flag of the same name replaces an earlier).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"
#include "engine/engine_options.h"

namespace preflight {

struct RecipeFlag {
  std::string flag;                  // "--max-model-len", as the engine spells it
  std::optional<std::string> value;  // absent for a switch ("--trust-remote-code")
  std::string source;                // the flag's own source; empty: the recipe's
};

struct Recipe {
  std::string id;     // "vllm-kimi-k3-hopper"
  std::string label;  // "vLLM Kimi-K3 Hopper override"
  EngineKind engine = EngineKind::vllm;
  std::vector<std::string> models;           // catalogue names ("kimi-k3")
  std::vector<std::string> families;         // model families ("kimi_k3"), for models given as paths
  std::vector<std::string> archs;            // empty: any architecture
  std::vector<std::string> gpus;             // accelerator ids; empty: any
  std::uint64_t gpu_count = 0;               // 0: any count
  std::vector<std::string> kv_dtypes;        // KV cache dtypes (preflight's names) it is for; empty: any
  std::optional<EngineVersion> min_version;  // engine release the recipe needs; none: any
  std::string source;
  std::vector<RecipeFlag> flags;
  std::vector<std::pair<std::string, std::string>> env;  // environment variables the recipe sets

  // 0 general, 1 architecture, 2 accelerators, 3 accelerators and count.
  int specificity() const;
};

// What a launch is for: the recipes that apply are those whose every key matches.
struct RecipeTarget {
  EngineKind engine = EngineKind::vllm;
  std::string model_name;  // catalogue name, or "" for a model given as a path
  std::string family;      // ModelSpec::family
  std::string arch;        // GpuArch::arch, or "" when unknown
  std::string gpu_id;      // Accelerator::id
  std::uint64_t gpu_count = 0;
  std::string kv_dtype;  // the launch's KV cache dtype ("fp8"); "": recipes keyed by one do not apply
};

Result<std::vector<Recipe>> parse_recipes(std::string_view json_text, std::string_view origin);

// The embedded recipes (data/launch/recipes.json). Validated by the unit tests,
// so a failure here is a programming error: throws std::logic_error.
const std::vector<Recipe>& embedded_recipes();

// The recipes for `target`, most general first (stable within a level).
std::vector<Recipe> select_recipes(const std::vector<Recipe>& recipes, const RecipeTarget& target);

// The newest min_version among `selected` (recipes chosen for one target) and the
// label of the recipe that sets it; nullopt when none names one.
struct RequiredVersion {
  EngineVersion version;
  std::string recipe_label;
};
std::optional<RequiredVersion> required_version(const std::vector<Recipe>& selected);

}  // namespace preflight
