// MiniMax-M2 / M2.1 / M2.5 / M2.7 (model_type minimax_m2, MiniMaxAI/MiniMax-M2):
// a GQA decoder with layer-wide q/k norms and a 256-expert sigmoid-routed MoE in
// every layer (no shared expert), released as FP8 block-quantized weights.
//
// Naming follows the released checkpoint (modeling_minimax_m2.py, the public
// safetensors index): `model.layers.N.self_attn.{q,k,v,o}_proj`,
// `self_attn.q_norm` over all query heads ([heads x head_dim]) and `k_norm`
// over all KV heads (qk_norm_type "per_layer"), `block_sparse_moe.gate.weight`
// (stored F32), `block_sparse_moe.e_score_correction_bias` (F32) and experts
// `w1`/`w3`/`w2`. The config says use_mtp with num_mtp_modules, but the
// releases ship no MTP tensors, so none are generated (and a note says so).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/families/families.h"
#include "model/family_common.h"
#include "model/json_fields.h"

namespace preflight {

namespace {

using MC = ModuleClass;
using PR = ParallelRole;

void add_tensors(TensorList& t, const ModelSpec& m, bool tied, bool routing_bias, bool qk_norm, bool fp8_release) {
  const auto H = m.hidden_size;
  const auto dt = m.dtype;
  const auto& g = m.gqa;
  const auto& moe = m.moe;
  // modules_to_not_convert names lm_head: it stays BF16 in the FP8 release.
  if (!tied) t.add("lm_head.weight", {m.vocab_size, H}, dt, MC::lm_head, PR::vocab, !fp8_release);
  t.add("model.embed_tokens.weight", {m.vocab_size, H}, dt, MC::embedding, PR::vocab, false);
  t.add("model.norm.weight", {H}, dt, MC::norms, PR::replicated, false);
  const auto q_width = g.heads * g.head_dim;
  const auto kv_width = g.kv_heads * g.head_dim;
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    const int L = static_cast<int>(i);
    const std::string p = fmt::format("model.layers.{}.", i);
    t.add(p + "input_layernorm.weight", {H}, dt, MC::norms, PR::replicated, false, L);
    t.add(p + "post_attention_layernorm.weight", {H}, dt, MC::norms, PR::replicated, false, L);
    t.add(p + "self_attn.q_proj.weight", {q_width, H}, dt, MC::gqa_attention, PR::column, true, L);
    t.add(p + "self_attn.k_proj.weight", {kv_width, H}, dt, MC::gqa_attention, PR::column, true, L);
    t.add(p + "self_attn.v_proj.weight", {kv_width, H}, dt, MC::gqa_attention, PR::column, true, L);
    t.add(p + "self_attn.o_proj.weight", {H, q_width}, dt, MC::gqa_attention, PR::row, true, L);
    if (qk_norm) {
      // One norm over the whole projection, not per head: kept whole on every
      // rank (engines all-reduce its statistics across TP).
      t.add(p + "self_attn.q_norm.weight", {q_width}, dt, MC::gqa_attention, PR::replicated, false, L);
      t.add(p + "self_attn.k_norm.weight", {kv_width}, dt, MC::gqa_attention, PR::replicated, false, L);
    }
    const std::string b = p + "block_sparse_moe.";
    // The router is kept in F32 (and out of FP8 by modules_to_not_convert).
    t.add(b + "gate.weight", {moe.routed_experts, H}, Dtype::F32, MC::router, PR::replicated, false, L);
    if (routing_bias)
      t.add(b + "e_score_correction_bias", {moe.routed_experts}, Dtype::F32, MC::router, PR::replicated, false, L);
    const auto E = static_cast<std::uint32_t>(moe.routed_experts);
    t.add(b + "experts.{E}.w1.weight", {moe.moe_intermediate, H}, dt, MC::routed_experts, PR::expert, true, L, E);
    t.add(b + "experts.{E}.w3.weight", {moe.moe_intermediate, H}, dt, MC::routed_experts, PR::expert, true, L, E);
    t.add(b + "experts.{E}.w2.weight", {H, moe.moe_intermediate}, dt, MC::routed_experts, PR::expert, true, L, E);
  }
}

}  // namespace

Result<ModelSpec> build_minimax_m2(const nlohmann::json& doc, std::string_view origin) {
  JsonFields root(doc, std::string(origin));
  ModelSpec m;
  m.family = "minimax_m2";
  m.origin = std::string(origin);
  auto architecture = read_architecture(root);
  if (!architecture) return architecture.error();
  m.architecture = *architecture;
  auto dtype = read_model_dtype(root, root);
  if (!dtype) return dtype.error();
  m.dtype = *dtype;

  std::uint64_t num_layers = 0;
  if (auto e = read_positive_integers(root, {
      {"hidden_size", &m.hidden_size},
      {"vocab_size", &m.vocab_size},
      {"num_hidden_layers", &num_layers},
      {"max_position_embeddings", &m.max_context},
      {"num_attention_heads", &m.gqa.heads},
      {"num_key_value_heads", &m.gqa.kv_heads},
      {"head_dim", &m.gqa.head_dim},
      // MiniMax's intermediate_size is the expert width (there is no dense MLP).
      {"intermediate_size", &m.moe.moe_intermediate},
      {"num_local_experts", &m.moe.routed_experts},
      {"num_experts_per_tok", &m.moe.experts_per_token},
      }))
    return *e;
  m.gqa.v_head_dim = m.gqa.head_dim;
  bool tied = false, routing_bias = false, qk_norm = false, use_mtp = false;
  for (auto [key, out] : {std::pair<std::string_view, bool*>{"tie_word_embeddings", &tied},
                          {"use_routing_bias", &routing_bias},
                          {"use_qk_norm", &qk_norm},
                          {"use_mtp", &use_mtp}}) {
    auto flag = read_flag(root, key);
    if (!flag) return flag.error();
    *out = *flag;
  }
  if (qk_norm) {
    auto kind = root.string_or("qk_norm_type", "per_layer");
    if (!kind) return kind.error();
    if (*kind != "per_layer")
      return root.error("qk_norm_type", fmt::format("'{}' is not supported (the released checkpoints use per_layer)",
                                                    *kind));
  }
  if (root.has("shared_intermediate_size")) {
    auto shared = root.non_negative_integer("shared_intermediate_size");
    if (!shared) return shared.error();
    if (*shared > 0)
      return root.error("shared_intermediate_size",
                        fmt::format("{}: no MiniMax-M2 checkpoint has a shared expert, so its naming is unknown",
                                    *shared));
  }
  if (root.has("attn_type_list")) {
    // 1 is full softmax attention; MiniMax-M1's lightning (linear) layers are 0.
    auto types = root.integer_list("attn_type_list");
    if (!types) return types.error();
    for (std::size_t i = 0; i < types->size(); ++i)
      if ((*types)[i] != 1)
        return Error{root.origin(), fmt::format("{}/{}", root.pointer_to("attn_type_list"), i),
                     fmt::format("attention type {} is not supported (only 1, full attention)", (*types)[i])};
  }

  if (m.gqa.kv_heads > m.gqa.heads || m.gqa.heads % m.gqa.kv_heads != 0)
    return root.error("num_key_value_heads", fmt::format("{} KV heads do not divide the {} attention heads",
                                                         m.gqa.kv_heads, m.gqa.heads));
  if (m.moe.experts_per_token > m.moe.routed_experts)
    return root.error("num_experts_per_tok", fmt::format("{} selected experts exceed the {} routed experts",
                                                         m.moe.experts_per_token, m.moe.routed_experts));
  if (num_layers > 4096) return root.error("num_hidden_layers", fmt::format("{} layers is implausible", num_layers));
  if (m.moe.routed_experts > 65536)
    return root.error("num_local_experts", fmt::format("{} experts is implausible", m.moe.routed_experts));

  bool fp8_release = false;
  if (doc.contains("quantization_config") && doc["quantization_config"].is_object())
    fp8_release = doc["quantization_config"].value("quant_method", "") == "fp8";

  m.layers.assign(num_layers, LayerKind::full_attention);
  if (use_mtp)
    m.notes.push_back(
        "use_mtp is set, but the MiniMax-M2 releases ship no MTP tensors: none are counted (mtp_layers = 0)");

  TensorList list;
  add_tensors(list, m, tied, routing_bias, qk_norm, fp8_release);
  return finish_model(std::move(m), list.take(), root, root);
}

}  // namespace preflight
