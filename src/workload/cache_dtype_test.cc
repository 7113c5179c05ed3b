#include "workload/cache_dtype.h"

#include <gtest/gtest.h>

namespace preflight {
namespace {

TEST(CacheDtype, NamesParseOnceToTypes) {
  struct Case {
    const char* text;
    KvDtype dtype;
    std::uint64_t bytes;
    const char* key;
  };
  for (const auto& c : std::vector<Case>{{"auto", KvDtype::automatic, 2, "auto"},
                                         {"bf16", KvDtype::bf16, 2, "bf16"},
                                         {"BFloat16", KvDtype::bf16, 2, "bf16"},
                                         {"fp16", KvDtype::fp16, 2, "fp16"},
                                         {"float32", KvDtype::fp32, 4, "fp32"},
                                         {"fp8", KvDtype::fp8, 1, "fp8"},
                                         {"fp8_e4m3", KvDtype::fp8, 1, "fp8"},
                                         {"fp8_e5m2", KvDtype::fp8, 1, "fp8"}}) {
    const auto d = parse_kv_dtype(c.text, "--kv-dtype").value_or_throw();
    EXPECT_EQ(d, c.dtype) << c.text;
    EXPECT_EQ(kv_dtype_bytes(d), c.bytes) << c.text;
    EXPECT_EQ(dtype_key(d), c.key) << c.text;
    EXPECT_EQ(fmt::format("{}", d), c.key);
  }
  auto bad = parse_kv_dtype("fp4", "--kv-dtype");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().to_string(), "--kv-dtype: expected auto, bf16, fp16, fp32 or fp8, got 'fp4'");
  EXPECT_EQ(parse_state_dtype("bfloat16", "--state-dtype").value_or_throw(), StateDtype::bf16);
  EXPECT_EQ(state_dtype_bytes(StateDtype::fp32), 4u);
  EXPECT_FALSE(parse_state_dtype("fp8", "--state-dtype").ok());
}

TEST(CacheDtype, AutoResolvesToTheModelsWidth) {
  EXPECT_EQ(resolve_kv_dtype(KvDtype::automatic, 16), KvDtype::bf16);
  EXPECT_EQ(resolve_kv_dtype(KvDtype::automatic, 32), KvDtype::fp32);
  EXPECT_EQ(resolve_kv_dtype(KvDtype::fp8, 32), KvDtype::fp8);
}

}  // namespace
}  // namespace preflight
