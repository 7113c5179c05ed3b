// Engine profiles: version strings as the truth rows write them, era selection
// at the boundaries of data/engines.json, and errors that name the origin and
// the JSON pointer of the bad field.
#include "engine/engine_profile.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/json_read.h"
#include "embedded_files.h"

namespace preflight {
namespace {

// ---------------------------------------------------------------------------
// Versions

struct VersionCase {
  const char* text;
  int major, minor, patch;
  int post = 0;
};

TEST(EngineVersion, ParsesTheVersionsTheLogsWrite) {
  // The `version` column of tests/data/reference/data/engine-truth-dev.csv.
  const VersionCase cases[] = {
      {"0.19.0", 0, 19, 0},                                               // r001-r060
      {"~0.6.4 (V0; inferred)", 0, 6, 4},                                 // r082
      {"~0.6.4 (V0; inferred from log format, 2024-12)", 0, 6, 4},        // r081
      {"nightly ~0.11.1 (2025-11)", 0, 11, 1},                            // r097, r098
      {"0.11.0 (pod image vllm/vllm-openai:v0.11.0 per doc)", 0, 11, 0},  // r066, r069
      {"0.5", 0, 5, 0},                                                   // engines.json sglang default_version
      {"0.21", 0, 21, 0},
      {"v0.10.1.1", 0, 10, 1},  // a fourth component is ignored
      {"0.19.0rc1", 0, 19, 0},  // a suffix after the patch is ignored
      {"0.19.", 0, 19, 0},
      {"1.2.3", 1, 2, 3},
      {"0.5.3.post1", 0, 5, 3, 1},  // SGLang's post releases (PR #11309 first shipped in 0.5.3.post1)
      {"v0.5.3post2", 0, 5, 3, 2},
      {"0.5.3.postfix", 0, 5, 3, 0},  // "post" without a number is a suffix
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    const auto v = parse_engine_version(c.text, "--engine-version");
    ASSERT_TRUE(v.ok()) << v.error().to_string();
    EXPECT_EQ(v->major, c.major);
    EXPECT_EQ(v->minor, c.minor);
    EXPECT_EQ(v->patch, c.patch);
    EXPECT_EQ(v->post, c.post);
  }
}

TEST(EngineVersion, RejectsTextWithoutMajorAndMinor) {
  // "main (PR #11309)" (an SGLang main-branch row): the only number is a PR number.
  for (const char* text : {"main (PR #11309)", "", "latest", "nightly", "v1", "0", "2025-11", "0.99999999999"}) {
    SCOPED_TRACE(text);
    const auto v = parse_engine_version(text, "--engine-version");
    ASSERT_FALSE(v.ok());
    EXPECT_EQ(v.error().origin, "--engine-version");
    EXPECT_EQ(v.error().message, std::string("expected a version such as 0.19.0, got ") + quote(text));
  }
}

TEST(EngineVersion, ErrorIsOneLineWhateverTheText) {
  // The offending text is quoted (artifact::quote), so control characters never reach the
  // one-line error the front ends print. Found by fuzz/engine_profile_fuzz.cc.
  const auto v = parse_engine_version("latest\nbuild", "--engine-version");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().to_string().find('\n'), std::string::npos) << v.error().to_string();
}

TEST(EngineVersion, OrdersComponentwise) {
  EXPECT_LT((EngineVersion{0, 9, 9}), (EngineVersion{0, 10, 0}));  // not lexical
  EXPECT_LT((EngineVersion{0, 20, 99}), (EngineVersion{0, 21, 0}));
  EXPECT_LT((EngineVersion{0, 99, 0}), (EngineVersion{1, 0, 0}));
  EXPECT_EQ((EngineVersion{0, 21, 0}), (EngineVersion{0, 21, 0}));
  EXPECT_LT((EngineVersion{0, 5, 3}), (EngineVersion{0, 5, 3, 1}));  // 0.5.3 < 0.5.3.post1 < 0.5.4
  EXPECT_LT((EngineVersion{0, 5, 3, 1}), (EngineVersion{0, 5, 4}));
  EXPECT_EQ((EngineVersion{0, 5, 3, 1}).str(), "0.5.3.post1");
}

// ---------------------------------------------------------------------------
// Eras of the embedded profile

struct EraCase {
  EngineVersion version;
  EngineVersion era_from;
  const char* engine;
  double non_torch_tp1;
  double sampler_bytes_per_logit;
  bool cuda_graph_subtracted;
  bool tokens_from_concurrency;
  bool chunked_prefill;
  const char* hybrid_kv_manager;
  const char* moe_workspace;
};

TEST(EngineProfile, EraSelectionAtTheBoundaries) {
  // data/engines.json eras: from 0.0 (V0), 0.8, 0.10 (hybrid KV cache manager), 0.10.1 (off for chunked
  // local attention, vLLM PR #21761), 0.12, 0.13 (persistent fused-MoE workspace, vLLM PR #27532), 0.17, 0.21.
  const EraCase cases[] = {
      {{0, 0, 0}, {0, 0, 0}, "v0", 0.35, 14, false, false, false, "none", "transient"},
      {{0, 7, 99}, {0, 0, 0}, "v0", 0.35, 14, false, false, false, "none", "transient"},
      {{0, 8, 0}, {0, 8, 0}, "v1", 0.13, 14, false, false, true, "none", "transient"},
      {{0, 9, 2}, {0, 8, 0}, "v1", 0.13, 14, false, false, true, "none", "transient"},
      {{0, 10, 0}, {0, 10, 0}, "v1", 0.13, 14, false, false, true, "on", "transient"},
      {{0, 10, 1}, {0, 10, 1}, "v1", 0.13, 14, false, false, true, "chunked_off", "transient"},
      {{0, 11, 1}, {0, 10, 1}, "v1", 0.13, 14, false, false, true, "chunked_off", "transient"},
      {{0, 11, 99}, {0, 10, 1}, "v1", 0.13, 14, false, false, true, "chunked_off", "transient"},
      {{0, 12, 0}, {0, 12, 0}, "v1", 0.25, 27, false, false, true, "chunked_off", "transient"},  // PyTorch sort sampler
      {{0, 12, 99}, {0, 12, 0}, "v1", 0.25, 27, false, false, true, "chunked_off", "transient"},
      {{0, 13, 0}, {0, 13, 0}, "v1", 0.25, 27, false, false, true, "chunked_off", "persistent"},  // vLLM PR #27532
      {{0, 16, 9}, {0, 13, 0}, "v1", 0.25, 27, false, false, true, "chunked_off", "persistent"},
      {{0, 17, 0}, {0, 17, 0}, "v1", 0.25, 14, false, false, true, "chunked_off", "persistent"},  // Triton sampler (PR
                                                                                                  // #33538)
      {{0, 19, 0}, {0, 17, 0}, "v1", 0.25, 14, false, false, true, "chunked_off", "persistent"},
      {{0, 20, 99}, {0, 17, 0}, "v1", 0.25, 14, false, false, true, "chunked_off", "persistent"},
      {{0, 21, 0}, {0, 21, 0}, "v1", 0.25, 14, true, true, true, "chunked_off", "persistent"},  // vllm#50722,
                                                                                                // vllm#51041
      {{3, 0, 0}, {0, 21, 0}, "v1", 0.25, 14, true, true, true, "chunked_off", "persistent"},
  };
  const auto& p = engine_profiles().vllm;
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.version.major << "." << c.version.minor << "." << c.version.patch);
    const auto& era = p.era(c.version);
    EXPECT_EQ(era.from, c.era_from);
    EXPECT_EQ(era.engine, c.engine);
    EXPECT_DOUBLE_EQ(era.non_torch_gib_tp1, c.non_torch_tp1);
    EXPECT_DOUBLE_EQ(era.sampler_bytes_per_logit, c.sampler_bytes_per_logit);
    EXPECT_EQ(era.cuda_graph_subtracted, c.cuda_graph_subtracted);
    EXPECT_EQ(era.kv_tokens_from_concurrency, c.tokens_from_concurrency);
    EXPECT_EQ(era.chunked_prefill_default, c.chunked_prefill);
    EXPECT_EQ(era.hybrid_kv_manager, c.hybrid_kv_manager);
    EXPECT_EQ(era.moe_workspace, c.moe_workspace);
  }
}

TEST(EngineProfile, EmbeddedProfileLoads) {
  const auto& p = engine_profiles();
  EXPECT_FALSE(p.about.empty());
  const auto& v = p.vllm;
  EXPECT_EQ(v.default_version.str(), "0.27.0");
  EXPECT_DOUBLE_EQ(v.gpu_memory_utilization, 0.9);  // CacheConfig.gpu_memory_utilization
  EXPECT_EQ(v.block_size, 16u);
  EXPECT_EQ(v.mla_block_size, 64u);
  EXPECT_DOUBLE_EQ(v.large_gpu_min_gib, 70);
  EXPECT_EQ(v.max_num_batched_tokens_large_gpu, 8192u);
  EXPECT_EQ(v.max_num_seqs_large_gpu, 1024u);
  EXPECT_EQ(v.max_num_batched_tokens_small_gpu, 2048u);
  EXPECT_EQ(v.max_num_seqs_small_gpu, 256u);
  ASSERT_EQ(v.eras.size(), 8u);
  for (std::size_t i = 0; i < v.eras.size(); ++i) {
    EXPECT_FALSE(v.eras[i].source.empty()) << i;
    if (i > 0) {
      EXPECT_LT(v.eras[i - 1].from, v.eras[i].from) << i;
    }
  }
  EXPECT_DOUBLE_EQ(v.eras[4].non_torch_gib_pp_only, 0.07);  // the 0.12 era
  EXPECT_DOUBLE_EQ(v.eras[4].non_torch_gib_per_tp_rank, 0.03);
  EXPECT_DOUBLE_EQ(v.cuda_graph_gib, 1.0);
  EXPECT_EQ(v.rope_cache_dtype_bytes, 2u);
  ASSERT_EQ(v.mxfp4_padding.count("hopper"), 1u);
  EXPECT_EQ(v.mxfp4_padding.at("hopper").backend, "Marlin");
  EXPECT_EQ(v.mxfp4_padding.at("hopper").intermediate_multiple, 128u);
  EXPECT_EQ(v.mxfp4_padding.at("hopper").hidden_multiple, 256u);
  EXPECT_EQ(v.mxfp4_padding.at("blackwell").intermediate_multiple, 256u);
  EXPECT_EQ(v.mxfp4_padding.size(), 6u);
  EXPECT_TRUE(v.sources.count("gpu_memory_utilization"));
  EXPECT_TRUE(v.sources.count("mxfp4_padding"));

  const auto& s = p.sglang;
  EXPECT_EQ(s.default_version.str(), "0.5.17");
  EXPECT_DOUBLE_EQ(s.mamba_full_memory_ratio, 0.9);
  EXPECT_EQ(s.page_size, 1u);
  EXPECT_EQ(s.dsa_page_size, 64u);
  ASSERT_EQ(s.dsa_eras.size(), 2u);
  EXPECT_DOUBLE_EQ(s.dsa_era(EngineVersion{0, 5, 2}).forced_mem_fraction_static, 0.8);  // before the first: the first
  EXPECT_FALSE(s.dsa_era(EngineVersion{0, 5, 3}).indexer_in_budget);
  EXPECT_DOUBLE_EQ(s.dsa_era(EngineVersion{0, 5, 3, 1}).forced_mem_fraction_static, 0);
  EXPECT_TRUE(s.dsa_era(EngineVersion{0, 5, 3, 1}).indexer_in_budget);
  EXPECT_TRUE(s.dsa_era(s.default_version).indexer_in_budget);
  EXPECT_DOUBLE_EQ(s.swa_full_tokens_ratio, 0.8);
  EXPECT_DOUBLE_EQ(s.cuda_context_gib, 0.5);
  EXPECT_EQ(s.radix_slots_on, 5u);
  EXPECT_EQ(s.radix_slots_lazy, 4u);
  EXPECT_EQ(s.radix_slots_off, 1u);
  ASSERT_EQ(s.tiers.size(), 5u);
  EXPECT_DOUBLE_EQ(s.tiers[3].below_gb, 160);
  EXPECT_EQ(s.tiers[3].chunked_prefill_size, 8192u);
  EXPECT_EQ(s.tiers[3].cuda_graph_max_bs_small_tp, 256u);
  EXPECT_EQ(s.tiers[3].cuda_graph_max_bs_large_tp, 512u);
  for (std::size_t i = 1; i < s.tiers.size(); ++i) EXPECT_LT(s.tiers[i - 1].below_gb, s.tiers[i].below_gb);
  EXPECT_EQ(s.large_tp_from, 4u);
  EXPECT_DOUBLE_EQ(s.floor_above_60gb_mb, 10240);
  EXPECT_FALSE(s.reserved_source.empty());

  // Parsing the embedded text again gives the same profile.
  const auto again = parse_engine_profiles(std::string(embedded::data_engines_json), "data/engines.json");
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ(again->vllm.eras.size(), v.eras.size());
  EXPECT_EQ(again->sglang.tiers.size(), s.tiers.size());
}

TEST(EngineProfile, EraBeforeTheFirstFallsBackToTheFirst) {
  auto doc = nlohmann::json::parse(embedded::data_engines_json);
  auto& eras = doc["engines"]["vllm"]["eras"];
  eras.erase(eras.begin());  // now the first era starts at 0.8
  const auto p = parse_engine_profiles(doc.dump(), "test.json");
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  EXPECT_EQ(p->vllm.era({0, 5, 0}).from, (EngineVersion{0, 8, 0}));
}

// ---------------------------------------------------------------------------
// Errors

// The embedded document with one change at a JSON pointer (or a removal when `remove`).
std::string variant(const std::string& pointer, const nlohmann::json& value, bool remove = false) {
  auto doc = nlohmann::json::parse(embedded::data_engines_json);
  const nlohmann::json::json_pointer ptr(pointer);
  if (remove)
    doc[ptr.parent_pointer()].erase(ptr.back());
  else
    doc[ptr] = value;
  return doc.dump();
}

struct ErrorCase {
  const char* what;
  std::string text;
  const char* expected;  // Error::to_string()
};

TEST(EngineProfile, ErrorsNameOriginAndPointer) {
  const ErrorCase cases[] = {
      {"missing eras", variant("/engines/vllm/eras", nullptr, true),
       "test.json: /engines/vllm/eras: expected a non-empty array"},
      {"empty eras", variant("/engines/vllm/eras", nlohmann::json::array()),
       "test.json: /engines/vllm/eras: expected a non-empty array"},
      {"eras out of order", variant("/engines/vllm/eras/1/from", "0.30"),
       "test.json: /engines/vllm/eras/2/from: eras must be in ascending version order"},
      {"two eras from the same version", variant("/engines/vllm/eras/2/from", "0.8"),
       "test.json: /engines/vllm/eras/2/from: eras must be in ascending version order"},
      {"unparseable era version", variant("/engines/vllm/eras/3/from", "latest"),
       "test.json: /engines/vllm/eras/3/from: expected a version such as 0.19.0, got \"latest\""},
      {"negative number", variant("/engines/vllm/eras/0/non_torch_gib_tp1", -0.35),
       "test.json: /engines/vllm/eras/0/non_torch_gib_tp1: expected a non-negative number, got -0.35"},
      {"negative default", variant("/engines/vllm/defaults/gpu_memory_utilization", -1),
       "test.json: /engines/vllm/defaults/gpu_memory_utilization: expected a non-negative number, got -1"},
      {"missing required number", variant("/engines/vllm/eras/4/non_torch_gib_tp", nullptr, true),
       "test.json: /engines/vllm/eras/4/non_torch_gib_tp: expected a number"},
      {"string for a version", variant("/engines/vllm/default_version", 19),
       "test.json: /engines/vllm/default_version: expected a string, got 19"},
      {"string for a count", variant("/engines/vllm/defaults/block_size", "16"),
       "test.json: /engines/vllm/defaults/block_size: expected a non-negative integer, got \"16\""},
      {"fraction for a count", variant("/engines/sglang/defaults/radix_slots_on", 5.5),
       "test.json: /engines/sglang/defaults/radix_slots_on: expected a non-negative integer, got 5.5"},
      {"string for a flag", variant("/engines/vllm/eras/4/cuda_graph_subtracted", "yes"),
       "test.json: /engines/vllm/eras/4/cuda_graph_subtracted: expected true or false, got \"yes\""},
      {"number for a source", variant("/engines/vllm/eras/1/source", 7),
       "test.json: /engines/vllm/eras/1/source: expected a string, got 7"},
      {"zero padding multiple", variant("/engines/vllm/weights/mxfp4_padding/hopper/hidden_multiple", 0),
       "test.json: /engines/vllm/weights/mxfp4_padding/hopper: multiples must be at least 1"},
      {"padding without a backend", variant("/engines/vllm/weights/mxfp4_padding/ada/backend", nullptr, true),
       "test.json: /engines/vllm/weights/mxfp4_padding/ada/backend: expected a string"},
      {"missing SGLang tiers", variant("/engines/sglang/reserved_memory/tiers", nullptr, true),
       "test.json: /engines/sglang/reserved_memory/tiers: expected a non-empty array"},
      {"tier without below_gb", variant("/engines/sglang/reserved_memory/tiers/2/below_gb", nullptr, true),
       "test.json: /engines/sglang/reserved_memory/tiers/2/below_gb: expected a number"},
      {"missing SGLang engine", variant("/engines/sglang", nullptr, true),
       "test.json: /engines/sglang/default_version: expected a string"},
      {"not an object", "[1, 2, 3]", "test.json: /engines/vllm/default_version: expected a string"},
      {"accuracy band of 100%", variant("/startup_accuracy/kv_tokens_relative", 1),
       "test.json: /startup_accuracy/kv_tokens_relative: expected a fraction below 1, got 1"},
      {"accuracy without its source", variant("/startup_accuracy/source", nullptr, true),
       "test.json: /startup_accuracy/source: expected a string"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const auto r = parse_engine_profiles(c.text, "test.json");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().origin, "test.json");
    EXPECT_EQ(r.error().to_string(), c.expected);
  }
}

TEST(EngineProfile, InvalidJsonIsAnError) {
  for (const char* text : {"", "{", "{\"engines\": }", "not json"}) {
    SCOPED_TRACE(text);
    const auto r = parse_engine_profiles(text, "test.json");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().origin, "test.json");
    EXPECT_NE(r.error().message.find("invalid JSON"), std::string::npos) << r.error().to_string();
  }
}

TEST(EngineProfile, OptionalFieldsTakeTheirDefaults) {
  auto doc = nlohmann::json::parse(embedded::data_engines_json);
  auto& vllm = doc["engines"]["vllm"];
  vllm.erase("activation");
  vllm.erase("weights");
  vllm["defaults"].erase("block_size");
  vllm["eras"][0].erase("non_torch_gib_pp_only");
  doc["engines"]["sglang"].erase("defaults");
  const auto p = parse_engine_profiles(doc.dump(), "test.json");
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  EXPECT_EQ(p->vllm.block_size, 16u);
  EXPECT_EQ(p->vllm.mlp_intermediate_copies, 3u);
  EXPECT_TRUE(p->vllm.mxfp4_padding.empty());
  // non_torch_gib_pp_only defaults to the era's TP1 figure.
  EXPECT_DOUBLE_EQ(p->vllm.eras[0].non_torch_gib_pp_only, p->vllm.eras[0].non_torch_gib_tp1);
  EXPECT_DOUBLE_EQ(p->sglang.mamba_full_memory_ratio, 0.9);
  EXPECT_EQ(p->sglang.radix_slots_on, 5u);
}

TEST(EngineProfile, SectionOfTheWrongTypeIsAnError) {
  // A section that is not an object ("activation": 3) is an error naming its pointer, not
  // silently read as defaults. Found while writing these tests.
  const auto r = parse_engine_profiles(variant("/engines/vllm/activation", 3), "test.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "/engines/vllm/activation");
}

}  // namespace
}  // namespace preflight
