// Module classes: how the inventory and the per-rank ledger group tensors.
#pragma once

#include <cstddef>
#include <iterator>
#include <optional>
#include <string_view>

namespace preflight {

enum class ModuleClass {
  embedding,          // input token embedding
  lm_head,            // output projection over the vocabulary
  kda_attention,      // Kimi Delta Attention layers (linear / recurrent)
  mla_attention,      // Multi-head Latent Attention layers (global)
  gqa_attention,      // grouped-query / multi-head attention (full, sliding or chunked)
  linear_attention,   // other linear / recurrent mixers (Gated DeltaNet, Mamba-2)
  dense_mlp,          // dense feed-forward layers (first_k_dense_replace)
  shared_experts,     // MoE shared experts (every token)
  router,             // MoE gate and its score-correction bias
  latent_projection,  // latent MoE hidden<->latent projections and norm
  routed_experts,     // MoE routed experts (top-k of them per token)
  norms,              // layer norms outside attention and MoE
  attn_res,           // Attention Residuals norms and projections
  vision_tower,       // vision encoder
  audio_tower,        // audio encoder (Gemma 3n)
  projector,          // multimodal projector
  mtp,                // multi-token-prediction layers stored beyond num_hidden_layers
  unclassified,       // a stored tensor no family reader or naming rule places: replicated, named in the notes
};

inline constexpr ModuleClass kAllModuleClasses[] = {
    ModuleClass::embedding,
    ModuleClass::lm_head,
    ModuleClass::kda_attention,
    ModuleClass::mla_attention,
    ModuleClass::gqa_attention,
    ModuleClass::linear_attention,
    ModuleClass::dense_mlp,
    ModuleClass::shared_experts,
    ModuleClass::router,
    ModuleClass::latent_projection,
    ModuleClass::routed_experts,
    ModuleClass::norms,
    ModuleClass::attn_res,
    ModuleClass::vision_tower,
    ModuleClass::audio_tower,
    ModuleClass::projector,
    ModuleClass::mtp,
    ModuleClass::unclassified,
};
// Placement indexes flat arrays by module: the list is the enum, in order.
static_assert(std::size(kAllModuleClasses) == static_cast<std::size_t>(ModuleClass::unclassified) + 1);

std::string_view module_key(ModuleClass m);                        // "routed_experts"
std::optional<ModuleClass> module_from_key(std::string_view key);  // the inverse of module_key
std::string_view module_label(ModuleClass m);                      // "routed experts"

// How a tensor is divided over ranks (placement reads this; the family sets it).
enum class ParallelRole {
  column,      // split along the output dimension by attention/MLP TP
  row,         // split along the input dimension by TP
  vocab,       // vocabulary-parallel rows (embedding, LM head)
  replicated,  // a full copy on every rank (norms, routers, low-rank projections)
  expert,      // one routed expert: whole on the rank that owns it (EP)
};

std::string_view parallel_role_key(ParallelRole r);
std::optional<ParallelRole> parallel_role_from_key(std::string_view key);  // the inverse of parallel_role_key

}  // namespace preflight
