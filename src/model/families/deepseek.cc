// DeepSeek family: DeepSeek-V2 / V2-Lite, DeepSeek-V3 / R1, DeepSeek-V3.2, and
// Kimi K2 (model_type deepseek_v2, deepseek_v3, deepseek_v32, kimi_k2).
//
// Every layer is Multi-head Latent Attention; the feed-forward is dense for the
// first `first_k_dense_replace` layers and an MoE with shared experts after.
// Tensor names follow the Hugging Face checkpoints (modeling_deepseek.py):
// `model.layers.N.self_attn.{q_a_proj,q_a_layernorm,q_b_proj | q_proj,
// kv_a_proj_with_mqa,kv_a_layernorm,kv_b_proj,o_proj}`, `mlp.gate.weight`,
// `mlp.experts.E.{gate,up,down}_proj`, `mlp.shared_experts.*`. Checked against
// the released inventories in ../shared/models (DeepSeek-R1 = V3, Kimi-K2,
// V2-Lite totals) and the DeepSeek-V3.2 header audit.
//
// Checkpoint facts a config does not state, modelled here and said in notes:
//  - multi-token-prediction layers sit at model.layers.{num_hidden_layers + k}
//    with their own copies of embed_tokens and shared_head.head;
//  - the FP8 releases keep embed, lm_head, MTP eh_proj / embed / head and the
//    V3.2 indexer's weights_proj in BF16, so those are no quantization targets
//    when quant_method is fp8;
//  - V3/K2 route with a score-correction bias (F32) only when topk_method is
//    noaux_tc; V2 has none;
//  - Kimi-K2-Instruct stores rotary_emb.inv_freq buffers ([56] BF16) per layer;
//  - DeepSeek-V3.2 stores every RMSNorm (and the indexer's LayerNorm) in F32.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/bytes.h"
#include "model/families/families.h"
#include "model/family_common.h"
#include "model/json_fields.h"

namespace preflight {

namespace {

using MC = ModuleClass;
using PR = ParallelRole;

struct Options {
  std::string model_type;
  bool fp8_release = false;         // quant_method fp8: BF16 islands stay unquantized
  bool score_bias = false;          // topk_method noaux_tc
  bool kimi_inv_freq = false;       // Kimi K2 rotary buffers
  bool tied = false;
  std::uint64_t moe_layer_freq = 1;
  std::uint64_t index_heads = 0;    // V3.2 lightning indexer (0: none)
  std::uint64_t index_head_dim = 0;
  Dtype norm_dtype = Dtype::BF16;
};

// Kimi-K2-Instruct stores one BF16 inv_freq buffer of 56 entries per layer
// (inventory: 61 tensors, 6,832 B). The length is a fact of that checkpoint,
// not of the config: K2-0905 and K2-Thinking store 256 B per layer.
constexpr std::uint64_t kKimiK2InvFreqLength = 56;

bool is_moe_layer(std::uint64_t i, const MoeDims& moe, std::uint64_t freq) {
  return moe.routed_experts > 0 && i >= moe.first_dense_layers && i % freq == 0;
}

void add_layer(TensorList& t, const ModelSpec& m, const Options& o, std::uint64_t i) {
  const auto H = m.hidden_size;
  const auto dt = m.dtype;
  const auto& mla = m.mla;
  const auto& moe = m.moe;
  const int L = static_cast<int>(i);
  const bool mtp = i >= m.layers.size();
  const std::string p = fmt::format("model.layers.{}.", i);
  // An MTP layer's every tensor is counted under `mtp`, whatever its role.
  auto cls = [&](MC normal) { return mtp ? MC::mtp : normal; };

  t.add(p + "input_layernorm.weight", {H}, o.norm_dtype, cls(MC::norms), PR::replicated, false, L);
  t.add(p + "post_attention_layernorm.weight", {H}, o.norm_dtype, cls(MC::norms), PR::replicated, false, L);

  const MC attn = cls(MC::mla_attention);
  const auto qk_head = mla.qk_nope_head_dim + mla.qk_rope_head_dim;
  if (mla.q_lora_rank > 0) {
    // Low-rank query: the down projection and its norm are replicated.
    t.add(p + "self_attn.q_a_proj.weight", {mla.q_lora_rank, H}, dt, attn, PR::replicated, true, L);
    t.add(p + "self_attn.q_a_layernorm.weight", {mla.q_lora_rank}, o.norm_dtype, attn, PR::replicated, false, L);
    t.add(p + "self_attn.q_b_proj.weight", {mla.heads * qk_head, mla.q_lora_rank}, dt, attn, PR::column, true, L);
  } else {
    // q_lora_rank null (V2-Lite): one full-rank query projection.
    t.add(p + "self_attn.q_proj.weight", {mla.heads * qk_head, H}, dt, attn, PR::column, true, L);
  }
  t.add(p + "self_attn.kv_a_proj_with_mqa.weight", {mla.kv_lora_rank + mla.qk_rope_head_dim, H}, dt, attn,
        PR::replicated, true, L);
  t.add(p + "self_attn.kv_a_layernorm.weight", {mla.kv_lora_rank}, o.norm_dtype, attn, PR::replicated, false, L);
  t.add(p + "self_attn.kv_b_proj.weight", {mla.heads * (mla.qk_nope_head_dim + mla.v_head_dim), mla.kv_lora_rank}, dt,
        attn, PR::column, true, L);
  t.add(p + "self_attn.o_proj.weight", {H, mla.heads * mla.v_head_dim}, dt, attn, PR::row, true, L);
  if (o.kimi_inv_freq && !mtp)
    t.add(p + "self_attn.rotary_emb.inv_freq", {kKimiK2InvFreqLength}, Dtype::BF16, attn, PR::replicated, false, L);
  if (o.index_heads > 0) {
    // V3.2 lightning indexer (replicated: engines keep it whole on every rank).
    // wq_b and wk are FP8 in the release; weights_proj stays BF16.
    const std::string x = p + "self_attn.indexer.";
    t.add(x + "wq_b.weight", {o.index_heads * o.index_head_dim, mla.q_lora_rank}, dt, attn, PR::replicated, true, L);
    t.add(x + "wk.weight", {o.index_head_dim, H}, dt, attn, PR::replicated, true, L);
    t.add(x + "k_norm.weight", {o.index_head_dim}, o.norm_dtype, attn, PR::replicated, false, L);
    t.add(x + "k_norm.bias", {o.index_head_dim}, o.norm_dtype, attn, PR::replicated, false, L);
    t.add(x + "weights_proj.weight", {o.index_heads, H}, Dtype::BF16, attn, PR::replicated, !o.fp8_release, L);
  }

  if (!is_moe_layer(i, moe, o.moe_layer_freq)) {
    const MC mlp = cls(MC::dense_mlp);
    t.add(p + "mlp.gate_proj.weight", {moe.dense_intermediate, H}, dt, mlp, PR::column, true, L);
    t.add(p + "mlp.up_proj.weight", {moe.dense_intermediate, H}, dt, mlp, PR::column, true, L);
    t.add(p + "mlp.down_proj.weight", {H, moe.dense_intermediate}, dt, mlp, PR::row, true, L);
  } else {
    // MoEGate keeps its weight as a plain parameter (not an nn.Linear): BF16 in
    // every release; the correction bias is F32.
    t.add(p + "mlp.gate.weight", {moe.routed_experts, H}, dt, cls(MC::router), PR::replicated, false, L);
    if (o.score_bias)
      t.add(p + "mlp.gate.e_score_correction_bias", {moe.routed_experts}, Dtype::F32, cls(MC::router), PR::replicated,
            false, L);
    const auto E = static_cast<std::uint32_t>(moe.routed_experts);
    const MC routed = cls(MC::routed_experts);
    t.add(p + "mlp.experts.{E}.gate_proj.weight", {moe.moe_intermediate, H}, dt, routed, PR::expert, true, L, E);
    t.add(p + "mlp.experts.{E}.up_proj.weight", {moe.moe_intermediate, H}, dt, routed, PR::expert, true, L, E);
    t.add(p + "mlp.experts.{E}.down_proj.weight", {H, moe.moe_intermediate}, dt, routed, PR::expert, true, L, E);
    // The shared experts are one fused MLP n_shared_experts x moe_intermediate wide.
    const auto shared = moe.shared_experts * moe.moe_intermediate;
    if (shared > 0) {
      const MC sh = cls(MC::shared_experts);
      t.add(p + "mlp.shared_experts.gate_proj.weight", {shared, H}, dt, sh, PR::column, true, L);
      t.add(p + "mlp.shared_experts.up_proj.weight", {shared, H}, dt, sh, PR::column, true, L);
      t.add(p + "mlp.shared_experts.down_proj.weight", {H, shared}, dt, sh, PR::row, true, L);
    }
  }

  if (mtp) {
    // The MTP module: norms of the token embedding and of the previous hidden
    // state, their fused projection, and its own embedding and head copies.
    t.add(p + "enorm.weight", {H}, o.norm_dtype, MC::mtp, PR::replicated, false, L);
    t.add(p + "hnorm.weight", {H}, o.norm_dtype, MC::mtp, PR::replicated, false, L);
    t.add(p + "eh_proj.weight", {H, 2 * H}, dt, MC::mtp, PR::replicated, !o.fp8_release, L);
    t.add(p + "embed_tokens.weight", {m.vocab_size, H}, dt, MC::mtp, PR::vocab, false, L);
    t.add(p + "shared_head.norm.weight", {H}, o.norm_dtype, MC::mtp, PR::replicated, false, L);
    t.add(p + "shared_head.head.weight", {m.vocab_size, H}, dt, MC::mtp, PR::vocab, !o.fp8_release, L);
  }
}

Result<std::uint64_t> optional_count(const JsonFields& root, std::string_view key) {
  if (!root.has(key)) return std::uint64_t{0};
  return root.non_negative_integer(key);
}

}  // namespace

Result<ModelSpec> build_deepseek(const nlohmann::json& doc, std::string_view origin) {
  JsonFields root(doc, std::string(origin));
  ModelSpec m;
  m.family = "deepseek";
  m.origin = std::string(origin);
  auto architecture = read_architecture(root);
  if (!architecture) return architecture.error();
  m.architecture = *architecture;
  auto dtype = read_model_dtype(root, root);
  if (!dtype) return dtype.error();
  m.dtype = *dtype;

  Options o;
  auto model_type = root.string_or("model_type", "deepseek_v3");
  if (!model_type) return model_type.error();
  o.model_type = *model_type;

  std::uint64_t num_layers = 0;
  if (auto e = read_positive_integers(root, {
      {"hidden_size", &m.hidden_size},
      {"vocab_size", &m.vocab_size},
      {"num_hidden_layers", &num_layers},
      {"max_position_embeddings", &m.max_context},
      {"num_attention_heads", &m.mla.heads},
      {"kv_lora_rank", &m.mla.kv_lora_rank},
      {"qk_nope_head_dim", &m.mla.qk_nope_head_dim},
      {"qk_rope_head_dim", &m.mla.qk_rope_head_dim},
      {"v_head_dim", &m.mla.v_head_dim},
      {"intermediate_size", &m.moe.dense_intermediate},
      {"moe_intermediate_size", &m.moe.moe_intermediate},
      {"n_routed_experts", &m.moe.routed_experts},
      {"num_experts_per_tok", &m.moe.experts_per_token},
      }))
    return *e;
  // q_lora_rank null (V2-Lite) means a full-rank q_proj.
  if (root.has("q_lora_rank")) {
    auto q = root.positive_integer("q_lora_rank");
    if (!q) return q.error();
    m.mla.q_lora_rank = *q;
  }
  for (const auto& f : {CountField{"n_shared_experts", &m.moe.shared_experts},
                          CountField{"first_k_dense_replace", &m.moe.first_dense_layers},
                          CountField{"num_nextn_predict_layers", &m.mtp_layers}}) {
    auto n = optional_count(root, f.key);
    if (!n) return n.error();
    *f.out = *n;
  }
  auto freq = root.positive_integer_or("moe_layer_freq", 1);
  if (!freq) return freq.error();
  o.moe_layer_freq = *freq;
  auto topk = root.string_or("topk_method", "greedy");
  if (!topk) return topk.error();
  o.score_bias = *topk == "noaux_tc";
  auto tied = read_flag(root, "tie_word_embeddings");
  if (!tied) return tied.error();
  o.tied = *tied;

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

  if (root.has("index_n_heads") || o.model_type == "deepseek_v32") {
    // The V3.2 indexer projects from the query latent, so it needs q_lora_rank.
    auto heads = root.positive_integer("index_n_heads");
    if (!heads) return heads.error();
    auto dim = root.positive_integer("index_head_dim");
    if (!dim) return dim.error();
    if (m.mla.q_lora_rank == 0)
      return root.error("q_lora_rank", "the V3.2 indexer reads the query latent: q_lora_rank must be set");
    o.index_heads = *heads;
    o.index_head_dim = *dim;
    m.mla.index_head_dim = *dim;
  }

  if (doc.contains("quantization_config") && doc["quantization_config"].is_object()) {
    const auto& q = doc["quantization_config"];
    o.fp8_release = q.value("quant_method", "") == "fp8";
  }
  o.kimi_inv_freq = o.model_type == "kimi_k2";
  if (o.model_type == "deepseek_v32") o.norm_dtype = Dtype::F32;

  m.layers.assign(num_layers, LayerKind::mla);

  // Notes: what was assumed beyond the config's own fields.
  if (m.mtp_layers > 0)
    m.notes.push_back(fmt::format(
        "{} multi-token-prediction layer(s) stored as model.layers.{}..{} beyond num_hidden_layers, each with its own "
        "embed_tokens and shared_head.head copies; not counted in the decoder layers or the MLA cache",
        m.mtp_layers, num_layers, num_layers + m.mtp_layers - 1));
  if (o.fp8_release)
    m.notes.push_back(
        "FP8 release: embed_tokens, lm_head, the router weight and any MTP eh_proj / embedding / head stay BF16 "
        "(not quantization targets), as in the DeepSeek-V3, V3.2 and Kimi-K2 checkpoints");
  if (o.kimi_inv_freq)
    m.notes.push_back(fmt::format(
        "Kimi K2: rotary_emb.inv_freq buffers of {} BF16 values per layer as in Kimi-K2-Instruct (K2-0905 and "
        "K2-Thinking store 256 B per layer); verify against the index",
        kKimiK2InvFreqLength));
  if (o.index_heads > 0)
    m.notes.push_back(
        "DeepSeek-V3.2 lightning indexer per layer (wq_b, wk FP8; weights_proj BF16; k_norm F32); norms stored F32 "
        "as in the DeepSeek-V3.2 checkpoint headers");
  if (o.moe_layer_freq > 1)
    m.notes.push_back(fmt::format("moe_layer_freq {}: MoE only where the layer index is a multiple of it",
                                  o.moe_layer_freq));

  TensorList list;
  const auto H = m.hidden_size;
  if (!o.tied)
    list.add("lm_head.weight", {m.vocab_size, H}, m.dtype, MC::lm_head, PR::vocab, !o.fp8_release);
  list.add("model.embed_tokens.weight", {m.vocab_size, H}, m.dtype, MC::embedding, PR::vocab, false);
  list.add("model.norm.weight", {H}, o.norm_dtype, MC::norms, PR::replicated, false);
  for (std::uint64_t i = 0; i < num_layers + m.mtp_layers; ++i) add_layer(list, m, o, i);
  return finish_model(std::move(m), list.take(), root, root);
}

}  // namespace preflight
