// Shared building blocks for the architecture families (families/*.cc).
//
// A family reads a config into a ModelSpec: dimensions, layer kinds and the
// logical weights under the family's tensor naming. finish_model() then applies
// the config's quantization rules by name to produce the stored manifest.
#pragma once

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "model/json_fields.h"
#include "model/model_spec.h"

namespace preflight {

// Collects logical tensors; the argument order mirrors a tensor inventory row.
class TensorList {
 public:
  void add(std::string name, std::vector<std::uint64_t> shape, Dtype dtype, ModuleClass module, ParallelRole role,
           bool linear, int layer = kNoLayer, std::uint32_t instances = 1, bool text = true) {
    out_.push_back(LogicalTensor{std::move(name), std::move(shape), dtype, linear, module, role, layer, instances, text});
  }
  std::vector<LogicalTensor> take() { return std::move(out_); }
  std::size_t size() const { return out_.size(); }

 private:
  std::vector<LogicalTensor> out_;
};

// The object holding the language model's fields: `text_config` for multimodal
// wrappers (or `llm_config`), the root otherwise.
Result<JsonFields> text_fields(const JsonFields& root);

// The model dtype from `torch_dtype` / `dtype` (default bfloat16).
Result<Dtype> read_model_dtype(const JsonFields& text, const JsonFields& root);

// Reads an optional boolean (false when absent); errors when present and not a boolean.
Result<bool> read_flag(const JsonFields& node, std::string_view key, bool fallback = false);

// The first entry of `architectures` ("" when the list is empty or absent).
Result<std::string> read_architecture(const JsonFields& root);

// A positive integer field and where to store it; `node` defaults to the
// node passed to read_positive_integers.
struct CountField {
  std::string_view key;
  std::uint64_t* out;
  const JsonFields* node = nullptr;
};

// Reads every field in order; the first bad one is the error.
std::optional<Error> read_positive_integers(const JsonFields& node, std::initializer_list<CountField> fields);

// Applies the quantization_config found in `quant_container` (or the root) to
// the logical tensors and stores the manifest in `model`.
Result<ModelSpec> finish_model(ModelSpec model, std::vector<LogicalTensor> tensors, const JsonFields& text,
                               const JsonFields& root);

}  // namespace preflight
