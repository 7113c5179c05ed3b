#include "model/kimi_k3_family.h"
#include "model/families/families.h"
#include "core/json_read.h"
#include "model/family_common.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <functional>

#include "core/bytes.h"
#include "model/json_fields.h"

namespace preflight {

namespace {

struct VisionDims {
  std::uint64_t hidden = 0;        // vt_hidden_size
  std::uint64_t intermediate = 0;  // vt_intermediate_size
  std::uint64_t layers = 0;        // vt_num_hidden_layers
  std::uint64_t qkv_hidden = 0;    // qkv_hidden_size (q, k and v each this wide)
  std::uint64_t patch = 0;         // patch_size
  std::uint64_t pos_h = 0, pos_w = 0;  // init_pos_emb_height / width
  std::uint64_t merge = 1;         // merge_kernel_size product (tokens merged by the projector)
  std::uint64_t text_hidden = 0;
};

Result<std::vector<LayerKind>> read_layer_kinds(const JsonFields& lin, std::uint64_t num_layers) {
  // linear_attn_config lists are 1-indexed (K3 notes): layer i (0-indexed) is
  // KDA when i+1 is in kda_layers and MLA when i+1 is in full_attn_layers.
  auto kda = lin.integer_list("kda_layers");
  if (!kda) return kda.error();
  auto full = lin.integer_list("full_attn_layers");
  if (!full) return full.error();
  std::vector<int> seen(num_layers, -1);
  auto mark = [&](const std::vector<std::uint64_t>& list, std::string_view key, int kind) -> std::optional<Error> {
    for (std::size_t i = 0; i < list.size(); ++i) {
      const auto one_based = list[i];
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
  if (auto e = mark(*kda, "kda_layers", 0)) return *e;
  if (auto e = mark(*full, "full_attn_layers", 1)) return *e;
  std::vector<LayerKind> kinds;
  for (std::uint64_t i = 0; i < num_layers; ++i) {
    if (seen[i] == -1)
      return lin.error("kda_layers", fmt::format("layer {} (1-indexed) is in neither kda_layers nor full_attn_layers", i + 1));
    kinds.push_back(seen[i] == 0 ? LayerKind::kda : LayerKind::mla);
  }
  return kinds;
}

Result<VisionDims> read_vision(const JsonFields& v) {
  VisionDims d;
  if (auto e = read_positive_integers(v, {{"vt_hidden_size", &d.hidden}, {"vt_intermediate_size", &d.intermediate},
                                 {"vt_num_hidden_layers", &d.layers}, {"qkv_hidden_size", &d.qkv_hidden},
                                 {"patch_size", &d.patch}, {"init_pos_emb_height", &d.pos_h},
                                 {"init_pos_emb_width", &d.pos_w}, {"text_hidden_size", &d.text_hidden}}))
    return *e;
  auto merge = v.integer_list("merge_kernel_size");
  if (!merge) return merge.error();
  for (auto m : *merge) d.merge = checked_mul(d.merge, m == 0 ? 1 : m, "merge_kernel_size");
  return d;
}

void add_language_tensors(TensorList& t, const ModelSpec& m, bool tied) {
  const auto H = m.hidden_size;
  const auto& kda = m.kda;
  const auto& mla = m.mla;
  const auto& moe = m.moe;
  const auto dt = m.dtype;
  const std::string top = "language_model.";
  const std::string model = "language_model.model.";
  using MC = ModuleClass;
  using PR = ParallelRole;

  if (!tied) t.add(top + "lm_head.weight", {m.vocab_size, H}, dt, MC::lm_head, PR::vocab, true);
  t.add(model + "embed_tokens.weight", {m.vocab_size, H}, dt, MC::embedding, PR::vocab, false);
  t.add(model + "norm.weight", {H}, dt, MC::norms, PR::replicated, false);
  if (m.attn_res_block_size > 0) {
    t.add(model + "output_attn_res_norm.weight", {H}, dt, MC::attn_res, PR::replicated, false);
    t.add(model + "output_attn_res_proj.weight", {1, H}, dt, MC::attn_res, PR::replicated, false);
  }

  const std::uint64_t kda_width = kda.heads * kda.head_dim;  // 12,288 for K3
  const std::uint64_t attn_out = mla.heads * mla.v_head_dim;
  // A_log is stored padded: K3 keeps 128 entries for 96 heads (inventory; the
  // extra entries are zero). Modelled as heads rounded up to a multiple of 64.
  const std::uint64_t a_log_len = ceil_div(kda.heads, 64) * 64;

  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    const int L = static_cast<int>(i);
    const std::string p = model + fmt::format("layers.{}.", i);
    const bool is_kda = m.layers[i] == LayerKind::kda;
    const MC attn = is_kda ? MC::kda_attention : MC::mla_attention;
    t.add(p + "input_layernorm.weight", {H}, dt, MC::norms, PR::replicated, false, L);
    t.add(p + "post_attention_layernorm.weight", {H}, dt, MC::norms, PR::replicated, false, L);
    if (m.attn_res_block_size > 0) {
      t.add(p + "self_attention_res_norm.weight", {H}, dt, MC::attn_res, PR::replicated, false, L);
      t.add(p + "mlp_res_norm.weight", {H}, dt, MC::attn_res, PR::replicated, false, L);
      t.add(p + "self_attention_res_proj.weight", {1, H}, dt, MC::attn_res, PR::replicated, false, L);
      t.add(p + "mlp_res_proj.weight", {1, H}, dt, MC::attn_res, PR::replicated, false, L);
    }
    // Every layer has a full-rank output gate and the output projection.
    const std::uint64_t width = is_kda ? kda_width : attn_out;
    t.add(p + "self_attn.g_proj.weight", {width, H}, dt, attn, PR::column, true, L);
    t.add(p + "self_attn.o_proj.weight", {H, width}, dt, attn, PR::row, true, L);
    if (is_kda) {
      for (const char* x : {"q", "k", "v"})
        t.add(p + fmt::format("self_attn.{}_proj.weight", x), {kda_width, H}, dt, attn, PR::column, true, L);
      for (const char* x : {"q", "k", "v"})
        t.add(p + fmt::format("self_attn.{}_conv1d.weight", x), {kda_width, 1, kda.conv_kernel}, Dtype::F32,
              attn, PR::column, false, L);
      t.add(p + "self_attn.f_a_proj.weight", {kda.head_dim, H}, dt, attn, PR::replicated, true, L);
      t.add(p + "self_attn.f_b_proj.weight", {kda_width, kda.head_dim}, dt, attn, PR::column, true, L);
      t.add(p + "self_attn.b_proj.weight", {kda.heads, H}, dt, attn, PR::column, true, L);
      t.add(p + "self_attn.A_log", {a_log_len}, Dtype::F32, attn, PR::replicated, false, L);
      t.add(p + "self_attn.dt_bias", {kda_width}, Dtype::F32, attn, PR::column, false, L);
      t.add(p + "self_attn.o_norm.weight", {kda.head_dim}, Dtype::F32, attn, PR::replicated, false, L);
    } else {
      const auto qk_head = mla.qk_nope_head_dim + mla.qk_rope_head_dim;
      t.add(p + "self_attn.q_a_proj.weight", {mla.q_lora_rank, H}, dt, attn, PR::replicated, true, L);
      t.add(p + "self_attn.q_a_layernorm.weight", {mla.q_lora_rank}, dt, attn, PR::replicated, false, L);
      t.add(p + "self_attn.q_b_proj.weight", {mla.heads * qk_head, mla.q_lora_rank}, dt, attn, PR::column, true, L);
      t.add(p + "self_attn.kv_a_proj_with_mqa.weight", {mla.kv_lora_rank + mla.qk_rope_head_dim, H}, dt, attn,
            PR::replicated, true, L);
      t.add(p + "self_attn.kv_a_layernorm.weight", {mla.kv_lora_rank}, dt, attn, PR::replicated, false, L);
      t.add(p + "self_attn.kv_b_proj.weight", {mla.heads * (mla.qk_nope_head_dim + mla.v_head_dim), mla.kv_lora_rank},
            dt, attn, PR::column, true, L);
    }
    if (i < moe.first_dense_layers) {
      t.add(p + "mlp.gate_proj.weight", {moe.dense_intermediate, H}, dt, MC::dense_mlp, PR::column, true, L);
      t.add(p + "mlp.up_proj.weight", {moe.dense_intermediate, H}, dt, MC::dense_mlp, PR::column, true, L);
      t.add(p + "mlp.down_proj.weight", {H, moe.dense_intermediate}, dt, MC::dense_mlp, PR::row, true, L);
      continue;
    }
    const std::string b = p + "block_sparse_moe.";
    // The router is a plain parameter, not an nn.Linear (stored BF16 although the
    // ignore list does not name it); its correction bias is F32.
    t.add(b + "gate.weight", {moe.routed_experts, H}, dt, MC::router, PR::replicated, false, L);
    t.add(b + "gate.e_score_correction_bias", {moe.routed_experts}, Dtype::F32, MC::router, PR::replicated, false, L);
    const std::uint64_t expert_in = moe.latent_dim > 0 ? moe.latent_dim : H;
    if (moe.latent_dim > 0) {
      // Latent projections: stored BF16 and outside the ignore list, so not
      // quantization targets; held replicated on every rank (planning estimate).
      t.add(b + "routed_expert_down_proj.weight", {moe.latent_dim, H}, dt, MC::latent_projection, PR::replicated, false, L);
      t.add(b + "routed_expert_norm.weight", {moe.latent_dim}, dt, MC::latent_projection, PR::replicated, false, L);
      t.add(b + "routed_expert_up_proj.weight", {H, moe.latent_dim}, dt, MC::latent_projection, PR::replicated, false, L);
    }
    const auto shared_width = moe.shared_experts * moe.moe_intermediate;  // fused shared experts
    if (shared_width > 0) {
      t.add(b + "shared_experts.gate_proj.weight", {shared_width, H}, dt, MC::shared_experts, PR::column, true, L);
      t.add(b + "shared_experts.up_proj.weight", {shared_width, H}, dt, MC::shared_experts, PR::column, true, L);
      t.add(b + "shared_experts.down_proj.weight", {H, shared_width}, dt, MC::shared_experts, PR::row, true, L);
    }
    const auto E = static_cast<std::uint32_t>(moe.routed_experts);
    t.add(b + "experts.{E}.w1.weight", {moe.moe_intermediate, expert_in}, dt, MC::routed_experts, PR::expert, true, L, E);
    t.add(b + "experts.{E}.w3.weight", {moe.moe_intermediate, expert_in}, dt, MC::routed_experts, PR::expert, true, L, E);
    t.add(b + "experts.{E}.w2.weight", {expert_in, moe.moe_intermediate}, dt, MC::routed_experts, PR::expert, true, L, E);
  }
}

void add_vision_tensors(TensorList& t, const VisionDims& v, Dtype dt) {
  using MC = ModuleClass;
  using PR = ParallelRole;
  // The vision tower and projector are replicated on every rank in this plan
  // (a planning estimate: engines may shard the encoder by TP).
  const std::string vt = "vision_tower.";
  for (std::uint64_t i = 0; i < v.layers; ++i) {
    const std::string p = vt + fmt::format("encoder.blocks.{}.", i);
    t.add(p + "wqkv.weight", {3 * v.qkv_hidden, v.hidden}, dt, MC::vision_tower, PR::replicated, true, kNoLayer, 1, false);
    t.add(p + "wo.weight", {v.hidden, v.qkv_hidden}, dt, MC::vision_tower, PR::replicated, true, kNoLayer, 1, false);
    t.add(p + "mlp.fc0.weight", {v.intermediate, v.hidden}, dt, MC::vision_tower, PR::replicated, true, kNoLayer, 1, false);
    t.add(p + "mlp.fc1.weight", {v.hidden, v.intermediate}, dt, MC::vision_tower, PR::replicated, true, kNoLayer, 1, false);
    t.add(p + "norm0.weight", {v.hidden}, dt, MC::vision_tower, PR::replicated, false, kNoLayer, 1, false);
    t.add(p + "norm1.weight", {v.hidden}, dt, MC::vision_tower, PR::replicated, false, kNoLayer, 1, false);
  }
  t.add(vt + "encoder.final_layernorm.weight", {v.hidden}, dt, MC::vision_tower, PR::replicated, false, kNoLayer, 1, false);
  t.add(vt + "patch_embed.pos_emb.weight", {v.pos_h, v.pos_w, v.hidden}, dt, MC::vision_tower, PR::replicated, false, kNoLayer, 1, false);
  t.add(vt + "patch_embed.proj.weight", {v.hidden, 3, v.patch, v.patch}, dt, MC::vision_tower, PR::replicated, false, kNoLayer, 1, false);
  // Projector: merged patches (merge kernel x vt_hidden) -> same width -> text hidden.
  const auto merged = v.merge * v.hidden;
  t.add("mm_projector.proj.0.weight", {merged, merged}, dt, MC::projector, PR::replicated, true, kNoLayer, 1, false);
  t.add("mm_projector.proj.2.weight", {v.text_hidden, merged}, dt, MC::projector, PR::replicated, true, kNoLayer, 1, false);
  t.add("mm_projector.post_norm.weight", {v.text_hidden}, dt, MC::projector, PR::replicated, false, kNoLayer, 1, false);
}

}  // namespace

bool is_kimi_k3_config(std::string_view config_json) {
  auto doc = parse_json(config_json, "config.json", "", DuplicateKeys::last_wins);
  return doc && doc->is_object() && doc->value("model_type", "") == "kimi_k3";
}

Result<ModelSpec> build_kimi_k3_model(std::string_view config_json, std::string_view origin) {
  auto doc = parse_json(config_json, origin, "", DuplicateKeys::last_wins);
  if (!doc) return doc.error();
  if (!doc->is_object()) return Error{std::string(origin), "", "expected a JSON object at the top level"};
  return build_kimi_k3(*doc, origin);
}

Result<ModelSpec> build_kimi_k3(const nlohmann::json& doc, std::string_view origin) {
  JsonFields root(doc, std::string(origin));
  ModelSpec m;
  m.family = "kimi_k3";
  m.origin = std::string(origin);
  auto architecture = read_architecture(root);
  if (!architecture) return architecture.error();
  m.architecture = *architecture;
  auto text = root.object("text_config");
  if (!text) return text.error();

  auto dtype_name = text->string_or("dtype", "bfloat16");
  if (!dtype_name) return dtype_name.error();
  auto dtype = dtype_from_torch(*dtype_name);
  if (!dtype) return text->error("dtype", fmt::format("unknown dtype \"{}\"", *dtype_name));
  m.dtype = *dtype;

  auto lin = text->object("linear_attn_config");
  if (!lin) return lin.error();
  std::uint64_t num_layers = 0;
  if (auto e = read_positive_integers(*text, {
      {"hidden_size", &m.hidden_size},
      {"vocab_size", &m.vocab_size},
      {"num_hidden_layers", &num_layers},
      {"max_position_embeddings", &m.max_context},
      {"num_attention_heads", &m.mla.heads},
      {"kv_lora_rank", &m.mla.kv_lora_rank},
      {"q_lora_rank", &m.mla.q_lora_rank},
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
  for (auto [key, out] : {std::pair<std::string_view, std::uint64_t*>{"num_shared_experts", &m.moe.shared_experts},
                          {"first_k_dense_replace", &m.moe.first_dense_layers},
                          {"routed_expert_hidden_size", &m.moe.latent_dim},
                          {"attn_res_block_size", &m.attn_res_block_size}}) {
    if (!text->has(key)) continue;
    auto n = text->non_negative_integer(key);
    if (!n) return n.error();
    *out = *n;
  }
  if (m.moe.experts_per_token > m.moe.routed_experts)
    return text->error("num_experts_per_token",
                       fmt::format("{} selected experts exceed the {} routed experts", m.moe.experts_per_token,
                                   m.moe.routed_experts));
  if (m.moe.first_dense_layers > num_layers)
    return text->error("first_k_dense_replace", fmt::format("{} exceeds the {} layers", m.moe.first_dense_layers, num_layers));
  if (m.moe.latent_dim > 0 && (m.moe.latent_dim % 32 != 0 || m.moe.moe_intermediate % 32 != 0))
    return text->error("routed_expert_hidden_size", fmt::format("{} is not a multiple of the 32-weight group", m.moe.latent_dim));
  if (num_layers > 4096) return text->error("num_hidden_layers", fmt::format("{} layers is implausible", num_layers));
  if (m.moe.routed_experts > 65536) return text->error("num_experts", fmt::format("{} experts is implausible", m.moe.routed_experts));

  auto kinds = read_layer_kinds(*lin, num_layers);
  if (!kinds) return kinds.error();
  m.layers = *kinds;

  bool tied = false;
  if (doc.contains("tie_word_embeddings") && doc["tie_word_embeddings"].is_boolean())
    tied = doc["tie_word_embeddings"].get<bool>();

  TensorList list;
  add_language_tensors(list, m, tied);
  if (root.has("vision_config")) {
    auto vc = root.object("vision_config");
    if (!vc) return vc.error();
    auto v = read_vision(*vc);
    if (!v) return v.error();
    add_vision_tensors(list, *v, m.dtype);
  }
  return finish_model(std::move(m), list.take(), *text, root);
}

}  // namespace preflight
