// Model overrides: plan what an engine loads when it differs from the files.
//
// --quantize SCHEME plans a quantized variant of an unquantized config. The
// scheme is written into the config as the `quantization_config` its producer
// would write, before the family reader runs, so the stored tensors come from
// the same quantization rules (model/quantization.cc) as a real checkpoint's:
//
//   fp8          vLLM's online `--quantization fp8` (Fp8LinearMethod on an
//                unquantized checkpoint): quant_method "fp8", no block size,
//                dynamic activations. Every Linear weight but the LM head is
//                F8_E4M3 [out, in] + weight_scale F32 [] (one per-tensor scale);
//                embeddings, norms and the LM head keep the model dtype.
//   fp8-dynamic  compressed-tensors FP8_DYNAMIC (llm-compressor preset, the
//                RedHatAI *-FP8-dynamic checkpoints): float-quantized, Linear
//                weights F8_E4M3 [out, in] + weight_scale [out, 1] in the
//                weight's dtype (BF16), per-token dynamic FP8 activations (no
//                input_scale stored), ignore ["lm_head"].
//   w8a8         compressed-tensors INT8 W8A8 (RedHatAI *-quantized.w8a8):
//                int-quantized, I8 [out, in] + weight_scale [out, 1], per-token
//                dynamic INT8 activations, ignore ["lm_head"].
//   w4a16        compressed-tensors W4A16 (llm-compressor preset, RedHatAI
//                *-quantized.w4a16 GPTQ recipes): pack-quantized, INT4 symmetric
//                in groups of 128, weight_packed I32 [out, in/8] + weight_shape
//                I64 [2] + weight_scale [out, in/128], ignore ["lm_head"].
//   none         the files as they are.
//
// MoE routers stay unquantized in every scheme (vLLM builds them with
// quant_config=None; llm-compressor's MoE recipes ignore "re:.*mlp.gate$"), so
// the router modules the families mark as Linear (Mixtral block_sparse_moe.gate,
// Qwen mlp.gate and shared_expert_gate) are listed as not converted.
// A config that already has a quantization_config cannot be re-quantized.
//
// --dtype auto|bfloat16|float16|float32 (vLLM --dtype; also its aliases half
// and float) is the dtype the engine holds unquantized floating tensors in.
// vLLM builds the model under set_default_torch_dtype(dtype), so every
// parameter created without an explicit dtype takes it and the checkpoint's
// tensors are cast into it on load; quantization methods create their payloads
// (F8_E4M3, I8, packed I32) and scales with explicit dtypes, and a few modules
// create float32 parameters on purpose (MiniMax-M2's router, DeepSeek's
// e_score_correction_bias). Applied to the built manifest: plain tensors stored
// in the model dtype take --dtype; plain tensors stored in another dtype (those
// deliberate F32 tensors) keep it; quantized payloads, scales, zero points and
// activation scales keep their stored dtype. `auto` keeps the config's dtype.
// Known differences from vLLM, all small: vLLM holds compressed-tensors FP8
// channel scales as F32 (fp8_utils.create_fp8_scale_parameter), WNA16 group
// scales in --dtype, and casts DeepSeek-V3.2's F32 norms to the model dtype.
//
// When an override changes the manifest the planned model is no longer the
// released artifact: its name says so ("llama-3.1-8b-instruct (+fp8 online)"),
// a note records what was applied, and the artifact's facts (shard bytes, hub
// parameter count, revision) are left out, since they describe the files.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "model/model_spec.h"

namespace preflight {

struct ModelOverrides {
  std::string quantize;     // --quantize: "" or none | fp8 | fp8-dynamic | w8a8 | w4a16
  std::string dtype;        // --dtype: "" or auto | bfloat16 | float16 | float32 (half, float)
  std::string runner = {};  // --runner: "" or auto | generate | pooling (model/pooling_runner.h)
};

// Checks both values before any model is read; the error names the flag and the value.
std::optional<Error> validate_model_overrides(const ModelOverrides& overrides);

// True when an override asks for something other than the files (a scheme
// other than none, a dtype other than auto). Assumes validated values.
bool overrides_requested(const ModelOverrides& overrides);

// The `quantization_config` a --quantize scheme stands for (a null JSON for
// none / ""); exposed for tests and the docs.
Result<nlohmann::json> quantization_config_for(std::string_view scheme);

// Writes the scheme's quantization_config into a parsed config.json. Errors
// (origin "--quantize") when the config already has one, at the root or in
// its text_config / llm_config / language_config.
std::optional<Error> inject_quantization(nlohmann::json& config, std::string_view scheme, std::string_view origin);

// The model an engine loads. `files` is the model as its files describe it
// (name, artifact facts); `config_json` / `origin` the config it was built
// from. With no override requested, `files` is returned unchanged. With
// --quantize the model is rebuilt from the config with the injected scheme;
// --dtype then recasts the manifest. Errors name the flag and the value.
Result<ModelSpec> apply_model_overrides(ModelSpec files, std::string_view config_json, std::string_view origin,
                                        const ModelOverrides& overrides);

}  // namespace preflight
