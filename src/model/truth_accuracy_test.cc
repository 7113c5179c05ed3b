// The accuracy table: bytes computed from config.json alone against
// the real tensor bytes in tests/data/reference/models/TRUTH.md. Prints the table (model,
// predicted, real, error) and requires |error| <= 0.3%.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/bytes.h"
#include "model/family_registry.h"
#include "model/model_catalogue.h"
#include "reference_files.h"

namespace preflight {
namespace {

struct TruthRow {
  const char* model;         // catalogue name
  std::uint64_t real_bytes;  // TRUTH.md "real tensor bytes"
};

// tests/data/reference/models/TRUTH.md, main table and "More exact totals".
constexpr TruthRow kTruth[] = {
    {"kimi-k3", 1'560'860'324'864},
    {"deepseek-v3", 688'574'839'360},
    {"kimi-k2", 1'029'173'256'720},
    {"gpt-oss-120b", 65'248'815'744},
    {"gpt-oss-20b", 13'761'264'768},
    {"qwen3-235b-a22b-2507", 470'187'269'120},
    {"llama-3.1-8b", 16'060'522'496},
    {"llama-3.1-70b", 141'107'412'992},
    {"mixtral-8x7b", 93'405'585'408},
    {"kimi-linear-48b", 98'245'528'576},
    {"qwen2.5-7b-instruct", 15'231'233'024},
    {"qwen3-14b", 29'536'614'400},
    {"deepseek-v2-lite-chat", 31'412'968'448},
    {"qwen3-0.6b", 1'503'264'768},
};

TEST(TruthAccuracy, ConfigAloneWithinPointThreePercent) {
  std::printf("\n| model | predicted B | real B | error |\n|---|---:|---:|---:|\n");
  for (const auto& row : kTruth) {
    auto model = load_catalogue_model(row.model, "test");
    ASSERT_TRUE(model.ok()) << row.model << ": " << model.error().to_string();
    const auto predicted = model->manifest.payload_bytes();
    const double error =
        (static_cast<double>(predicted) - static_cast<double>(row.real_bytes)) / static_cast<double>(row.real_bytes);
    std::printf("| %s | %s | %s | %+.4f%% |\n", row.model, with_commas(predicted).c_str(),
                with_commas(row.real_bytes).c_str(), error * 100);
    EXPECT_LE(std::abs(error), 0.003) << row.model;
  }
}

// Held-out configs (tests/validation/models/<folder>): each
// config.json against the total_size of the model's own index (index-metadata.json,
// from a public copy named in the folder's notes.md). Bytes, exact.
struct HeldOutRow {
  const char* folder;
  std::uint64_t index_total_size;
};
constexpr HeldOutRow kHeldOut[] = {
    {"Qwen__Qwen3-8B", 16'381'470'720},
    {"Qwen__Qwen3-30B-A3B", 61'064'245'248},
    {"Qwen__Qwen2.5-72B-Instruct", 145'412'407'296},
    {"google__gemma-2-9b-it", 18'483'411'968},
    {"microsoft__phi-2", 5'559'367'680},
    {"microsoft__phi-4", 29'319'014'400},
    // Gathered 2026-12-06, after the readers were written (no reader or test was written against them).
    {"microsoft__WizardLM-2-8x22B", 281'241'268'224},
    {"tiiuae__falcon-180B-chat", 359'045'130'240},
    {"google__medgemma-27b-it", 54'864'813'280},
    {"mistralai__Devstral-Small-2507", 47'144'806'400},
};

TEST(TruthAccuracy, HeldOutConfigsMatchTheirIndexTotals) {
  for (const auto& row : kHeldOut) {
    SCOPED_TRACE(row.folder);
    const std::string dir = std::string(PREFLIGHT_SOURCE_DIR) + "/tests/validation/models/" + row.folder + "/";
    const auto meta = nlohmann::json::parse(testing::read_file(dir + "index-metadata.json"));
    ASSERT_EQ(meta.at("metadata").at("total_size").get<std::uint64_t>(), row.index_total_size);
    auto model = build_model_from_config(testing::read_file(dir + "config.json"), "config.json");
    ASSERT_TRUE(model.ok()) << model.error().to_string();
    EXPECT_TRUE(model->family_reader);
    EXPECT_EQ(model->manifest.payload_bytes(), row.index_total_size);
  }
}

}  // namespace
}  // namespace preflight
