// gpt-oss (openai/gpt-oss-20b, -120b): GQA attention with biases and learned
// attention sinks, alternating sliding-window (128) and full layers, a MoE
// block with a biased router and fused experts stored in MXFP4.
//
// Tensor names and shapes follow the released index (../shared/models/
// openai__gpt-oss-20b/model.safetensors.index.json, 459 tensors) and
// transformers' GptOss modules:
//   model.embed_tokens.weight [V, H], lm_head.weight [V, H] (untied), model.norm.weight [H]
//   per layer: input_layernorm / post_attention_layernorm [H];
//     self_attn.{q,k,v,o}_proj.{weight,bias} (q [heads*hd, H], k/v [kv*hd, H], o [H, heads*hd]),
//     self_attn.sinks [heads];
//     mlp.router.weight [E, H] + bias [E] (a Parameter pair, not an nn.Linear);
//     mlp.experts.gate_up_proj [E, 2I, H] and down_proj [E, H, I] as MXFP4
//       `_blocks` U8 [E, out, in/32, 16] + `_scales` U8 [E, out, in/32],
//     mlp.experts.gate_up_proj_bias [E, 2I], down_proj_bias [E, H] (BF16).
// Checkpoints without quantization_config store the fused experts as BF16
// parameters in transformers' [E, in, out] layout (gate_up_proj [E, H, 2I]).
//
// Fused experts: each of those tensors holds every expert of the layer. The
// manifest lists one entry per stored tensor, under its stored name, with
// `instances = E` slices of the per-expert shape (see quantization.h,
// is_fused_slice). Bytes and parameters are exact, and expert placement deals the
// slices over EP ranks exactly as it deals separate expert tensors: a rank
// owning experts [b, e) holds rows [b, e) of the stored tensor's first dimension.
#include <fmt/format.h>

#include "core/bytes.h"
#include "model/families/families.h"
#include "model/family_common.h"

namespace preflight {

namespace {

Result<std::vector<LayerKind>> read_layer_types(const JsonFields& text, std::uint64_t num_layers,
                                                std::vector<std::string>& notes) {
  std::vector<LayerKind> kinds;
  if (!text.has("layer_types")) {
    // GptOssConfig's default: sliding on even layers (0-indexed), full on odd ones.
    for (std::uint64_t i = 0; i < num_layers; ++i)
      kinds.push_back(i % 2 == 0 ? LayerKind::sliding_attention : LayerKind::full_attention);
    notes.push_back("layer_types absent: alternating sliding / full attention assumed (GptOssConfig's default)");
    return kinds;
  }
  auto types = text.string_list("layer_types");
  if (!types) return types.error();
  if (types->size() != num_layers)
    return text.error("layer_types",
                      fmt::format("lists {} layer types for {} layers (num_hidden_layers)", types->size(), num_layers));
  for (std::size_t i = 0; i < types->size(); ++i) {
    const auto& t = (*types)[i];
    if (t == "sliding_attention") kinds.push_back(LayerKind::sliding_attention);
    else if (t == "full_attention") kinds.push_back(LayerKind::full_attention);
    else
      return Error{text.origin(), fmt::format("{}/{}", text.pointer_to("layer_types"), i),
                   fmt::format("unknown layer type \"{}\" (expected sliding_attention or full_attention)", t)};
  }
  return kinds;
}

void add_tensors(TensorList& t, const ModelSpec& m, bool tied, bool bias, bool mxfp4) {
  using MC = ModuleClass;
  using PR = ParallelRole;
  const auto H = m.hidden_size;
  const auto dt = m.dtype;
  const auto& a = m.gqa;
  const auto q_width = a.heads * a.head_dim;
  const auto kv_width = a.kv_heads * a.head_dim;
  const auto E = static_cast<std::uint32_t>(m.moe.routed_experts);
  const auto I = m.moe.moe_intermediate;

  t.add("model.embed_tokens.weight", {m.vocab_size, H}, dt, MC::embedding, PR::vocab, false);
  if (!tied) t.add("lm_head.weight", {m.vocab_size, H}, dt, MC::lm_head, PR::vocab, true);
  t.add("model.norm.weight", {H}, dt, MC::norms, PR::replicated, false);

  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    const int L = static_cast<int>(i);
    const std::string p = fmt::format("model.layers.{}.", i);
    t.add(p + "input_layernorm.weight", {H}, dt, MC::norms, PR::replicated, false, L);
    t.add(p + "post_attention_layernorm.weight", {H}, dt, MC::norms, PR::replicated, false, L);

    const auto attn = MC::gqa_attention;
    t.add(p + "self_attn.q_proj.weight", {q_width, H}, dt, attn, PR::column, true, L);
    t.add(p + "self_attn.k_proj.weight", {kv_width, H}, dt, attn, PR::column, true, L);
    t.add(p + "self_attn.v_proj.weight", {kv_width, H}, dt, attn, PR::column, true, L);
    t.add(p + "self_attn.o_proj.weight", {H, q_width}, dt, attn, PR::row, true, L);
    if (bias) {
      t.add(p + "self_attn.q_proj.bias", {q_width}, dt, attn, PR::column, false, L);
      t.add(p + "self_attn.k_proj.bias", {kv_width}, dt, attn, PR::column, false, L);
      t.add(p + "self_attn.v_proj.bias", {kv_width}, dt, attn, PR::column, false, L);
      // A row-parallel layer adds its bias once, after the reduction: whole on every rank.
      t.add(p + "self_attn.o_proj.bias", {H}, dt, attn, PR::replicated, false, L);
    }
    // One learned sink logit per query head, split with the heads.
    t.add(p + "self_attn.sinks", {a.heads}, dt, attn, PR::column, false, L);

    t.add(p + "mlp.router.weight", {m.moe.routed_experts, H}, dt, MC::router, PR::replicated, false, L);
    t.add(p + "mlp.router.bias", {m.moe.routed_experts}, dt, MC::router, PR::replicated, false, L);

    // Fused experts: E slices of one stored tensor each (no "{E}" in the name).
    // MXFP4 stores them [out, in] per expert (the quantizer's *_blocks layout);
    // a BF16 checkpoint stores transformers' [in, out] parameter as is. Only
    // the MXFP4 quantizer converts them (they are Parameters, not nn.Linear).
    const std::string x = p + "mlp.experts.";
    const auto routed = MC::routed_experts;
    if (mxfp4) {
      t.add(x + "gate_up_proj", {2 * I, H}, dt, routed, PR::expert, true, L, E);
      t.add(x + "down_proj", {H, I}, dt, routed, PR::expert, true, L, E);
    } else {
      t.add(x + "gate_up_proj", {H, 2 * I}, dt, routed, PR::expert, false, L, E);
      t.add(x + "down_proj", {I, H}, dt, routed, PR::expert, false, L, E);
    }
    t.add(x + "gate_up_proj_bias", {2 * I}, dt, routed, PR::expert, false, L, E);
    t.add(x + "down_proj_bias", {H}, dt, routed, PR::expert, false, L, E);
  }
}

}  // namespace

Result<ModelSpec> build_gpt_oss(const nlohmann::json& doc, std::string_view origin) {
  JsonFields root(doc, std::string(origin));
  ModelSpec m;
  m.family = "gpt_oss";
  m.origin = std::string(origin);
  auto archs = root.string_list("architectures");
  if (!archs) return archs.error();
  m.architecture = archs->empty() ? "GptOssForCausalLM" : archs->front();
  auto text = text_fields(root);
  if (!text) return text.error();
  auto dtype = read_model_dtype(*text, root);
  if (!dtype) return dtype.error();
  m.dtype = *dtype;

  std::uint64_t num_layers = 0;
  struct Field {
    std::string_view key;
    std::uint64_t* out;
  };
  for (auto f : {Field{"hidden_size", &m.hidden_size}, Field{"vocab_size", &m.vocab_size},
                 Field{"num_hidden_layers", &num_layers}, Field{"max_position_embeddings", &m.max_context},
                 Field{"num_attention_heads", &m.gqa.heads}, Field{"num_key_value_heads", &m.gqa.kv_heads},
                 Field{"num_local_experts", &m.moe.routed_experts},
                 Field{"intermediate_size", &m.moe.moe_intermediate}}) {
    auto n = text->positive_integer(f.key);
    if (!n) return n.error();
    *f.out = *n;
  }
  // The transformers config calls it num_experts_per_tok; the original release
  // also carries experts_per_token.
  auto top_k = text->has("num_experts_per_tok") ? text->positive_integer("num_experts_per_tok")
                                                : text->positive_integer("experts_per_token");
  if (!top_k) return top_k.error();
  m.moe.experts_per_token = *top_k;
  const std::string_view top_k_key = text->has("num_experts_per_tok") ? "num_experts_per_tok" : "experts_per_token";

  if (text->has("head_dim")) {
    auto hd = text->positive_integer("head_dim");
    if (!hd) return hd.error();
    m.gqa.head_dim = *hd;
  } else {
    if (m.hidden_size % m.gqa.heads != 0)
      return text->error("head_dim", fmt::format("missing, and hidden_size {} is not a multiple of the {} heads",
                                                 m.hidden_size, m.gqa.heads));
    m.gqa.head_dim = m.hidden_size / m.gqa.heads;
    m.notes.push_back(fmt::format("head_dim absent: hidden_size / heads = {} assumed", m.gqa.head_dim));
  }
  m.gqa.v_head_dim = m.gqa.head_dim;

  if (num_layers > 4096) return text->error("num_hidden_layers", fmt::format("{} layers is implausible", num_layers));
  if (m.moe.routed_experts > 65536)
    return text->error("num_local_experts", fmt::format("{} experts is implausible", m.moe.routed_experts));
  if (m.moe.experts_per_token > m.moe.routed_experts)
    return text->error(top_k_key, fmt::format("{} selected experts exceed the {} experts (num_local_experts)",
                                              m.moe.experts_per_token, m.moe.routed_experts));
  if (m.gqa.heads % m.gqa.kv_heads != 0)
    return text->error("num_key_value_heads", fmt::format("{} KV heads do not divide the {} attention heads",
                                                          m.gqa.kv_heads, m.gqa.heads));

  auto kinds = read_layer_types(*text, num_layers, m.notes);
  if (!kinds) return kinds.error();
  m.layers = std::move(kinds).value();
  if (m.count_layers(LayerKind::sliding_attention) > 0) {
    auto window = text->positive_integer("sliding_window");
    if (!window) return window.error();
    m.gqa.sliding_window = *window;
  }

  auto tied = read_flag(*text, "tie_word_embeddings", false);
  if (!tied) return tied.error();
  auto bias = read_flag(*text, "attention_bias", true);  // GptOssConfig's default
  if (!bias) return bias.error();

  // The fused experts' logical layout depends on whether the MXFP4 quantizer
  // stores them (see add_tensors); a malformed quantization_config is reported
  // by parse_quantization in finish_model.
  const JsonFields& holder = text->has("quantization_config") ? *text : root;
  bool mxfp4 = false;
  if (holder.has("quantization_config")) {
    const auto& q = holder.node()["quantization_config"];
    mxfp4 = q.is_object() && q.contains("quant_method") && q["quant_method"] == "mxfp4";
  }

  TensorList list;
  add_tensors(list, m, *tied, *bias, mxfp4);
  const auto E = m.moe.routed_experts;
  m.notes.push_back(fmt::format(
      "experts are fused: each layer stores gate_up_proj, down_proj and their biases as single tensors over all {} "
      "experts; the manifest lists each as {} per-expert slices (exact bytes; expert parallelism splits the stored "
      "tensor along its first dimension)",
      E, E));
  return finish_model(std::move(m), list.take(), *text, root);
}

}  // namespace preflight
