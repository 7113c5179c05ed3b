// quantization_config readers: every format's stored tensors (name, shape,
// dtype, bytes, parameters) on small synthetic models, the name-matching rules,
// one-line errors for bad configs, and the FP8 block layout checked against the
// DeepSeek-V3 and Kimi-K2 checkpoints' exact totals.
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

namespace preflight {
namespace {

using Shape = std::vector<std::uint64_t>;
using MC = ModuleClass;
using PR = ParallelRole;

LogicalTensor tensor(std::string name, Shape shape, Dtype dtype = Dtype::BF16, bool linear = true,
                     MC module = MC::gqa_attention, PR role = PR::column, std::uint32_t instances = 1,
                     bool text = true) {
  return LogicalTensor{std::move(name), std::move(shape), dtype, linear, module, role, 0, instances, text};
}

LogicalTensor expert(std::string name, Shape shape, std::uint32_t instances, Dtype dtype = Dtype::BF16) {
  return tensor(std::move(name), std::move(shape), dtype, true, MC::routed_experts, PR::expert, instances);
}

Result<QuantizationScheme> parse(const std::string& quantization_config) {
  static std::vector<std::unique_ptr<nlohmann::json>> keep;  // JsonFields keeps a pointer
  keep.push_back(std::make_unique<nlohmann::json>(
      nlohmann::json::parse("{\"quantization_config\": " + quantization_config + "}")));
  return parse_quantization(JsonFields(*keep.back(), "config.json"));
}

TensorManifest quantize(const std::string& config, const std::vector<LogicalTensor>& logical) {
  const auto scheme = parse(config);
  if (!scheme) throw std::runtime_error(scheme.error().to_string());
  const auto manifest = apply_quantization(logical, *scheme);
  if (!manifest) throw std::runtime_error(manifest.error().to_string());
  return *manifest;
}

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

const std::string kL0 = "model.layers.0.";

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

TEST(QuantPatterns, ModulesToNotConvertMatchLikeTheProducers) {
  const auto s = parse(R"({"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn",
                          "model.layers.*.mlp.router", "lm_head", "gate", "model\\.layers\\.[0-3]\\.mlp"]})")
                     .value_or_throw();
  const auto& p = s.ignore;
  ASSERT_EQ(p.size(), 5u);
  // transformers' re.match (a glob-like regex anchored at the start).
  EXPECT_TRUE(p[0].matches("model.layers.17.self_attn.q_proj"));
  EXPECT_FALSE(p[0].matches("model.layers.17.mlp.experts"));
  EXPECT_TRUE(p[1].matches("model.layers.3.mlp.router"));
  EXPECT_FALSE(p[1].matches("model.layers.3.mlp.experts.gate_up_proj"));
  EXPECT_TRUE(p[2].matches("lm_head"));
  // Substring (AutoAWQ, older transformers): "gate" also reaches gate_proj.
  EXPECT_TRUE(p[3].matches("model.layers.0.block_sparse_moe.gate"));
  EXPECT_TRUE(p[3].matches("model.layers.0.mlp.gate_proj"));
  EXPECT_FALSE(p[3].matches("model.layers.0.mlp.up_proj"));
  // A real regex goes to the regex engine.
  EXPECT_FALSE(p[4].simple);
  EXPECT_TRUE(p[4].matches("model.layers.2.mlp.down_proj"));
  EXPECT_FALSE(p[4].matches("model.layers.7.mlp.down_proj"));
}

TEST(QuantPatterns, CompressedTensorsIgnoreIsExactOrReMatch) {
  const auto s = parse(R"({"quant_method": "compressed-tensors", "format": "int-quantized",
                          "ignore": ["lm_head", "re:.*self_attn.*"],
                          "config_groups": {"g": {"targets": ["Linear"], "weights": {"num_bits": 8}}}})")
                     .value_or_throw();
  EXPECT_TRUE(s.ignore[0].matches("lm_head"));
  EXPECT_FALSE(s.ignore[0].matches("model.lm_head"));  // exact names are not substrings
  EXPECT_TRUE(s.ignore[1].matches("model.layers.0.self_attn.q_proj"));
  EXPECT_FALSE(s.ignore[1].matches("model.layers.0.mlp.up_proj"));
}

TEST(QuantPatterns, TheBuiltInMatcherAgreesWithStdRegex) {
  const char* patterns[] = {R"(re:.*layers\.1\.block_sparse_moe\.experts\.7\..*)",
                            R"(re:.*self_attn.*)",
                            R"(re:model.layers.1.*)",
                            R"(re:.*mlp\.(gate|up)_proj.*)",
                            R"(re:lm_head)",
                            R"(re:.*experts\.[1-3]\..*)",
                            R"(re:a*b.*c)",
                            R"(re:.*\-x)",
                            R"(re:.*mlp\.(gate|up|gate_up|down)_proj.*)",
                            R"(re:(a|b)c)",
                            R"(re:x(ab|cd)*)",
                            R"(re:.*(self|cross)_attn\..*)"};
  const char* names[] = {"model.layers.1.block_sparse_moe.experts.7.w1",
                         "model.layers.1.block_sparse_moe.experts.17.w1",
                         "model.layers.11.self_attn.q_proj",
                         "model.layers.1.mlp.gate_proj",
                         "lm_head",
                         "lm_headx",
                         "model.layers.0.mlp.experts.2.up_proj",
                         "aaabxxc",
                         "bc",
                         "y-x",
                         "model",
                         "model.layers.3.mlp.gate_up_proj",
                         "model.layers.3.mlp.down_proj.weight",
                         "ac",
                         "xababcd",
                         "model.layers.3.cross_attn.o_proj",
                         "model.layers.3.mlp.gate_up_projx"};
  std::string list;
  for (const char* p : patterns) list += std::string(list.empty() ? "" : ", ") + nlohmann::json(p).dump();
  const auto s = parse(R"({"quant_method": "compressed-tensors", "format": "int-quantized", "ignore": [)" + list +
                       R"(], "config_groups": {"g": {"targets": ["Linear"], "weights": {"num_bits": 8}}}})")
                     .value_or_throw();
  ASSERT_EQ(s.ignore.size(), std::size(patterns));
  EXPECT_TRUE(s.ignore[0].simple);
  EXPECT_TRUE(s.ignore[2].simple);
  EXPECT_TRUE(s.ignore[3].simple);  // one literal alternation: a form per alternative (Kimi K3's ignore list)
  EXPECT_EQ(s.ignore[3].forms.size(), 2u);
  EXPECT_TRUE(s.ignore[8].simple);
  EXPECT_FALSE(s.ignore[10].simple);  // a repeated group: std::regex
  EXPECT_FALSE(s.ignore[5].simple);   // a class: std::regex
  for (const auto& p : s.ignore) {
    const std::regex re(p.text.substr(3));
    for (const char* n : names)
      EXPECT_EQ(p.matches(n), std::regex_search(std::string(n), re, std::regex_constants::match_continuous))
          << p.text << " on " << n;
  }
}

// std::regex backtracks without bound: a quantifier on what already repeats is
// refused before it runs (a fuzzed gpt-oss config with "model.layers**...*.self_attn"
// in modules_to_not_convert held the reader for minutes). Python refuses "**" too.
TEST(QuantPatterns, RepeatsOfRepeatsAreRefusedBeforeStdRegexRunsThem) {
  struct Case {
    const char* pattern;
    const char* why;  // "" : accepted
  };
  const Case cases[] = {
      {"re:model.layers**.self_attn", "a repeat of a repeat (Python: multiple repeat)"},
      {"re:a+*b", "a repeat of a repeat (Python: multiple repeat)"},
      {"re:a{2}{3}", "a repeat of a repeat (Python: multiple repeat)"},
      {"re:a*??", "a repeat of a repeat (Python: multiple repeat)"},
      {"re:(a+)+b", "a repeated group that itself repeats (exponential backtracking)"},
      {"re:((ab)*c)*", "a repeated group that itself repeats (exponential backtracking)"},
      {"re:(x|y*)+z", "a repeated group that itself repeats (exponential backtracking)"},
      {"re:.*?self_attn", ""},  // lazy
      {"re:x(ab|cd)*", ""},     // a repeated group of plain text
      {"re:a{2,3}b", ""},
      {"re:[*+]*x", ""},     // quantifier characters inside a class
      {R"(re:\*+x)", ""},    // an escaped star, repeated
      {"re:(a*)b(c+)", ""},  // groups that repeat inside, not repeated
  };
  for (const auto& c : cases) {
    const auto s = parse(R"({"quant_method": "compressed-tensors", "format": "int-quantized", "ignore": [)" +
                         nlohmann::json(c.pattern).dump() +
                         R"(], "config_groups": {"g": {"targets": ["Linear"], "weights": {"num_bits": 8}}}})");
    if (std::string(c.why).empty()) {
      EXPECT_TRUE(s.ok()) << c.pattern << ": " << (s.ok() ? "" : s.error().to_string());
      continue;
    }
    ASSERT_FALSE(s.ok()) << c.pattern;
    EXPECT_EQ(s.error().to_string(), fmt::format("config.json: /quantization_config/ignore/0: regular expression '{}' "
                                                 "is refused: {}",
                                                 c.pattern, c.why));
  }
  // The fuzzed config's shape: an mxfp4 modules_to_not_convert entry.
  const auto m =
      parse(R"({"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers**********.*.self_attn"]})");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(
      m.error().to_string(),
      "config.json: /quantization_config/modules_to_not_convert/0: 'model.layers**********.*.self_attn' is refused "
      "as a regular expression: a repeat of a repeat (Python: multiple repeat)");
}

const std::string kIntGroup = R"("config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 8,
    "type": "int", "strategy": "channel"}}})";

TEST(QuantPatterns, AnIgnoredExpertIsSplitOffItsGroup) {
  const auto m = quantize(R"({"quant_method": "compressed-tensors", "format": "int-quantized",
                          "ignore": ["model.layers.0.mlp.experts.2.down_proj"], )" +
                              kIntGroup + "}",
                          {expert(kL0 + "mlp.experts.{E}.down_proj.weight", {64, 128}, 4)});
  // experts 0-1 quantized (grouped), 2 plain, 3 quantized.
  std::vector<std::tuple<std::string, std::string, std::uint32_t, std::uint32_t>> got;
  for (const auto& t : m.tensors)
    got.emplace_back(t.name, std::string(dtype_name(t.dtype)), t.instances, t.first_instance);
  const decltype(got) want = {
      {kL0 + "mlp.experts.{E}.down_proj.weight", "I8", 2, 0},
      {kL0 + "mlp.experts.{E}.down_proj.weight_scale", "BF16", 2, 0},
      {kL0 + "mlp.experts.2.down_proj.weight", "BF16", 1, 2},
      {kL0 + "mlp.experts.3.down_proj.weight", "I8", 1, 3},
      {kL0 + "mlp.experts.3.down_proj.weight_scale", "BF16", 1, 3},
  };
  EXPECT_EQ(got, want);
}

TEST(QuantPatterns, IgnoringExpertZeroLeavesTheOthersQuantized) {
  const auto m = quantize(R"({"quant_method": "fp8", "weight_block_size": [128, 128],
                          "modules_to_not_convert": ["model.layers.0.mlp.experts.0.down_proj"]})",
                          {expert(kL0 + "mlp.experts.{E}.down_proj.weight", {256, 256}, 4)});
  ASSERT_EQ(m.tensors.size(), 3u);
  EXPECT_EQ(m.tensors[0].name, kL0 + "mlp.experts.0.down_proj.weight");
  EXPECT_EQ(m.tensors[0].dtype, Dtype::BF16);
  EXPECT_EQ(m.tensors[1].dtype, Dtype::F8_E4M3);
  EXPECT_EQ(m.tensors[1].instances, 3u);
  EXPECT_EQ(m.tensors[1].first_instance, 1u);
  EXPECT_EQ(m.tensors[2].name, kL0 + "mlp.experts.{E}.down_proj.weight_scale_inv");
}

TEST(QuantPatterns, ARegexTargetCanSkipExpertZero) {
  const auto m = quantize(R"({"quant_method": "compressed-tensors", "format": "int-quantized",
                          "config_groups": {"g": {"targets": ["re:.*experts\\.[1-3]\\..*"],
                            "weights": {"num_bits": 8, "strategy": "channel"}}}})",
                          {expert(kL0 + "mlp.experts.{E}.w1.weight", {64, 128}, 4)});
  ASSERT_EQ(m.tensors.size(), 3u);
  EXPECT_EQ(m.tensors[0].name, kL0 + "mlp.experts.0.w1.weight");
  EXPECT_EQ(m.tensors[0].dtype, Dtype::BF16);
  EXPECT_EQ(m.tensors[1].name, kL0 + "mlp.experts.{E}.w1.weight");
  EXPECT_EQ(m.tensors[1].dtype, Dtype::I8);
  EXPECT_EQ(m.tensors[1].instances, 3u);
  EXPECT_EQ(m.tensors[1].first_instance, 1u);
}

// The decider keeps an index-insensitive pattern's answer for every name that differs
// only in its digit runs; an index-sensitive one is asked for each name. Each row: an
// ignore pattern, and which of layers 1, 2, 11 and 12 it leaves unquantized.
TEST(QuantPatterns, AnswersKeptAcrossLayersAreThoseOfEachName) {
  struct Row {
    std::string pattern;
    std::vector<bool> ignored;  // layers 1, 2, 11, 12
  };
  const std::vector<Row> rows = {
      {"re:.*self_attn.*", {true, true, true, true}},
      {"re:.*mlp.*", {false, false, false, false}},
      {"re:.*layers\\.1\\..*", {true, false, false, false}},
      {"re:.*layers\\.1.*", {true, false, true, true}},
      {"re:.*layers\\.\\S\\.self.*", {true, true, false, false}},  // one character: 1 and 2, not 11 or 12
      {"re:.*layers\\.\\d\\d\\..*", {false, false, true, true}},
      {"re:.*layers\\..\\.self.*", {true, true, false, false}},
      {"model.layers.12.self_attn.q_proj", {false, false, false, true}},
  };
  const std::vector<int> layers = {1, 2, 11, 12};
  for (const auto& row : rows) {
    std::vector<LogicalTensor> logical;
    for (int l : layers)
      logical.push_back(tensor("model.layers." + std::to_string(l) + ".self_attn.q_proj.weight", {64, 128}));
    const auto m = quantize(R"({"quant_method": "compressed-tensors", "format": "int-quantized", "ignore": [)" +
                                nlohmann::json(row.pattern).dump() + "], " + kIntGroup + "}",
                            logical);
    std::vector<bool> ignored;
    for (int l : layers)
      for (const auto& t : m.tensors)
        if (t.name == "model.layers." + std::to_string(l) + ".self_attn.q_proj.weight")
          ignored.push_back(t.dtype == Dtype::BF16);
    EXPECT_EQ(ignored, row.ignored) << row.pattern;
  }
  EXPECT_TRUE(pattern_is_index_sensitive("experts\\.\\S\\."));
  EXPECT_FALSE(pattern_is_index_sensitive("experts\\.\\s*.*"));
}

TEST(QuantPatterns, TheMostSpecificTargetWinsWhateverTheGroupOrder) {
  // compressed-tensors: an exact name beats a regex, which beats a class name.
  const auto m =
      quantize(R"({"quant_method": "compressed-tensors",
      "config_groups": {
        "group_0": {"format": "int-quantized", "targets": ["Linear"], "weights": {"num_bits": 8, "strategy": "channel"}},
        "group_1": {"format": "float-quantized", "targets": ["re:.*down_proj"],
                    "weights": {"num_bits": 8, "type": "float", "strategy": "channel"}},
        "group_2": {"format": "pack-quantized", "targets": ["model.layers.0.mlp.up_proj"],
                    "weights": {"num_bits": 4, "strategy": "group", "group_size": 64}}}})",
               {tensor(kL0 + "mlp.gate_proj.weight", {128, 256}), tensor(kL0 + "mlp.down_proj.weight", {256, 128}),
                tensor(kL0 + "mlp.up_proj.weight", {128, 256})});
  ASSERT_EQ(m.tensors.size(), 7u);
  EXPECT_EQ(m.tensors[0].dtype, Dtype::I8);                         // gate_proj: Linear
  EXPECT_EQ(m.tensors[2].dtype, Dtype::F8_E4M3);                    // down_proj: regex
  EXPECT_EQ(m.tensors[4].name, kL0 + "mlp.up_proj.weight_packed");  // up_proj: exact name
}

TEST(QuantPatterns, FusedSlicesCountAsOneStoredTensor) {
  const auto m = quantize(R"({"quant_method": "mxfp4"})", {expert(kL0 + "mlp.experts.down_proj", {2880, 2880}, 32),
                                                           expert(kL0 + "mlp.experts.{E}.w2.weight", {64, 64}, 4)});
  ASSERT_EQ(m.tensors.size(), 4u);
  EXPECT_TRUE(is_fused_slice(m.tensors[0]));
  EXPECT_EQ(shape_text(stored_shape(m.tensors[0])), "[32, 2880, 90, 16]");
  EXPECT_EQ(shape_text(stored_shape(m.tensors[1])), "[32, 2880, 90]");
  EXPECT_FALSE(is_fused_slice(m.tensors[2]));
  EXPECT_EQ(shape_text(stored_shape(m.tensors[2])), "[64, 2, 16]");
  EXPECT_EQ(m.tensor_count(), 2u + 8u);  // 2 fused tensors + 4 experts x (blocks, scales)
  std::uint64_t instances = 0;
  for (const auto& t : m.tensors) instances += t.instances;
  EXPECT_EQ(instances, 64u + 8u);  // the instance count placement works with
}

TEST(QuantPatterns, NoQuantizationConfigKeepsEveryTensorPlain) {
  nlohmann::json doc = nlohmann::json::object();
  const auto s = parse_quantization(JsonFields(doc, "config.json")).value_or_throw();
  EXPECT_EQ(s.method, "none");
  const auto m = apply_quantization({tensor(kL0 + "self_attn.q_proj.weight", {64, 128})}, s).value_or_throw();
  ASSERT_EQ(m.tensors.size(), 1u);
  EXPECT_EQ(m.tensors[0].format, StorageFormat::plain);
  EXPECT_EQ(m.tensors[0].bytes_each, 16'384u);
}

// ---------------------------------------------------------------------------

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
