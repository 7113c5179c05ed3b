// Kimi-Linear (model_type kimi_linear, moonshotai/Kimi-Linear-48B-A3B-Instruct):
// Kimi Delta Attention layers interleaved with MLA layers, a dense first layer
// and a DeepSeek-style MoE with shared experts after.
//
// Naming follows the released checkpoint (modeling_kimi.py; inventory in
// ../shared/models/moonshotai__Kimi-Linear-48B-A3B-Instruct): KDA layers keep
// `self_attn.{q,k,v}_proj`, BF16 `{q,k,v}_conv1d`, the low-rank forget gate
// `f_a_proj`/`f_b_proj`, the low-rank output gate `g_a_proj`/`g_b_proj`,
// `b_proj`, `A_log` [1, 1, heads, 1] and `dt_bias` (both F32), `o_norm`; MLA
// layers use a full-rank `q_proj` when q_lora_rank is null; the MoE lives
// under `block_sparse_moe` with experts `w1`/`w3`/`w2` and a BF16
// score-correction bias (DeepSeek keeps it F32).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <optional>

#include "model/families/families.h"
#include "model/family_common.h"
#include "model/json_fields.h"

namespace preflight {

namespace {

using MC = ModuleClass;
using PR = ParallelRole;

// linear_attn_config's kda_layers / full_attn_layers are 1-indexed; every layer
// must be in exactly one of them (Kimi-Linear's last MLA layer is 27, which
// breaks the every-4th pattern, so the lists are the only truth).
Result<std::vector<LayerKind>> read_layer_kinds(const JsonFields& lin, std::uint64_t num_layers) {
  std::vector<int> seen(num_layers, -1);
  auto mark = [&](std::string_view key, int kind) -> std::optional<Error> {
    auto list = lin.integer_list(key);
    if (!list) return list.error();
    for (std::size_t i = 0; i < list->size(); ++i) {
      const auto one_based = (*list)[i];
      if (one_based < 1 || one_based > num_layers)
        return Error{lin.origin(), fmt::format("{}/{}", lin.pointer_to(key), i),
                     fmt::format("layer {} is outside 1..{} (these lists are 1-indexed)", one_based, num_layers)};
      if (seen[one_based - 1] != -1)
        return Error{lin.origin(), fmt::format("{}/{}", lin.pointer_to(key), i),
                     fmt::format("layer {} is listed twice", one_based)};
      seen[one_based - 1] = kind;
    }
    return std::nullopt;
  };
  if (auto e = mark("kda_layers", 0)) return *e;
  if (auto e = mark("full_attn_layers", 1)) return *e;
  std::vector<LayerKind> kinds;
  for (std::uint64_t i = 0; i < num_layers; ++i) {
    if (seen[i] == -1)
      return lin.error("kda_layers",
                       fmt::format("layer {} (1-indexed) is in neither kda_layers nor full_attn_layers", i + 1));
    kinds.push_back(seen[i] == 0 ? LayerKind::kda : LayerKind::mla);
  }
  return kinds;
}

void add_tensors(TensorList& t, const ModelSpec& m, bool tied, std::uint64_t moe_layer_freq) {
  const auto H = m.hidden_size;
  const auto dt = m.dtype;
  const auto& kda = m.kda;
  const auto& mla = m.mla;
  const auto& moe = m.moe;
  if (!tied) t.add("lm_head.weight", {m.vocab_size, H}, dt, MC::lm_head, PR::vocab, true);
  t.add("model.embed_tokens.weight", {m.vocab_size, H}, dt, MC::embedding, PR::vocab, false);
  t.add("model.norm.weight", {H}, dt, MC::norms, PR::replicated, false);

  const std::uint64_t kda_width = kda.heads * kda.head_dim;
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    const int L = static_cast<int>(i);
    const std::string p = fmt::format("model.layers.{}.", i);
    const bool is_kda = m.layers[i] == LayerKind::kda;
    const MC attn = is_kda ? MC::kda_attention : MC::mla_attention;
    t.add(p + "input_layernorm.weight", {H}, dt, MC::norms, PR::replicated, false, L);
    t.add(p + "post_attention_layernorm.weight", {H}, dt, MC::norms, PR::replicated, false, L);
    const std::uint64_t width = is_kda ? kda_width : mla.heads * mla.v_head_dim;
    t.add(p + "self_attn.o_proj.weight", {H, width}, dt, attn, PR::row, true, L);
    if (is_kda) {
      for (const char* x : {"q", "k", "v"})
        t.add(p + fmt::format("self_attn.{}_proj.weight", x), {kda_width, H}, dt, attn, PR::column, true, L);
      // The short convolutions are stored in the model dtype here (K3 keeps F32).
      for (const char* x : {"q", "k", "v"})
        t.add(p + fmt::format("self_attn.{}_conv1d.weight", x), {kda_width, 1, kda.conv_kernel}, dt, attn,
              PR::column, false, L);
      // Low-rank gates: the down projections are replicated, the up projections split by heads.
      for (const char* x : {"f", "g"}) {
        t.add(p + fmt::format("self_attn.{}_a_proj.weight", x), {kda.head_dim, H}, dt, attn, PR::replicated, true, L);
        t.add(p + fmt::format("self_attn.{}_b_proj.weight", x), {kda_width, kda.head_dim}, dt, attn, PR::column, true,
              L);
      }
      t.add(p + "self_attn.b_proj.weight", {kda.heads, H}, dt, attn, PR::column, true, L);
      t.add(p + "self_attn.A_log", {1, 1, kda.heads, 1}, Dtype::F32, attn, PR::replicated, false, L);
      t.add(p + "self_attn.dt_bias", {kda_width}, Dtype::F32, attn, PR::column, false, L);
      t.add(p + "self_attn.o_norm.weight", {kda.head_dim}, dt, attn, PR::replicated, false, L);
    } else {
      const auto qk_head = mla.qk_nope_head_dim + mla.qk_rope_head_dim;
      if (mla.q_lora_rank > 0) {
        t.add(p + "self_attn.q_a_proj.weight", {mla.q_lora_rank, H}, dt, attn, PR::replicated, true, L);
        t.add(p + "self_attn.q_a_layernorm.weight", {mla.q_lora_rank}, dt, attn, PR::replicated, false, L);
        t.add(p + "self_attn.q_b_proj.weight", {mla.heads * qk_head, mla.q_lora_rank}, dt, attn, PR::column, true, L);
      } else {
        t.add(p + "self_attn.q_proj.weight", {mla.heads * qk_head, H}, dt, attn, PR::column, true, L);
      }
      t.add(p + "self_attn.kv_a_proj_with_mqa.weight", {mla.kv_lora_rank + mla.qk_rope_head_dim, H}, dt, attn,
            PR::replicated, true, L);
      t.add(p + "self_attn.kv_a_layernorm.weight", {mla.kv_lora_rank}, dt, attn, PR::replicated, false, L);
      t.add(p + "self_attn.kv_b_proj.weight", {mla.heads * (mla.qk_nope_head_dim + mla.v_head_dim), mla.kv_lora_rank},
            dt, attn, PR::column, true, L);
    }
    const bool moe_layer = moe.routed_experts > 0 && i >= moe.first_dense_layers && i % moe_layer_freq == 0;
    if (!moe_layer) {
      t.add(p + "mlp.gate_proj.weight", {moe.dense_intermediate, H}, dt, MC::dense_mlp, PR::column, true, L);
      t.add(p + "mlp.up_proj.weight", {moe.dense_intermediate, H}, dt, MC::dense_mlp, PR::column, true, L);
      t.add(p + "mlp.down_proj.weight", {H, moe.dense_intermediate}, dt, MC::dense_mlp, PR::row, true, L);
      continue;
    }
    const std::string b = p + "block_sparse_moe.";
    // Router weight and its correction bias, both in the model dtype (inventory).
    t.add(b + "gate.weight", {moe.routed_experts, H}, dt, MC::router, PR::replicated, false, L);
    t.add(b + "gate.e_score_correction_bias", {moe.routed_experts}, dt, MC::router, PR::replicated, false, L);
    const auto shared = moe.shared_experts * moe.moe_intermediate;
    if (shared > 0) {
      t.add(b + "shared_experts.gate_proj.weight", {shared, H}, dt, MC::shared_experts, PR::column, true, L);
      t.add(b + "shared_experts.up_proj.weight", {shared, H}, dt, MC::shared_experts, PR::column, true, L);
      t.add(b + "shared_experts.down_proj.weight", {H, shared}, dt, MC::shared_experts, PR::row, true, L);
    }
    const auto E = static_cast<std::uint32_t>(moe.routed_experts);
    t.add(b + "experts.{E}.w1.weight", {moe.moe_intermediate, H}, dt, MC::routed_experts, PR::expert, true, L, E);
    t.add(b + "experts.{E}.w3.weight", {moe.moe_intermediate, H}, dt, MC::routed_experts, PR::expert, true, L, E);
    t.add(b + "experts.{E}.w2.weight", {H, moe.moe_intermediate}, dt, MC::routed_experts, PR::expert, true, L, E);
  }
}

}  // namespace

Result<ModelSpec> build_kimi_linear(const nlohmann::json& doc, std::string_view origin) {
  JsonFields root(doc, std::string(origin));
  ModelSpec m;
  m.family = "kimi_linear";
  m.origin = std::string(origin);
  auto architecture = read_architecture(root);
  if (!architecture) return architecture.error();
  m.architecture = *architecture;
  auto dtype = read_model_dtype(root, root);
  if (!dtype) return dtype.error();
  m.dtype = *dtype;
  auto lin = root.object("linear_attn_config");
  if (!lin) return lin.error();

  std::uint64_t num_layers = 0;
  if (auto e = read_positive_integers(root, {
      {"hidden_size", &m.hidden_size},
      {"vocab_size", &m.vocab_size},
      {"num_hidden_layers", &num_layers},
      {"num_attention_heads", &m.mla.heads},
      {"kv_lora_rank", &m.mla.kv_lora_rank},
      {"qk_nope_head_dim", &m.mla.qk_nope_head_dim},
      {"qk_rope_head_dim", &m.mla.qk_rope_head_dim},
      {"v_head_dim", &m.mla.v_head_dim},
      {"num_experts", &m.moe.routed_experts},
      {"num_experts_per_token", &m.moe.experts_per_token},
      {"moe_intermediate_size", &m.moe.moe_intermediate},
      {"intermediate_size", &m.moe.dense_intermediate},
      {"num_heads", &m.kda.heads, &*lin},
      {"head_dim", &m.kda.head_dim, &*lin},
      {"short_conv_kernel_size", &m.kda.conv_kernel, &*lin},
      }))
    return *e;
  if (root.has("q_lora_rank")) {
    auto q = root.positive_integer("q_lora_rank");
    if (!q) return q.error();
    m.mla.q_lora_rank = *q;
  }
  for (auto [key, out] : {std::pair<std::string_view, std::uint64_t*>{"num_shared_experts", &m.moe.shared_experts},
                          {"first_k_dense_replace", &m.moe.first_dense_layers},
                          {"num_nextn_predict_layers", &m.mtp_layers}}) {
    if (!root.has(key)) continue;
    auto n = root.non_negative_integer(key);
    if (!n) return n.error();
    *out = *n;
  }
  // The released config has no max_position_embeddings, only model_max_length.
  for (const char* key : {"max_position_embeddings", "model_max_length"}) {
    if (!root.has(key)) continue;
    auto n = root.positive_integer(key);
    if (!n) return n.error();
    m.max_context = *n;
    break;
  }
  auto freq = root.positive_integer_or("moe_layer_freq", 1);
  if (!freq) return freq.error();
  auto tied = read_flag(root, "tie_word_embeddings");
  if (!tied) return tied.error();
  auto nope = read_flag(root, "mla_use_nope");
  if (!nope) return nope.error();

  if (m.moe.experts_per_token > m.moe.routed_experts)
    return root.error("num_experts_per_token", fmt::format("{} selected experts exceed the {} routed experts",
                                                           m.moe.experts_per_token, m.moe.routed_experts));
  if (m.moe.first_dense_layers > num_layers)
    return root.error("first_k_dense_replace",
                      fmt::format("{} exceeds the {} layers", m.moe.first_dense_layers, num_layers));
  if (num_layers > 4096) return root.error("num_hidden_layers", fmt::format("{} layers is implausible", num_layers));
  if (m.moe.routed_experts > 65536)
    return root.error("num_experts", fmt::format("{} experts is implausible", m.moe.routed_experts));
  if (m.mtp_layers > 0)
    return root.error("num_nextn_predict_layers",
                      fmt::format("{} MTP layers: no Kimi-Linear checkpoint ships them, so their naming is unknown",
                                  m.mtp_layers));

  auto kinds = read_layer_kinds(*lin, num_layers);
  if (!kinds) return kinds.error();
  m.layers = std::move(kinds).value();
  if (*nope)
    m.notes.push_back(
        "mla_use_nope: MLA layers apply no rotary embedding, but kv_a_proj_with_mqa still carries the "
        "qk_rope_head_dim slice, so the MLA cache keeps kv_lora_rank + qk_rope_head_dim values per token");

  TensorList list;
  add_tensors(list, m, *tied, *freq);
  return finish_model(std::move(m), list.take(), root, root);
}

}  // namespace preflight
