// Checks the kimi_k3 generator against the released checkpoint's tensor
// inventory (tests/data/reference/models/moonshotai__Kimi-K3/tensor_inventory.md): every
// group's shape and dtype, and the exact totals.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "model/inventory.h"
#include "model/model_catalogue.h"
#include "reference_files.h"
#include "support/fixtures.h"

namespace preflight {
namespace {

const ModelSpec& k3() { return testing::catalogue_model("kimi-k3"); }

// "layers.17.", "experts.{E}.", "blocks.{0-26}." -> "layers.#." (only the
// repeated-block indices: "proj.0" and "proj.2" are different tensors).
std::string normalize(const std::string& name) {
  static const std::regex index(R"((layers|experts|blocks)\.(\d+|\{[^}]*\})\.)");
  return std::regex_replace(name, index, "$1.#.");
}

struct InventoryRow {
  std::string name;
  std::string shape;
  std::string dtype;
};

std::vector<std::string> expand_names(const std::string& cell) {
  std::vector<std::string> names;
  static const std::regex tick("`([^`]+)`");
  for (auto it = std::sregex_iterator(cell.begin(), cell.end(), tick); it != std::sregex_iterator(); ++it) {
    const std::string n = (*it)[1];
    if (n.find('/') == std::string::npos) {
      names.push_back(n);
      continue;
    }
    std::vector<std::string> parts;
    std::stringstream ss(n);
    for (std::string p; std::getline(ss, p, '/');) parts.push_back(p);
    const auto prefix = parts.front().substr(0, parts.front().rfind('.') + 1);
    const auto suffix = parts.back().substr(parts.back().find('.'));
    for (std::size_t i = 0; i < parts.size(); ++i) {
      std::string stem = parts[i];
      if (i == 0) stem = stem.substr(prefix.size());
      if (i + 1 == parts.size()) stem = stem.substr(0, stem.size() - suffix.size());
      names.push_back(prefix + stem + suffix);
    }
  }
  return names;
}

std::vector<InventoryRow> read_inventory() {
  const auto text = testing::read_reference("models/moonshotai__Kimi-K3/tensor_inventory.md");
  std::vector<InventoryRow> rows;
  std::stringstream in(text);
  static const std::regex shape_re(R"(\[[0-9, ]+\])");
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("| ") || line.find('`') == std::string::npos) continue;
    std::vector<std::string> cells;
    std::stringstream ls(line.substr(1));
    for (std::string c; std::getline(ls, c, '|');) cells.push_back(c);
    if (cells.size() < 5) continue;
    const auto names = expand_names(cells[1]);
    std::vector<std::string> shapes;
    for (auto it = std::sregex_iterator(cells[2].begin(), cells[2].end(), shape_re); it != std::sregex_iterator(); ++it)
      shapes.push_back(it->str());
    // "[3072, 1792] (logical [3072, 3584] FP4)": the stored shape comes first.
    if (cells[2].find("logical") != std::string::npos) shapes.resize(1);
    std::string dtype;
    for (const char* d : {"BF16", "F32", "U8"})
      if (cells[3].find(d) != std::string::npos) dtype = d;
    for (std::size_t i = 0; i < names.size(); ++i)
      rows.push_back({names[i], shapes.size() == names.size() ? shapes[i] : shapes.at(0), dtype});
  }
  return rows;
}

TEST(KimiK3Family, EveryInventoryGroupHasItsShapeAndDtype) {
  const auto rows = read_inventory();
  ASSERT_GE(rows.size(), 55u) << "tensor inventory not found under " << testing::reference_path("models")
                              << " (tests read tests/data/reference)";
  std::vector<std::string> normalized;
  for (const auto& t : k3().manifest.tensors) normalized.push_back("." + normalize(t.name));
  for (const auto& row : rows) {
    const auto want = "." + normalize(row.name);
    int matched = 0;
    for (std::size_t i = 0; i < normalized.size(); ++i) {
      const auto& t = k3().manifest.tensors[i];
      if (!normalized[i].ends_with(want)) continue;
      ++matched;
      EXPECT_EQ(shape_text(t.shape), row.shape) << t.name;
      EXPECT_EQ(dtype_name(t.dtype), row.dtype) << t.name;
    }
    EXPECT_GT(matched, 0) << "inventory tensor not generated: " << row.name;
  }
}

TEST(KimiK3Family, TotalsMatchTheReleasedCheckpointExactly) {
  const auto& m = k3();
  EXPECT_EQ(m.manifest.tensor_count(), 497'220u);
  EXPECT_EQ(m.manifest.payload_bytes(), 1'560'860'324'864u);
  EXPECT_EQ(m.manifest.logical_params(), 2'779'931'837'184u);
  // The generated figures agree with the artifact's official facts.
  ASSERT_TRUE(m.artifact.has_value());
  EXPECT_EQ(m.manifest.payload_bytes(), m.artifact->tensor_payload_bytes);
  EXPECT_EQ(m.manifest.logical_params(), m.artifact->logical_parameters);
  EXPECT_EQ(m.artifact->shard_bytes - m.manifest.payload_bytes(), 75'766'584u);  // safetensors headers
}

TEST(KimiK3Family, InventoryByDtypeAndActiveParameters) {
  const auto inv = build_inventory(k3());
  EXPECT_EQ(inv.elements_by_dtype.at("BF16"), 57'179'884'544u);
  EXPECT_EQ(inv.elements_by_dtype.at("F32"), 11'122'432u);
  EXPECT_EQ(inv.bytes_by_dtype.at("U8 (MXFP4 codes)"), 1'361'370'415'104u);
  EXPECT_EQ(inv.bytes_by_dtype.at("U8 (E8M0 scales)"), 85'085'650'944u);
  EXPECT_EQ(inv.quantized_bytes, 1'446'456'066'048u);
  EXPECT_EQ(inv.routed_params, 2'722'740'830'208u);
  EXPECT_EQ(inv.routed_params_per_expert, 33'030'144u);
  EXPECT_EQ(inv.active_params, 104'189'614'848u);
  std::map<ModuleClass, std::uint64_t> bytes;
  for (const auto& r : inv.by_module) bytes[r.module] = r.bytes;
  EXPECT_EQ(bytes[ModuleClass::embedding], 2'348'810'240u);
  EXPECT_EQ(bytes[ModuleClass::lm_head], 2'348'810'240u);
  EXPECT_EQ(bytes[ModuleClass::shared_experts], 24'310'185'984u);
  EXPECT_EQ(bytes[ModuleClass::vision_tower], 802'428'928u);
  EXPECT_EQ(bytes[ModuleClass::projector], 92'289'024u);
  // Language trunk as the public audit counts it: the decoder layers' tensors
  // except the routed experts (top-level embedding, head and norms apart).
  std::uint64_t trunk = 0;
  for (const auto& t : k3().manifest.tensors)
    if (t.layer != kNoLayer && t.module != ModuleClass::routed_experts) trunk += t.bytes();
  EXPECT_EQ(trunk, 108'811'877'376u);
  // Per expert on disk: 16,515,072 code bytes + 1,032,192 scale bytes.
  std::uint64_t per_expert = 0;
  for (const auto& t : k3().manifest.tensors)
    if (t.module == ModuleClass::routed_experts && t.layer == 1) per_expert += t.bytes_each;
  EXPECT_EQ(per_expert, 17'547'264u);
}

TEST(KimiK3Family, LayerKindsComeFromOneIndexedLists) {
  const auto& m = k3();
  ASSERT_EQ(m.layers.size(), 93u);
  EXPECT_EQ(m.count_layers(LayerKind::kda), 69u);
  EXPECT_EQ(m.count_layers(LayerKind::mla), 24u);
  EXPECT_EQ(m.layers[3], LayerKind::mla);   // config lists 4
  EXPECT_EQ(m.layers[92], LayerKind::mla);  // config lists 93
  EXPECT_EQ(m.layers[91], LayerKind::mla);  // config lists 92
  EXPECT_EQ(m.layers[0], LayerKind::kda);
}

TEST(KimiK3Family, ManifestIsCompactButExact) {
  // Expert groups stay grouped because no ignore pattern can tell experts apart.
  EXPECT_LT(k3().manifest.tensors.size(), 5000u);
}

}  // namespace
}  // namespace preflight
