// quantization_config readers: every format's stored tensors (name, shape,
// dtype, bytes, parameters) on small synthetic models, and every form of the
// declarations the producers write. The name-matching rules are in
// quantization/name_pattern_test.cc, bad configs and real checkpoints' totals in
// quantization/config_errors_test.cc.
#include "model/quantization.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <stdexcept>
#include <tuple>

#include "model/inventory.h"
#include "model/quantization/quantization_test_support.h"

namespace preflight {
namespace {

using namespace quantization_test;

struct Want {
  std::string name;
  std::string shape;
  std::string dtype;
  std::uint64_t bytes_each;
  std::uint64_t params_each;
  std::uint32_t instances = 1;
};

struct FormatCase {
  const char* label;
  std::string config;
  std::vector<LogicalTensor> logical;
  std::vector<Want> want;
};

std::vector<FormatCase> format_cases() {
  std::vector<FormatCase> cases;
  // DeepSeek-V3 / Kimi-K2 style: every Linear but the LM head; the router is a Parameter.
  cases.push_back(
      {"fp8 block-wise (DeepSeek-V3)",
       R"({"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic", "weight_block_size": [128, 128]})",
       {tensor("model.layers.3.self_attn.kv_a_proj_with_mqa.weight", {576, 7168}, Dtype::BF16, true, MC::mla_attention,
               PR::replicated),
        tensor("model.layers.3.self_attn.kv_b_proj.weight", {32768, 512}, Dtype::BF16, true, MC::mla_attention),
        expert("model.layers.3.mlp.experts.{E}.down_proj.weight", {7168, 2048}, 4),
        tensor("model.layers.3.mlp.gate.weight", {256, 7168}, Dtype::BF16, false, MC::router, PR::replicated),
        tensor("model.layers.3.mlp.gate.e_score_correction_bias", {256}, Dtype::F32, false, MC::router, PR::replicated),
        tensor("lm_head.weight", {1000, 7168}, Dtype::BF16, true, MC::lm_head, PR::vocab)},
       {{"model.layers.3.self_attn.kv_a_proj_with_mqa.weight", "[576, 7168]", "F8_E4M3", 4'128'768, 4'128'768},
        {"model.layers.3.self_attn.kv_a_proj_with_mqa.weight_scale_inv", "[5, 56]", "F32", 1'120, 0},
        {"model.layers.3.self_attn.kv_b_proj.weight", "[32768, 512]", "F8_E4M3", 16'777'216, 16'777'216},
        {"model.layers.3.self_attn.kv_b_proj.weight_scale_inv", "[256, 4]", "F32", 4'096, 0},
        {"model.layers.3.mlp.experts.{E}.down_proj.weight", "[7168, 2048]", "F8_E4M3", 14'680'064, 14'680'064, 4},
        {"model.layers.3.mlp.experts.{E}.down_proj.weight_scale_inv", "[56, 16]", "F32", 3'584, 0, 4},
        {"model.layers.3.mlp.gate.weight", "[256, 7168]", "BF16", 3'670'016, 1'835'008},
        {"model.layers.3.mlp.gate.e_score_correction_bias", "[256]", "F32", 1'024, 256},
        {"lm_head.weight", "[1000, 7168]", "BF16", 14'336'000, 7'168'000}}});
  // MiniMax-M2: modules_to_not_convert names the router by its last component.
  cases.push_back(
      {"fp8 block-wise (MiniMax-M2)",
       R"({"quant_method": "fp8", "fmt": "float8_e4m3fn", "activation_scheme": "dynamic", "weight_block_size": [128, 128],
           "modules_to_not_convert": ["gate", "e_score_correction_bias", "lm_head"]})",
       {tensor("model.layers.0.block_sparse_moe.gate.weight", {256, 3072}, Dtype::F32, true, MC::router,
               PR::replicated),
        expert("model.layers.0.block_sparse_moe.experts.{E}.w1.weight", {1536, 3072}, 2),
        tensor("model.layers.0.self_attn.q_proj.weight", {6144, 3072}),
        tensor("lm_head.weight", {1000, 3072}, Dtype::BF16, true, MC::lm_head, PR::vocab)},
       {{"model.layers.0.block_sparse_moe.gate.weight", "[256, 3072]", "F32", 3'145'728, 786'432},
        {"model.layers.0.block_sparse_moe.experts.{E}.w1.weight", "[1536, 3072]", "F8_E4M3", 4'718'592, 4'718'592, 2},
        {"model.layers.0.block_sparse_moe.experts.{E}.w1.weight_scale_inv", "[12, 24]", "F32", 1'152, 0, 2},
        {"model.layers.0.self_attn.q_proj.weight", "[6144, 3072]", "F8_E4M3", 18'874'368, 18'874'368},
        {"model.layers.0.self_attn.q_proj.weight_scale_inv", "[48, 24]", "F32", 4'608, 0},
        {"lm_head.weight", "[1000, 3072]", "BF16", 6'144'000, 3'072'000}}});
  cases.push_back({"fp8 per-tensor, static activations (AutoFP8)",
                   R"({"quant_method": "fp8", "activation_scheme": "static"})",
                   {tensor(kL0 + "self_attn.q_proj.weight", {64, 128})},
                   {{kL0 + "self_attn.q_proj.weight", "[64, 128]", "F8_E4M3", 8'192, 8'192},
                    {kL0 + "self_attn.q_proj.weight_scale", "[]", "F32", 4, 0},
                    {kL0 + "self_attn.q_proj.input_scale", "[]", "F32", 4, 0}}});
  // gpt-oss: fused experts as 32 slices of one stored tensor.
  cases.push_back(
      {"mxfp4 (gpt-oss)",
       R"({"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router",
           "model.embed_tokens", "lm_head"]})",
       {tensor(kL0 + "self_attn.q_proj.weight", {4096, 2880}),
        tensor(kL0 + "self_attn.o_proj.weight", {2880, 4096}, Dtype::BF16, true, MC::gqa_attention, PR::row),
        tensor(kL0 + "mlp.router.weight", {32, 2880}, Dtype::BF16, true, MC::router, PR::replicated),
        expert(kL0 + "mlp.experts.gate_up_proj", {5760, 2880}, 32),
        tensor(kL0 + "mlp.experts.gate_up_proj_bias", {5760}, Dtype::BF16, false, MC::routed_experts, PR::expert, 32),
        tensor("lm_head.weight", {1000, 2880}, Dtype::BF16, true, MC::lm_head, PR::vocab)},
       {{kL0 + "self_attn.q_proj.weight", "[4096, 2880]", "BF16", 23'592'960, 11'796'480},
        {kL0 + "self_attn.o_proj.weight", "[2880, 4096]", "BF16", 23'592'960, 11'796'480},
        {kL0 + "mlp.router.weight", "[32, 2880]", "BF16", 184'320, 92'160},
        {kL0 + "mlp.experts.gate_up_proj_blocks", "[5760, 90, 16]", "U8", 8'294'400, 16'588'800, 32},
        {kL0 + "mlp.experts.gate_up_proj_scales", "[5760, 90]", "U8", 518'400, 0, 32},
        {kL0 + "mlp.experts.gate_up_proj_bias", "[5760]", "BF16", 11'520, 5'760, 32},
        {"lm_head.weight", "[1000, 2880]", "BF16", 5'760'000, 2'880'000}}});
  // RedHatAI ...-quantized.w4a16: INT4 group 128, symmetric, lm_head ignored.
  cases.push_back({"compressed-tensors pack-quantized W4A16",
                   R"({"quant_method": "compressed-tensors", "format": "pack-quantized", "ignore": ["lm_head"],
           "config_groups": {"group_0": {"targets": ["Linear"], "input_activations": null, "output_activations": null,
             "weights": {"num_bits": 4, "type": "int", "symmetric": true, "strategy": "group", "group_size": 128,
                         "actorder": "weight", "dynamic": false}}}})",
                   {tensor(kL0 + "self_attn.q_proj.weight", {4096, 4096}),
                    tensor(kL0 + "mlp.down_proj.weight", {4096, 14336}, Dtype::BF16, true, MC::dense_mlp, PR::row),
                    tensor("lm_head.weight", {1000, 4096}, Dtype::BF16, true, MC::lm_head, PR::vocab),
                    tensor("model.norm.weight", {4096}, Dtype::BF16, false, MC::norms, PR::replicated)},
                   {{kL0 + "self_attn.q_proj.weight_packed", "[4096, 512]", "I32", 8'388'608, 16'777'216},
                    {kL0 + "self_attn.q_proj.weight_shape", "[2]", "I64", 16, 0},
                    {kL0 + "self_attn.q_proj.weight_scale", "[4096, 32]", "BF16", 262'144, 0},
                    {kL0 + "mlp.down_proj.weight_packed", "[4096, 1792]", "I32", 29'360'128, 58'720'256},
                    {kL0 + "mlp.down_proj.weight_shape", "[2]", "I64", 16, 0},
                    {kL0 + "mlp.down_proj.weight_scale", "[4096, 112]", "BF16", 917'504, 0},
                    {"lm_head.weight", "[1000, 4096]", "BF16", 8'192'000, 4'096'000},
                    {"model.norm.weight", "[4096]", "BF16", 8'192, 4'096}}});
  cases.push_back({"compressed-tensors pack-quantized, asymmetric, activation order",
                   R"({"quant_method": "compressed-tensors", "format": "pack-quantized",
           "config_groups": {"group_0": {"targets": ["Linear"],
             "weights": {"num_bits": 4, "type": "int", "symmetric": false, "strategy": "group", "group_size": 128,
                         "actorder": "group"}}}})",
                   {tensor(kL0 + "self_attn.q_proj.weight", {256, 512}, Dtype::F16)},
                   {{kL0 + "self_attn.q_proj.weight_packed", "[256, 64]", "I32", 65'536, 131'072},
                    {kL0 + "self_attn.q_proj.weight_shape", "[2]", "I64", 16, 0},
                    {kL0 + "self_attn.q_proj.weight_scale", "[256, 4]", "F16", 2'048, 0},
                    {kL0 + "self_attn.q_proj.weight_zero_point", "[32, 4]", "I32", 512, 0},
                    {kL0 + "self_attn.q_proj.weight_g_idx", "[512]", "I32", 2'048, 0}}});
  // RedHatAI ...-quantized.w8a8: INT8 per channel, dynamic per-token activations.
  cases.push_back({"compressed-tensors int-quantized W8A8",
                   R"({"quant_method": "compressed-tensors", "format": "int-quantized", "ignore": ["lm_head"],
           "config_groups": {"group_0": {"targets": ["Linear"],
             "weights": {"num_bits": 8, "type": "int", "symmetric": true, "strategy": "channel", "dynamic": false},
             "input_activations": {"num_bits": 8, "type": "int", "symmetric": true, "strategy": "token",
                                   "dynamic": true}}}})",
                   {tensor(kL0 + "self_attn.q_proj.weight", {4096, 4096}),
                    tensor("lm_head.weight", {1000, 4096}, Dtype::BF16, true, MC::lm_head, PR::vocab)},
                   {{kL0 + "self_attn.q_proj.weight", "[4096, 4096]", "I8", 16'777'216, 16'777'216},
                    {kL0 + "self_attn.q_proj.weight_scale", "[4096, 1]", "BF16", 8'192, 0},
                    {"lm_head.weight", "[1000, 4096]", "BF16", 8'192'000, 4'096'000}}});
  cases.push_back({"compressed-tensors int-quantized, static asymmetric activations, F32 scales",
                   R"({"quant_method": "compressed-tensors", "format": "int-quantized",
           "config_groups": {"group_0": {"targets": ["Linear"],
             "weights": {"num_bits": 8, "type": "int", "strategy": "channel", "scale_dtype": "torch.float32"},
             "input_activations": {"num_bits": 8, "type": "int", "symmetric": false, "strategy": "tensor",
                                   "dynamic": false}}}})",
                   {tensor(kL0 + "self_attn.q_proj.weight", {128, 256})},
                   {{kL0 + "self_attn.q_proj.weight", "[128, 256]", "I8", 32'768, 32'768},
                    {kL0 + "self_attn.q_proj.weight_scale", "[128, 1]", "F32", 512, 0},
                    {kL0 + "self_attn.q_proj.input_scale", "[1]", "F32", 4, 0},
                    {kL0 + "self_attn.q_proj.input_zero_point", "[1]", "I8", 1, 0}}});
  // RedHatAI ...-FP8-dynamic, with a KV-cache scheme added.
  cases.push_back({"compressed-tensors float-quantized FP8 dynamic + kv_cache_scheme",
                   R"({"quant_method": "compressed-tensors", "format": "float-quantized", "ignore": ["lm_head"],
           "kv_cache_scheme": {"num_bits": 8, "type": "float", "strategy": "tensor", "dynamic": false, "symmetric": true},
           "config_groups": {"group_0": {"targets": ["Linear"],
             "weights": {"num_bits": 8, "type": "float", "symmetric": true, "strategy": "channel", "dynamic": false},
             "input_activations": {"num_bits": 8, "type": "float", "strategy": "token", "dynamic": true}}}})",
                   {tensor(kL0 + "self_attn.k_proj.weight", {512, 4096}),
                    tensor(kL0 + "mlp.up_proj.weight", {14336, 4096}, Dtype::BF16, true, MC::dense_mlp)},
                   {{kL0 + "self_attn.k_proj.weight", "[512, 4096]", "F8_E4M3", 2'097'152, 2'097'152},
                    {kL0 + "self_attn.k_proj.weight_scale", "[512, 1]", "BF16", 1'024, 0},
                    {kL0 + "self_attn.k_scale", "[1]", "BF16", 2, 0},
                    {kL0 + "self_attn.v_scale", "[1]", "BF16", 2, 0},
                    {kL0 + "mlp.up_proj.weight", "[14336, 4096]", "F8_E4M3", 58'720'256, 58'720'256},
                    {kL0 + "mlp.up_proj.weight_scale", "[14336, 1]", "BF16", 28'672, 0}}});
  cases.push_back({"compressed-tensors float-quantized FP8 per-tensor static",
                   R"({"quant_method": "compressed-tensors", "format": "float-quantized",
           "config_groups": {"group_0": {"targets": ["Linear"],
             "weights": {"num_bits": 8, "type": "float", "strategy": "tensor"},
             "input_activations": {"num_bits": 8, "type": "float", "strategy": "tensor", "dynamic": false}}}})",
                   {tensor(kL0 + "self_attn.q_proj.weight", {64, 128})},
                   {{kL0 + "self_attn.q_proj.weight", "[64, 128]", "F8_E4M3", 8'192, 8'192},
                    {kL0 + "self_attn.q_proj.weight_scale", "[1]", "BF16", 2, 0},
                    {kL0 + "self_attn.q_proj.input_scale", "[1]", "BF16", 2, 0}}});
  cases.push_back({"compressed-tensors float-quantized FP8 block",
                   R"({"quant_method": "compressed-tensors", "format": "float-quantized",
           "config_groups": {"group_0": {"targets": ["Linear"],
             "weights": {"num_bits": 8, "type": "float", "strategy": "block", "block_structure": [128, 128]}}}})",
                   {tensor(kL0 + "self_attn.kv_a_proj_with_mqa.weight", {576, 7168})},
                   {{kL0 + "self_attn.kv_a_proj_with_mqa.weight", "[576, 7168]", "F8_E4M3", 4'128'768, 4'128'768},
                    {kL0 + "self_attn.kv_a_proj_with_mqa.weight_scale", "[5, 56]", "BF16", 560, 0}}});
  const std::string nvfp4_weights =
      R"("weights": {"num_bits": 4, "type": "float", "symmetric": true, "strategy": "tensor_group", "group_size": 16})";
  cases.push_back({"compressed-tensors nvfp4-pack-quantized W4A4",
                   R"({"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized",
           "config_groups": {"group_0": {"targets": ["Linear"], )" +
                       nvfp4_weights + R"(,
             "input_activations": {"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16,
                                   "dynamic": "local"}}}})",
                   {tensor(kL0 + "self_attn.q_proj.weight", {4096, 4096})},
                   {{kL0 + "self_attn.q_proj.weight_packed", "[4096, 2048]", "U8", 8'388'608, 16'777'216},
                    {kL0 + "self_attn.q_proj.weight_scale", "[4096, 256]", "F8_E4M3", 1'048'576, 0},
                    {kL0 + "self_attn.q_proj.weight_global_scale", "[1]", "F32", 4, 0},
                    {kL0 + "self_attn.q_proj.input_global_scale", "[1]", "F32", 4, 0}}});
  cases.push_back({"compressed-tensors nvfp4-pack-quantized W4A16",
                   R"({"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized",
           "config_groups": {"group_0": {"targets": ["Linear"], "input_activations": null, )" +
                       nvfp4_weights + "}}}",
                   {tensor(kL0 + "self_attn.q_proj.weight", {4096, 4096})},
                   {{kL0 + "self_attn.q_proj.weight_packed", "[4096, 2048]", "U8", 8'388'608, 16'777'216},
                    {kL0 + "self_attn.q_proj.weight_scale", "[4096, 256]", "F8_E4M3", 1'048'576, 0},
                    {kL0 + "self_attn.q_proj.weight_global_scale", "[1]", "F32", 4, 0}}});
  // Kimi K3's experts.
  cases.push_back(
      {"compressed-tensors mxfp4-pack-quantized (Kimi K3)",
       R"({"quant_method": "compressed-tensors", "format": "mxfp4-pack-quantized", "ignore": ["re:.*self_attn.*"],
           "config_groups": {"group_0": {"format": "mxfp4-pack-quantized", "targets": ["Linear"],
             "weights": {"num_bits": 4, "type": "float", "strategy": "group", "group_size": 32,
                         "scale_dtype": "torch.uint8", "symmetric": true}}}})",
       {expert(kL0 + "block_sparse_moe.experts.{E}.w1.weight", {3072, 3584}, 8),
        tensor(kL0 + "self_attn.o_proj.weight", {7168, 12288}, Dtype::BF16, true, MC::kda_attention, PR::row)},
       {{kL0 + "block_sparse_moe.experts.{E}.w1.weight_packed", "[3072, 1792]", "U8", 5'505'024, 11'010'048, 8},
        {kL0 + "block_sparse_moe.experts.{E}.w1.weight_scale", "[3072, 112]", "U8", 344'064, 0, 8},
        {kL0 + "self_attn.o_proj.weight", "[7168, 12288]", "BF16", 176'160'768, 88'080'384}}});
  // AutoAWQ GEMM (Qwen2.5-VL-AWQ style: the vision tower is not converted).
  cases.push_back({"awq gemm",
                   R"({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": true, "version": "gemm",
           "modules_to_not_convert": ["visual"]})",
                   {tensor(kL0 + "self_attn.q_proj.weight", {4096, 4096}, Dtype::F16),
                    tensor("visual.blocks.0.attn.qkv.weight", {3840, 1280}, Dtype::F16, true, MC::vision_tower,
                           PR::replicated, 1, false),
                    tensor("lm_head.weight", {1000, 4096}, Dtype::F16, true, MC::lm_head, PR::vocab)},
                   {{kL0 + "self_attn.q_proj.qweight", "[4096, 512]", "I32", 8'388'608, 16'777'216},
                    {kL0 + "self_attn.q_proj.qzeros", "[32, 512]", "I32", 65'536, 0},
                    {kL0 + "self_attn.q_proj.scales", "[32, 4096]", "F16", 262'144, 0},
                    {"visual.blocks.0.attn.qkv.weight", "[3840, 1280]", "F16", 9'830'400, 4'915'200},
                    {"lm_head.weight", "[1000, 4096]", "F16", 8'192'000, 4'096'000}}});
  cases.push_back({"gptq 4-bit group 128",
                   R"({"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": false, "sym": true})",
                   {tensor(kL0 + "self_attn.q_proj.weight", {4096, 4096}, Dtype::F16)},
                   {{kL0 + "self_attn.q_proj.qweight", "[512, 4096]", "I32", 8'388'608, 16'777'216},
                    {kL0 + "self_attn.q_proj.qzeros", "[32, 512]", "I32", 65'536, 0},
                    {kL0 + "self_attn.q_proj.scales", "[32, 4096]", "F16", 262'144, 0},
                    {kL0 + "self_attn.q_proj.g_idx", "[4096]", "I32", 16'384, 0}}});
  cases.push_back({"gptq 3-bit, one group per row",
                   R"({"quant_method": "gptq", "bits": 3, "group_size": -1, "desc_act": true})",
                   {tensor(kL0 + "mlp.down_proj.weight", {4096, 11008}, Dtype::F16, true, MC::dense_mlp, PR::row)},
                   {{kL0 + "mlp.down_proj.qweight", "[1032, 4096]", "I32", 16'908'288, 45'088'768},
                    {kL0 + "mlp.down_proj.qzeros", "[1, 384]", "I32", 1'536, 0},
                    {kL0 + "mlp.down_proj.scales", "[1, 4096]", "F16", 8'192, 0},
                    {kL0 + "mlp.down_proj.g_idx", "[11008]", "I32", 44'032, 0}}});
  cases.push_back({"gptq group size that does not divide the row (AutoGPTQ rounds up)",
                   R"({"quant_method": "gptq", "bits": 4, "group_size": 100})",
                   {tensor(kL0 + "self_attn.q_proj.weight", {4096, 4096}, Dtype::F16)},
                   {{kL0 + "self_attn.q_proj.qweight", "[512, 4096]", "I32", 8'388'608, 16'777'216},
                    {kL0 + "self_attn.q_proj.qzeros", "[41, 512]", "I32", 83'968, 0},
                    {kL0 + "self_attn.q_proj.scales", "[41, 4096]", "F16", 335'872, 0},
                    {kL0 + "self_attn.q_proj.g_idx", "[4096]", "I32", 16'384, 0}}});
  // AutoGPTQ (model_file_base_name, no meta): a bias on every QuantLinear (Qwen-7B-Chat-Int4's c_proj).
  cases.push_back({"gptq from AutoGPTQ stores a bias everywhere",
                   R"({"quant_method": "gptq", "bits": 4, "group_size": 128, "model_file_base_name": "model"})",
                   {tensor(kL0 + "self_attn.o_proj.weight", {4096, 4096}, Dtype::BF16)},
                   {{kL0 + "self_attn.o_proj.qweight", "[512, 4096]", "I32", 8'388'608, 16'777'216},
                    {kL0 + "self_attn.o_proj.qzeros", "[32, 512]", "I32", 65'536, 0},
                    {kL0 + "self_attn.o_proj.scales", "[32, 4096]", "F16", 262'144, 0},
                    {kL0 + "self_attn.o_proj.g_idx", "[4096]", "I32", 16'384, 0},
                    {kL0 + "self_attn.o_proj.bias", "[4096]", "F16", 8'192, 4'096}}});
  cases.push_back(
      {"gptq saved through optimum (use_exllama) stores a bias everywhere too",
       R"({"quant_method": "gptq", "bits": 4, "group_size": 128, "use_exllama": true, "exllama_config": {"version": 1}})",
       {tensor(kL0 + "mlp.down_proj.weight", {4096, 11008}, Dtype::BF16, true, MC::dense_mlp, PR::row)},
       {{kL0 + "mlp.down_proj.qweight", "[1376, 4096]", "I32", 22'544'384, 45'088'768},
        {kL0 + "mlp.down_proj.qzeros", "[86, 512]", "I32", 176'128, 0},
        {kL0 + "mlp.down_proj.scales", "[86, 4096]", "F16", 704'512, 0},
        {kL0 + "mlp.down_proj.g_idx", "[11008]", "I32", 44'032, 0},
        {kL0 + "mlp.down_proj.bias", "[4096]", "F16", 8'192, 4'096}}});
  // MLX (mlx-lm): U32 words of bits-wide values, scales and biases per group in the model dtype.
  cases.push_back({"mlx 4-bit group 64",
                   R"({"group_size": 64, "bits": 4})",
                   {tensor(kL0 + "self_attn.q_proj.weight", {4096, 4096}),
                    tensor("model.embed_tokens.weight", {1000, 4096}, Dtype::BF16, false, MC::embedding, PR::vocab),
                    tensor(kL0 + "input_layernorm.weight", {4096}, Dtype::BF16, false, MC::norms)},
                   {{kL0 + "self_attn.q_proj.weight", "[4096, 512]", "U32", 8'388'608, 16'777'216},
                    {kL0 + "self_attn.q_proj.scales", "[4096, 64]", "BF16", 524'288, 0},
                    {kL0 + "self_attn.q_proj.biases", "[4096, 64]", "BF16", 524'288, 0},
                    {"model.embed_tokens.weight", "[1000, 512]", "U32", 2'048'000, 4'096'000},
                    {"model.embed_tokens.scales", "[1000, 64]", "BF16", 128'000, 0},
                    {"model.embed_tokens.biases", "[1000, 64]", "BF16", 128'000, 0},
                    {kL0 + "input_layernorm.weight", "[4096]", "BF16", 8'192, 4'096}}});
  cases.push_back(
      {"mlx per-module override: 8-bit for one projection, another kept",
       R"({"group_size": 64, "bits": 4, "model.layers.0.self_attn.q_proj": {"group_size": 32, "bits": 8},
                       "model.layers.0.self_attn.k_proj": false})",
       {tensor(kL0 + "self_attn.q_proj.weight", {4096, 4096}), tensor(kL0 + "self_attn.k_proj.weight", {1024, 4096})},
       {{kL0 + "self_attn.q_proj.weight", "[4096, 1024]", "U32", 16'777'216, 16'777'216},
        {kL0 + "self_attn.q_proj.scales", "[4096, 128]", "BF16", 1'048'576, 0},
        {kL0 + "self_attn.q_proj.biases", "[4096, 128]", "BF16", 1'048'576, 0},
        {kL0 + "self_attn.k_proj.weight", "[1024, 4096]", "BF16", 8'388'608, 4'194'304}}});
  // bitsandbytes: 4-bit NF4 with double quantization; LLM.int8.
  cases.push_back({"bitsandbytes nf4, double quant",
                   R"({"quant_method": "bitsandbytes", "load_in_4bit": true, "bnb_4bit_quant_type": "nf4",
                       "bnb_4bit_use_double_quant": true})",
                   {tensor(kL0 + "self_attn.q_proj.weight", {4096, 4096}, Dtype::F16)},
                   {{kL0 + "self_attn.q_proj.weight", "[8388608, 1]", "U8", 8'388'608, 16'777'216},
                    {kL0 + "self_attn.q_proj.weight.absmax", "[262144]", "U8", 262'144, 0},
                    {kL0 + "self_attn.q_proj.weight.nested_absmax", "[1024]", "F32", 4'096, 0},
                    {kL0 + "self_attn.q_proj.weight.nested_quant_map", "[256]", "F32", 1'024, 0},
                    {kL0 + "self_attn.q_proj.weight.quant_map", "[16]", "F32", 64, 0},
                    {kL0 + "self_attn.q_proj.weight.quant_state.bitsandbytes__nf4", "[173]", "U8", 173, 0}}});
  cases.push_back({"bitsandbytes 8-bit",
                   R"({"quant_method": "bitsandbytes", "load_in_8bit": true})",
                   {tensor(kL0 + "self_attn.q_proj.weight", {4096, 4096}, Dtype::F16)},
                   {{kL0 + "self_attn.q_proj.weight", "[4096, 4096]", "I8", 16'777'216, 16'777'216},
                    {kL0 + "self_attn.q_proj.SCB", "[4096]", "F32", 16'384, 0},
                    {kL0 + "self_attn.q_proj.weight_format", "[]", "U8", 1, 0}}});
  // ModelOpt NVFP4 with an FP8 KV cache; an excluded module by wildcard.
  cases.push_back(
      {"modelopt nvfp4",
       R"({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16, "kv_cache_quant_algo": "FP8",
                       "exclude_modules": ["lm_head", "model.layers.*.self_attn.v_proj"]})",
       {tensor(kL0 + "self_attn.k_proj.weight", {1024, 4096}), tensor(kL0 + "self_attn.v_proj.weight", {1024, 4096})},
       {{kL0 + "self_attn.k_proj.weight", "[1024, 2048]", "U8", 2'097'152, 4'194'304},
        {kL0 + "self_attn.k_proj.weight_scale", "[1024, 256]", "F8_E4M3", 262'144, 0},
        {kL0 + "self_attn.k_proj.weight_scale_2", "[]", "F32", 4, 0},
        {kL0 + "self_attn.k_proj.input_scale", "[]", "F32", 4, 0},
        {kL0 + "self_attn.k_proj.k_scale", "[]", "F32", 4, 0},
        {kL0 + "self_attn.v_proj.v_scale", "[]", "F32", 4, 0},
        {kL0 + "self_attn.v_proj.weight", "[1024, 4096]", "BF16", 8'388'608, 4'194'304}}});
  cases.push_back({"modelopt fp8",
                   R"({"quant_method": "modelopt", "quant_algo": "FP8"})",
                   {tensor(kL0 + "self_attn.q_proj.weight", {4096, 4096})},
                   {{kL0 + "self_attn.q_proj.weight", "[4096, 4096]", "F8_E4M3", 16'777'216, 16'777'216},
                    {kL0 + "self_attn.q_proj.weight_scale", "[]", "F32", 4, 0},
                    {kL0 + "self_attn.q_proj.input_scale", "[]", "F32", 4, 0}}});
  return cases;
}

TEST(QuantFormats, EveryStoredTensorHasItsNameShapeDtypeAndBytes) {
  for (const auto& c : format_cases()) {
    SCOPED_TRACE(c.label);
    const auto m = quantize(c.config, c.logical);
    ASSERT_EQ(m.tensors.size(), c.want.size());
    for (std::size_t i = 0; i < c.want.size(); ++i) {
      const auto& got = m.tensors[i];
      const auto& want = c.want[i];
      EXPECT_EQ(got.name, want.name);
      EXPECT_EQ(shape_text(got.shape), want.shape) << want.name;
      EXPECT_EQ(dtype_name(got.dtype), want.dtype) << want.name;
      EXPECT_EQ(got.bytes_each, want.bytes_each) << want.name;
      EXPECT_EQ(got.logical_params_each, want.params_each) << want.name;
      EXPECT_EQ(got.instances, want.instances) << want.name;
    }
  }
}

TEST(QuantFormats, StoredTensorsKeepTheLogicalTensorsPlacement) {
  const auto m = quantize(R"({"quant_method": "fp8", "weight_block_size": [128, 128]})",
                          {expert("model.layers.5.mlp.experts.{E}.up_proj.weight", {2048, 7168}, 8)});
  ASSERT_EQ(m.tensors.size(), 2u);
  for (const auto& t : m.tensors) {
    EXPECT_EQ(t.module, MC::routed_experts);
    EXPECT_EQ(t.role, PR::expert);
    EXPECT_EQ(t.instances, 8u);
    EXPECT_EQ(t.first_instance, 0u);
  }
}

TEST(QuantFormats, InventoryBucketsNameTheEncoding) {
  std::map<std::string, std::uint64_t> buckets;
  const auto awq = quantize(R"({"quant_method": "awq", "bits": 4, "group_size": 128})",
                            {tensor(kL0 + "self_attn.q_proj.weight", {4096, 4096}, Dtype::F16)});
  for (const auto& t : awq.tensors) buckets[dtype_bucket(t)] += t.bytes();
  EXPECT_EQ(buckets.at("I32 (packed int4)"), 8'388'608u);
  EXPECT_EQ(buckets.at("I32 (zero points)"), 65'536u);
  EXPECT_EQ(buckets.at("F16 (weight scales)"), 262'144u);
  const auto fp8 = quantize(R"({"quant_method": "fp8", "weight_block_size": [128, 128]})",
                            {tensor(kL0 + "self_attn.q_proj.weight", {256, 256})});
  EXPECT_EQ(dtype_bucket(fp8.tensors[0]), "F8_E4M3");
  EXPECT_EQ(dtype_bucket(fp8.tensors[1]), "F32 (weight scales)");
  EXPECT_EQ(storage_format_key(fp8.tensors[0].format), "fp8");
  EXPECT_EQ(storage_format_key(fp8.tensors[1].format), "weight-scale");
}

// ---------------------------------------------------------------------------

// Each declaration a checkpoint makes, in the form its producer writes it, read
// tensor by tensor (looked up by name; the bytes are the producers' layouts above).
struct DeclaredCase {
  const char* label;
  std::string config;
  std::vector<LogicalTensor> logical;
  std::vector<Want> want;                // a subset of the stored tensors, by name
  std::string kv_dtype;                  // the declared KV-cache dtype ("" when none)
  std::vector<std::string> absent = {};  // stored tensors the producer does not write
};

TEST(QuantDeclarations, EveryFormTheProducersWriteIsRead) {
  const std::vector<DeclaredCase> cases = {
      // ModelOpt's config.json form (nvidia/*-NVFP4 exports since ModelOpt 0.3x): `ignore`,
      // the group size in config_groups, kv_cache_scheme instead of kv_cache_quant_algo.
      {"modelopt config.json form",
       R"({"quant_method": "modelopt", "quant_algo": "nvfp4", "ignore": ["lm_head", "model.layers.*.self_attn*"],
           "config_groups": {"group_0": {"weights": {"num_bits": 4, "type": "float", "group_size": 16}, "targets": ["Linear"]}},
           "kv_cache_scheme": {"num_bits": 8, "type": "float", "dynamic": false}})",
       {tensor(kL0 + "self_attn.k_proj.weight", {1024, 4096}),
        tensor(kL0 + "mlp.gate_proj.weight", {11008, 4096}, Dtype::BF16, true, MC::dense_mlp)},
       {{kL0 + "self_attn.k_proj.weight", "[1024, 4096]", "BF16", 8'388'608, 4'194'304},
        {kL0 + "self_attn.k_proj.k_scale", "[]", "F32", 4, 0},
        {kL0 + "mlp.gate_proj.weight", "[11008, 2048]", "U8", 22'544'384, 45'088'768},
        {kL0 + "mlp.gate_proj.weight_scale", "[11008, 256]", "F8_E4M3", 2'818'048, 0}},
       "fp8"},
      // GPTQModel `dynamic`: "-:" keeps o_proj in F16, "+:" stores down_proj at 8 bits, group 32.
      {"gptq dynamic",
       R"({"quant_method": "gptq", "bits": 4, "group_size": 128, "meta": {"quantizer": ["gptqmodel:2.0"]},
           "dynamic": {"-:.*self_attn\\.o_proj": {}, "+:.*down_proj": {"bits": 8, "group_size": 32}}})",
       {tensor(kL0 + "self_attn.q_proj.weight", {4096, 4096}, Dtype::F16),
        tensor(kL0 + "self_attn.o_proj.weight", {4096, 4096}, Dtype::F16, true, MC::gqa_attention, PR::row),
        tensor(kL0 + "mlp.down_proj.weight", {4096, 11008}, Dtype::F16, true, MC::dense_mlp, PR::row)},
       {{kL0 + "self_attn.q_proj.qweight", "[512, 4096]", "I32", 8'388'608, 16'777'216},
        {kL0 + "self_attn.o_proj.weight", "[4096, 4096]", "F16", 33'554'432, 16'777'216},
        {kL0 + "mlp.down_proj.qweight", "[2752, 4096]", "I32", 45'088'768, 45'088'768},
        {kL0 + "mlp.down_proj.qzeros", "[344, 1024]", "I32", 1'409'024, 0},
        {kL0 + "mlp.down_proj.scales", "[344, 4096]", "F16", 2'818'048, 0}},
       ""},
      // compressed-tensors: an 8-bit float kv_cache_scheme declares the FP8 cache.
      {"compressed-tensors kv_cache_scheme",
       R"({"quant_method": "compressed-tensors", "format": "float-quantized", "ignore": ["lm_head"],
           "kv_cache_scheme": {"num_bits": 8, "type": "float", "strategy": "tensor", "dynamic": false, "symmetric": true},
           "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "float",
               "strategy": "channel", "dynamic": false, "symmetric": true}}}})",
       {tensor(kL0 + "self_attn.k_proj.weight", {1024, 4096})},
       {{kL0 + "self_attn.k_proj.weight", "[1024, 4096]", "F8_E4M3", 4'194'304, 4'194'304}},
       "fp8"},
      // ModelOpt MIXED_PRECISION (nvidia/Qwen3.6-35B-A3B-NVFP4): quantized_layers names each
      // quantized module or a module holding them; W4A16_NVFP4 stores no input scale; an
      // unlisted module stays in the model dtype.
      {"modelopt MIXED_PRECISION",
       R"({"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION", "ignore": ["mtp*"],
           "quantized_layers": {"model.layers.0.self_attn.q_proj": {"quant_algo": "FP8"},
                                "model.layers.0.mlp.experts": {"quant_algo": "W4A16_NVFP4", "group_size": 16}}})",
       {tensor(kL0 + "self_attn.q_proj.weight", {4096, 4096}), tensor(kL0 + "self_attn.k_proj.weight", {1024, 4096}),
        tensor(kL0 + "mlp.experts.3.down_proj.weight", {2048, 1024}, Dtype::BF16, true, MC::routed_experts, PR::row)},
       {{kL0 + "self_attn.q_proj.weight", "[4096, 4096]", "F8_E4M3", 16'777'216, 16'777'216},
        {kL0 + "self_attn.q_proj.input_scale", "[]", "F32", 4, 0},
        {kL0 + "self_attn.k_proj.weight", "[1024, 4096]", "BF16", 8'388'608, 4'194'304},
        {kL0 + "mlp.experts.3.down_proj.weight", "[2048, 512]", "U8", 1'048'576, 2'097'152},
        {kL0 + "mlp.experts.3.down_proj.weight_scale", "[2048, 64]", "F8_E4M3", 131'072, 0}},
       "",
       {kL0 + "mlp.experts.3.down_proj.input_scale"}},
      // An INT8 KV scheme is not an FP8 cache: nothing declared for the engines' auto.
      {"compressed-tensors int8 kv_cache_scheme",
       R"({"quant_method": "compressed-tensors", "format": "float-quantized",
           "kv_cache_scheme": {"num_bits": 8, "type": "int", "strategy": "tensor", "dynamic": false, "symmetric": true},
           "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "float",
               "strategy": "channel", "dynamic": false, "symmetric": true}}}})",
       {tensor(kL0 + "self_attn.k_proj.weight", {1024, 4096})},
       {{kL0 + "self_attn.k_proj.weight", "[1024, 4096]", "F8_E4M3", 4'194'304, 4'194'304}},
       ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.label);
    const auto scheme = parse(c.config);
    ASSERT_TRUE(scheme.ok()) << scheme.error().to_string();
    EXPECT_EQ(scheme->declared_kv_dtype, c.kv_dtype);
    const auto m = quantize(c.config, c.logical);
    for (const auto& want : c.want) {
      const auto it =
          std::find_if(m.tensors.begin(), m.tensors.end(), [&](const auto& t) { return t.name == want.name; });
      ASSERT_NE(it, m.tensors.end()) << want.name;
      EXPECT_EQ(shape_text(it->shape), want.shape) << want.name;
      EXPECT_EQ(dtype_name(it->dtype), want.dtype) << want.name;
      EXPECT_EQ(it->bytes_each, want.bytes_each) << want.name;
      EXPECT_EQ(it->logical_params_each, want.params_each) << want.name;
    }
    for (const auto& name : c.absent)
      EXPECT_EQ(std::find_if(m.tensors.begin(), m.tensors.end(), [&](const auto& t) { return t.name == name; }),
                m.tensors.end())
          << name;
  }
}

// The precision a weight takes when nothing names it: after GPTQModel's and MLX's
// per-module overrides, the model-wide group; none for ModelOpt MIXED_PRECISION.
TEST(QuantDeclarations, TheModelWideGroup) {
  const auto gptq = parse(R"({"quant_method": "gptq", "bits": 4, "group_size": 128,
                              "dynamic": {"+:.*down_proj": {"bits": 8, "group_size": 32}}})");
  ASSERT_TRUE(gptq.ok());
  ASSERT_EQ(gptq->groups.size(), 2u);
  ASSERT_NE(gptq->model_wide_group(), nullptr);
  EXPECT_EQ(gptq->model_wide_group()->num_bits, 4u);
  EXPECT_EQ(gptq->model_wide_group()->group_size, 128u);
  const auto mlx =
      parse(R"({"bits": 4, "group_size": 64, "model.layers.0.mlp.down_proj": {"bits": 8, "group_size": 64}})");
  ASSERT_TRUE(mlx.ok());
  ASSERT_NE(mlx->model_wide_group(), nullptr);
  EXPECT_EQ(mlx->model_wide_group()->num_bits, 4u);
  const auto mixed = parse(R"({"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION",
                               "quantized_layers": {"model.layers.0.mlp": {"quant_algo": "FP8"}}})");
  ASSERT_TRUE(mixed.ok());
  EXPECT_EQ(mixed->model_wide_group(), nullptr);
  const auto fp8 = parse(R"({"quant_method": "fp8", "weight_block_size": [128, 128]})");
  ASSERT_TRUE(fp8.ok());
  ASSERT_NE(fp8->model_wide_group(), nullptr);
  EXPECT_EQ(fp8->model_wide_group()->num_bits, 8u);
}

}  // namespace
}  // namespace preflight
