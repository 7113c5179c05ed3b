#include "plan/disaggregated.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"

namespace preflight {
namespace {

using testing::catalogue_gpu;
using testing::catalogue_model;

Layout layout_of(const char* model, const char* gpu, std::uint64_t gpus, std::uint64_t tp) {
  PlanRequest r;
  r.gpu_count = gpus;
  r.layout.tp = tp;
  r.perf.enabled = false;
  return build_plan(catalogue_model(model), catalogue_gpu(gpu), r).value_or_throw().layout;
}

WorkloadOptions bf16() {
  WorkloadOptions w;
  w.kv_dtype = KvDtype::bf16;
  return w;
}

// The bytes a prompt's cache takes, from the configs' own numbers (not the
// request-state code): DeepSeek-V3 keeps one MLA latent per layer, 61 x (512
// + 64) x 2 B = 70,272 B per token on every rank; Llama 3.1 70B keeps K and V
// of 8 heads of 128 in 80 layers, 327,680 B per token, an eighth per rank at TP 8.
TEST(Disaggregated, KvTransferFromTheCachePerToken) {
  struct Case {
    const char* model;
    const char* gpu;
    std::uint64_t gpus, tp, prompt;
    std::uint64_t whole, per_rank;
  };
  for (const auto& c : std::vector<Case>{
           {"deepseek-v3", "H200", 8, 8, 4096, 70272ULL * 4096, 70272ULL * 4096},
           {"llama-3.1-70b", "H100", 8, 8, 8192, 327680ULL * 8192, 40960ULL * 8192},
       }) {
    const auto layout = layout_of(c.model, c.gpu, c.gpus, c.tp);
    const auto t = kv_transfer(catalogue_model(c.model), layout, bf16(), c.prompt, 50.0, 2.0);
    EXPECT_EQ(t.bytes_per_request, c.whole) << c.model;
    EXPECT_EQ(t.bytes_per_decode_rank, c.per_rank) << c.model;
    EXPECT_DOUBLE_EQ(t.seconds, static_cast<double>(c.per_rank) / 50e9) << c.model;
    EXPECT_DOUBLE_EQ(t.link_share, 2.0 * static_cast<double>(c.whole) / (static_cast<double>(c.gpus) * 50e9));
    EXPECT_NE(find_figure(t.figures, "disagg.kv_transfer.seconds"), nullptr);
  }
}

// A fixed-state layer kind travels once per request whatever the prompt:
// Kimi K3's KDA state makes a 1-token prompt's transfer far more than one token of MLA cache.
TEST(Disaggregated, RecurrentStateTravelsWithThePrompt) {
  const auto& k3 = catalogue_model("kimi-k3");
  const auto layout = layout_of("kimi-k3", "B300", 8, 8);
  const auto one = kv_transfer(k3, layout, bf16(), 1, 50.0, 0);
  const auto two = kv_transfer(k3, layout, bf16(), 2, 50.0, 0);
  const auto per_token = two.bytes_per_request - one.bytes_per_request;
  EXPECT_GT(per_token, 0u);
  EXPECT_GT(one.bytes_per_request, 100 * per_token);
  EXPECT_EQ(one.link_share, 0.0);
}

TEST(Disaggregated, CombinedVerdictNamesThePoolThatFails) {
  Plan green, red_kv, red_tpot;
  green.verdict.fits = true;
  green.verdict.headroom_bytes = 5'000'000'000;
  red_kv.verdict.fits = false;
  red_kv.verdict.first_boundary = Resource::kv_cache;
  red_kv.verdict.headroom_bytes = -1'000'000'000;
  red_kv.verdict.summary = "does not fit: first boundary crossed: kv_cache";
  red_tpot.verdict.fits = false;
  red_tpot.verdict.first_boundary = Resource::tpot;
  red_tpot.verdict.headroom_bytes = 2'000'000'000;
  red_tpot.verdict.summary = "does not meet the latency targets";
  KvTransfer idle, busy;
  busy.link_share = 1.2;
  struct Case {
    const Plan* prefill;
    const Plan* decode;
    const KvTransfer* transfer;
    bool fits;
    Resource boundary;
    const char* says;
  };
  for (const auto& c : std::vector<Case>{{&green, &green, &idle, true, Resource::none, "both pools fit"},
                                         {&red_kv, &green, &idle, false, Resource::kv_cache, "the prefill pool"},
                                         {&green, &red_tpot, &idle, false, Resource::tpot, "the decode pool"},
                                         {&green, &green, &busy, false, Resource::ttft, "scale-out links"}}) {
    const auto v = combined_verdict(*c.prefill, *c.decode, *c.transfer);
    EXPECT_EQ(v.fits, c.fits) << c.says;
    EXPECT_EQ(v.first_boundary, c.boundary) << c.says;
    EXPECT_NE(v.summary.find(c.says), std::string::npos) << v.summary;
    EXPECT_EQ(v.headroom_bytes, std::min(c.prefill->verdict.headroom_bytes, c.decode->verdict.headroom_bytes));
  }
}

}  // namespace
}  // namespace preflight
