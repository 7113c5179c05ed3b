// Qwen3-Next (model_type qwen3_next, Qwen/Qwen3-Next-80B-A3B-*): Gated DeltaNet
// layers with a gated full-attention layer every `full_attention_interval`
// layers, a 512-expert MoE with one gated shared expert in every layer, and a
// multi-token-prediction block stored under `mtp.*`.
//
// Naming follows transformers' qwen3_next and the released safetensors index:
// full-attention layers `self_attn.{q,k,v,o}_proj` with q_proj twice as wide
// (query and output gate: heads x head_dim x 2) and per-head `q_norm`/`k_norm`;
// DeltaNet layers `linear_attn.{in_proj_qkvz,in_proj_ba,conv1d,dt_bias,A_log,
// norm,out_proj}` (A_log and dt_bias stored BF16); `mlp.gate`,
// `mlp.experts.E.{gate,up,down}_proj`, `mlp.shared_expert.*`,
// `mlp.shared_expert_gate`. config.json has no layer_types: layer i is full
// attention where (i + 1) % full_attention_interval == 0. No config field
// counts the MTP layers either (Qwen3-Next-80B ships one, about 1.65B
// parameters; Qwen3-Coder-Next, same model_type, ships none).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "model/families/families.h"
#include "model/family_common.h"
#include "model/json_fields.h"

namespace preflight {

namespace {

using MC = ModuleClass;
using PR = ParallelRole;

struct Options {
  bool tied = false;
  std::uint64_t shared_intermediate = 0;
  std::uint64_t sparse_step = 1;
  std::vector<std::uint64_t> mlp_only_layers;
};

// One decoder block under prefix `p` (model.layers.N. or mtp.layers.N.).
void add_block(TensorList& t, const ModelSpec& m, const Options& o, const std::string& p, LayerKind kind,
               bool moe_layer, int L, bool mtp) {
  const auto H = m.hidden_size;
  const auto dt = m.dtype;
  const auto& g = m.gqa;
  const auto& d = m.gdn;
  const auto& moe = m.moe;
  auto cls = [&](MC normal) { return mtp ? MC::mtp : normal; };
  t.add(p + "input_layernorm.weight", {H}, dt, cls(MC::norms), PR::replicated, false, L);
  t.add(p + "post_attention_layernorm.weight", {H}, dt, cls(MC::norms), PR::replicated, false, L);
  if (kind == LayerKind::full_attention) {
    const MC a = cls(MC::gqa_attention);
    // q_proj carries the query and its sigmoid output gate side by side.
    t.add(p + "self_attn.q_proj.weight", {g.heads * g.head_dim * 2, H}, dt, a, PR::column, true, L);
    t.add(p + "self_attn.k_proj.weight", {g.kv_heads * g.head_dim, H}, dt, a, PR::column, true, L);
    t.add(p + "self_attn.v_proj.weight", {g.kv_heads * g.v_head_dim, H}, dt, a, PR::column, true, L);
    t.add(p + "self_attn.o_proj.weight", {H, g.heads * g.v_head_dim}, dt, a, PR::row, true, L);
    t.add(p + "self_attn.q_norm.weight", {g.head_dim}, dt, a, PR::replicated, false, L);
    t.add(p + "self_attn.k_norm.weight", {g.head_dim}, dt, a, PR::replicated, false, L);
  } else {
    const MC a = cls(MC::linear_attention);
    const auto key_dim = d.k_heads * d.k_head_dim;
    const auto value_dim = d.v_heads * d.v_head_dim;
    const std::string x = p + "linear_attn.";
    // Fused projections: q, k, v and the output gate z; beta and the decay a per value head.
    t.add(x + "in_proj_qkvz.weight", {2 * key_dim + 2 * value_dim, H}, dt, a, PR::column, true, L);
    t.add(x + "in_proj_ba.weight", {2 * d.v_heads, H}, dt, a, PR::column, true, L);
    t.add(x + "conv1d.weight", {2 * key_dim + value_dim, 1, d.conv_kernel}, dt, a, PR::column, false, L);
    t.add(x + "dt_bias", {d.v_heads}, dt, a, PR::column, false, L);
    t.add(x + "A_log", {d.v_heads}, dt, a, PR::column, false, L);
    t.add(x + "norm.weight", {d.v_head_dim}, dt, a, PR::replicated, false, L);
    t.add(x + "out_proj.weight", {H, value_dim}, dt, a, PR::row, true, L);
  }
  if (!moe_layer) {
    const MC mlp = cls(MC::dense_mlp);
    t.add(p + "mlp.gate_proj.weight", {moe.dense_intermediate, H}, dt, mlp, PR::column, true, L);
    t.add(p + "mlp.up_proj.weight", {moe.dense_intermediate, H}, dt, mlp, PR::column, true, L);
    t.add(p + "mlp.down_proj.weight", {H, moe.dense_intermediate}, dt, mlp, PR::row, true, L);
    return;
  }
  // Routers stay in the model dtype in every release: no quantization targets.
  t.add(p + "mlp.gate.weight", {moe.routed_experts, H}, dt, cls(MC::router), PR::replicated, false, L);
  const auto E = static_cast<std::uint32_t>(moe.routed_experts);
  const MC routed = cls(MC::routed_experts);
  t.add(p + "mlp.experts.{E}.gate_proj.weight", {moe.moe_intermediate, H}, dt, routed, PR::expert, true, L, E);
  t.add(p + "mlp.experts.{E}.up_proj.weight", {moe.moe_intermediate, H}, dt, routed, PR::expert, true, L, E);
  t.add(p + "mlp.experts.{E}.down_proj.weight", {H, moe.moe_intermediate}, dt, routed, PR::expert, true, L, E);
  if (o.shared_intermediate > 0) {
    const MC sh = cls(MC::shared_experts);
    t.add(p + "mlp.shared_expert.gate_proj.weight", {o.shared_intermediate, H}, dt, sh, PR::column, true, L);
    t.add(p + "mlp.shared_expert.up_proj.weight", {o.shared_intermediate, H}, dt, sh, PR::column, true, L);
    t.add(p + "mlp.shared_expert.down_proj.weight", {H, o.shared_intermediate}, dt, sh, PR::row, true, L);
    // A one-output sigmoid gate scaling the shared expert.
    t.add(p + "mlp.shared_expert_gate.weight", {1, H}, dt, sh, PR::replicated, false, L);
  }
}

bool is_moe_layer(const ModelSpec& m, const Options& o, std::uint64_t i) {
  if (m.moe.routed_experts == 0) return false;
  if (std::find(o.mlp_only_layers.begin(), o.mlp_only_layers.end(), i) != o.mlp_only_layers.end()) return false;
  return (i + 1) % o.sparse_step == 0;
}

}  // namespace

Result<ModelSpec> build_qwen3_next(const nlohmann::json& doc, std::string_view origin) {
  JsonFields root(doc, std::string(origin));
  ModelSpec m;
  m.family = "qwen3_next";
  m.origin = std::string(origin);
  auto architecture = read_architecture(root);
  if (!architecture) return architecture.error();
  m.architecture = *architecture;
  auto dtype = read_model_dtype(root, root);
  if (!dtype) return dtype.error();
  m.dtype = *dtype;

  std::uint64_t num_layers = 0, interval = 0;
  if (auto e = read_positive_integers(root, {
      {"hidden_size", &m.hidden_size},
      {"vocab_size", &m.vocab_size},
      {"num_hidden_layers", &num_layers},
      {"max_position_embeddings", &m.max_context},
      {"num_attention_heads", &m.gqa.heads},
      {"num_key_value_heads", &m.gqa.kv_heads},
      {"head_dim", &m.gqa.head_dim},
      {"full_attention_interval", &interval},
      {"linear_num_key_heads", &m.gdn.k_heads},
      {"linear_num_value_heads", &m.gdn.v_heads},
      {"linear_key_head_dim", &m.gdn.k_head_dim},
      {"linear_value_head_dim", &m.gdn.v_head_dim},
      {"linear_conv_kernel_dim", &m.gdn.conv_kernel},
      {"num_experts", &m.moe.routed_experts},
      {"num_experts_per_tok", &m.moe.experts_per_token},
      {"moe_intermediate_size", &m.moe.moe_intermediate},
      {"intermediate_size", &m.moe.dense_intermediate},
      }))
    return *e;
  m.gqa.v_head_dim = m.gqa.head_dim;
  Options o;
  if (root.has("shared_expert_intermediate_size")) {
    auto n = root.non_negative_integer("shared_expert_intermediate_size");
    if (!n) return n.error();
    o.shared_intermediate = *n;
  }
  m.moe.shared_experts = o.shared_intermediate > 0 ? 1 : 0;
  auto step = root.positive_integer_or("decoder_sparse_step", 1);
  if (!step) return step.error();
  o.sparse_step = *step;
  if (root.has("mlp_only_layers")) {
    auto list = root.integer_list("mlp_only_layers");
    if (!list) return list.error();
    o.mlp_only_layers = std::move(list).value();
  }
  auto tied = read_flag(root, "tie_word_embeddings");
  if (!tied) return tied.error();
  o.tied = *tied;

  if (m.gqa.kv_heads > m.gqa.heads || m.gqa.heads % m.gqa.kv_heads != 0)
    return root.error("num_key_value_heads", fmt::format("{} KV heads do not divide the {} attention heads",
                                                         m.gqa.kv_heads, m.gqa.heads));
  if (m.gdn.v_heads % m.gdn.k_heads != 0)
    return root.error("linear_num_value_heads", fmt::format("{} value heads are not a multiple of the {} key heads",
                                                            m.gdn.v_heads, m.gdn.k_heads));
  if (m.moe.experts_per_token > m.moe.routed_experts)
    return root.error("num_experts_per_tok", fmt::format("{} selected experts exceed the {} routed experts",
                                                         m.moe.experts_per_token, m.moe.routed_experts));
  if (num_layers > 4096) return root.error("num_hidden_layers", fmt::format("{} layers is implausible", num_layers));
  if (m.moe.routed_experts > 65536)
    return root.error("num_experts", fmt::format("{} experts is implausible", m.moe.routed_experts));

  // Layer kinds: an explicit layer_types list wins; the released config has
  // none, so full attention falls where (i + 1) % interval == 0.
  if (root.has("layer_types")) {
    auto types = root.string_list("layer_types");
    if (!types) return types.error();
    if (types->size() != num_layers)
      return root.error("layer_types",
                        fmt::format("{} entries for {} layers", types->size(), num_layers));
    for (std::size_t i = 0; i < types->size(); ++i) {
      const auto& t = (*types)[i];
      if (t == "full_attention") m.layers.push_back(LayerKind::full_attention);
      else if (t == "linear_attention") m.layers.push_back(LayerKind::gated_deltanet);
      else
        return Error{root.origin(), fmt::format("{}/{}", root.pointer_to("layer_types"), i),
                     fmt::format("unknown layer type \"{}\" (full_attention or linear_attention)", t)};
    }
  } else {
    for (std::uint64_t i = 0; i < num_layers; ++i)
      m.layers.push_back((i + 1) % interval == 0 ? LayerKind::full_attention : LayerKind::gated_deltanet);
  }
  // First dense layers, for the planner's summary: the leading mlp_only layers.
  while (m.moe.first_dense_layers < num_layers && !is_moe_layer(m, o, m.moe.first_dense_layers))
    ++m.moe.first_dense_layers;

  // MTP: a config field when present (later Qwen configs name it), else one
  // layer, as Qwen3-Next-80B ships.
  m.mtp_layers = 1;
  for (const char* key : {"mtp_num_hidden_layers", "num_nextn_predict_layers"}) {
    if (!root.has(key)) continue;
    auto n = root.non_negative_integer(key);
    if (!n) return n.error();
    if (*n > 16) return root.error(key, fmt::format("{} MTP layers is implausible", *n));
    m.mtp_layers = *n;
    break;
  }
  if (m.mtp_layers > 0)
    m.notes.push_back(fmt::format(
        "{} MTP layer(s) under mtp.* (fc, pre-fc norms, one gated-attention MoE block each): config.json has no field "
        "for them; Qwen3-Next-80B ships one (about 1.65B parameters), Qwen3-Coder-Next none: verify against the index",
        m.mtp_layers));

  TensorList list;
  const auto H = m.hidden_size;
  if (!o.tied) list.add("lm_head.weight", {m.vocab_size, H}, m.dtype, MC::lm_head, PR::vocab, true);
  list.add("model.embed_tokens.weight", {m.vocab_size, H}, m.dtype, MC::embedding, PR::vocab, false);
  list.add("model.norm.weight", {H}, m.dtype, MC::norms, PR::replicated, false);
  for (std::size_t i = 0; i < m.layers.size(); ++i)
    add_block(list, m, o, fmt::format("model.layers.{}.", i), m.layers[i], is_moe_layer(m, o, i),
              static_cast<int>(i), false);
  for (std::uint64_t k = 0; k < m.mtp_layers; ++k) {
    const int L = static_cast<int>(num_layers + k);
    const std::string p = fmt::format("mtp.layers.{}.", k);
    // The MTP block is a full-attention MoE layer; the fusion and its norms
    // are shared by the MTP stack (mtp.fc, mtp.pre_fc_norm_*, mtp.norm).
    add_block(list, m, o, p, LayerKind::full_attention, m.moe.routed_experts > 0, L, true);
  }
  if (m.mtp_layers > 0) {
    const int L = static_cast<int>(num_layers);
    list.add("mtp.fc.weight", {H, 2 * H}, m.dtype, MC::mtp, PR::replicated, true, L);
    list.add("mtp.pre_fc_norm_embedding.weight", {H}, m.dtype, MC::mtp, PR::replicated, false, L);
    list.add("mtp.pre_fc_norm_hidden.weight", {H}, m.dtype, MC::mtp, PR::replicated, false, L);
    list.add("mtp.norm.weight", {H}, m.dtype, MC::mtp, PR::replicated, false, L);
  }
  return finish_model(std::move(m), list.take(), root, root);
}

}  // namespace preflight
