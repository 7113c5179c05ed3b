// Serving a causal LM as a pooling model (an embedding or reranking service).
//
// vLLM picks the pooling runner for a *ForCausalLM checkpoint when the repo
// carries a Sentence Transformers pooling config (modules.json: "Some Sentence
// Transformers models use *ForCausalLM archs", ModelConfig._get_default_runner_type,
// vLLM 0.10+), or when asked with `--runner pooling`. The pooling adapter then
// deletes the model's `lm_head` and logits processor (model_executor/models/
// adapters.py, _create_pooling_model_cls), so the LM head is neither loaded nor
// held, and the profile run pools hidden states instead of sampling
// (gpu_model_runner.profile_run: _dummy_pooler_run), so the sampler's logits
// are no part of the activation peak. The KV cache is allocated as for a
// generating model (decoder embedders attend causally).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "model/model_spec.h"

namespace preflight {

enum class Runner { automatic, generate, pooling };

// --runner's value: "" or auto, generate, pooling. The error names the flag.
Result<Runner> parse_runner(std::string_view text);

// The runner the engine picks: the one asked for, else pooling when the
// artifact carries a Sentence Transformers config (modules.json), else generate.
Runner resolve_runner(Runner asked, bool has_sentence_transformers_config);

// The model as a pooling runner holds it: tensors of the LM head left out of
// the manifest, ModelSpec::pooling_runner set and a note saying why (`why`).
void serve_as_pooling(ModelSpec& model, std::string_view why);

}  // namespace preflight
