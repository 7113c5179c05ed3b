// Tests for the precedence of launch settings: the user's option wins, a more
// specific recipe replaces a more general one, and every replacement is said.
#include "launch/launch_setting.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace preflight {
namespace {

Recipe recipe(std::string id, EngineKind engine, std::vector<RecipeFlag> flags) {
  Recipe r;
  r.id = id;
  r.label = "label " + id;
  r.engine = engine;
  r.models = {"m"};
  r.source = "source " + id;
  r.flags = std::move(flags);
  return r;
}

TEST(LaunchSettings, EngineFlagsBindToPlanInputs) {
  struct Case {
    EngineKind engine;
    RecipeFlag flag;
    bool bound;
    Setting setting;
    const char* value;
  };
  const Case cases[] = {
      {EngineKind::vllm, {"--max-model-len", "32768", ""}, true, Setting::context, "32768"},
      {EngineKind::vllm, {"--kv-cache-dtype", "fp8", ""}, true, Setting::kv_dtype, "fp8"},
      {EngineKind::vllm, {"--kv-cache-dtype", "auto", ""}, true, Setting::kv_dtype, "auto"},
      {EngineKind::vllm, {"--kv-cache-dtype", "bfloat16", ""}, true, Setting::kv_dtype, "bf16"},
      {EngineKind::vllm, {"--gpu-memory-utilization", "0.97", ""}, true, Setting::gpu_memory_utilization, "0.97"},
      {EngineKind::vllm, {"--max-num-seqs", "8", ""}, true, Setting::max_num_seqs, "8"},
      {EngineKind::vllm, {"-tp", "8", ""}, true, Setting::tp, "8"},
      {EngineKind::vllm, {"--enforce-eager", std::nullopt, ""}, true, Setting::enforce_eager, "true"},
      {EngineKind::vllm, {"--moe-backend", "marlin", ""}, false, Setting::tp, ""},
      {EngineKind::vllm, {"--trust-remote-code", std::nullopt, ""}, false, Setting::tp, ""},
      // A flag of the other engine is not a plan input of this one.
      {EngineKind::vllm, {"--context-length", "131072", ""}, false, Setting::tp, ""},
      {EngineKind::sglang, {"--context-length", "131072", ""}, true, Setting::context, "131072"},
      {EngineKind::sglang, {"--kv-cache-dtype", "fp8_e4m3", ""}, true, Setting::kv_dtype, "fp8"},
      {EngineKind::sglang, {"--mamba-ssm-dtype", "bfloat16", ""}, true, Setting::state_dtype, "bf16"},
      {EngineKind::sglang, {"--mem-fraction-static", "0.84", ""}, true, Setting::mem_fraction_static, "0.84"},
      {EngineKind::sglang, {"--max-running-requests", "128", ""}, true, Setting::max_num_seqs, "128"},
      {EngineKind::sglang, {"--ep", "32", ""}, true, Setting::ep, "32"},
      {EngineKind::sglang, {"--ep-size", "32", ""}, true, Setting::ep, "32"},
      {EngineKind::sglang, {"--disable-radix-cache", std::nullopt, ""}, true, Setting::radix_cache, "off"},
      {EngineKind::sglang, {"--max-mamba-cache-size", "640", ""}, false, Setting::tp, ""},
  };
  for (const auto& c : cases) {
    auto b = bind_engine_flag(c.engine, c.flag);
    ASSERT_TRUE(b) << c.flag.flag << ": " << b.error().to_string();
    ASSERT_EQ(b->has_value(), c.bound) << c.flag.flag;
    if (!c.bound) continue;
    EXPECT_EQ((*b)->first, c.setting) << c.flag.flag;
    EXPECT_EQ((*b)->second, c.value) << c.flag.flag;
  }
}

TEST(LaunchSettings, BadRecipeValuesAreErrorsNamingTheFlag) {
  struct Case {
    EngineKind engine;
    RecipeFlag flag;
    const char* error;
  };
  const Case cases[] = {
      {EngineKind::vllm, {"--max-model-len", "32k", ""}, "--max-model-len: expected a positive integer, got '32k'"},
      {EngineKind::vllm, {"--max-model-len", std::nullopt, ""}, "--max-model-len: expected a value, got ''"},
      {EngineKind::vllm,
       {"--kv-cache-dtype", "int8", ""},
       "--kv-cache-dtype: expected fp8, fp8_e4m3, fp8_e5m2, auto, bfloat16 or float16, got 'int8'"},
      {EngineKind::vllm, {"--enforce-eager", "yes", ""}, "--enforce-eager: expected no value (a switch), got 'yes'"},
      {EngineKind::sglang, {"--tp", "0", ""}, "--tp: expected a positive integer, got '0'"},
      {EngineKind::sglang,
       {"--mem-fraction-static", "high", ""},
       "--mem-fraction-static: expected a number such as 0.9, got 'high'"},
  };
  for (const auto& c : cases) {
    auto b = bind_engine_flag(c.engine, c.flag);
    ASSERT_FALSE(b) << c.flag.flag;
    EXPECT_EQ(b.error().to_string(), c.error);
  }
}

TEST(LaunchSettings, UserWinsAndSpecificRecipesReplaceGeneralOnes) {
  const std::vector<Recipe> recipes = {
      recipe("base", EngineKind::vllm,
             {{"--trust-remote-code", std::nullopt, "own source"},
              {"--gpu-memory-utilization", "0.95", ""},
              {"--moe-backend", "auto", ""}}),
      recipe("hopper", EngineKind::vllm,
             {{"--gpu-memory-utilization", "0.97", ""},
              {"--max-model-len", "32768", ""},
              {"--moe-backend", "marlin", ""}}),
  };
  auto s = apply_recipes({{Setting::context, "128K"}}, EngineKind::vllm, recipes);
  ASSERT_TRUE(s) << s.error().to_string();
  // The user's --context stays; the recipe's --max-model-len is reported as replaced.
  EXPECT_EQ(s->values.at(Setting::context).value, "128K");
  EXPECT_TRUE(s->values.at(Setting::context).from_user());
  // The Hopper override replaces the base's utilization.
  EXPECT_EQ(s->values.at(Setting::gpu_memory_utilization).value, "0.97");
  EXPECT_EQ(s->values.at(Setting::gpu_memory_utilization).recipe_id, "hopper");
  EXPECT_EQ(s->values.at(Setting::gpu_memory_utilization).engine_flag, "--gpu-memory-utilization 0.97");
  // Pass-through flags: first-seen order, later value.
  ASSERT_EQ(s->pass.size(), 2u);
  EXPECT_EQ(s->pass[0].flag, "--trust-remote-code");
  EXPECT_EQ(s->pass[0].source, "own source");
  EXPECT_EQ(s->pass[1].flag, "--moe-backend");
  EXPECT_EQ(s->pass[1].value, "marlin");
  EXPECT_EQ(s->pass[1].recipe_id, "hopper");
  EXPECT_EQ(s->pass[1].source, "source hopper");
  const std::vector<std::string> overrides = {
      "label hopper --moe-backend marlin replaces label base --moe-backend auto",
      "your --context 128K replaces --max-model-len 32768 of label hopper",
      "label hopper --gpu-memory-utilization 0.97 replaces --gpu-memory-utilization 0.95 of label base",
  };
  EXPECT_EQ(s->overrides, overrides);
  ASSERT_EQ(s->recipes.size(), 2u);
}

TEST(LaunchSettings, SglangTpWithDpIsAttentionTpTimesDp) {
  const std::vector<Recipe> recipes = {
      recipe("dp", EngineKind::sglang,
             {{"--tp", "16", ""}, {"--dp", "4", ""}, {"--enable-dp-attention", std::nullopt, ""}}),
  };
  auto s = apply_recipes({}, EngineKind::sglang, recipes);
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ(s->values.at(Setting::tp).value, "4");
  EXPECT_EQ(s->values.at(Setting::dp).value, "4");
  ASSERT_EQ(s->pass.size(), 1u);
  EXPECT_EQ(s->pass[0].flag, "--enable-dp-attention");

  auto bad =
      apply_recipes({}, EngineKind::sglang, {recipe("x", EngineKind::sglang, {{"--tp", "16", ""}, {"--dp", "3", ""}})});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().to_string(), "recipe x: --dp: DP 3 does not divide --tp 16");
}

TEST(LaunchSettings, RecipeErrorsNameTheRecipe) {
  auto s = apply_recipes({}, EngineKind::vllm, {recipe("r", EngineKind::vllm, {{"--max-model-len", "1M", ""}})});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().to_string(), "recipe r: --max-model-len: expected a positive integer, got '1M'");
}

}  // namespace
}  // namespace preflight
