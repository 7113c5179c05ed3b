// GLM-4.5 / GLM-4.5-Air (model_type glm4_moe, zai-org/GLM-4.5[-Air]): a GQA
// decoder with biased q/k/v projections, optional per-head q/k norms, a dense
// first block and a DeepSeek-V3-style MoE (sigmoid router with an F32
// score-correction bias, one shared expert).
//
// Naming follows the Hugging Face checkpoints (transformers glm4_moe and the
// released safetensors indexes): `model.layers.N.self_attn.{q,k,v}_proj.{weight,
// bias}`, `o_proj`, `q_norm`/`k_norm`, `mlp.gate.weight`,
// `mlp.gate.e_score_correction_bias`, `mlp.experts.E.{gate,up,down}_proj`,
// `mlp.shared_experts.*`. The multi-token-prediction layer sits at
// model.layers.{num_hidden_layers} (92 for GLM-4.5, 46 for Air) with its own
// embed_tokens and shared_head.head copies: the Hub's safetensors totals
// (358,337,791,296 and 110,468,824,832 parameters) only add up with them.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/families/families.h"
#include "model/family_common.h"
#include "model/json_fields.h"

namespace preflight {

namespace {

using MC = ModuleClass;
using PR = ParallelRole;

struct Options {
  bool attention_bias = false;
  bool qk_norm = false;
  bool tied = false;
};

void add_layer(TensorList& t, const ModelSpec& m, const Options& o, std::uint64_t i) {
  const auto H = m.hidden_size;
  const auto dt = m.dtype;
  const auto& g = m.gqa;
  const auto& moe = m.moe;
  const int L = static_cast<int>(i);
  const bool mtp = i >= m.layers.size();
  const std::string p = fmt::format("model.layers.{}.", i);
  auto cls = [&](MC normal) { return mtp ? MC::mtp : normal; };

  t.add(p + "input_layernorm.weight", {H}, dt, cls(MC::norms), PR::replicated, false, L);
  t.add(p + "post_attention_layernorm.weight", {H}, dt, cls(MC::norms), PR::replicated, false, L);
  const MC attn = cls(MC::gqa_attention);
  const auto q_width = g.heads * g.head_dim;
  const auto kv_width = g.kv_heads * g.head_dim;
  t.add(p + "self_attn.q_proj.weight", {q_width, H}, dt, attn, PR::column, true, L);
  t.add(p + "self_attn.k_proj.weight", {kv_width, H}, dt, attn, PR::column, true, L);
  t.add(p + "self_attn.v_proj.weight", {kv_width, H}, dt, attn, PR::column, true, L);
  if (o.attention_bias) {
    t.add(p + "self_attn.q_proj.bias", {q_width}, dt, attn, PR::column, false, L);
    t.add(p + "self_attn.k_proj.bias", {kv_width}, dt, attn, PR::column, false, L);
    t.add(p + "self_attn.v_proj.bias", {kv_width}, dt, attn, PR::column, false, L);
  }
  t.add(p + "self_attn.o_proj.weight", {H, q_width}, dt, attn, PR::row, true, L);
  if (o.qk_norm) {
    t.add(p + "self_attn.q_norm.weight", {g.head_dim}, dt, attn, PR::replicated, false, L);
    t.add(p + "self_attn.k_norm.weight", {g.head_dim}, dt, attn, PR::replicated, false, L);
  }

  if (i < moe.first_dense_layers) {
    t.add(p + "mlp.gate_proj.weight", {moe.dense_intermediate, H}, dt, cls(MC::dense_mlp), PR::column, true, L);
    t.add(p + "mlp.up_proj.weight", {moe.dense_intermediate, H}, dt, cls(MC::dense_mlp), PR::column, true, L);
    t.add(p + "mlp.down_proj.weight", {H, moe.dense_intermediate}, dt, cls(MC::dense_mlp), PR::row, true, L);
  } else {
    // The router weight is BF16 and the correction bias F32 (Hub: 5,888 F32
    // values for Air = 46 MoE layers x 128 experts).
    t.add(p + "mlp.gate.weight", {moe.routed_experts, H}, dt, cls(MC::router), PR::replicated, false, L);
    t.add(p + "mlp.gate.e_score_correction_bias", {moe.routed_experts}, Dtype::F32, cls(MC::router), PR::replicated,
          false, L);
    const auto E = static_cast<std::uint32_t>(moe.routed_experts);
    const MC routed = cls(MC::routed_experts);
    t.add(p + "mlp.experts.{E}.gate_proj.weight", {moe.moe_intermediate, H}, dt, routed, PR::expert, true, L, E);
    t.add(p + "mlp.experts.{E}.up_proj.weight", {moe.moe_intermediate, H}, dt, routed, PR::expert, true, L, E);
    t.add(p + "mlp.experts.{E}.down_proj.weight", {H, moe.moe_intermediate}, dt, routed, PR::expert, true, L, E);
    const auto shared = moe.shared_experts * moe.moe_intermediate;
    if (shared > 0) {
      const MC sh = cls(MC::shared_experts);
      t.add(p + "mlp.shared_experts.gate_proj.weight", {shared, H}, dt, sh, PR::column, true, L);
      t.add(p + "mlp.shared_experts.up_proj.weight", {shared, H}, dt, sh, PR::column, true, L);
      t.add(p + "mlp.shared_experts.down_proj.weight", {H, shared}, dt, sh, PR::row, true, L);
    }
  }

  if (mtp) {
    t.add(p + "enorm.weight", {H}, dt, MC::mtp, PR::replicated, false, L);
    t.add(p + "hnorm.weight", {H}, dt, MC::mtp, PR::replicated, false, L);
    t.add(p + "eh_proj.weight", {H, 2 * H}, dt, MC::mtp, PR::replicated, true, L);
    t.add(p + "embed_tokens.weight", {m.vocab_size, H}, dt, MC::mtp, PR::vocab, false, L);
    t.add(p + "shared_head.norm.weight", {H}, dt, MC::mtp, PR::replicated, false, L);
    t.add(p + "shared_head.head.weight", {m.vocab_size, H}, dt, MC::mtp, PR::vocab, true, L);
  }
}

}  // namespace

Result<ModelSpec> build_glm4_moe(const nlohmann::json& doc, std::string_view origin) {
  JsonFields root(doc, std::string(origin));
  ModelSpec m;
  m.family = "glm4_moe";
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
      {"intermediate_size", &m.moe.dense_intermediate},
      {"moe_intermediate_size", &m.moe.moe_intermediate},
      {"n_routed_experts", &m.moe.routed_experts},
      {"num_experts_per_tok", &m.moe.experts_per_token},
      }))
    return *e;
  // head_dim is explicit in the GLM-4.5 configs (128 with 96 heads on a 4096 or
  // 5120 hidden size: heads x head_dim is not hidden_size).
  auto head_dim = root.positive_integer_or("head_dim", m.hidden_size / m.gqa.heads);
  if (!head_dim) return head_dim.error();
  m.gqa.head_dim = *head_dim;
  m.gqa.v_head_dim = *head_dim;
  for (const auto& f : {CountField{"n_shared_experts", &m.moe.shared_experts},
                        CountField{"first_k_dense_replace", &m.moe.first_dense_layers},
                        CountField{"num_nextn_predict_layers", &m.mtp_layers}}) {
    if (!root.has(f.key)) continue;
    auto n = root.non_negative_integer(f.key);
    if (!n) return n.error();
    *f.out = *n;
  }
  Options o;
  for (auto [key, out] : {std::pair<std::string_view, bool*>{"attention_bias", &o.attention_bias},
                          {"use_qk_norm", &o.qk_norm},
                          {"tie_word_embeddings", &o.tied}}) {
    auto flag = read_flag(root, key);
    if (!flag) return flag.error();
    *out = *flag;
  }

  if (m.gqa.kv_heads > m.gqa.heads)
    return root.error("num_key_value_heads",
                      fmt::format("{} KV heads exceed the {} attention heads", m.gqa.kv_heads, m.gqa.heads));
  if (m.gqa.heads % m.gqa.kv_heads != 0)
    return root.error("num_key_value_heads", fmt::format("{} KV heads do not divide the {} attention heads",
                                                         m.gqa.kv_heads, m.gqa.heads));
  if (m.moe.experts_per_token > m.moe.routed_experts)
    return root.error("num_experts_per_tok", fmt::format("{} selected experts exceed the {} routed experts",
                                                         m.moe.experts_per_token, m.moe.routed_experts));
  if (m.moe.first_dense_layers > num_layers)
    return root.error("first_k_dense_replace",
                      fmt::format("{} exceeds the {} layers", m.moe.first_dense_layers, num_layers));
  if (num_layers > 4096) return root.error("num_hidden_layers", fmt::format("{} layers is implausible", num_layers));
  if (m.mtp_layers > 16)
    return root.error("num_nextn_predict_layers", fmt::format("{} MTP layers is implausible", m.mtp_layers));
  if (m.moe.routed_experts > 65536)
    return root.error("n_routed_experts", fmt::format("{} experts is implausible", m.moe.routed_experts));

  m.layers.assign(num_layers, LayerKind::full_attention);
  if (m.mtp_layers > 0)
    m.notes.push_back(fmt::format(
        "{} multi-token-prediction layer(s) stored as model.layers.{}..{} beyond num_hidden_layers, each with its own "
        "embed_tokens and shared_head.head copies; not counted in the decoder layers or the KV cache",
        m.mtp_layers, num_layers, num_layers + m.mtp_layers - 1));

  TensorList list;
  const auto H = m.hidden_size;
  if (!o.tied) list.add("lm_head.weight", {m.vocab_size, H}, m.dtype, MC::lm_head, PR::vocab, true);
  list.add("model.embed_tokens.weight", {m.vocab_size, H}, m.dtype, MC::embedding, PR::vocab, false);
  list.add("model.norm.weight", {H}, m.dtype, MC::norms, PR::replicated, false);
  for (std::uint64_t i = 0; i < num_layers + m.mtp_layers; ++i) add_layer(list, m, o, i);
  return finish_model(std::move(m), list.take(), root, root);
}

}  // namespace preflight
