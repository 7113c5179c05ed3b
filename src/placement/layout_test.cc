// Layouts: vLLM's pipeline split, the reasons a layout is refused (each names
// its flag), the defaults the planner picks, and the candidate layouts the
// solvers search.
#include "placement/layout.h"

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "model/model_catalogue.h"
#include "support/fixtures.h"

namespace preflight {
namespace {

const ModelSpec& model(const std::string& name) { return testing::catalogue_model(name); }

// ---------------------------------------------------------------------------
// Pipeline stages

struct StageCase {
  std::uint64_t layers, pp;
  std::vector<std::uint64_t> expected;
};

TEST(PipelineStageLayers, FollowsVllmGetPpIndices) {
  // vllm/distributed/utils.py get_pp_indices: layers // pp each, then
  //   for i in range(2, remaining_layers + 2): partitions[-i] += 1
  // so the extra layers go to the stages before the last, counting back from the second-to-last.
  const StageCase cases[] = {
      {32, 1, {32}},
      {32, 2, {16, 16}},                          // Llama-3.1-8B PP2 (r025)
      {32, 4, {8, 8, 8, 8}},                      // PP4 (r026)
      {61, 4, {15, 15, 16, 15}},                  // DeepSeek-V3: 61 // 4 = 15, one extra to partitions[-2]
      {61, 2, {31, 30}},                          // one extra to partitions[-2] = the first of two
      {93, 8, {11, 11, 12, 12, 12, 12, 12, 11}},  // K3: 93 // 8 = 11, 5 extra to partitions[-2..-6]
      {27, 2, {14, 13}},                          // Kimi-Linear
      {7, 4, {2, 2, 2, 1}},                       // remainder pp - 1: every stage but the last
      {24, 5, {5, 5, 5, 5, 4}},
      {5, 5, {1, 1, 1, 1, 1}},
      {93, 93, std::vector<std::uint64_t>(93, 1)},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.layers << " layers / PP " << c.pp);
    const auto parts = pipeline_stage_layers(c.layers, c.pp);
    EXPECT_EQ(parts, c.expected);
    EXPECT_EQ(std::accumulate(parts.begin(), parts.end(), std::uint64_t{0}), c.layers);
  }
}

TEST(PipelineStageLayers, FirstLayerOfEachStage) {
  // DeepSeek-V3 (61 layers) in 4 stages of 15, 15, 16, 15 layers.
  const auto l = choose_layout(model("deepseek-v3"), 4, {.tp = 1, .pp = 4}).value_or_throw();
  EXPECT_EQ(l.stage_layers, (std::vector<std::uint64_t>{15, 15, 16, 15}));
  EXPECT_EQ(l.first_layer(0), 0u);
  EXPECT_EQ(l.first_layer(1), 15u);
  EXPECT_EQ(l.first_layer(2), 30u);
  EXPECT_EQ(l.first_layer(3), 46u);
  // One stage: every layer from 0.
  EXPECT_EQ(choose_layout(model("deepseek-v3"), 8, {}).value_or_throw().first_layer(0), 0u);
}

// ---------------------------------------------------------------------------
// Refusals

struct ErrorCase {
  const char* what;
  const char* model;
  std::uint64_t world;
  LayoutOptions options;
  const char* expected;  // Error::to_string()
};

TEST(ChooseLayout, RefusesWithTheFlagAndTheReason) {
  const ErrorCase cases[] = {
      // PP larger than the GPU count.
      {"PP > world", "llama-3.1-8b", 4, {.pp = 8}, "--pp: PP 8 needs more ranks than the 4 GPUs"},
      // PP larger than the decoder layers (Llama-3.1-8B has 32).
      {"PP > layers", "llama-3.1-8b", 64, {.pp = 64}, "--pp: PP 64 exceeds the 32 decoder layers"},
      {"PP not dividing", "llama-3.1-8b", 6, {.pp = 4}, "--pp: PP 4 does not divide the 6 GPUs"},
      // TP x PP more than the GPUs: TP 8 in stages of 4.
      {"TP x PP > world", "llama-3.1-8b", 8, {.tp = 8, .pp = 2}, "--tp: TP 8 x PP 2 needs more ranks than the 8 GPUs"},
      {"TP not dividing the stage",
       "llama-3.1-8b",
       8,
       {.tp = 16, .pp = 1},
       "--tp: TP 16 x PP 1 needs more ranks than the 8 GPUs"},
      {"TP not dividing the stage's GPUs",
       "llama-3.1-8b",
       12,
       {.tp = 8},
       "--tp: TP 8 does not divide the 12 GPUs of a stage"},
      {"TP not dividing the heads", "llama-3.1-8b", 6, {.tp = 3}, "--tp: TP 3 does not divide the 32 attention heads"},
      {"TP not dividing K3's KDA heads", "kimi-k3", 10, {.tp = 5}, "--tp: TP 5 does not divide the 96 KDA heads"},
      // DP inconsistent with TP and the GPU count.
      {"TP x DP != world",
       "llama-3.1-8b",
       8,
       {.tp = 2, .dp = 2},
       "--dp: TP 2 x DP 2 x PP 1 = 4 ranks, but there are 8 GPUs"},
      {"DP not dividing", "llama-3.1-8b", 8, {.dp = 3}, "--dp: DP 3 does not divide the 8 GPUs of a stage"},
      {"DP leaving a TP that does not divide the heads",
       "llama-3.1-8b",
       6,
       {.dp = 2},
       "--dp: DP 2 leaves TP 3, which does not divide the 32 attention heads"},
      // EP.
      {"EP not dividing",
       "mixtral-8x7b",
       8,
       {.ep = 3},
       "--ep: EP 3 does not divide the 8 GPUs of a stage (TP 8 x DP 1)"},
      {"EP > experts",
       "mixtral-8x7b",
       16,
       {.ep = 16},
       "--ep: expert parallelism over 16 GPUs exceeds the 8 routed experts"},
      {"default EP > experts",
       "mixtral-8x7b",
       16,
       {},
       "--gpus: expert parallelism over 16 GPUs exceeds the 8 routed experts"},
      {"EP on a dense model", "llama-3.1-8b", 8, {.ep = 2}, "--ep: EP 2 given, but llama-3.1-8b has no routed experts"},
      // DCP.
      {"DCP 0", "deepseek-v3", 8, {.dcp = 0}, "--dcp: DCP must be at least 1"},
      {"DCP not dividing TP",
       "deepseek-v3",
       8,
       {.tp = 4, .dcp = 8},
       "--dcp: DCP 8 does not divide TP 4 (DCP splits a TP group)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const auto r = choose_layout(model(c.model), c.world, c.options);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().to_string(), c.expected);
  }
}

TEST(ChooseLayout, EpOneOnADenseModelIsAccepted) {
  const auto l = choose_layout(model("llama-3.1-8b"), 8, {.ep = 1}).value_or_throw();
  EXPECT_EQ(l.ep, 1u);
}

// ---------------------------------------------------------------------------
// Defaults

struct DefaultCase {
  const char* what;
  const char* model;
  std::uint64_t world;
  LayoutOptions options;
  std::uint64_t tp, dp, ep, moe_tp, pp, nodes;
};

TEST(ChooseLayout, Defaults) {
  const DefaultCase cases[] = {
      // Dense: TP over the stage, EP 1, MoE-TP (unused) = the stage.
      {"llama 8", "llama-3.1-8b", 8, {}, 8, 1, 1, 8, 1, 1},
      {"llama 1", "llama-3.1-8b", 1, {}, 1, 1, 1, 1, 1, 1},
      // Llama has 32 heads: 64 GPUs give TP 32 and DP 2.
      {"llama 64", "llama-3.1-8b", 64, {}, 32, 2, 1, 64, 1, 1},
      // MoE: EP = the GPUs of a stage, MoE-TP 1.
      {"mixtral 8", "mixtral-8x7b", 8, {}, 8, 1, 8, 1, 1, 1},
      {"mixtral 8, EP 1", "mixtral-8x7b", 8, {.ep = 1}, 8, 1, 1, 8, 1, 1},  // vLLM without --enable-expert-parallel
      {"mixtral 8, EP 2", "mixtral-8x7b", 8, {.ep = 2}, 8, 1, 2, 4, 1, 1},
      {"mixtral 2, TP 2 EP 1", "mixtral-8x7b", 2, {.tp = 2, .ep = 1}, 2, 1, 1, 2, 1, 1},
      {"deepseek-v3 16, PP 2", "deepseek-v3", 16, {.pp = 2}, 8, 1, 8, 1, 2, 1},
      // K3 (96 heads): 16 GPUs -> TP 16; 64 -> TP 32 x DP 2, EP 64.
      {"k3 16", "kimi-k3", 16, {}, 16, 1, 16, 1, 1, 1},
      {"k3 64", "kimi-k3", 64, {}, 32, 2, 64, 1, 1, 1},
      // --dp picks TP = stage / DP.
      {"llama 8, DP 2", "llama-3.1-8b", 8, {.dp = 2}, 4, 2, 1, 8, 1, 1},
      {"gpt-oss-20b 8, TP 4", "gpt-oss-20b", 8, {.tp = 4}, 4, 2, 8, 1, 1, 1},
      // Nodes: ceil(world / GPUs per node).
      {"k3 16 on 8-GPU nodes", "kimi-k3", 16, {.gpus_per_node = 8}, 16, 1, 16, 1, 1, 2},
      {"k3 12 on 8-GPU nodes", "kimi-k3", 12, {.gpus_per_node = 8}, 12, 1, 12, 1, 1, 2},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const auto l = choose_layout(model(c.model), c.world, c.options).value_or_throw();
    EXPECT_EQ(l.world, c.world);
    EXPECT_EQ(l.tp, c.tp);
    EXPECT_EQ(l.dp, c.dp);
    EXPECT_EQ(l.ep, c.ep);
    EXPECT_EQ(l.moe_tp, c.moe_tp);
    EXPECT_EQ(l.pp, c.pp);
    EXPECT_EQ(l.nodes, c.nodes);
    EXPECT_EQ(l.tp * l.dp * l.pp, c.world);
    EXPECT_EQ(l.ep * l.moe_tp, l.stage_ranks());
    EXPECT_EQ(l.stage_layers, pipeline_stage_layers(model(c.model).layers.size(), l.pp));
    EXPECT_EQ(l.dcp, 1u);
  }
}

TEST(ChooseLayout, ExplainsTheChoice) {
  EXPECT_EQ(choose_layout(model("kimi-k3"), 8, {}).value_or_throw().chosen_by,
            "TP 8 over all GPUs of a stage (divides the heads)");
  EXPECT_EQ(choose_layout(model("kimi-k3"), 64, {}).value_or_throw().chosen_by,
            "TP 32: the largest size dividing both the heads and the 64 GPUs of a stage; attention repeated 2 times "
            "(data-parallel attention)");
  EXPECT_EQ(choose_layout(model("llama-3.1-8b"), 8, {.tp = 4, .pp = 2}).value_or_throw().chosen_by,
            "--tp 4; PP 2 by layers");
  EXPECT_EQ(choose_layout(model("llama-3.1-8b"), 8, {.dp = 2}).value_or_throw().chosen_by,
            "TP 4 = 8 GPUs per stage / DP 2");
}

TEST(ChooseLayout, RankCoordinates) {
  // deepseek-v3 on 16 GPUs: PP 2 stages of TP 4 x DP 2, EP 4 (MoE-TP 2).
  const auto l = choose_layout(model("deepseek-v3"), 16, {.tp = 4, .ep = 4, .pp = 2}).value_or_throw();
  EXPECT_EQ(l.dp, 2u);
  EXPECT_EQ(l.moe_tp, 2u);
  EXPECT_EQ(l.stage_of(7), 0u);
  EXPECT_EQ(l.stage_of(8), 1u);
  EXPECT_EQ(l.tp_rank(13), 1u);
  EXPECT_EQ(l.ep_index(13), 2u);     // (13 % 8) / 2
  EXPECT_EQ(l.moe_tp_rank(13), 1u);  // (13 % 8) % 2
}

// ---------------------------------------------------------------------------
// Candidates

// The practical layouts: TP a power of two within a node dividing the heads, PP
// only in whole-node stages (or inside a node where the heads cap TP below the
// node size), DP the rest of a stage, EP the whole stage for MoE models.
struct PracticalCase {
  const char* model;
  std::uint64_t world, per_node;
  std::vector<std::array<std::uint64_t, 3>> expected;  // {TP, PP, DP}, in the order produced
};

TEST(PracticalLayouts, PowersOfTwoInsideANodeAndPipelinesAcrossNodes) {
  const PracticalCase cases[] = {
      // K3 (96 heads) on one node: TP 1..8, no pipeline inside a node TP can fill.
      {"kimi-k3", 8, 8, {{1, 1, 8}, {2, 1, 4}, {4, 1, 2}, {8, 1, 1}}},
      // K3 on three nodes: TP never crosses a node (no TP 24); PP 3 stages of one node each.
      {"kimi-k3", 24, 8, {{1, 1, 24}, {2, 1, 12}, {4, 1, 6}, {8, 1, 3}, {1, 3, 8}, {2, 3, 4}, {4, 3, 2}, {8, 3, 1}}},
      // Llama 3.1 8B (32 heads, 8 KV heads) on 8: TP 1..8 over DP.
      {"llama-3.1-8b", 8, 8, {{1, 1, 8}, {2, 1, 4}, {4, 1, 2}, {8, 1, 1}}},
      // Seven H100s: TP 1 only (7 is no power of two), and no 7-stage pipeline inside the node.
      {"llama-3.1-70b", 7, 8, {{1, 1, 7}}},
      // Mixtral on 16: one stage of 16 would need EP 16 > 8 experts; two one-node stages.
      {"mixtral-8x7b", 16, 8, {{1, 2, 8}, {2, 2, 4}, {4, 2, 2}, {8, 2, 1}}},
      // Qwen2-7B (28 heads, 4 KV heads): TP stops at 4 on an 8-GPU node, so two 4-GPU stages are practical.
      {"qwen2-7b-instruct", 8, 8, {{1, 1, 8}, {2, 1, 4}, {4, 1, 2}, {1, 2, 4}, {2, 2, 2}, {4, 2, 1}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.model << " on " << c.world);
    const auto& m = model(c.model);
    const auto layouts = practical_layouts(m, c.world, c.per_node);
    std::vector<std::array<std::uint64_t, 3>> got;
    for (const auto& o : layouts) {
      got.push_back({o.tp, o.pp, o.dp});
      EXPECT_EQ(o.dcp, 1u);
      EXPECT_EQ(o.gpus_per_node, c.per_node);
      // Every practical layout is one choose_layout accepts as given.
      const auto l = choose_layout(m, c.world, o);
      ASSERT_TRUE(l.ok()) << l.error().to_string();
      EXPECT_EQ(l->tp * l->dp * l->pp, c.world);
      EXPECT_EQ(l->ep, m.moe.routed_experts > 0 ? c.world / o.pp : 1);
    }
    EXPECT_EQ(got, c.expected);
  }
}

}  // namespace
}  // namespace preflight
