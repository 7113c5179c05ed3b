// Checks the embedded model catalogue (data/models/catalogue.json) as data:
// every entry's files are embedded and parse, names and aliases are unique,
// and each entry names the hub repository its folder in tests/data/reference/models came
// from. Building the models is tested with each family, not here.
#include "model/model_catalogue.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "embedded_files.h"
#include "model/artifact_facts.h"

namespace preflight {
namespace {

// Catalogue name -> the folder of tests/data/reference/models it was built from
// ("owner__repo"; the hub id is "owner/repo").
const std::map<std::string, std::string>& source_folders() {
  static const std::map<std::string, std::string> kFolders = {
      {"kimi-k3", "moonshotai__Kimi-K3"},
      {"deepseek-v3", "deepseek-ai__DeepSeek-V3"},
      {"deepseek-v3.2-exp", "deepseek-ai__DeepSeek-V3.2-Exp"},
      {"deepseek-v2-lite-chat", "deepseek-ai__DeepSeek-V2-Lite-Chat"},
      {"kimi-k2", "moonshotai__Kimi-K2-Instruct"},
      {"kimi-linear-48b", "moonshotai__Kimi-Linear-48B-A3B-Instruct"},
      {"gpt-oss-120b", "openai__gpt-oss-120b"},
      {"gpt-oss-20b", "openai__gpt-oss-20b"},
      {"qwen3-235b-a22b-2507", "Qwen__Qwen3-235B-A22B-Instruct-2507"},
      {"qwen3-14b", "Qwen__Qwen3-14B"},
      {"qwen3-0.6b", "Qwen__Qwen3-0.6B"},
      {"qwen2-7b-instruct", "Qwen__Qwen2-7B-Instruct"},
      {"qwen2.5-7b-instruct", "Qwen__Qwen2.5-7B-Instruct"},
      {"llama-3.1-8b", "meta-llama__Llama-3.1-8B"},
      {"llama-3.1-8b-instruct", "meta-llama__Llama-3.1-8B-Instruct"},
      {"llama-3-8b", "meta-llama__Meta-Llama-3-8B"},
      {"llama-3.1-70b", "meta-llama__Llama-3.1-70B"},
      {"mixtral-8x7b", "mistralai__Mixtral-8x7B-v0.1"},
      {"mixtral-8x7b-instruct", "mistralai__Mixtral-8x7B-Instruct-v0.1"},
      {"codellama-7b", "codellama__CodeLlama-7b-hf"},
      {"llama-3.3-70b-instruct-fp8-dynamic", "RedHatAI__Llama-3.3-70B-Instruct-FP8-dynamic"},
      {"llama-3.3-70b-instruct-w8a8", "RedHatAI__Llama-3.3-70B-Instruct-quantized.w8a8"},
      {"llama-3.1-8b-instruct-w4a16", "RedHatAI__Meta-Llama-3.1-8B-Instruct-quantized.w4a16"},
      {"llama-3.1-8b-instruct-w8a8", "RedHatAI__Meta-Llama-3.1-8B-Instruct-quantized.w8a8"},
      {"qwen2.5-7b-instruct-fp8-dynamic", "RedHatAI__Qwen2.5-7B-Instruct-FP8-dynamic"},
      {"qwen2.5-7b-instruct-w8a8", "RedHatAI__Qwen2.5-7B-Instruct-quantized.w8a8"},
  };
  return kFolders;
}

std::string hub_id_of_folder(std::string folder) {
  const auto sep = folder.find("__");
  return sep == std::string::npos ? folder : folder.replace(sep, 2, "/");
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

nlohmann::json embedded_json(std::string_view path) {
  const auto text = embedded::embedded_file(path);
  EXPECT_FALSE(text.empty()) << path << " is not embedded";
  auto doc = nlohmann::json::parse(text, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << path << " is not valid JSON";
  return doc;
}

ArtifactFacts artifact_of(std::string_view name) {
  for (const auto& m : model_catalogue())
    if (m.name == name) return parse_artifact_facts(embedded::embedded_file(m.artifact_path), m.artifact_path).value();
  ADD_FAILURE() << name << " is not in the catalogue";
  return {};
}

TEST(ModelCatalogue, EmbeddedCatalogueParses) {
  const auto parsed = parse_model_catalogue(embedded::embedded_file("data/models/catalogue.json"), "catalogue");
  ASSERT_TRUE(parsed.ok()) << parsed.error().to_string();
  EXPECT_EQ(parsed->size(), source_folders().size());
  EXPECT_NO_THROW(model_catalogue());
  std::size_t defaults = 0;
  for (const auto& m : model_catalogue()) defaults += m.is_default ? 1 : 0;
  EXPECT_EQ(defaults, 1u);
}

TEST(ModelCatalogue, EveryEntryFileIsEmbeddedAndParses) {
  for (const auto& m : model_catalogue()) {
    SCOPED_TRACE(m.name);
    EXPECT_FALSE(m.description.empty());
    EXPECT_FALSE(m.config_provenance.empty());
    EXPECT_EQ(m.config_path, "data/models/" + m.name + "/config.json");
    const auto config = embedded_json(m.config_path);
    EXPECT_TRUE(config.is_object());
    EXPECT_TRUE(config.contains("model_type")) << m.config_path;

    ASSERT_FALSE(m.artifact_path.empty());
    EXPECT_EQ(m.artifact_path, "data/models/" + m.name + "/artifact.json");
    const auto text = embedded::embedded_file(m.artifact_path);
    ASSERT_FALSE(text.empty()) << m.artifact_path << " is not embedded";
    const auto facts = parse_artifact_facts(text, m.artifact_path);
    ASSERT_TRUE(facts.ok()) << facts.error().to_string();
    EXPECT_EQ(facts->hub_id, m.hub_id);
    EXPECT_FALSE(facts->source.empty());
    // Shard files carry headers on top of the tensor payload.
    if (facts->shard_bytes > 0 && facts->tensor_payload_bytes > 0) {
      EXPECT_GT(facts->shard_bytes, facts->tensor_payload_bytes);
    }

    if (!m.index_path.empty()) {
      const auto index = embedded_json(m.index_path);
      ASSERT_TRUE(index.contains("metadata") && index.contains("weight_map"));
      EXPECT_EQ(index["metadata"]["total_size"].get<std::uint64_t>(), facts->tensor_payload_bytes);
    }
  }
}

// find_catalogue_model reads one entry by its lines; model_catalogue() parses them
// all. Every name and alias, as written and upper-cased, must find the entry the
// full parse finds, field for field; an unknown name keeps its did-you-mean.
TEST(ModelCatalogueQuick, EveryNameFindsTheEntryTheFullParseFinds) {
  std::size_t names = 0;
  for (const auto& m : model_catalogue()) {
    std::vector<std::string> typed = {m.name};
    typed.insert(typed.end(), m.aliases.begin(), m.aliases.end());
    for (const auto& t : std::vector<std::string>(typed)) {
      std::string upper = t;
      for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      typed.push_back(upper);
    }
    for (const auto& name : typed) {
      SCOPED_TRACE(name);
      auto found = find_catalogue_model(name, "MODEL");
      ASSERT_TRUE(found.ok()) << found.error().to_string();
      EXPECT_TRUE(**found == m);
      ++names;
    }
  }
  EXPECT_GT(names, 4 * model_catalogue().size());
  EXPECT_EQ(quick_catalogue_entries(), model_catalogue().size());  // the quick path is taken, not the fallback
  auto typo = find_catalogue_model("kimi-k33", "MODEL");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.error().message.find("kimi-k3"), std::string::npos) << typo.error().to_string();
}

TEST(ModelCatalogue, NamesAndAliasesAreUnique) {
  std::map<std::string, std::string> owner;  // key -> entry that claims it
  for (const auto& m : model_catalogue()) {
    EXPECT_EQ(m.name, lower(m.name));
    EXPECT_TRUE(owner.emplace(m.name, m.name).second) << m.name << " also claimed by " << owner[m.name];
  }
  for (const auto& m : model_catalogue()) {
    std::set<std::string> own;
    for (const auto& a : m.aliases) {
      EXPECT_FALSE(a.empty()) << m.name;
      EXPECT_TRUE(own.insert(a).second) << m.name << " lists alias " << a << " twice";
      const auto [it, fresh] = owner.emplace(a, m.name);
      EXPECT_TRUE(fresh) << "alias " << a << " of " << m.name << " is also " << it->second;
    }
    // The lower-case hub id is always an alias.
    EXPECT_TRUE(own.count(lower(m.hub_id))) << m.name << " lacks alias " << lower(m.hub_id);
  }
}

TEST(ModelCatalogue, EveryEntryNamesItsSourceFolder) {
  std::set<std::string> seen;
  for (const auto& m : model_catalogue()) {
    SCOPED_TRACE(m.name);
    const auto it = source_folders().find(m.name);
    ASSERT_NE(it, source_folders().end()) << "no source folder listed for " << m.name;
    EXPECT_EQ(m.hub_id, hub_id_of_folder(it->second));
    seen.insert(m.name);
  }
  for (const auto& [name, folder] : source_folders()) EXPECT_TRUE(seen.count(name)) << name << " missing";
}

TEST(ModelCatalogue, EveryModelFolderBelongsToAnEntry) {
  std::set<std::string> referenced;
  for (const auto& m : model_catalogue()) referenced.insert("data/models/" + m.name + "/");
  for (auto path : embedded::embedded_paths()) {
    if (path.substr(0, 12) != "data/models/" || path == "data/models/catalogue.json") continue;
    const auto slash = path.find('/', 12);
    ASSERT_NE(slash, std::string_view::npos) << path;
    EXPECT_TRUE(referenced.count(std::string(path.substr(0, slash + 1)))) << path << " belongs to no entry";
  }
  // Index metadata kept beside two entries (not read by the catalogue yet).
  for (const char* path : {"data/models/deepseek-v3/model.safetensors.index.metadata.json",
                           "data/models/kimi-linear-48b/model.safetensors.index.metadata.json"}) {
    const auto doc = embedded_json(path);
    EXPECT_TRUE(doc.contains("metadata")) << path;
  }
}

// The figures the planner must not get wrong, straight from TRUTH.md.
TEST(ModelCatalogue, TruthFiguresAreRecorded) {
  // DeepSeek-V3: index total_size 1,369,062,772,000 is 2 x elements, not bytes.
  const auto v3 = artifact_of("deepseek-v3");
  EXPECT_EQ(v3.tensor_payload_bytes, 688'574'839'360u);
  EXPECT_EQ(v3.shard_count, 163u);
  const auto meta = embedded_json("data/models/deepseek-v3/model.safetensors.index.metadata.json");
  EXPECT_EQ(meta["metadata"]["total_size"].get<std::uint64_t>(), 2 * v3.logical_parameters);
  EXPECT_NE(meta["metadata"]["total_size"].get<std::uint64_t>(), v3.tensor_payload_bytes);

  EXPECT_EQ(artifact_of("kimi-k2").tensor_payload_bytes, 1'029'173'256'720u);
  EXPECT_EQ(artifact_of("kimi-linear-48b").tensor_payload_bytes, 98'245'528'576u);
  EXPECT_EQ(artifact_of("gpt-oss-120b").tensor_payload_bytes, 65'248'815'744u);
  EXPECT_EQ(artifact_of("gpt-oss-120b").shard_bytes, 65'248'893'184u);
  EXPECT_EQ(artifact_of("gpt-oss-20b").tensor_payload_bytes, 13'761'264'768u);
  EXPECT_EQ(artifact_of("gpt-oss-20b").shard_count, 3u);
  EXPECT_EQ(artifact_of("qwen3-235b-a22b-2507").tensor_payload_bytes, 470'187'269'120u);
  EXPECT_EQ(artifact_of("llama-3.1-8b").tensor_payload_bytes, 16'060'522'496u);
  EXPECT_EQ(artifact_of("llama-3.1-70b").tensor_payload_bytes, 141'107'412'992u);
  EXPECT_EQ(artifact_of("mixtral-8x7b").tensor_payload_bytes, 93'405'585'408u);
  EXPECT_EQ(artifact_of("qwen2.5-7b-instruct").tensor_payload_bytes, 15'231'233'024u);
  EXPECT_EQ(artifact_of("qwen3-14b").tensor_payload_bytes, 29'536'614'400u);
  EXPECT_EQ(artifact_of("deepseek-v2-lite-chat").tensor_payload_bytes, 31'412'968'448u);
  EXPECT_EQ(artifact_of("qwen3-0.6b").tensor_payload_bytes, 1'503'264'768u);

  const auto index = embedded_json("data/models/gpt-oss-20b/model.safetensors.index.json");
  EXPECT_EQ(index["weight_map"].size(), 459u);
}

}  // namespace
}  // namespace preflight
