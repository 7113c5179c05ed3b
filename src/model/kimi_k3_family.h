// The kimi_k3 family: Kimi K3's tensor naming and shapes, generated from its
// config.json (a KimiK3ForConditionalGeneration wrapper with a kimi_linear
// text_config and a MoonViT vision_config).
//
// Layers are KDA (Kimi Delta Attention, linear) or MLA (global), listed
// 1-indexed in text_config.linear_attn_config; layer 0 holds the dense MLP
// (first_k_dense_replace), the rest a latent MoE: experts work in a
// routed_expert_hidden_size-wide space between two BF16 projections.
// Shapes were checked against the released checkpoint's full tensor inventory
// (497,220 tensors in 96 shards; see the family test).
#pragma once

#include <string_view>

#include "core/result.h"
#include "model/model_spec.h"

namespace preflight {

// Builds the ModelSpec (dimensions, layer kinds, manifest) from config.json text.
Result<ModelSpec> build_kimi_k3_model(std::string_view config_json, std::string_view origin);

// True when the config's architecture belongs to this family.
bool is_kimi_k3_config(std::string_view config_json);

}  // namespace preflight
