// The naming table against real indexes gathered from public snapshots
// (tests/data/index_corpus/, sources in its SOURCES.md): every tensor name of
// every pair whose config.json preflight reads is classified, save a few that
// name no standard module, and the decoder's stack is found.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "artifact/safetensors_index.h"
#include "model/family_registry.h"
#include "model/tensor_naming.h"
#include "reference_files.h"

namespace preflight {
namespace {

std::string read(const std::filesystem::path& p) { return testing::read_file(p.string()); }

TEST(NamingCorpus, EveryGatheredIndexClassifies) {
  const std::filesystem::path root = PREFLIGHT_TEST_DATA_DIR "/index_corpus";
  // Names that are no standard module: a reward model's head, DeepSeek-OCR2's
  // query embeddings and view separator, a single-cell gene Q-Former.
  const std::map<std::string, std::uint64_t> allowed_unclassified = {
      {"oasst-pythia-rm", 2},
      {"deepseek-ocr2", 3},
      {"scicore-omics-minicpmv", 11},
      // Molmo's OLMo-1 block names (att_proj, ff_proj, attn_out, ff_out) with their bitsandbytes
      // quant-state entries: no naming rule and no Molmo description yet.
      {"molmo-7b-d-nf4", 490}};
  // Pairs whose config no reader accepts yet, each with the field it stops at.
  const std::map<std::string, std::string> unread = {{"kimi2-pcl", "/kv_lora_rank"}};
  std::uint64_t pairs = 0, names = 0, unclassified = 0;
  for (const auto& entry : std::filesystem::directory_iterator(root)) {
    if (!entry.is_directory()) continue;
    const auto name = entry.path().filename().string();
    auto model = build_model_from_config(read(entry.path() / "config.json"), name);
    if (!model) {
      ASSERT_TRUE(unread.count(name)) << name << ": " << model.error().to_string();
      EXPECT_NE(model.error().to_string().find(unread.at(name)), std::string::npos) << model.error().to_string();
      continue;
    }
    auto index = parse_safetensors_index(read(entry.path() / "model.safetensors.index.json"), name).value_or_throw();
    std::vector<std::string_view> all;
    for (const auto& [n, file] : index.weight_map) all.push_back(n);
    const auto& naming = TensorNaming::embedded();
    const auto decoder = naming.decoder_stack(all, model->layers.size());
    EXPECT_FALSE(decoder.empty()) << name;
    std::uint64_t here = 0;
    for (const auto& n : all)
      if (naming.classify(n, *model, decoder).module == ModuleClass::unclassified) ++here;
    const auto allowed = allowed_unclassified.count(name) ? allowed_unclassified.at(name) : 0;
    EXPECT_LE(here, allowed) << name;
    ++pairs;
    names += all.size();
    unclassified += here;
  }
  EXPECT_EQ(pairs, 19u);
  EXPECT_EQ(names, 31'413u);
  EXPECT_EQ(unclassified, 506u);
}

}  // namespace
}  // namespace preflight
