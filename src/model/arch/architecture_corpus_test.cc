// Sizing from config.json alone, checked on data gathered for the purpose:
// every (config.json, model.safetensors.index.json) pair of the corpora in
// tests/data/arch_corpus and tests/data/index_corpus (sources in their
// SOURCES.md). For each pair, the manifest generated from the config alone is
// compared with the index: payload bytes against metadata.total_size (within
// 0.3%) and the generated tensor names against the weight_map's (exact set).
// A pair that misses is listed in tests/data/arch_corpus/EXCEPTIONS.json with
// its reason and its kind: "files:" and "config:" pairs are ones no config-alone
// reading can match (the files disagree with their config, or the config lacks
// the dimensions), "arch:" pairs are architectures not described yet and count
// as misses. The totals are floors that only rise; the in-scope shares must
// reach 95% within 0.3% and 90% exact names.
// Set PREFLIGHT_CORPUS_DETAIL=1 to print each miss.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "artifact/safetensors_index.h"
#include "model/family_registry.h"
#include "reference_files.h"

namespace preflight {
namespace {

std::string read(const std::filesystem::path& p) { return testing::read_file(p.string()); }

struct Row {
  std::uint64_t pairs = 0, within = 0, exact = 0;
};

TEST(ArchCorpus, ConfigAloneMatchesTheIndexes) {
  const bool detail = std::getenv("PREFLIGHT_CORPUS_DETAIL") != nullptr;
  const std::filesystem::path data = PREFLIGHT_TEST_DATA_DIR;
  const auto exceptions = nlohmann::json::parse(read(data / "arch_corpus" / "EXCEPTIONS.json"));
  std::map<std::string, Row> by_type;
  Row total;
  Row in_scope;  // pairs not excused as "files:" or "config:" (what config-alone sizing can match)
  std::uint64_t out_of_scope = 0;
  std::set<std::string> seen_exceptions;
  std::vector<std::filesystem::path> pairs;
  for (const char* corpus : {"arch_corpus", "index_corpus"})
    for (const auto& entry : std::filesystem::directory_iterator(data / corpus))
      if (entry.is_directory() && std::filesystem::exists(entry.path() / "config.json")) pairs.push_back(entry.path());
  std::sort(pairs.begin(), pairs.end());
  for (const auto& dir : pairs) {
    const auto name = dir.filename().string();
    const auto config_text = read(dir / "config.json");
    const auto config = nlohmann::json::parse(config_text, nullptr, false);
    std::string type = config.value("model_type", "");
    if (type.empty() && config.contains("text_config")) type = config["text_config"].value("model_type", "");
    const auto index = parse_safetensors_index(read(dir / "model.safetensors.index.json"), name);
    ASSERT_TRUE(index.ok()) << name << ": " << index.error().to_string();
    auto model = build_model_from_config(config_text, name);
    const bool excused = exceptions.contains(name);
    if (excused) seen_exceptions.insert(name);
    const std::string reason = excused ? exceptions[name].get<std::string>() : "";
    EXPECT_TRUE(!excused || reason.starts_with("files: ") || reason.starts_with("config: ") ||
                reason.starts_with("arch: "))
        << name << ": an excuse starts with its kind (files:, config: or arch:)";
    const bool scoped = !reason.starts_with("files: ") && !reason.starts_with("config: ");
    if (!model) {
      // Out of scope (an encoder) is a refusal by design; anything else must be excused.
      if (model.error().message.find("preflight sizes decoder LLMs") != std::string::npos) {
        ++out_of_scope;
        continue;
      }
      EXPECT_TRUE(excused) << name << ": " << model.error().to_string();
      if (detail) std::cout << "UNREAD " << name << ": " << model.error().to_string() << "\n";
      ++by_type[type].pairs;
      ++total.pairs;
      in_scope.pairs += scoped;
      continue;
    }
    // Unknown architectures never claim to be derived.
    // Unknown architectures never claim a reader: a generic reading is said in the notes
    // (and family_reader false makes every figure from it a planning estimate).
    if (!model->family_reader) {
      bool said = false;
      for (const auto& n : model->notes) said = said || n.find("generic") != std::string::npos;
      EXPECT_TRUE(said) << name;
    }
    if (model->family == "generic_decoder" || model->family == "generic_moe") {
      EXPECT_FALSE(model->family_reader) << name;
    }
    std::set<std::string> generated;
    for_each_concrete_tensor(model->manifest, [&](const ConcreteTensor& t) { generated.insert(t.name); });
    std::set<std::string> stored;
    for (const auto& [n, file] : index->weight_map) stored.insert(std::string(n));
    const double predicted = static_cast<double>(model->manifest.payload_bytes());
    const double real = static_cast<double>(index->total_size.value_or(0));
    const bool within = real > 0 && std::fabs(predicted - real) <= 0.003 * real;
    const bool exact = generated == stored;
    auto& row = by_type[type];
    ++row.pairs;
    ++total.pairs;
    row.within += within;
    total.within += within;
    row.exact += exact;
    total.exact += exact;
    if (scoped) {
      ++in_scope.pairs;
      in_scope.within += within;
      in_scope.exact += exact;
    }
    if ((!within || !exact) && !excused) ADD_FAILURE() << name << " misses and is not in EXCEPTIONS.json";
    if ((!within || !exact) && detail) {
      std::cout << "MISS " << name << " (" << type << ", " << model->family << "): bytes "
                << (real > 0 ? (predicted - real) / real * 100 : 0) << "%";
      int shown = 0;
      for (const auto& n : stored)
        if (!generated.count(n) && shown++ < 4) std::cout << "\n   missing " << n;
      shown = 0;
      for (const auto& n : generated)
        if (!stored.count(n) && shown++ < 4) std::cout << "\n   extra   " << n;
      std::cout << "\n";
    }
    if (within && exact && excused) ADD_FAILURE() << name << " matches: remove it from EXCEPTIONS.json";
  }
  for (const auto& [name, why] : exceptions.items()) {
    if (name != "_comment") {
      EXPECT_TRUE(seen_exceptions.count(name)) << name << " is excused but not in the corpus";
    }
  }

  std::cout << "| model type | pairs | within 0.3% | exact names |\n|---|---:|---:|---:|\n";
  for (const auto& [type, r] : by_type)
    std::cout << "| " << type << " | " << r.pairs << " | " << r.within << " | " << r.exact << " |\n";
  std::cout << "| **all** (" << by_type.size() << " types) | " << total.pairs << " | " << total.within << " | "
            << total.exact << " |\nout of scope (refused by design): " << out_of_scope << "\n";
  std::cout << "in scope (not excused as files: or config:): " << in_scope.pairs << " pairs, " << in_scope.within
            << " within 0.3%, " << in_scope.exact << " exact names\n";
  EXPECT_EQ(total.pairs, 177u);
  EXPECT_GE(total.within, 152u) << "fewer pairs within 0.3% than on 2026-12-08 (round4 added: 20 of 20 in scope exact)";
  EXPECT_GE(total.exact, 157u) << "fewer pairs with exact names than on 2026-12-08 (round4 added)";
  // The in-scope pairs: at least 95% within 0.3% and 90% with the exact names.
  EXPECT_GE(in_scope.within * 100, in_scope.pairs * 95) << in_scope.within << " of " << in_scope.pairs;
  EXPECT_GE(in_scope.exact * 100, in_scope.pairs * 90) << in_scope.exact << " of " << in_scope.pairs;
}

// Real indexes whose config.json no stored snapshot holds beside them
// (tests/data/index_only, sources in its SOURCES.md): the config is rebuilt
// from public copies of its values and says so. Exact bytes and names are
// required; a reconstructed config cannot be a corpus pair, so these count in
// no share above.
TEST(ArchCorpus, ReconstructedConfigsMatchTheirRealIndexes) {
  const std::filesystem::path data = PREFLIGHT_TEST_DATA_DIR;
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(data / "index_only")) {
    if (!entry.is_directory()) continue;
    const auto name = entry.path().filename().string();
    SCOPED_TRACE(name);
    const auto index = parse_safetensors_index(read(entry.path() / "model.safetensors.index.json"), name);
    ASSERT_TRUE(index.ok()) << index.error().to_string();
    auto model = build_model_from_config(read(entry.path() / "config.json"), name);
    ASSERT_TRUE(model.ok()) << model.error().to_string();
    EXPECT_TRUE(model->family_reader);
    EXPECT_EQ(model->manifest.payload_bytes(), index->total_size.value_or(0));
    std::set<std::string> generated, stored;
    for_each_concrete_tensor(model->manifest, [&](const ConcreteTensor& t) { generated.insert(t.name); });
    for (const auto& [n, file] : index->weight_map) stored.insert(std::string(n));
    EXPECT_EQ(generated, stored);
    ++checked;
  }
  EXPECT_EQ(checked, 1);
}

}  // namespace
}  // namespace preflight
