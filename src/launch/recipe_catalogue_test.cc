// Tests for the launch recipes (data/launch/recipes.json): the embedded data
// parses, binds to each engine's flags, and says what the Kimi-K3 notes say;
// selection picks the right recipes in general-to-specific order; the reader's
// errors name the field.
#include "launch/recipe_catalogue.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "launch/launch_setting.h"
#include "reference_files.h"

namespace preflight {
namespace {

std::vector<std::string> ids(const std::vector<Recipe>& recipes) {
  std::vector<std::string> out;
  for (const auto& r : recipes) out.push_back(r.id);
  return out;
}

TEST(LaunchRecipes, EmbeddedRecipesParseAndEveryFlagBinds) {
  const auto& recipes = embedded_recipes();
  ASSERT_FALSE(recipes.empty());
  for (const auto& r : recipes) {
    EXPECT_FALSE(r.source.empty()) << r.id;
    for (const auto& f : r.flags) {
      auto bound = bind_engine_flag(r.engine, f);
      EXPECT_TRUE(bound) << r.id << " " << f.flag << ": " << (bound ? "" : bound.error().to_string());
    }
  }
}

// The recipes carry the flags of the Kimi-K3 notes. Each
// of these strings must appear in notes.md, and the recipe must carry it.
TEST(LaunchRecipes, KimiK3FlagsAreThoseOfTheNotes) {
  const auto notes = testing::read_reference("models/moonshotai__Kimi-K3/notes.md");
  ASSERT_FALSE(notes.empty()) << "tests/data/reference/models/moonshotai__Kimi-K3/notes.md not found";
  // Notes wrap lines; compare with newlines as spaces.
  std::string flat = notes;
  for (auto& c : flat)
    if (c == '\n') c = ' ';
  struct Case {
    const char* recipe;
    std::vector<std::string> in_notes;  // "flag value" as the notes write it
  };
  const Case cases[] = {
      {"vllm-kimi-k3", {"--gpu-memory-utilization 0.95", "--load-format fastsafetensors", "--moe-backend auto"}},
      {"vllm-kimi-k3-hopper",
       {"--gpu-memory-utilization 0.97", "--max-num-seqs 8", "--max-model-len 32768", "--moe-backend marlin"}},
      {"vllm-kimi-k3-blackwell", {"--max-model-len 1048576", "--kv-cache-dtype fp8", "--enable-prefix-caching"}},
      {"sglang-kimi-k3-h200-2x8", {"--mem-fraction-static 0.85"}},
      {"sglang-kimi-k3-h100-4x8",
       {"--mem-fraction-static 0.84", "--max-running-requests 128", "--max-mamba-cache-size 640",
        "--mamba-ssm-dtype bfloat16", "--kv-cache-dtype fp8_e4m3", "--context-length 131072"}},
  };
  for (const auto& c : cases) {
    const Recipe* recipe = nullptr;
    for (const auto& r : embedded_recipes())
      if (r.id == c.recipe) recipe = &r;
    ASSERT_NE(recipe, nullptr) << c.recipe;
    for (const auto& want : c.in_notes) {
      EXPECT_NE(flat.find(want), std::string::npos) << want << " is not in notes.md";
      bool carried = false;
      for (const auto& f : recipe->flags)
        if ((f.value ? f.flag + " " + *f.value : f.flag) == want) carried = true;
      EXPECT_TRUE(carried) << c.recipe << " lacks " << want;
    }
  }
}

TEST(LaunchRecipes, SelectionIsGeneralToSpecific) {
  struct Case {
    EngineKind engine;
    const char* model;
    const char* family;
    const char* arch;
    const char* gpu;
    std::uint64_t count;
    std::vector<std::string> want;
    const char* kv = "";
  };
  const Case cases[] = {
      {EngineKind::vllm,
       "kimi-k3",
       "kimi_k3",
       "blackwell",
       "nvidia-b300-hgx",
       8,
       {"vllm-kimi-k3", "vllm-kimi-k3-blackwell"}},
      {EngineKind::vllm,
       "kimi-k3",
       "kimi_k3",
       "hopper",
       "nvidia-h100-sxm-80gb",
       32,
       {"vllm-kimi-k3", "vllm-kimi-k3-hopper"}},
      // ROCm: the AMD override (load format auto, 128 sequences, the breakable-graph variable).
      {EngineKind::vllm, "kimi-k3", "kimi_k3", "cdna4", "amd-mi355x", 8, {"vllm-kimi-k3", "vllm-kimi-k3-rocm"}},
      // An FP8 KV cache adds prefill query quantization; on Blackwell with the TRT-LLM ragged prefill.
      {EngineKind::vllm,
       "kimi-k3",
       "kimi_k3",
       "cdna4",
       "amd-mi355x",
       8,
       {"vllm-kimi-k3", "vllm-kimi-k3-fp8-kv", "vllm-kimi-k3-rocm"},
       "fp8"},
      {EngineKind::vllm,
       "kimi-k3",
       "kimi_k3",
       "blackwell",
       "nvidia-b300-hgx",
       8,
       {"vllm-kimi-k3", "vllm-kimi-k3-fp8-kv", "vllm-kimi-k3-blackwell", "vllm-kimi-k3-blackwell-fp8-kv"},
       "fp8"},
      {EngineKind::vllm,
       "kimi-k3",
       "kimi_k3",
       "blackwell",
       "nvidia-b300-hgx",
       8,
       {"vllm-kimi-k3", "vllm-kimi-k3-blackwell"},
       "bf16"},
      {EngineKind::vllm, "kimi-k3", "kimi_k3", "", "custom", 8, {"vllm-kimi-k3"}},
      // A K3 snapshot given as a path matches by family.
      {EngineKind::vllm, "", "kimi_k3", "hopper", "nvidia-h200-sxm-141gb", 16, {"vllm-kimi-k3", "vllm-kimi-k3-hopper"}},
      {EngineKind::sglang,
       "kimi-k3",
       "kimi_k3",
       "hopper",
       "nvidia-h100-sxm-80gb",
       32,
       {"sglang-kimi-k3", "sglang-kimi-k3-h100-4x8"}},
      {EngineKind::sglang, "kimi-k3", "kimi_k3", "hopper", "nvidia-h100-sxm-80gb", 16, {"sglang-kimi-k3"}},
      {EngineKind::sglang,
       "kimi-k3",
       "kimi_k3",
       "hopper",
       "nvidia-h200-sxm-141gb",
       16,
       {"sglang-kimi-k3", "sglang-kimi-k3-h200-2x8"}},
      {EngineKind::sglang,
       "kimi-k3",
       "kimi_k3",
       "blackwell",
       "nvidia-b300-hgx",
       8,
       {"sglang-kimi-k3", "sglang-kimi-k3-b300-1x8"}},
      {EngineKind::sglang,
       "kimi-k3",
       "kimi_k3",
       "blackwell",
       "nvidia-gb300",
       8,
       {"sglang-kimi-k3", "sglang-kimi-k3-gb300-2x4"}},
      {EngineKind::vllm, "deepseek-v3", "deepseek_v3", "hopper", "nvidia-h100-sxm-80gb", 16, {}},
  };
  for (const auto& c : cases) {
    const RecipeTarget t{c.engine, c.model, c.family, c.arch, c.gpu, c.count, c.kv};
    EXPECT_EQ(ids(select_recipes(embedded_recipes(), t)), c.want) << c.model << " " << c.gpu << " " << c.count;
  }
}

TEST(LaunchRecipes, ReaderErrorsNameTheField) {
  const std::string ok_flags = R"("flags": [{"flag": "--x"}])";
  struct Case {
    std::string json;
    const char* error;
  };
  const Case cases[] = {
      {"{}", "t: /recipes: missing list"},
      {R"({"recipes": [{"label": "l", "engine": "vllm", "source": "s", "models": ["m"], )" + ok_flags + "}]}",
       "t: /recipes/0/id: missing string"},
      {R"({"recipes": [{"id": "a", "label": "l", "engine": "trt", "source": "s", "models": ["m"], )" + ok_flags + "}]}",
       "t: /recipes/0/engine: expected vllm or sglang, got 'trt'"},
      {R"({"recipes": [{"id": "a", "label": "l", "engine": "vllm", "source": "s", )" + ok_flags + "}]}",
       "t: /recipes/0/models: a recipe names at least one model or family"},
      {R"({"recipes": [{"id": "a", "label": "l", "engine": "vllm", "source": "s", "models": ["m"], "gpu_count": 8, )" +
           ok_flags + "}]}",
       "t: /recipes/0/gpu_count: a GPU count needs the accelerators it counts ('gpus')"},
      {R"({"recipes": [{"id": "a", "label": "l", "engine": "vllm", "source": "s", "models": ["m"], "flags": []}]})",
       "t: /recipes/0/flags: expected a non-empty list of flags"},
      {R"({"recipes": [{"id": "a", "label": "l", "engine": "vllm", "source": "s", "models": ["m"], "flags": [{"flag": "tp"}]}]})",
       "t: /recipes/0/flags/0/flag: expected an engine flag such as --max-model-len, got 'tp'"},
      {R"({"recipes": [{"id": "a", "label": "l", "engine": "vllm", "source": "s", "models": ["m"],
           "flags": [{"flag": "--x"}, {"flag": "--x", "value": "1"}]}]})",
       "t: /recipes/0/flags/1: --x is given twice"},
      {R"({"recipes": [{"id": "a", "label": "l", "engine": "vllm", "source": "s", "models": ["m"], )" + ok_flags +
           R"(}, {"id": "a", "label": "l", "engine": "vllm", "source": "s", "models": ["m"], )" + ok_flags + "}]}",
       "t: /recipes/1/id: recipe id 'a' is used twice"},
  };
  for (const auto& c : cases) {
    auto parsed = parse_recipes(c.json, "t");
    ASSERT_FALSE(parsed) << c.json;
    EXPECT_EQ(parsed.error().to_string(), c.error);
  }
}

TEST(LaunchRecipes, MinVersionIsParsedOnceAndComparedAsNumbers) {
  // The newest min_version among the selected recipes; "0.27" and "0.27.0" are the same release.
  struct Case {
    std::vector<const char*> versions;
    const char* newest;
  };
  const Case cases[] = {
      {{"0.26.1", "0.27.0"}, "0.27.0"}, {{"0.27.0", "0.27"}, "0.27.0"},  {{"0.9.2", "0.27.0"}, "0.27.0"},
      {{"1.0.0", "0.27.0"}, "1.0.0"},   {{"0.10.0", "0.9.9"}, "0.10.0"}, {{}, ""},
  };
  for (const auto& c : cases) {
    std::vector<Recipe> selected;
    for (const char* v : c.versions) {
      Recipe r;
      r.label = v;
      r.min_version = parse_engine_version(v, "t").value();
      selected.push_back(r);
    }
    const auto need = required_version(selected);
    EXPECT_EQ(need ? need->version.str() : "", c.newest);
  }
  const auto bad = parse_recipes(R"({"recipes": [{"id": "a", "label": "A", "source": "s", "engine": "vllm",
      "min_version": "latest", "flags": []}]})",
                                 "t");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().to_string(), "t: /recipes/0/min_version: expected a version such as 0.19.0, got \"latest\"");
}

}  // namespace
}  // namespace preflight
