// The quantized RedHatAI entries of the model catalogue, checked against what
// their real Hugging Face files say.
//
// Only facts read from a real source are asserted here. What was found
// (search of the public GitHub code index and of the Hugging Face pages in the
// docs / pages corpora):
//
//   qwen2.5-7b-instruct-w8a8 (RedHatAI/Qwen2.5-7B-Instruct-quantized.w8a8):
//     the head of config.json, through quantization_config/ignore, from
//     https://huggingface.co/RedHatAI/Qwen2.5-7B-Instruct-quantized.w8a8/blob/main/config.json
//     (no commit shown): quant_method compressed-tensors, format int-quantized,
//     one group targeting "Linear" with INT8 symmetric per-channel weights and
//     dynamic per-token INT8 input activations, ignore ["lm_head"],
//     num_hidden_layers 28. Its model.safetensors.index.json (metadata.total_size)
//     was NOT found, so no payload bytes or tensor count are asserted: the
//     computed 8,708,725,760 B / 535 tensors is a derivation, not a fact.
//
//   llama-3.3-70b-instruct-fp8-dynamic, llama-3.3-70b-instruct-w8a8,
//   llama-3.1-8b-instruct-w4a16, llama-3.1-8b-instruct-w8a8,
//   qwen2.5-7b-instruct-fp8-dynamic: neither the repo's config.json nor its
//     index total was found; their catalogue configs are still the 16-bit base
//     configs, and nothing is asserted for them.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "model/model_catalogue.h"

namespace preflight {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) { return s.ends_with(suffix); }

// Facts read from the head of the repo's config.json (see the file comment).
TEST(QuantizedCatalogue, Qwen25W8a8FollowsItsRealQuantizationConfig) {
  const auto loaded = load_catalogue_model("qwen2.5-7b-instruct-w8a8", "test");
  ASSERT_TRUE(loaded.ok()) << loaded.error().to_string();
  const ModelSpec& m = *loaded;

  // "quant_method": "compressed-tensors", "format": "int-quantized"
  EXPECT_EQ(m.quantization.method, "compressed-tensors");
  EXPECT_EQ(m.quantization.format, "int-quantized");
  ASSERT_EQ(m.quantization.groups.size(), 1u);
  EXPECT_EQ(m.quantization.groups[0].num_bits, 8u);
  EXPECT_EQ(m.quantization.groups[0].type, "int");
  EXPECT_TRUE(m.quantization.groups[0].symmetric);
  EXPECT_EQ(m.quantization.groups[0].strategy, ScaleStrategy::channel);

  // 28 decoder layers x 7 Linear modules (q, k, v, o, gate, up, down), each an
  // INT8 weight with a per-channel scale [out, 1]; "dynamic": true input
  // activations store no input_scale; "ignore": ["lm_head"] keeps the LM head
  // in the model dtype.
  std::uint64_t int8_weights = 0, channel_scales = 0, input_scales = 0;
  bool lm_head_seen = false;
  for (const auto& t : m.manifest.tensors) {
    if (t.name.find("input_scale") != std::string::npos) ++input_scales;
    if (t.name == "lm_head.weight") {
      lm_head_seen = true;
      EXPECT_EQ(t.dtype, Dtype::BF16) << t.name;
    }
    if (t.name.find("model.layers.") != 0) continue;
    if (ends_with(t.name, "_proj.weight")) {
      EXPECT_EQ(t.dtype, Dtype::I8) << t.name;
      int8_weights += t.instances;
    } else if (ends_with(t.name, "_proj.weight_scale")) {
      ASSERT_EQ(t.shape.size(), 2u) << t.name;
      EXPECT_EQ(t.shape[1], 1u) << t.name;
      channel_scales += t.instances;
    }
  }
  EXPECT_TRUE(lm_head_seen);
  EXPECT_EQ(int8_weights, 28u * 7u);
  EXPECT_EQ(channel_scales, 28u * 7u);
  EXPECT_EQ(input_scales, 0u);
}

}  // namespace
}  // namespace preflight
