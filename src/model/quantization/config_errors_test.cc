// Bad quantization configs give one line naming the field, shapes a format
// cannot store are named, and the FP8 block layout matches the DeepSeek-V3 and
// Kimi-K2 checkpoints' exact totals.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <string>
#include <tuple>

#include "model/inventory.h"
#include "model/quantization.h"
#include "model/quantization/quantization_test_support.h"

namespace preflight {
namespace {

using namespace quantization_test;

TEST(QuantConfigErrors, EachBadFieldIsNamedOnOneLine) {
  const std::string ct_head = R"({"quant_method": "compressed-tensors", "format": ")";
  auto ct = [&](const std::string& format, const std::string& weights, const std::string& extra = "") {
    return ct_head + format + R"(", "config_groups": {"group_0": {"targets": ["Linear"], "weights": )" + weights + "" +
           extra + "}}}";
  };
  const std::pair<std::string, std::string> cases[] = {
      {R"({"quant_method": "hqq"})",
       "config.json: /quantization_config/quant_method: quantization method 'hqq' is not supported yet"},
      {R"({"bits": 4})", "config.json: /quantization_config/quant_method: missing string"},
      {R"({"quant_method": 4})", "config.json: /quantization_config/quant_method: expected a string, got 4"},
      {R"([1])", "config.json: /quantization_config: expected an object, got [1]"},
      // fp8
      {R"({"quant_method": "fp8", "fmt": "e5m2", "weight_block_size": [128, 128]})",
       "config.json: /quantization_config/fmt: FP8 format 'e5m2' is not supported (expected \"e4m3\" or "
       "\"float8_e4m3fn\")"},
      {R"({"quant_method": "fp8", "weight_block_size": [0, 128]})",
       "config.json: /quantization_config/weight_block_size/0: block size must be positive, got 0"},
      {R"({"quant_method": "fp8", "weight_block_size": [128, 4294967296]})",
       "config.json: /quantization_config/weight_block_size/1: block size 4294967296 is implausibly large"},
      {R"({"quant_method": "fp8", "weight_block_size": [128]})",
       "config.json: /quantization_config/weight_block_size: expected [rows, columns], got 1 values"},
      {R"({"quant_method": "fp8", "weight_block_size": [128, -128]})",
       "config.json: /quantization_config/weight_block_size/1: expected a non-negative integer, got -128"},
      {R"({"quant_method": "fp8", "activation_scheme": "static", "weight_block_size": [128, 128]})",
       "config.json: /quantization_config/activation_scheme: static activation scales with weight_block_size: "
       "block-wise FP8 checkpoints use dynamic activation scaling (vLLM rejects this combination)"},
      {R"({"quant_method": "fp8", "activation_scheme": "sometimes"})",
       "config.json: /quantization_config/activation_scheme: expected \"dynamic\" or \"static\", got \"sometimes\""},
      {R"({"quant_method": "fp8", "weight_block_size": [128, 128], "modules_to_not_convert": "lm_head"})",
       "config.json: /quantization_config/modules_to_not_convert: expected a list of strings, got \"lm_head\""},
      {R"({"quant_method": "fp8", "weight_block_size": [128, 128], "ignored_layers": ["lm_head", 7]})",
       "config.json: /quantization_config/ignored_layers/1: expected a string, got 7"},
      // mxfp4 (gpt-oss)
      {R"({"quant_method": "mxfp4", "modules_to_not_convert": ["*.self_attn"]})",
       "config.json: /quantization_config/modules_to_not_convert/0: '*.self_attn' is neither a module name nor a valid "
       "regular expression"},
      {R"({"quant_method": "mxfp4", "modules_to_not_convert": [""]})",
       "config.json: /quantization_config/modules_to_not_convert/0: empty module pattern (it would exclude every "
       "module)"},
      // compressed-tensors
      {ct("mxfp4-pack-quantized", R"({"num_bits": 3, "type": "float", "strategy": "group", "group_size": 32})"),
       "config.json: /quantization_config/config_groups/group_0/weights/num_bits: mxfp4-pack-quantized stores 4-bit "
       "values, got 3"},
      {ct("mxfp4-pack-quantized", R"({"num_bits": 4, "type": "int", "strategy": "group", "group_size": 32})"),
       "config.json: /quantization_config/config_groups/group_0/weights/type: mxfp4-pack-quantized stores float "
       "(E2M1) values, got type 'int'"},
      {ct("nvfp4-pack-quantized", R"({"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 32})"),
       "config.json: /quantization_config/config_groups/group_0/weights/group_size: nvfp4-pack-quantized uses groups "
       "of 16, got 32"},
      {ct("pack-quantized", R"({"num_bits": 3, "strategy": "group", "group_size": 128})"),
       "config.json: /quantization_config/config_groups/group_0/weights/num_bits: pack-quantized packs 2, 4 or 8-bit "
       "integers into I32, got 3"},
      {ct("float-quantized", R"({"num_bits": 4, "type": "float", "strategy": "channel"})"),
       "config.json: /quantization_config/config_groups/group_0/weights/num_bits: float-quantized stores FP8 (E4M3) "
       "values, got 4 bits"},
      {ct("int-quantized", R"({"num_bits": 8, "strategy": "tensor_group", "group_size": 16})"),
       "config.json: /quantization_config/config_groups/group_0/weights/strategy: tensor_group scales belong to "
       "nvfp4-pack-quantized, not int-quantized"},
      {ct("sparse-24", R"({"num_bits": 8})"),
       "config.json: /quantization_config/config_groups/group_0: compressed-tensors format 'sparse-24' is not "
       "supported yet (from quantization_config/format)"},
      {ct("int-quantized", R"({"num_bits": 8, "strategy": "row"})"),
       "config.json: /quantization_config/config_groups/group_0/weights/strategy: weight strategy 'row' is not "
       "supported (expected tensor, channel, group, block or tensor_group)"},
      {ct("pack-quantized", R"({"num_bits": 4, "strategy": "group"})"),
       "config.json: /quantization_config/config_groups/group_0/weights/group_size: missing positive integer"},
      {ct("pack-quantized", R"({"num_bits": 4, "strategy": "group", "group_size": 0})"),
       "config.json: /quantization_config/config_groups/group_0/weights/group_size: expected a positive integer, got "
       "0"},
      {ct("float-quantized", R"({"num_bits": 8, "type": "float", "strategy": "block", "block_structure": [128]})"),
       "config.json: /quantization_config/config_groups/group_0/weights/block_structure: expected [rows, columns], got "
       "1 values"},
      {ct("int-quantized", R"({"num_bits": 8, "type": "fp"})"),
       "config.json: /quantization_config/config_groups/group_0/weights/type: expected \"int\" or \"float\", got "
       "\"fp\""},
      {ct("int-quantized", R"({"num_bits": 8, "scale_dtype": "torch.float128"})"),
       "config.json: /quantization_config/config_groups/group_0/weights/scale_dtype: unknown dtype 'torch.float128'"},
      {ct("int-quantized", R"({"num_bits": 8})", R"(, "output_activations": {"num_bits": 8})"),
       "config.json: /quantization_config/config_groups/group_0/output_activations: output activation quantization is "
       "not supported yet"},
      {ct("int-quantized", R"({"num_bits": 8})", R"(, "input_activations": {"num_bits": 8, "dynamic": "local"})"),
       "config.json: /quantization_config/config_groups/group_0/input_activations/dynamic: \"local\" dynamic scales "
       "are only defined for FP4 (4-bit float) activations"},
      {R"({"quant_method": "compressed-tensors", "config_groups": {"g": {"targets": [], "format": "int-quantized",
          "weights": {"num_bits": 8}}}})",
       "config.json: /quantization_config/config_groups/g/targets: a config group needs at least one target"},
      {R"({"quant_method": "compressed-tensors", "format": "int-quantized"})",
       "config.json: /quantization_config/config_groups: missing object"},
      {R"({"quant_method": "compressed-tensors", "format": "int-quantized", "ignore": ["re:("],
          "config_groups": {"g": {"targets": ["Linear"], "weights": {"num_bits": 8}}}})",
       "config.json: /quantization_config/ignore/0: invalid regular expression 're:('"},
      {R"({"quant_method": "compressed-tensors", "format": "int-quantized", "kv_cache_scheme": 3,
          "config_groups": {"g": {"targets": ["Linear"], "weights": {"num_bits": 8}}}})",
       "config.json: /quantization_config/kv_cache_scheme: expected an object, got 3"},
      {R"({"quant_method": "compressed-tensors", "format": "int-quantized",
          "sparsity_config": {"format": "sparse-24-bitmask"},
          "config_groups": {"g": {"targets": ["Linear"], "weights": {"num_bits": 8}}}})",
       "config.json: /quantization_config/sparsity_config/format: sparsity format 'sparse-24-bitmask' is not supported "
       "yet"},
      // awq
      {R"({"quant_method": "awq", "bits": 3, "group_size": 128})",
       "config.json: /quantization_config/bits: AWQ (GEMM) packs 4-bit weights, got 3"},
      {R"({"quant_method": "awq", "bits": 4, "group_size": 0})",
       "config.json: /quantization_config/group_size: expected a positive integer or -1, got 0"},
      {R"({"quant_method": "awq", "bits": 4, "group_size": 128, "version": "gemv"})",
       "config.json: /quantization_config/version: AWQ version 'gemv' is not supported yet (only \"gemm\")"},
      {R"({"quant_method": "awq", "bits": 4})",
       "config.json: /quantization_config/group_size: missing positive integer or -1"},
      {R"({"quant_method": "awq", "group_size": 128})",
       "config.json: /quantization_config/bits: missing positive integer"},
      {R"({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": "yes"})",
       "config.json: /quantization_config/zero_point: expected true or false, got \"yes\""},
      // gptq
      {R"({"quant_method": "gptq", "bits": 5, "group_size": 128})",
       "config.json: /quantization_config/bits: GPTQ stores 2, 3, 4 or 8-bit weights, got 5"},
      {R"({"quant_method": "gptq", "group_size": 128})",
       "config.json: /quantization_config/bits: missing positive integer"},
      {R"({"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": 1})",
       "config.json: /quantization_config/desc_act: expected true or false, got 1"},
      {R"({"quant_method": "gptq", "bits": 4, "group_size": 128, "checkpoint_format": "marlin"})",
       "config.json: /quantization_config/checkpoint_format: GPTQ checkpoint format 'marlin' is not supported yet "
       "(expected gptq or gptq_v2)"},
      {R"({"quant_method": "gptq", "bits": 4, "group_size": 128, "dynamic": {"+:.*down_proj": {"bits": 5}}})",
       "config.json: /quantization_config/dynamic/+:.*down_proj/bits: GPTQ stores 2, 3, 4 or 8-bit weights, got 5"},
      {R"({"quant_method": "gptq", "bits": 4, "group_size": 128, "dynamic": {".*down_proj": 8}})",
       "config.json: /quantization_config/dynamic/.*down_proj: expected an object, got 8"},
      {R"({"quant_method": "gptq", "bits": 4, "group_size": 128, "dynamic": []})",
       "config.json: /quantization_config/dynamic: expected an object, got []"},
      {R"({"quant_method": "modelopt", "quant_algo": "NVFP4", "config_groups": {"group_0": {"weights": {"group_size": "16"}}}})",
       "config.json: /quantization_config/config_groups/group_0/weights/group_size: expected a positive integer, got "
       "\"16\""},
      {R"({"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION", "quantized_layers": {"model.layers.0.mlp": {"quant_algo": "INT4_AWQ"}}})",
       "config.json: /quantization_config/quantized_layers/model.layers.0.mlp/quant_algo: ModelOpt algorithm "
       "'INT4_AWQ' is "
       "not supported yet (NVFP4, W4A16_NVFP4, FP8 and MIXED_PRECISION of them are)"},
      {R"({"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION"})",
       "config.json: /quantization_config/quantized_layers: missing object"},
      {R"({"quant_method": "modelopt", "quant_algo": "NVFP4", "ignore": "lm_head"})",
       "config.json: /quantization_config/ignore: expected a list of strings, got \"lm_head\""},
      {R"({"quant_method": "modelopt", "quant_algo": "NVFP4", "kv_cache_scheme": {"num_bits": "8", "type": "float"}})",
       "config.json: /quantization_config/kv_cache_scheme/num_bits: expected a positive integer, got \"8\""},
  };
  for (const auto& [config, error] : cases) {
    const auto s = parse(config);
    ASSERT_FALSE(s.ok()) << config;
    EXPECT_EQ(s.error().to_string(), error) << config;
    EXPECT_EQ(s.error().to_string().find('\n'), std::string::npos);
  }
}

TEST(QuantConfigErrors, ShapesAFormatCannotStoreAreNamed) {
  const std::pair<std::string, LogicalTensor> cases[] = {
      {R"({"quant_method": "awq", "bits": 4, "group_size": 100})",
       tensor(kL0 + "self_attn.q_proj.weight", {4096, 4096}, Dtype::F16)},
      {R"({"quant_method": "awq", "bits": 4, "group_size": 128})",
       tensor(kL0 + "self_attn.k_proj.weight", {100, 4096}, Dtype::F16)},
      {R"({"quant_method": "gptq", "bits": 3, "group_size": 128})",
       tensor(kL0 + "self_attn.q_proj.weight", {4096, 100}, Dtype::F16)},
      {R"({"quant_method": "mxfp4"})", expert(kL0 + "mlp.experts.down_proj", {2880, 2881}, 32)},
      {R"({"quant_method": "fp8", "weight_block_size": [128, 128]})",
       tensor(kL0 + "self_attn.q_conv1d.weight", {4096, 1, 4})},
  };
  const char* errors[] = {
      "config.json: /quantization_config: cannot quantize model.layers.0.self_attn.q_proj.weight of shape [4096, 4096] "
      "as awq: group_size 100 does not divide the input dimension 4096",
      "config.json: /quantization_config: cannot quantize model.layers.0.self_attn.k_proj.weight of shape [100, 4096] "
      "as awq: the output dimension 100 does not fill whole I32 words of 4-bit values",
      "config.json: /quantization_config: cannot quantize model.layers.0.self_attn.q_proj.weight of shape [4096, 100] "
      "as gptq: the input dimension 100 does not fill whole I32 words of 3-bit values",
      "config.json: /quantization_config: cannot quantize model.layers.0.mlp.experts.down_proj of shape [2880, 2881] "
      "as mxfp4: the input dimension 2881 is not a multiple of the 32-value block",
      "config.json: /quantization_config: cannot quantize model.layers.0.self_attn.q_conv1d.weight of shape [4096, 1, "
      "4] as fp8: a 2-D weight is required",
  };
  for (std::size_t i = 0; i < std::size(cases); ++i) {
    const auto s = parse(cases[i].first).value_or_throw();
    const auto m = apply_quantization({cases[i].second}, s);
    ASSERT_FALSE(m.ok()) << errors[i];
    EXPECT_EQ(m.error().to_string(), errors[i]);
  }
}

// ---------------------------------------------------------------------------
// The FP8 block layout against two released checkpoints. The logical tensors
// follow the inventories in tests/data/reference/models (DeepSeek-R1 report, Kimi-K2
// report); the totals are those checkpoints' exact payloads (TRUTH.md).

struct MlaMoe {
  std::uint64_t H, V, layers, dense_layers, experts, moe_I, dense_I, heads, q_lora, kv_lora, nope, rope, v;
  bool mtp_last_layer, inv_freq;
};

std::vector<LogicalTensor> mla_moe_tensors(const MlaMoe& c) {
  std::vector<LogicalTensor> t;
  auto add = [&](std::string name, Shape shape, bool linear, MC module, int layer, std::uint32_t instances = 1,
                 Dtype dtype = Dtype::BF16) {
    t.push_back(LogicalTensor{std::move(name), std::move(shape), dtype, linear, module, PR::replicated, layer,
                              instances, true});
  };
  add("model.embed_tokens.weight", {c.V, c.H}, false, MC::embedding, kNoLayer);
  add("lm_head.weight", {c.V, c.H}, true, MC::lm_head, kNoLayer);
  add("model.norm.weight", {c.H}, false, MC::norms, kNoLayer);
  for (std::uint64_t i = 0; i < c.layers; ++i) {
    const int L = static_cast<int>(i);
    const std::string p = "model.layers." + std::to_string(i) + ".";
    add(p + "input_layernorm.weight", {c.H}, false, MC::norms, L);
    add(p + "post_attention_layernorm.weight", {c.H}, false, MC::norms, L);
    add(p + "self_attn.q_a_proj.weight", {c.q_lora, c.H}, true, MC::mla_attention, L);
    add(p + "self_attn.q_a_layernorm.weight", {c.q_lora}, false, MC::mla_attention, L);
    add(p + "self_attn.q_b_proj.weight", {c.heads * (c.nope + c.rope), c.q_lora}, true, MC::mla_attention, L);
    add(p + "self_attn.kv_a_proj_with_mqa.weight", {c.kv_lora + c.rope, c.H}, true, MC::mla_attention, L);
    add(p + "self_attn.kv_a_layernorm.weight", {c.kv_lora}, false, MC::mla_attention, L);
    add(p + "self_attn.kv_b_proj.weight", {c.heads * (c.nope + c.v), c.kv_lora}, true, MC::mla_attention, L);
    add(p + "self_attn.o_proj.weight", {c.H, c.heads * c.v}, true, MC::mla_attention, L);
    if (c.inv_freq) add(p + "self_attn.rotary_emb.inv_freq", {56}, false, MC::mla_attention, L);
    if (i < c.dense_layers) {
      add(p + "mlp.gate_proj.weight", {c.dense_I, c.H}, true, MC::dense_mlp, L);
      add(p + "mlp.up_proj.weight", {c.dense_I, c.H}, true, MC::dense_mlp, L);
      add(p + "mlp.down_proj.weight", {c.H, c.dense_I}, true, MC::dense_mlp, L);
    } else {
      const auto E = static_cast<std::uint32_t>(c.experts);
      add(p + "mlp.gate.weight", {c.experts, c.H}, false, MC::router, L);
      add(p + "mlp.gate.e_score_correction_bias", {c.experts}, false, MC::router, L, 1, Dtype::F32);
      add(p + "mlp.shared_experts.gate_proj.weight", {c.moe_I, c.H}, true, MC::shared_experts, L);
      add(p + "mlp.shared_experts.up_proj.weight", {c.moe_I, c.H}, true, MC::shared_experts, L);
      add(p + "mlp.shared_experts.down_proj.weight", {c.H, c.moe_I}, true, MC::shared_experts, L);
      add(p + "mlp.experts.{E}.gate_proj.weight", {c.moe_I, c.H}, true, MC::routed_experts, L, E);
      add(p + "mlp.experts.{E}.up_proj.weight", {c.moe_I, c.H}, true, MC::routed_experts, L, E);
      add(p + "mlp.experts.{E}.down_proj.weight", {c.H, c.moe_I}, true, MC::routed_experts, L, E);
    }
    if (c.mtp_last_layer && i + 1 == c.layers) {
      // DeepSeek's MTP layer: eh_proj and the head copies are stored BF16.
      add(p + "enorm.weight", {c.H}, false, MC::mtp, L);
      add(p + "hnorm.weight", {c.H}, false, MC::mtp, L);
      add(p + "eh_proj.weight", {c.H, 2 * c.H}, false, MC::mtp, L);
      add(p + "embed_tokens.weight", {c.V, c.H}, false, MC::mtp, L);
      add(p + "shared_head.norm.weight", {c.H}, false, MC::mtp, L);
      add(p + "shared_head.head.weight", {c.V, c.H}, false, MC::mtp, L);
    }
  }
  return t;
}

std::map<std::string, std::uint64_t> elements_by_dtype(const TensorManifest& m) {
  std::map<std::string, std::uint64_t> out;
  for (const auto& t : m.tensors) out[std::string(dtype_name(t.dtype))] += element_count(t.shape) * t.instances;
  return out;
}

const char* kDeepSeekFp8 =
    R"({"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "weight_block_size": [128, 128]})";

TEST(QuantFp8Checkpoints, DeepSeekV3PayloadIsExact) {
  const MlaMoe v3{7168, 129280, 62, 3, 256, 2048, 18432, 128, 1536, 512, 128, 64, 128, true, false};
  const auto m = quantize(kDeepSeekFp8, mla_moe_tensors(v3));
  EXPECT_EQ(m.payload_bytes(), 688'574'839'360u);
  EXPECT_EQ(m.tensor_count(), 91'991u);
  const auto e = elements_by_dtype(m);
  EXPECT_EQ(e.at("BF16"), 3'918'786'560u);
  EXPECT_EQ(e.at("F8_E4M3"), 680'571'043'840u);
  EXPECT_EQ(e.at("F32"), 41'555'600u);              // scale_inv 41,540,496 + e_score_correction_bias 15,104
  EXPECT_EQ(m.logical_params(), 684'489'845'504u);  // scale_inv excluded
}

TEST(QuantFp8Checkpoints, KimiK2PayloadIsExact) {
  const MlaMoe k2{7168, 163840, 61, 1, 384, 2048, 18432, 64, 1536, 512, 128, 64, 128, false, true};
  const auto m = quantize(kDeepSeekFp8, mla_moe_tensors(k2));
  EXPECT_EQ(m.payload_bytes(), 1'029'173'256'720u);
  EXPECT_EQ(m.tensor_count(), 139'644u);
  const auto e = elements_by_dtype(m);
  EXPECT_EQ(e.at("BF16"), 2'514'970'968u);
  EXPECT_EQ(e.at("F8_E4M3"), 1'023'893'241'856u);
  EXPECT_EQ(e.at("F32"), 62'518'232u);
  // 1,026,408,232,448 logical parameters + the 3,416 stored inv_freq elements.
  EXPECT_EQ(m.logical_params(), 1'026'408'235'864u);
}

}  // namespace
}  // namespace preflight
