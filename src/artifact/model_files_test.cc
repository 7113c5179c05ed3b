#include "artifact/model_files.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/fixtures.h"

namespace preflight {
namespace {

TEST(ModelFiles, WhatAModelArgumentNames) {
  using K = ModelArgumentKind;
  struct Case {
    const char* arg;
    bool exists;
    bool files;
    K kind;
    const char* error;  // "" when resolved
  };
  for (const auto& c : std::vector<Case>{
           {"", false, true, K::catalogue, ""},
           {"kimi-k3", false, true, K::catalogue, ""},
           {"moonshotai/kimi-k3", false, true, K::catalogue, ""},  // an alias the catalogue knows
           {"moonshotai/Kimi-K3@main", false, true, K::hub, ""},   // a revision: always the Hub
           {"hf://moonshotai/Kimi-K3", false, true, K::hub, ""},
           {"some-org/some-model", false, true, K::hub, ""},  // unknown to the catalogue
           {"./Kimi-K3", true, true, K::path, ""},
           {"kimi-k3", true, true, K::path, ""},  // a folder of that name wins
           {"/nonexistent", false, true, K::catalogue,
            "MODEL: /nonexistent: no such file or folder (nor a catalogue model)"},
           {"config.json", false, true, K::catalogue,
            "MODEL: config.json: no such file or folder (nor a catalogue model)"},
           {"/etc/passwd", true, false, K::catalogue, ""},  // the web API never opens paths
       }) {
    const auto r = resolve_model_argument(c.arg, c.exists, c.files);
    if (std::string(c.error).empty()) {
      ASSERT_TRUE(r.ok()) << c.arg << ": " << r.error().to_string();
      EXPECT_EQ(r->kind, c.kind) << c.arg;
    } else {
      ASSERT_FALSE(r.ok()) << c.arg;
      EXPECT_EQ(r.error().to_string(), c.error);
    }
  }
}

// Every way in ends in the same stage: the catalogue's embedded files give the
// catalogue model, and an override is reported before the config is read.
TEST(ModelFiles, OneStageForEveryWayIn) {
  auto files = catalogue_files("llama-3.1-8b").value_or_throw();
  const auto loaded = load_model_files(files).value_or_throw();
  const auto& direct = testing::catalogue_model("llama-3.1-8b");
  EXPECT_EQ(loaded.model.name, "llama-3.1-8b");
  EXPECT_EQ(loaded.model.manifest.payload_bytes(), direct.manifest.payload_bytes());
  EXPECT_EQ(loaded.model.artifact.has_value(), direct.artifact.has_value());

  auto broken = files;
  broken.config = "{";
  const auto bad_override = load_model_files(broken, ModelOverrides{"fp4", "", ""});
  ASSERT_FALSE(bad_override.ok());
  EXPECT_NE(bad_override.error().to_string().find("--quantize: unknown scheme 'fp4'"), std::string::npos);

  const auto quantized = load_model_files(files, ModelOverrides{"fp8", "", ""}).value_or_throw();
  EXPECT_LT(quantized.model.manifest.payload_bytes(), direct.manifest.payload_bytes());

  const auto unknown = catalogue_files("kimi-k4");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().to_string().find("did you mean 'kimi-k3'"), std::string::npos);
}

// A pooling runner (an embedding service) holds no LM head: Llama 3.1 8B's is
// vocab 128,256 x hidden 4,096 x 2 B (BF16), left out exactly. The runner is
// asked for, or follows a Sentence Transformers modules.json in the folder or
// the hub listing; --runner generate keeps the head either way.
TEST(ModelFiles, PoolingRunnerLeavesOutTheLmHead) {
  const auto base = catalogue_files("llama-3.1-8b").value_or_throw();
  const std::uint64_t full = load_model_files(base).value_or_throw().model.manifest.payload_bytes();
  const std::uint64_t lm_head = 128256ULL * 4096 * 2;
  struct Case {
    const char* runner;
    bool folder_modules_json;
    bool listing_modules_json;
    bool pooling;
  };
  for (const auto& c : std::vector<Case>{
           {"", false, false, false},
           {"auto", true, false, true},
           {"", false, true, true},
           {"pooling", false, false, true},
           {"generate", true, true, false},
       }) {
    auto files = base;
    files.sentence_transformers_config = c.folder_modules_json;
    if (c.listing_modules_json) {
      files.listing = HubListing{};
      files.listing->siblings.push_back(HubFile{"modules.json", 349, true, ""});
    }
    const auto loaded = load_model_files(files, ModelOverrides{"", "", c.runner}).value_or_throw();
    EXPECT_EQ(loaded.model.pooling_runner, c.pooling) << c.runner;
    EXPECT_EQ(loaded.model.manifest.payload_bytes(), c.pooling ? full - lm_head : full) << c.runner;
  }
  const auto bad = load_model_files(base, ModelOverrides{"", "", "embed"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().to_string(), "--runner: unknown runner 'embed' (expected auto, generate or pooling)");
}

}  // namespace
}  // namespace preflight
