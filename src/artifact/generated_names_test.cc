#include "artifact/generated_names.h"

#include <gtest/gtest.h>

#include <map>

#include "model/model_catalogue.h"

namespace preflight {
namespace {

StoredTensor entry(std::string name, std::uint32_t instances = 1, std::uint32_t first = 0) {
  StoredTensor t;
  t.name = std::move(name);
  t.shape = {2, 4};
  t.bytes_each = 16;
  t.instances = instances;
  t.first_instance = first;
  return t;
}

// The independent side: every concrete name by expansion (concrete_tensors), the
// earliest entry kept, as the reconciliation's old hash table of names did.
std::map<std::string, std::pair<std::size_t, std::uint32_t>> expanded(const TensorManifest& m) {
  std::map<std::string, std::pair<std::size_t, std::uint32_t>> out;
  for (std::size_t e = 0; e < m.tensors.size(); ++e) {
    const auto& t = m.tensors[e];
    const std::uint32_t n = is_expert_template(t) ? t.instances : 1;
    for (std::uint32_t k = 0; k < n; ++k) out.emplace(concrete_name(t, k), std::pair{e, k});
  }
  return out;
}

TEST(GeneratedNames, EveryCatalogueModelsNamesAreFoundAsTheExpansionFindsThem) {
  std::size_t models = 0;
  for (const auto& c : model_catalogue()) {
    auto m = load_catalogue_model(c.name, "test");
    ASSERT_TRUE(m) << c.name;
    const auto& manifest = m->manifest;
    const auto want = expanded(manifest);
    GeneratedNames names(manifest);
    std::size_t concrete = 0;
    for (const auto& t : concrete_tensors(manifest)) {
      ++concrete;
      const auto slot = names.find(t.name);
      ASSERT_TRUE(slot) << c.name << ": " << t.name;
      EXPECT_EQ(slot->entry, want.at(t.name).first) << t.name;
      EXPECT_EQ(slot->instance, want.at(t.name).second) << t.name;
      EXPECT_EQ(names.name(*slot), t.name);
      names.mark_seen(*slot);
    }
    EXPECT_EQ(concrete, manifest.tensor_count()) << c.name;
    std::size_t unseen = 0;
    names.for_each_unseen([&](GeneratedNames::Slot) { ++unseen; });
    EXPECT_EQ(unseen, 0u) << c.name;
    ++models;
  }
  EXPECT_GT(models, 20u);
}

TEST(GeneratedNames, TableOfNames) {
  TensorManifest m;
  m.tensors = {entry("model.embed_tokens.weight"),
               entry("model.layers.3.experts.{E}.w1.weight", 4),     // experts 0..3
               entry("model.layers.3.experts.{E}.w1.weight", 4, 4),  // experts 4..7 in a second entry
               entry("model.layers.3.experts.5.w1.weight"),          // shadowed by the entry before it
               entry("blocks.w{E}1.weight", 12),                     // the number touches a digit
               entry("fused.experts.w2.weight", 8)};                 // one fused tensor
  GeneratedNames names(m);
  struct Case {
    std::string name;
    std::optional<std::pair<std::uint32_t, std::uint32_t>> want;
  };
  const std::vector<Case> cases = {
      {"model.embed_tokens.weight", std::pair{0u, 0u}},
      {"model.layers.3.experts.0.w1.weight", std::pair{1u, 0u}},
      {"model.layers.3.experts.3.w1.weight", std::pair{1u, 3u}},
      {"model.layers.3.experts.4.w1.weight", std::pair{2u, 0u}},
      {"model.layers.3.experts.5.w1.weight", std::pair{2u, 1u}},  // the earlier entry wins
      {"model.layers.3.experts.8.w1.weight", std::nullopt},       // past the last expert
      {"model.layers.3.experts.03.w1.weight", std::nullopt},      // not how a number is written
      {"model.layers.4.experts.0.w1.weight", std::nullopt},       // another layer
      {"model.layers.3.experts.99999999999999999999.w1.weight", std::nullopt},
      {"blocks.w01.weight", std::pair{4u, 0u}},
      {"blocks.w111.weight", std::pair{4u, 11u}},
      {"blocks.w121.weight", std::nullopt},
      {"fused.experts.w2.weight", std::pair{5u, 0u}},
      {"fused.experts.w2.weight.extra", std::nullopt},
      {"", std::nullopt},
      {"{E}", std::nullopt},
  };
  for (const auto& c : cases) {
    const auto slot = names.find(c.name);
    ASSERT_EQ(slot.has_value(), c.want.has_value()) << c.name;
    if (!slot) continue;
    EXPECT_EQ(slot->entry, c.want->first) << c.name;
    EXPECT_EQ(slot->instance, c.want->second) << c.name;
  }
}

TEST(GeneratedNames, UnseenAreListedInManifestOrder) {
  TensorManifest m;
  m.tensors = {entry("a.weight"), entry("e.{E}.weight", 3), entry("fused.weight", 4)};
  GeneratedNames names(m);
  names.mark_seen(*names.find("e.1.weight"));
  std::vector<std::string> unseen;
  names.for_each_unseen([&](GeneratedNames::Slot s) { unseen.push_back(names.name(s)); });
  EXPECT_EQ(unseen, (std::vector<std::string>{"a.weight", "e.0.weight", "e.2.weight", "fused.weight"}));
}

}  // namespace
}  // namespace preflight
