// Quantization schemes, applied by tensor name exactly as the real tooling does.
//
// A `quantization_config` decides, for every logical weight, how it is stored.
// Five `quant_method`s are read; each reproduces the tensors its producer writes:
//
//   compressed-tensors  config groups whose `targets` name module classes
//       ("Linear"), exact module names or regexes ("re:..."), and an `ignore`
//       list of names / regexes that stay unquantized. Regexes follow Python's
//       `re.match` (anchored at the start, not the end), which compressed-tensors
//       calls. A module matched by several groups takes the most specific match
//       (exact name, then regex, then class), as compressed-tensors' matcher does.
//       Formats (compressed_tensors/compressors/quantized_compressors/*.py):
//         mxfp4-pack-quantized  weight_packed U8 [out, in/2] (two E2M1 codes a byte)
//                               + weight_scale U8 [out, in/32] (E8M0 exponents)
//         nvfp4-pack-quantized  weight_packed U8 [out, in/2] + weight_scale F8_E4M3
//                               [out, in/16] + weight_global_scale F32 [1]
//                               (+ input_global_scale F32 [1] when activations are FP4)
//         pack-quantized        weight_packed I32 [out, ceil(in*bits/32)] + weight_shape
//                               I64 [2] + weight_scale (strategy shape, model dtype)
//                               (+ weight_zero_point I32 packed along dim 0 when asymmetric)
//         int-quantized         weight I8 [out, in] + weight_scale
//         float-quantized       weight F8_E4M3 [out, in] + weight_scale
//         naive-quantized       the int or float layout above, by `type`
//       weight_scale shape by strategy (lifecycle/initialize.py): tensor [1],
//       channel [out, 1], group [out, ceil(in/group)], block [ceil(out/b0), ceil(in/b1)].
//       Static input activations add input_scale [1]; `actorder: group` adds
//       weight_g_idx I32 [in]; zero points are written only when asymmetric
//       (BaseQuantizationCompressor.compress); `kv_cache_scheme` adds k_scale and
//       v_scale [1] on every attention module that has a k_proj.
//   fp8 (DeepSeek-V3/R1, Kimi-K2, MiniMax-M2, Qwen3 FP8; transformers
//       FineGrainedFP8): every nn.Linear weight except the LM head and the
//       `modules_to_not_convert` / `ignored_layers` entries is `weight` F8_E4M3
//       [out, in] + `weight_scale_inv` F32 [ceil(out/b0), ceil(in/b1)] (ceil: a
//       partial block still has a scale, e.g. [576, 7168] -> [5, 56]). The MoE
//       router (`mlp.gate`, a Parameter, not a Linear), embeddings and norms are
//       not Linear weights, so they keep the model dtype; MiniMax also lists
//       "gate" and the LM head in modules_to_not_convert. Without
//       weight_block_size (AutoFP8's per-tensor layout): `weight_scale` F32 []
//       (+ `input_scale` F32 [] when activation_scheme is static).
//   mxfp4 (gpt-oss; transformers integrations/mxfp4.py): only the MoE expert
//       weights are converted. Each becomes `<param>_blocks` U8 [out, in/32, 16]
//       and `<param>_scales` U8 [out, in/32] (one E8M0 exponent per 32 values).
//   awq (AutoAWQ WQLinear_GEMM, version "gemm"): qweight I32 [in, out*bits/32],
//       qzeros I32 [in/group, out*bits/32] (always written), scales F16 [in/group, out].
//   gptq (AutoGPTQ / GPTQModel QuantLinear): qweight I32 [in*bits/32, out], qzeros
//       I32 [ceil(in/group), out*bits/32], scales F16 [ceil(in/group), out],
//       g_idx I32 [in] (written whether or not desc_act is set). AutoGPTQ (a
//       quantize_config with model_file_base_name and no `meta`, which GPTQModel
//       writes) builds every QuantLinear with bias=True: a module without a bias
//       still stores `bias` F16 [out] (Qwen-7B-Chat-Int4: c_proj, w1, w2).
//       GPTQModel's `dynamic` {"-:<re>": {}, "+:<re>": {bits, group_size}} leaves
//       matching modules unquantized or re-sizes them (re.match on the module name).
//   mlx (mlx-lm `quantize_model`; the config's `quantization` / `quantization_config`
//       holds bits, group_size and mode "affine", no quant_method): every nn.Linear
//       and nn.Embedding whose input dimension group_size divides, the LM head
//       included, becomes `weight` U32 [out, in*bits/32] + `scales` and `biases`
//       [out, in/group_size] in the model dtype. Entries keyed by a module path
//       override it: false keeps the module unquantized, {bits, group_size} re-sizes it.
//   bitsandbytes (transformers integrations/bitsandbytes.py; bitsandbytes
//       Params4bit / Int8Params): every nn.Linear except the LM head and
//       llm_int8_skip_modules (substring match). 4-bit: `weight` U8 [out*in/2, 1],
//       `weight.absmax` F32 [ceil(out*in/64)] (U8 with double quantization, plus
//       `weight.nested_absmax` F32 [ceil(blocks/256)] and `weight.nested_quant_map`
//       F32 [256]), `weight.quant_map` F32 [16] and
//       `weight.quant_state.bitsandbytes__<type>` U8 [the packed JSON's length].
//       8-bit: `weight` I8 [out, in], `SCB` F32 [out], `weight_format` U8 [].
//   modelopt (NVIDIA TensorRT Model Optimizer's Hugging Face export; quant_algo
//       NVFP4, W4A16_NVFP4 (no input_scale), FP8, or MIXED_PRECISION with each
//       quantized module's algorithm in quantized_layers; the unquantized modules as shell-style wildcards, listed as
//       `exclude_modules` in hf_quant_config.json and as `ignore` in config.json's
//       quantization_config, both read as vLLM's ModelOptQuantConfigBase.from_config
//       reads them): every nn.Linear not excluded. NVFP4: `weight` U8 [out, in/2] + `weight_scale` F8_E4M3
//       [out, in/group_size] + `weight_scale_2` F32 [] + `input_scale` F32 [].
//       FP8: `weight` F8_E4M3 [out, in] + `weight_scale` F32 [] + `input_scale` F32 [].
//       kv_cache_quant_algo FP8 (or config.json's kv_cache_scheme {type float,
//       num_bits 8}) adds `k_proj.k_scale` and `v_proj.v_scale` F32 [].
//   For fp8, mxfp4, awq and gptq the LM head is never converted (transformers
//   keeps the output embedding out of every quantizer), and awq/gptq convert only
//   the language model's decoder layers (their producers walk those layers only).
//
// `modules_to_not_convert` / `ignored_layers` patterns (fp8, mxfp4, awq, gptq)
// exclude a module when the pattern is a substring of its name (AutoAWQ and older
// transformers: `key in name`) or when Python's re.match(pattern, name) succeeds
// (transformers' should_convert_module, which gpt-oss relies on for
// "model.layers.*.self_attn"): the union, so a module any producer left
// unconverted stays unconverted.
//
// Parameter counting rule (applied everywhere): a quantized weight carries out x in
// logical parameters, once, on its value tensor (packed FP4/INT4 values counted one
// each: a U8 byte of E2M1 codes is 2 parameters, an I32 of 4-bit ints is 8);
// scales, global scales, zero points, g_idx, weight_shape and activation / KV
// scales carry none. This is the hub's rule for gpt-oss (U8 blocks counted x2,
// scales dropped) and the public Kimi audits' rule (INT4 I32 x8, scales dropped).
// Stored element counts per dtype stay available in the inventory.
//
// Fused expert tensors (gpt-oss `mlp.experts.gate_up_proj_blocks` [E, 2I, H/32, 16]:
// one stored tensor holding every expert) are represented as `instances = E`
// slices of the per-expert shape under the stored name, which has no "{E}". The
// bytes, parameters and expert-parallel placement (which deals instances over EP
// ranks) are exact; `is_fused_slice` / `stored_shape` (tensor_manifest.h) and `TensorManifest::tensor_count`
// recover the stored view (one tensor of shape [E] + slice shape).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "model/json_fields.h"
#include "model/quantization/name_pattern.h"
#include "model/tensor_manifest.h"

namespace preflight {

// How one group of weights is stored.
enum class QuantFormat {
  ct_mxfp4,        // compressed-tensors mxfp4-pack-quantized
  ct_nvfp4,        // compressed-tensors nvfp4-pack-quantized
  ct_pack,         // compressed-tensors pack-quantized (INT2/4/8 in I32)
  ct_int,          // compressed-tensors int-quantized / naive int
  ct_float,        // compressed-tensors float-quantized / naive float (FP8)
  fp8,             // quant_method fp8 (block-wise or per-tensor)
  gpt_oss_mxfp4,   // quant_method mxfp4 (gpt-oss *_blocks / *_scales)
  awq_gemm,        // quant_method awq, version gemm
  gptq,            // quant_method gptq
  mlx_affine,      // MLX (mlx-lm): `quantization` {bits, group_size}, no quant_method
  bnb_4bit,        // quant_method bitsandbytes, load_in_4bit (nf4 / fp4)
  bnb_8bit,        // quant_method bitsandbytes, load_in_8bit (LLM.int8)
  modelopt_nvfp4,  // quant_method modelopt, quant_algo NVFP4 (TensorRT Model Optimizer export)
  modelopt_fp8,    // quant_method modelopt, quant_algo FP8 (per-tensor)
};

// compressed-tensors strategy of the weight scales (fp8 block-wise reads as block).
enum class ScaleStrategy { tensor, channel, group, block, tensor_group };

struct QuantGroup {
  std::string name;                  // "group_0" (the method name for non-grouped methods)
  std::string pointer;               // JSON pointer of the group, for errors
  std::vector<NamePattern> targets;  // "Linear" or regexes (compressed-tensors only)
  std::string format;                // "mxfp4-pack-quantized", "fp8", "awq", ...
  QuantFormat kind = QuantFormat::ct_mxfp4;
  std::uint64_t num_bits = 0;
  std::string type;              // "float" | "int"
  std::uint64_t group_size = 0;  // weights per scale (block: rows x columns); 0 when per channel / tensor
  ScaleStrategy strategy = ScaleStrategy::group;
  std::uint64_t block_rows = 0, block_cols = 0;  // block strategy / fp8 weight_block_size
  bool symmetric = true;
  bool group_index = false;                   // weight_g_idx stored (actorder "group")
  std::optional<Dtype> scale_dtype_override;  // `scale_dtype` when the config names one
  Dtype scale_dtype = Dtype::U8;  // for reports; the stored dtype may follow the weight (see scale_dtype_for)
  // Input activations: nothing stored when dynamic; a static scale (and zero
  // point when asymmetric) otherwise; NVFP4 activations store a global scale.
  enum class Input { none, static_scale, fp4_global } input = Input::none;
  bool input_symmetric = true;
  bool input_per_token = false;  // static token strategy: [1, 1]
  bool double_quant = false;     // bitsandbytes bnb_4bit_use_double_quant
  bool bias_always = false;      // AutoGPTQ: every QuantLinear stores a bias, even where the model has none
  std::string bnb_type;          // "nf4" | "fp4"
  std::string bnb_dtype;         // the compute dtype's name in the packed quant_state ("float16")
};

struct QuantizationScheme {
  std::string method = "none";  // "none" | "compressed-tensors" | "fp8" | "mxfp4" | "awq" | "gptq"
  std::string format;           // top-level format (compressed-tensors)
  std::vector<QuantGroup> groups;
  std::vector<NamePattern> ignore;  // ignore (compressed-tensors) or modules_to_not_convert
  // ModelOpt MIXED_PRECISION: module path -> index of its group in `groups`; a module
  // takes the entry of the longest listed path that is it or contains it.
  std::map<std::string, std::size_t, std::less<>> layer_groups;
  bool kv_cache_scales = false;           // compressed-tensors kv_cache_scheme stores k_scale / v_scale
  bool kv_scales_on_projections = false;  // ModelOpt: k_proj.k_scale / v_proj.v_scale (F32 [])
  // The KV cache the checkpoint was calibrated for: "fp8" when ModelOpt's
  // kv_cache_quant_algo is FP8 or a kv_cache_scheme (ModelOpt or
  // compressed-tensors) is 8-bit float; empty otherwise. Engines that read it
  // serve the cache in it under --kv-cache-dtype auto (engine/checkpoint_kv_dtype.h).
  std::string declared_kv_dtype;
  std::string declared_kv_source;  // the JSON pointer that declares it, for the report
  std::string origin;              // file the scheme came from
  std::string pointer;             // JSON pointer of quantization_config
  std::vector<std::string> notes;  // what the reader assumed (for ModelSpec::notes)

  // The group every weight not named elsewhere takes: the last for MLX and GPTQ
  // (per-module overrides come first), else the first; none for ModelOpt
  // MIXED_PRECISION (each module names its own) or without quantization.
  const QuantGroup* model_wide_group() const;
};

// `container` is the object that holds `quantization_config` (for K3: text_config).
Result<QuantizationScheme> parse_quantization(const JsonFields& container);

// Turns logical weights into stored tensors. Errors name the tensor and the rule.
// Takes the logical tensors by value: a caller done with them moves them in, and
// a tensor stored as it is keeps its name and shape instead of a copy.
Result<TensorManifest> apply_quantization(std::vector<LogicalTensor> logical, const QuantizationScheme& scheme);

}  // namespace preflight
