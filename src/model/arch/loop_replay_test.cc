// Loop iterations that repeat an earlier one are copied, not re-evaluated
// (build_described.cc, LoopTemplate). These descriptions make the iterations
// differ in each way a body can: a condition, a dimension, a dtype, the MTP
// tail, a name that reads the loop variable, and an error in one layer only.
// Each model is checked against tensors listed by hand, so a copy that kept a
// stale shape, dtype, layer or name would fail.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/arch/architecture.h"

namespace preflight::arch {
namespace {

// A decoder whose layers differ: odd layers are "wide" (their MLP width comes
// from a per-layer list), layer 2 keeps an F32 norm, the last `mtp` layers are
// MTP layers, and with "named" every layer has a tensor named after its parity
// (a name that reads the loop: no iteration is copied then).
constexpr const char* kDescription = R"json({
  "name": "replay_probe",
  "model_types": ["replay_probe"],
  "fields": [["hidden_size", "positive"], ["num_hidden_layers", "layers"], ["vocab_size", "positive"]],
  "let": {
    "H": "$hidden_size",
    "L": "$num_hidden_layers",
    "mtp": "$num_nextn_predict_layers ?? 0",
    "wide": "i % 2 == 1",
    "width": "item($widths, i)",
    "parity": "wide ? 'odd' : 'even'",
    "norm_dtype": "i == 2 ? 'float32' : null"
  },
  "spec": {"hidden_size": "H", "vocab_size": "$vocab_size", "layers": "L"},
  "tensors": [
    {"name": "embed.weight", "shape": ["$vocab_size", "H"], "module": "embedding", "role": "vocab"},
    {
      "for": "i", "to": "L + mtp", "mtp_from": "L", "prefix": "layers.{i}.",
      "tensors": [
        {"name": "norm.weight", "shape": ["H"], "module": "norms", "dtype": "norm_dtype"},
        {"when": "wide", "name": "up.weight", "shape": ["width", "H"], "module": "dense_mlp", "role": "column"},
        {"when": "!wide", "name": "up.weight", "shape": ["H", "H"], "module": "dense_mlp", "role": "column"},
        {"when": "$named ?? false", "name": "{parity}.weight", "shape": ["H"], "module": "norms"}
      ]
    }
  ]
})json";

struct Expected {
  std::string name;
  std::vector<std::uint64_t> shape;
  Dtype dtype;
  ModuleClass module;
  int layer;
};

Result<ModelSpec> build(const std::string& config) {
  auto table = ArchitectureTable::parse({{"replay_probe.json", kDescription}});
  if (!table) return table.error();
  const Description* d = table->by_name("replay_probe");
  return build_described(*table, *d, nlohmann::json::parse(config), "config.json");
}

// The tensors the probe must give, listed by hand: 5 layers and 1 MTP layer of
// hidden size 8, widths 10..15, layer 2's norm F32.
std::vector<Expected> expected_tensors(bool named) {
  const auto B = Dtype::BF16;
  const auto norms = ModuleClass::norms, mlp = ModuleClass::dense_mlp, mtp = ModuleClass::mtp;
  std::vector<Expected> out = {{"embed.weight", {32, 8}, B, ModuleClass::embedding, kNoLayer}};
  const auto layer = [&](int i, Dtype norm, std::vector<std::uint64_t> up, const char* parity, ModuleClass a,
                         ModuleClass b) {
    const std::string head = "layers." + std::to_string(i) + ".";
    out.push_back({head + "norm.weight", {8}, norm, a, i});
    out.push_back({head + "up.weight", std::move(up), B, b, i});
    if (named) out.push_back({head + parity + ".weight", {8}, B, a, i});
  };
  layer(0, B, {8, 8}, "even", norms, mlp);
  layer(1, B, {11, 8}, "odd", norms, mlp);
  layer(2, Dtype::F32, {8, 8}, "even", norms, mlp);
  layer(3, B, {13, 8}, "odd", norms, mlp);
  layer(4, B, {8, 8}, "even", norms, mlp);
  // The MTP layer repeats layer 3's reads but is built as an MTP layer.
  layer(5, B, {15, 8}, "odd", mtp, mtp);
  return out;
}

TEST(LoopReplay, IterationsThatDifferAreBuiltEachAsWritten) {
  for (const bool named : {false, true}) {
    SCOPED_TRACE(named ? "names read the loop" : "names do not read the loop");
    auto m = build(std::string(R"({"model_type": "replay_probe", "hidden_size": 8, "num_hidden_layers": 5,
                       "vocab_size": 32, "num_nextn_predict_layers": 1, "widths": [10, 11, 12, 13, 14, 15],
                       "torch_dtype": "bfloat16", "named": )") +
                   (named ? "true}" : "false}"));
    ASSERT_TRUE(m.ok()) << m.error().to_string();
    const auto expected = expected_tensors(named);
    const auto& tensors = m->manifest.tensors;
    ASSERT_EQ(tensors.size(), expected.size());
    for (std::size_t k = 0; k < expected.size(); ++k) {
      SCOPED_TRACE(expected[k].name);
      EXPECT_EQ(tensors[k].name, expected[k].name);
      EXPECT_EQ(tensors[k].shape, expected[k].shape);
      EXPECT_EQ(tensors[k].dtype, expected[k].dtype);
      EXPECT_EQ(tensors[k].module, expected[k].module);
      EXPECT_EQ(tensors[k].layer, expected[k].layer);
    }
  }
}

TEST(LoopReplay, AnErrorInALaterLayerIsStillFound) {
  // Layers 0 and 2 repeat each other; layer 3 reads past the list, which only
  // its own dependent read can find.
  auto m = build(R"({"model_type": "replay_probe", "hidden_size": 8, "num_hidden_layers": 5, "vocab_size": 32,
                     "widths": [10, 11, 12]})");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().to_string(), "config.json: /widths: has 3 entries; entry 3 is needed");
}

}  // namespace
}  // namespace preflight::arch
