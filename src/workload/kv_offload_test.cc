#include "workload/kv_offload.h"

#include <gtest/gtest.h>

#include "core/bytes.h"

namespace preflight {
namespace {

TEST(KvOffload, TokensEachTierHolds) {
  // DeepSeek-V3 at TP 2 x DP 8 on two nodes: 70,272 B of latent per token on each rank, stored by both TP ranks.
  KvOffloadInputs in;
  in.offload_bytes_per_node = 1024 * kGiB;
  in.nodes = 2;
  in.dp_groups = 8;
  in.tp = 2;
  in.stage_bytes_per_token = {70272};
  in.gpu_kv_bytes = 50 * kGB;
  in.gpu_bytes_per_token = 70272;
  in.prompt_tokens = 32768;
  const auto o = kv_offload(in);
  EXPECT_EQ(o.group_bytes_per_token, 140544u);
  EXPECT_EQ(o.gpu_tokens, (50 * kGB / 70272) * 8);
  EXPECT_EQ(o.cpu_tokens, 2 * 1024 * kGiB / 140544);
  EXPECT_EQ(o.cpu_prompts, o.cpu_tokens / 32768);
  ASSERT_EQ(o.figures.size(), 4u);
  for (const auto& f : o.figures) EXPECT_EQ(f.evidence, Evidence::hypothesis) << f.id;
}

TEST(KvOffload, PipelineStagesAddTheirLayersAndStateOnlyModelsHaveNoTokens) {
  KvOffloadInputs in;
  in.offload_bytes_per_node = kGiB;
  in.tp = 4;
  in.stage_bytes_per_token = {1000, 1200};
  in.gpu_bytes_per_token = 1200;
  in.gpu_kv_bytes = 1200 * 10;
  EXPECT_EQ(kv_offload(in).group_bytes_per_token, 4u * 2200);
  EXPECT_EQ(kv_offload(in).gpu_tokens, 10u);
  in.stage_bytes_per_token = {0};
  EXPECT_TRUE(kv_offload(in).figures.empty());
}

}  // namespace
}  // namespace preflight
