// Launch settings: the plan inputs a launch command carries, each with where
// its value came from (the user's option or a recipe), and the recipe flags
// that are not plan inputs (passed to the engine as written).
//
// Precedence: an option the user gave wins; a recipe fills what the
// user left unset, more specific recipes replacing more general ones. Every
// replacement is recorded so the command can say what it overrode.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "engine/engine_options.h"
#include "launch/recipe_catalogue.h"

namespace preflight {

// The plan inputs an engine flag can set. Values are in preflight's terms
// (the strings its own options take: "fp8", "bf16", "131072", "0.95").
enum class Setting {
  tp,
  ep,
  pp,
  dp,
  dcp,
  context,
  kv_dtype,
  state_dtype,
  gpu_memory_utilization,
  mem_fraction_static,
  max_num_seqs,
  max_num_batched_tokens,
  block_size,
  mamba_full_memory_ratio,
  radix_cache,
  enforce_eager,
};

// The preflight option that sets it ("--tp", "--context", "--kv-dtype").
std::string_view setting_option(Setting s);

struct SettingValue {
  std::string value;      // preflight's terms
  std::string recipe_id;  // empty: the user's option
  std::string recipe_label;
  std::string engine_flag;  // as the recipe wrote it: "--max-model-len 32768"
  std::string source;       // the flag's or the recipe's source
  bool from_user() const { return recipe_id.empty(); }
};

// A recipe flag passed through to the engine unchanged.
struct PassFlag {
  std::string flag;
  std::optional<std::string> value;
  std::string recipe_id;
  std::string recipe_label;
  std::string source;
};

struct LaunchSettings {
  std::map<Setting, SettingValue> values;
  std::vector<PassFlag> pass;                            // first-seen order
  std::vector<std::string> overrides;                    // "user --context 131072 replaces ..."
  std::vector<Recipe> recipes;                           // applied, most general first
  std::vector<std::pair<std::string, std::string>> env;  // from the recipes, later ones replacing
};

// Which plan input a recipe's engine flag sets, translated into preflight's
// terms; nullopt when the flag is not a plan input. Errors name the flag.
Result<std::optional<std::pair<Setting, std::string>>> bind_engine_flag(EngineKind engine, const RecipeFlag& flag);

// Applies `recipes` (most general first) under the user's explicit options.
// SGLang's --tp counts every GPU of a stage: with a --dp in the same recipe,
// preflight's attention TP is tp / dp.
Result<LaunchSettings> apply_recipes(const std::map<Setting, std::string>& user, EngineKind engine,
                                     const std::vector<Recipe>& recipes);

}  // namespace preflight
