#include "model/module_class.h"

namespace preflight {

std::string_view module_key(ModuleClass m) {
  switch (m) {
    case ModuleClass::embedding:
      return "embedding";
    case ModuleClass::lm_head:
      return "lm_head";
    case ModuleClass::kda_attention:
      return "kda_attention";
    case ModuleClass::mla_attention:
      return "mla_attention";
    case ModuleClass::gqa_attention:
      return "gqa_attention";
    case ModuleClass::linear_attention:
      return "linear_attention";
    case ModuleClass::mtp:
      return "mtp";
    case ModuleClass::dense_mlp:
      return "dense_mlp";
    case ModuleClass::shared_experts:
      return "shared_experts";
    case ModuleClass::router:
      return "router";
    case ModuleClass::latent_projection:
      return "latent_projection";
    case ModuleClass::routed_experts:
      return "routed_experts";
    case ModuleClass::norms:
      return "norms";
    case ModuleClass::attn_res:
      return "attn_res";
    case ModuleClass::vision_tower:
      return "vision_tower";
    case ModuleClass::audio_tower:
      return "audio_tower";
    case ModuleClass::projector:
      return "projector";
    case ModuleClass::unclassified:
      return "unclassified";
  }
  return "?";
}

std::string_view module_label(ModuleClass m) {
  switch (m) {
    case ModuleClass::embedding:
      return "embedding";
    case ModuleClass::lm_head:
      return "LM head";
    case ModuleClass::kda_attention:
      return "attention: KDA (linear)";
    case ModuleClass::mla_attention:
      return "attention: MLA (global)";
    case ModuleClass::gqa_attention:
      return "attention: GQA";
    case ModuleClass::linear_attention:
      return "attention: linear (DeltaNet/Mamba)";
    case ModuleClass::mtp:
      return "MTP layers";
    case ModuleClass::dense_mlp:
      return "dense MLP";
    case ModuleClass::shared_experts:
      return "shared experts";
    case ModuleClass::router:
      return "router";
    case ModuleClass::latent_projection:
      return "latent MoE projections";
    case ModuleClass::routed_experts:
      return "routed experts";
    case ModuleClass::norms:
      return "norms";
    case ModuleClass::attn_res:
      return "Attention Residuals";
    case ModuleClass::vision_tower:
      return "vision tower";
    case ModuleClass::audio_tower:
      return "audio tower";
    case ModuleClass::projector:
      return "multimodal projector";
    case ModuleClass::unclassified:
      return "unclassified (replicated)";
  }
  return "?";
}

std::string_view parallel_role_key(ParallelRole r) {
  switch (r) {
    case ParallelRole::column:
      return "column";
    case ParallelRole::row:
      return "row";
    case ParallelRole::vocab:
      return "vocab";
    case ParallelRole::replicated:
      return "replicated";
    case ParallelRole::expert:
      return "expert";
  }
  return "?";
}

std::optional<ModuleClass> module_from_key(std::string_view key) {
  for (auto m : kAllModuleClasses)
    if (module_key(m) == key) return m;
  return std::nullopt;
}

std::optional<ParallelRole> parallel_role_from_key(std::string_view key) {
  for (auto r :
       {ParallelRole::column, ParallelRole::row, ParallelRole::vocab, ParallelRole::replicated, ParallelRole::expert})
    if (parallel_role_key(r) == key) return r;
  return std::nullopt;
}

}  // namespace preflight
