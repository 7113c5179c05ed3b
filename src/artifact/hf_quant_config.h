// hf_quant_config.json: the file NVIDIA's TensorRT Model Optimizer writes beside
// config.json ({"producer": ..., "quantization": {"quant_algo": "NVFP4",
// "kv_cache_quant_algo": "FP8", "group_size": 16, "exclude_modules": [...]}}).
// Older ModelOpt exports declare their quantization only there. vLLM reads it
// when config.json has no quantization_config (vllm/model_executor/model_loader/
// weight_utils.py get_quant_config: hf_config.quantization_config first, else
// the method's config file names, ModelOptQuantConfigBase.get_config_filenames
// = ["hf_quant_config.json"]); SGLang does the same (ModelConfig._parse_quant_hf_config).
#pragma once

#include <optional>
#include <string>

#include "artifact/model_files.h"
#include "core/result.h"

namespace preflight {

struct MergedConfig {
  std::string config;  // config.json's text, with quantization_config when it was taken from the file
  bool merged = false;
  std::string note;  // what was done, for the report
};

// config.json's text with hf_quant_config.json's `quantization` as its
// quantization_config {"quant_method": "modelopt", ...}, unless config.json
// (or its text_config) already declares one. Errors name `hf_origin`, the field
// and the value.
Result<MergedConfig> merge_hf_quant_config(const std::string& config_text, const std::string& config_origin,
                                           const std::string& hf_text, const std::string& hf_origin);

// The same on a model's files as read (a folder's, a hub repo's): the config
// takes the file's quantization when it counts, its origin and source say so,
// and the note joins files.notes.
std::optional<Error> take_hf_quant_config(ModelFiles& files, const std::string& hf_text, const std::string& hf_origin);

}  // namespace preflight
