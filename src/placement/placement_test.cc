// Placement: each rank's share of every stored tensor. The PlacementIndex (a
// grouped, prefix-summed index the solvers query thousands of times) must
// agree byte for byte with a brute-force walk over the manifest that applies
// the rules of placement.h tensor by tensor.
#include "placement/placement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "model/model_catalogue.h"
#include "support/fixtures.h"

namespace preflight {
namespace {

const ModelSpec& model(const std::string& name) { return testing::catalogue_model(name); }

// The rules of placement.h, written out per tensor.
struct BruteRank {
  std::map<ModuleClass, std::uint64_t> by_module;
  std::uint64_t total = 0;
  std::uint64_t experts = 0;
};

BruteRank brute_force(const ModelSpec& m, const Layout& l, std::uint64_t rank) {
  const auto per_stage = l.tp * l.dp;
  const auto stage = rank / per_stage;
  const auto local = rank % per_stage;
  const auto tp_rank = rank % l.tp;
  const auto ep_group = local / l.moe_tp;
  const auto moe_rank = local % l.moe_tp;
  const bool first_stage = stage == 0, last_stage = stage + 1 == l.pp;
  std::uint64_t first = 0;
  for (std::uint64_t s = 0; s < stage; ++s) first += l.stage_layers[s];
  const auto end = first + l.stage_layers[stage];
  const auto decoder = m.layers.size();
  // Experts dealt in contiguous blocks over the EP groups, the first E % EP groups one more.
  const auto E = m.moe.routed_experts;
  const auto base = E / l.ep, extra = E % l.ep;
  const auto begin_e = ep_group * base + std::min(ep_group, extra);
  const auto end_e = begin_e + base + (ep_group < extra ? 1 : 0);

  BruteRank out;
  out.experts = E > 0 ? end_e - begin_e : 0;
  for (const auto& t : m.manifest.tensors) {
    bool here = false;
    if (t.layer != kNoLayer) {
      const auto layer = static_cast<std::uint64_t>(t.layer);
      here = layer < decoder ? (layer >= first && layer < end) : last_stage;  // MTP layers sit with the LM head
    } else {
      const bool first_resident = t.module == ModuleClass::embedding || t.module == ModuleClass::vision_tower ||
                                  t.module == ModuleClass::projector;
      here = first_resident ? first_stage : last_stage;
    }
    if (!here) continue;
    std::uint64_t share = 0;
    if (t.role == ParallelRole::expert && E > 0) {
      const auto lo = std::max<std::uint64_t>(t.first_instance, begin_e);
      const auto hi = std::min<std::uint64_t>(t.first_instance + t.instances, end_e);
      const auto owned = hi > lo ? t.bytes_each * (hi - lo) : 0;
      share = owned / l.moe_tp + (moe_rank < owned % l.moe_tp ? 1 : 0);
    } else if (t.role == ParallelRole::replicated || t.role == ParallelRole::expert) {
      share = t.bytes();
    } else {
      // column / vocab split dimension 0, row dimension 1 (of a 2-D tensor); the first
      // dim % TP ranks take one more slice.
      const std::size_t axis = t.role == ParallelRole::row && t.shape.size() > 1 ? 1 : 0;
      const auto dim = t.shape.empty() || t.shape[axis] == 0 ? 1 : t.shape[axis];
      // SGLang's DP attention splits the LM head, dense MLPs and shared experts over the whole stage.
      const bool over_stage =
          l.dense_over_stage && (t.module == ModuleClass::lm_head || t.module == ModuleClass::dense_mlp ||
                                 t.module == ModuleClass::shared_experts);
      const auto n = over_stage ? per_stage : l.tp;
      const auto i = over_stage ? local : tp_rank;
      const auto slices = dim / n + (i < dim % n ? 1 : 0);
      share = t.bytes_each * slices / dim * t.instances;
    }
    if (share == 0) continue;
    out.by_module[t.module] += share;
    out.total += share;
  }
  return out;
}

// What the whole cluster holds: split tensors once per TP group (DP groups per stage),
// replicated tensors on every rank of their stage, routed experts once per stage set.
std::uint64_t expected_cluster_bytes(const ModelSpec& m, const Layout& l) {
  std::uint64_t sum = 0;
  for (const auto& t : m.manifest.tensors) {
    if (t.role == ParallelRole::expert && m.moe.routed_experts > 0)
      sum += t.bytes();
    else if (t.role == ParallelRole::replicated || t.role == ParallelRole::expert)
      sum += t.bytes() * l.stage_ranks();
    else if (l.dense_over_stage && splits_over_stage(t.module))
      sum += t.bytes();  // one copy per stage
    else
      sum += t.bytes() * l.dp;
  }
  return sum;
}

struct PlacementCase {
  const char* what;
  const char* model;
  std::uint64_t world;
  LayoutOptions options;
  std::uint64_t tp, dp, ep, moe_tp, pp;
};

const PlacementCase kCases[] = {
    // K3 on 8 GPUs: TP 8, EP 8 (112 experts per rank per MoE layer).
    {"kimi-k3 TP8 EP8", "kimi-k3", 8, {.tp = 8}, 8, 1, 8, 1, 1},
    // 896 experts over 48 GPUs: 32 ranks hold 19, 16 hold 18 (uneven; plan_test counts them too).
    {"kimi-k3 48 GPUs", "kimi-k3", 48, {}, 48, 1, 48, 1, 1},
    // DeepSeek-V3 TP4 PP2: stages of 4 GPUs (EP 4), the MTP layer on the last stage.
    {"deepseek-v3 TP4 PP2", "deepseek-v3", 8, {.tp = 4, .pp = 2}, 4, 1, 4, 1, 2},
    // DP attention and MoE-TP: TP 4 x DP 2 per stage, EP 4, each expert split over 2 ranks.
    {"deepseek-v3 TP4 DP2 EP4 PP2", "deepseek-v3", 16, {.tp = 4, .ep = 4, .pp = 2}, 4, 2, 4, 2, 2},
    // Mixtral TP2 EP1: both experts' halves on each rank (MoE-TP 2).
    {"mixtral TP2 EP1", "mixtral-8x7b", 2, {.tp = 2, .ep = 1}, 2, 1, 1, 2, 1},
    // Llama-3.1-8B PP4: 8 layers per stage, TP 1.
    {"llama-3.1-8b PP4", "llama-3.1-8b", 4, {.tp = 1, .pp = 4}, 1, 1, 1, 1, 4},
    // Llama TP 32 x DP 2 (the 64-GPU default).
    {"llama-3.1-8b 64 GPUs", "llama-3.1-8b", 64, {}, 32, 2, 1, 64, 1},
    // gpt-oss-20b TP4: fused expert tensors (one stored tensor for 32 experts), EP 4.
    {"gpt-oss-20b TP4", "gpt-oss-20b", 4, {.tp = 4}, 4, 1, 4, 1, 1},
    // SGLang DP attention: attention TP 1 x DP 8, LM head, dense MLPs and shared experts split 8 ways.
    {"deepseek-v3 SGLang TP1 DP8", "deepseek-v3", 8, {.tp = 1, .dp = 8, .dense_over_stage = true}, 1, 8, 8, 1, 1},
    // The same over two stages, attention TP 2 x DP 4 each.
    {"deepseek-v3 SGLang TP2 DP4 PP2",
     "deepseek-v3",
     16,
     {.tp = 2, .pp = 2, .dp = 4, .dense_over_stage = true},
     2,
     4,
     8,
     1,
     2},
};

TEST(Placement, IndexAgreesWithBruteForce) {
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.what);
    const auto& m = model(c.model);
    const auto l = choose_layout(m, c.world, c.options).value_or_throw();
    ASSERT_EQ(l.tp, c.tp);
    ASSERT_EQ(l.dp, c.dp);
    ASSERT_EQ(l.ep, c.ep);
    ASSERT_EQ(l.moe_tp, c.moe_tp);
    ASSERT_EQ(l.pp, c.pp);
    const PlacementIndex index(m.manifest, m.layers.size(), m.moe.routed_experts);
    for (std::uint64_t r = 0; r < l.world; ++r) {
      SCOPED_TRACE(::testing::Message() << "rank " << r);
      const auto got = index.rank_weights(l, r);
      const auto want = brute_force(m, l, r);
      EXPECT_EQ(got.rank, r);
      EXPECT_EQ(got.stage, l.stage_of(r));
      EXPECT_EQ(got.total, want.total);
      EXPECT_EQ(got.bytes_by_module, want.by_module);
      EXPECT_EQ(got.experts_per_moe_layer, want.experts);
    }
  }
}

// Expert tensors that cover only some experts, with different sizes (a per-expert
// ignore list keeps some experts in BF16): the index keeps its sums only at the
// breakpoints where ranges start or end, so ranges that start and end inside an
// EP block and blocks that straddle a breakpoint must still agree with the walk.
TEST(Placement, UnevenExpertRangesAgreeWithBruteForce) {
  ModelSpec m = model("deepseek-v3");
  const auto E = static_cast<std::uint32_t>(m.moe.routed_experts);  // 256
  std::vector<StoredTensor> split;
  std::uint32_t n = 0;
  for (const auto& t : m.manifest.tensors) {
    if (t.role != ParallelRole::expert || t.instances != E) {
      split.push_back(t);
      continue;
    }
    // Layer by layer a different cut: experts [0, a) as stored, [a, b) twice the
    // bytes, [b, E) as stored; every third layer leaves a hole [b, b + 3) empty.
    const std::uint32_t a = 3 + (n * 7) % 40, b = a + 1 + (n * 13) % 90;
    ++n;
    StoredTensor lo = t, mid = t, hi = t;
    lo.instances = a;
    mid.first_instance = a;
    mid.instances = b - a;
    mid.bytes_each = t.bytes_each * 2;
    const std::uint32_t gap = (n % 3 == 0) ? 3 : 0;
    hi.first_instance = b + gap;
    hi.instances = E - b - gap;
    split.insert(split.end(), {lo, mid, hi});
  }
  ASSERT_GT(n, 0u);
  m.manifest.tensors = split;
  const PlacementIndex index(m.manifest, m.layers.size(), E);
  const struct {
    std::uint64_t world;
    LayoutOptions options;
  } layouts[] = {{8, {.tp = 8}}, {16, {.tp = 4, .ep = 4, .pp = 2}}, {24, {.tp = 8, .pp = 3}}, {6, {.tp = 2, .pp = 3}}};
  for (const auto& c : layouts) {
    const auto l = choose_layout(m, c.world, c.options).value_or_throw();
    SCOPED_TRACE(::testing::Message() << "TP " << l.tp << " EP " << l.ep << " PP " << l.pp);
    for (std::uint64_t r = 0; r < l.world; ++r) {
      SCOPED_TRACE(::testing::Message() << "rank " << r);
      const auto got = index.rank_weights(l, r);
      const auto want = brute_force(m, l, r);
      EXPECT_EQ(got.total, want.total);
      EXPECT_EQ(got.bytes_by_module, want.by_module);
    }
  }
  // Experts differ in size, so every EP group is a representative rank.
  const auto l = choose_layout(m, 8, {.tp = 8}).value_or_throw();
  EXPECT_EQ(index.representative_ranks(l).size(), l.ep);
}

TEST(Placement, ClusterTotalsCountReplicationOnly) {
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.what);
    const auto& m = model(c.model);
    const auto l = choose_layout(m, c.world, c.options).value_or_throw();
    const auto ranks = place_weights(m.manifest, l, m.layers.size(), m.moe.routed_experts);
    ASSERT_EQ(ranks.size(), l.world);
    std::uint64_t sum = 0;
    for (const auto& r : ranks) sum += r.total;
    EXPECT_EQ(sum, expected_cluster_bytes(m, l));
    // With one TP group per stage (DP 1), the cluster holds the payload plus the extra copies
    // of the replicated tensors: payload + (ranks per stage - 1) x replicated.
    if (l.dp == 1) {
      const PlacementIndex index(m.manifest, m.layers.size(), m.moe.routed_experts);
      EXPECT_EQ(sum, m.manifest.payload_bytes() + (l.stage_ranks() - 1) * index.replicated_bytes());
    }
  }
}

// SGLang's DP attention (deepseek_v2.py: ParallelLMHead without enable_dp_lm_head, the
// dense MLP and the shared experts at the full --tp): on DeepSeek-V3 at attention TP 1 x
// DP 8, a rank holds an eighth of the LM head (129,280 / 8 rows), of the dense MLPs
// (18,432 / 8) and of the shared experts (2,048 / 8), and attention and the embedding whole,
// as at TP 1 with DP groups that each hold everything (vLLM's DP ranks).
TEST(Placement, SglangDpAttentionSplitsTheDenseParts) {
  const auto& m = model("deepseek-v3");
  const PlacementIndex index(m.manifest, m.layers.size(), m.moe.routed_experts);
  const auto whole = choose_layout(m, 8, {.tp = 1, .dp = 8}).value_or_throw();
  const auto split = choose_layout(m, 8, {.tp = 1, .dp = 8, .dense_over_stage = true}).value_or_throw();
  ASSERT_FALSE(whole.dense_over_stage);
  ASSERT_TRUE(split.dense_over_stage);
  for (std::uint64_t rank : {0u, 3u, 7u}) {
    const auto a = index.rank_weights(whole, rank);
    const auto b = index.rank_weights(split, rank);
    for (const auto& [module, bytes] : a.bytes_by_module) {
      SCOPED_TRACE(std::string(module_key(module)));
      const auto got = b.bytes_by_module.count(module) ? b.bytes_by_module.at(module) : 0;
      if (splits_over_stage(module))
        EXPECT_EQ(got * 8, bytes);
      else
        EXPECT_EQ(got, bytes);
    }
  }
  // A stage of one attention group (DP 1) is unchanged by the flag.
  const auto tp8 = choose_layout(m, 8, {.tp = 8, .dense_over_stage = true}).value_or_throw();
  EXPECT_FALSE(tp8.dense_over_stage);
}

TEST(Placement, RoutedExpertsArePlacedExactlyOnce) {
  // K3 on 48 GPUs: 1,446,456,066,048 B of routed experts in all (plan_test).
  const auto& m = model("kimi-k3");
  const auto l = choose_layout(m, 48, {}).value_or_throw();
  const auto ranks = place_weights(m.manifest, l, m.layers.size(), m.moe.routed_experts);
  std::uint64_t experts = 0;
  for (const auto& r : ranks)
    experts +=
        r.bytes_by_module.count(ModuleClass::routed_experts) ? r.bytes_by_module.at(ModuleClass::routed_experts) : 0;
  EXPECT_EQ(experts, 1'446'456'066'048u);
  // 896 = 48 x 18 + 32: the first 32 ranks hold 19 experts per MoE layer, the rest 18.
  EXPECT_EQ(ranks[0].experts_per_moe_layer, 19u);
  EXPECT_EQ(ranks[31].experts_per_moe_layer, 19u);
  EXPECT_EQ(ranks[32].experts_per_moe_layer, 18u);
  EXPECT_EQ(ranks[47].experts_per_moe_layer, 18u);
  EXPECT_GT(ranks[0].total, ranks[47].total);
}

TEST(Placement, PipelineStagesHoldTheirEnds) {
  struct StageEnds {
    const char* model;
    std::uint64_t world;
    LayoutOptions options;
  };
  const StageEnds cases[] = {
      {"llama-3.1-8b", 4, {.tp = 1, .pp = 4}},
      {"deepseek-v3", 8, {.tp = 4, .pp = 2}},
      {"kimi-k3", 16, {.tp = 8, .pp = 2}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.model);
    const auto& m = model(c.model);
    const auto l = choose_layout(m, c.world, c.options).value_or_throw();
    const auto ranks = place_weights(m.manifest, l, m.layers.size(), m.moe.routed_experts);
    for (const auto& r : ranks) {
      SCOPED_TRACE(::testing::Message() << "rank " << r.rank << " stage " << r.stage);
      const bool first = r.stage == 0, last = r.stage + 1 == l.pp;
      EXPECT_EQ(r.bytes_by_module.count(ModuleClass::embedding) > 0, first);
      EXPECT_EQ(r.bytes_by_module.count(ModuleClass::lm_head) > 0, last);
      if (m.mtp_layers > 0) {
        EXPECT_EQ(r.bytes_by_module.count(ModuleClass::mtp) > 0, last);
      }
      if (r.bytes_by_module.count(ModuleClass::vision_tower)) {
        EXPECT_TRUE(first);
      }
    }
  }
  // Llama-3.1-8B PP4: the middle stages hold 8 decoder layers and nothing else, so they weigh the same.
  const auto& llama = model("llama-3.1-8b");
  const auto l = choose_layout(llama, 4, {.tp = 1, .pp = 4}).value_or_throw();
  const auto ranks = place_weights(llama.manifest, l, llama.layers.size(), 0);
  EXPECT_EQ(ranks[1].total, ranks[2].total);
  EXPECT_GT(ranks[0].total, ranks[1].total);  // + embedding
  EXPECT_GT(ranks[3].total, ranks[1].total);  // + LM head and final norm
}

TEST(Placement, RepresentativeRanksAreTheHeaviest) {
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.what);
    const auto& m = model(c.model);
    const auto l = choose_layout(m, c.world, c.options).value_or_throw();
    const PlacementIndex index(m.manifest, m.layers.size(), m.moe.routed_experts);
    const auto reps = index.representative_ranks(l);
    ASSERT_FALSE(reps.empty());
    std::vector<std::uint64_t> heaviest(l.pp, 0), heaviest_rep(l.pp, 0);
    for (std::uint64_t r = 0; r < l.world; ++r)
      heaviest[l.stage_of(r)] = std::max(heaviest[l.stage_of(r)], index.rank_weights(l, r).total);
    std::vector<bool> stage_seen(l.pp, false);
    for (auto r : reps) {
      ASSERT_LT(r, l.world);
      stage_seen[l.stage_of(r)] = true;
      heaviest_rep[l.stage_of(r)] = std::max(heaviest_rep[l.stage_of(r)], index.rank_weights(l, r).total);
    }
    for (std::uint64_t s = 0; s < l.pp; ++s) {
      EXPECT_TRUE(stage_seen[s]) << "stage " << s;
      EXPECT_EQ(heaviest_rep[s], heaviest[s]) << "stage " << s;
    }
  }
}

}  // namespace
}  // namespace preflight
