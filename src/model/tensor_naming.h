// What a stored tensor is, from its name alone: the naming table
// (data/tensor_naming.json) of the conventions the architectures vLLM and
// SGLang serve use for their state-dict keys (q/k/v/o_proj, query_key_value,
// Wqkv, c_attn, dense, fc1/fc2, gate_up_proj, w1/w2/w3, experts.N.*, fused
// expert tensors, block_sparse_moe, shared_expert(s), routers, norms,
// embed_tokens/wte/word_embeddings, lm_head, vision towers and projectors, MTP).
//
// The files' manifest (artifact/files_manifest.h) asks it about tensors the
// family reader did not generate. A name is split at dots; the first rule
// that matches gives the module class and the parallel role; the decoder
// layer is the number after a container ("layers", "h", "blocks"), the expert
// index the number after "experts". An attention module is the class of the
// tensor's layer in the config (GQA, MLA, KDA, linear). A tensor in a layer
// past the config's decoder layers is an MTP layer. Biases of row-parallel
// weights are replicated (added once, after the reduction). A name no rule
// matches is unclassified: placed replicated, the conservative choice.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "model/model_spec.h"
#include "model/module_class.h"

namespace preflight {

struct TensorClass {
  ModuleClass module = ModuleClass::unclassified;
  ParallelRole role = ParallelRole::replicated;
  int layer = kNoLayer;
  std::optional<std::uint32_t> expert;  // the expert index of one expert's tensor
  bool fused_experts = false;           // "experts" with no index: every expert in one tensor
  bool text = true;                     // false: vision tower or projector
  std::string rule;                     // the rule's name ("" when none matched)
};

class TensorNaming {
 public:
  struct Rule {
    std::string name;
    std::vector<std::string> any;          // one of these components
    std::vector<std::string> within;       // one of these before it (empty: anywhere)
    std::vector<std::string> within_none;  // none of these anywhere
    std::string contains;                  // a component containing this text
    bool attention = false;                // module: the layer's attention class
    ModuleClass module = ModuleClass::unclassified;
    ParallelRole role = ParallelRole::replicated;
    bool text = true;
  };

  static Result<TensorNaming> parse(std::string_view json_text, std::string_view origin);
  static const TensorNaming& embedded();

  // `decoder_stack` (see decoder_stack below): a tensor in a numbered stack
  // other than the decoder's (vpm.encoder.layers.N, model.sam_model.blocks.N)
  // belongs to an encoder (a vision or audio tower), never to a decoder layer.
  TensorClass classify(std::string_view name, const ModelSpec& model, std::string_view decoder_stack = "") const;

  // The numbered stack a name sits in: the name up to its layer container
  // ("model.layers" of "model.layers.3.mlp.up_proj.weight") and the index; none outside one.
  std::optional<std::pair<std::string, std::uint64_t>> stack_of(std::string_view name) const;

  // Which stack of these names is the decoder: the one with as many layers as
  // the config (or the fewest beyond, for MTP layers numbered on), else the
  // largest. "" when no name sits in a stack.
  std::string decoder_stack(const std::vector<std::string_view>& names, std::uint64_t decoder_layers) const;

 private:
  std::vector<std::string> containers_;
  std::vector<Rule> rules_;
};

// The attention module class of decoder layer `layer` (GQA for an unknown layer).
ModuleClass attention_module(const ModelSpec& model, int layer);

}  // namespace preflight
