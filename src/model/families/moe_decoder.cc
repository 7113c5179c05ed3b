// Mixture-of-experts GQA decoders: Mixtral, Qwen2-MoE (Qwen1.5-MoE, Qwen2-57B-A14B)
// and Qwen3-MoE (Qwen3-30B-A3B, Qwen3-235B-A22B).
//
// Tensor names and shapes follow Hugging Face transformers' modeling files
// (models/mixtral/modeling_mixtral.py, qwen2_moe/modeling_qwen2_moe.py,
// qwen3_moe/modeling_qwen3_moe.py) as the released checkpoints store them:
//   Mixtral   model.layers.{i}.block_sparse_moe.gate.weight [experts, hidden]
//             model.layers.{i}.block_sparse_moe.experts.{E}.w1/w3.weight [inter, hidden]
//             (w1 gate, w3 up) and .w2.weight [hidden, inter] (down)
//   Qwen MoE  model.layers.{i}.mlp.gate.weight [experts, hidden]
//             model.layers.{i}.mlp.experts.{E}.{gate,up,down}_proj.weight
//   Qwen2-MoE also mlp.shared_expert.{gate,up,down}_proj.weight (one fused shared
//             expert of shared_expert_intermediate_size) and mlp.shared_expert_gate.weight [1, hidden]
// Attention, norms, embedding and head are named as in the dense decoders.
// Checked against ../shared/models/TRUTH.md: Mixtral-8x7B 93,405,585,408 B and
// Qwen3-235B-A22B 470,187,269,120 B / 36,945 tensors, both exact.
//
// Routers are nn.Linear in all three (a "Linear" quantization target); the
// quantized releases keep them in 16 bits by naming them in `ignore`
// (llm-compressor recipes: "re:.*block_sparse_moe.gate", "re:.*mlp.gate$"),
// which the quantization applier honours by name.
#include <fmt/format.h>

#include <optional>
#include <set>

#include "model/families/families.h"
#include "model/family_common.h"
#include "model/json_fields.h"

namespace preflight {

namespace {

enum class Flavor { mixtral, qwen2_moe, qwen3_moe };

std::optional<Flavor> flavor_of(const std::string& model_type) {
  if (model_type == "mixtral") return Flavor::mixtral;
  if (model_type == "qwen2_moe") return Flavor::qwen2_moe;
  if (model_type == "qwen3_moe") return Flavor::qwen3_moe;
  return std::nullopt;
}

Result<std::optional<std::uint64_t>> optional_count(const JsonFields& node, std::string_view key) {
  if (!node.has(key)) return std::optional<std::uint64_t>{};
  auto n = node.non_negative_integer(key);
  if (!n) return n.error();
  return std::optional<std::uint64_t>{*n};
}

Result<std::vector<LayerKind>> read_layer_kinds(const JsonFields& text, Flavor flavor, std::uint64_t num_layers,
                                                std::optional<std::uint64_t> window) {
  if (text.has("layer_types")) {
    auto types = text.string_list("layer_types");
    if (!types) return types.error();
    if (types->size() != num_layers)
      return text.error("layer_types", fmt::format("{} entries for {} layers", types->size(), num_layers));
    std::vector<LayerKind> kinds;
    for (std::size_t i = 0; i < types->size(); ++i) {
      const auto& t = (*types)[i];
      if (t == "full_attention") kinds.push_back(LayerKind::full_attention);
      else if (t == "sliding_attention") kinds.push_back(LayerKind::sliding_attention);
      else
        return Error{text.origin(), fmt::format("{}/{}", text.pointer_to("layer_types"), i),
                     fmt::format("unknown layer type \"{}\" (expected full_attention or sliding_attention)", t)};
    }
    return kinds;
  }
  std::vector<LayerKind> kinds(num_layers, LayerKind::full_attention);
  if (!window) return kinds;
  if (flavor == Flavor::mixtral) {
    // MixtralAttention applies sliding_window (when not null) in every layer.
    kinds.assign(num_layers, LayerKind::sliding_attention);
    return kinds;
  }
  // Qwen MoE configs follow Qwen2Config: only with use_sliding_window, and only
  // from max_window_layers on.
  auto use = read_flag(text, "use_sliding_window");
  if (!use) return use.error();
  if (!*use) return kinds;
  auto first = optional_count(text, "max_window_layers");
  if (!first) return first.error();
  for (std::uint64_t i = first->value_or(0); i < num_layers; ++i) kinds[i] = LayerKind::sliding_attention;
  return kinds;
}

// Which layers are sparse (Qwen2MoeDecoderLayer / Qwen3MoeDecoderLayer): not in
// mlp_only_layers and (i + 1) a multiple of decoder_sparse_step.
Result<std::vector<bool>> read_sparse_layers(const JsonFields& text, Flavor flavor, std::uint64_t num_layers) {
  std::vector<bool> sparse(num_layers, true);
  if (flavor == Flavor::mixtral) return sparse;
  auto step = text.positive_integer_or("decoder_sparse_step", 1);
  if (!step) return step.error();
  std::set<std::uint64_t> dense_only;
  if (text.has("mlp_only_layers")) {
    auto list = text.integer_list("mlp_only_layers");
    if (!list) return list.error();
    for (std::size_t i = 0; i < list->size(); ++i) {
      if ((*list)[i] >= num_layers)
        return Error{text.origin(), fmt::format("{}/{}", text.pointer_to("mlp_only_layers"), i),
                     fmt::format("layer {} is outside 0..{} (this list is 0-indexed)", (*list)[i], num_layers - 1)};
      dense_only.insert((*list)[i]);
    }
  }
  for (std::uint64_t i = 0; i < num_layers; ++i) sparse[i] = !dense_only.count(i) && (i + 1) % *step == 0;
  return sparse;
}

}  // namespace

Result<ModelSpec> build_moe_decoder(const nlohmann::json& doc, std::string_view origin) {
  JsonFields root(doc, std::string(origin));
  auto text_r = text_fields(root);
  if (!text_r) return text_r.error();
  const JsonFields text = *text_r;

  ModelSpec m;
  m.family = "moe_decoder";
  m.origin = std::string(origin);
  auto architecture = read_architecture(root);
  if (!architecture) return architecture.error();
  m.architecture = *architecture;
  auto model_type = text.string("model_type");
  if (!model_type) return model_type.error();
  const auto flavor_found = flavor_of(*model_type);
  if (!flavor_found)
    return text.error("model_type", fmt::format("\"{}\" is not a MoE decoder this reader knows", *model_type));
  const Flavor flavor = *flavor_found;
  auto dtype = read_model_dtype(text, root);
  if (!dtype) return dtype.error();
  m.dtype = *dtype;

  auto& g = m.gqa;
  auto& moe = m.moe;
  std::uint64_t num_layers = 0, intermediate = 0;
  // Mixtral's experts are intermediate_size wide and it has no dense layers;
  // Qwen MoE experts are moe_intermediate_size wide and intermediate_size is the
  // width of the dense MLP in the layers that are not sparse.
  const bool mixtral = flavor == Flavor::mixtral;
  if (auto e = read_positive_integers(text, {{"hidden_size", &m.hidden_size}, {"num_hidden_layers", &num_layers},
                                 {"num_attention_heads", &g.heads}, {"intermediate_size", &intermediate},
                                 {"vocab_size", &m.vocab_size}, {"max_position_embeddings", &m.max_context},
                                 {mixtral ? "num_local_experts" : "num_experts", &moe.routed_experts},
                                 {"num_experts_per_tok", &moe.experts_per_token}}))
    return *e;
  if (num_layers > 4096) return text.error("num_hidden_layers", fmt::format("{} layers is implausible", num_layers));
  const std::string_view experts_key = mixtral ? "num_local_experts" : "num_experts";
  if (moe.routed_experts > 65536)
    return text.error(experts_key, fmt::format("{} experts is implausible", moe.routed_experts));
  if (moe.experts_per_token > moe.routed_experts)
    return text.error("num_experts_per_tok", fmt::format("{} selected experts exceed the {} routed experts",
                                                         moe.experts_per_token, moe.routed_experts));
  if (mixtral) {
    moe.moe_intermediate = intermediate;
  } else {
    auto mi = text.positive_integer("moe_intermediate_size");
    if (!mi) return mi.error();
    moe.moe_intermediate = *mi;
    moe.dense_intermediate = intermediate;
  }
  std::uint64_t shared_width = 0;
  if (flavor == Flavor::qwen2_moe) {
    auto sw = text.non_negative_integer("shared_expert_intermediate_size");
    if (!sw) return sw.error();
    shared_width = *sw;
    // Qwen describes the fused shared expert as whole experts (Qwen1.5-MoE-A2.7B:
    // 5,632 = 4 x 1,408); when it is not a whole number it counts as one.
    if (shared_width > 0) {
      moe.shared_experts = shared_width % moe.moe_intermediate == 0 ? shared_width / moe.moe_intermediate : 1;
      if (shared_width % moe.moe_intermediate != 0)
        m.notes.push_back(fmt::format("the shared expert is {} wide, not a multiple of the {} routed-expert width",
                                      shared_width, moe.moe_intermediate));
    }
  }

  if (text.has("head_dim")) {
    auto hd = text.positive_integer("head_dim");
    if (!hd) return hd.error();
    g.head_dim = *hd;
  } else {
    if (m.hidden_size % g.heads != 0)
      return text.error("num_attention_heads",
                        fmt::format("{} heads do not divide hidden_size {} and no head_dim is given", g.heads,
                                    m.hidden_size));
    g.head_dim = m.hidden_size / g.heads;
  }
  g.v_head_dim = g.head_dim;
  auto kv = text.positive_integer_or("num_key_value_heads", g.heads);
  if (!kv) return kv.error();
  g.kv_heads = *kv;
  if (g.heads % g.kv_heads != 0)
    return text.error("num_key_value_heads",
                      fmt::format("{} attention heads are not a multiple of {} KV heads", g.heads, g.kv_heads));

  auto window = optional_count(text, "sliding_window");
  if (!window) return window.error();
  auto kinds = read_layer_kinds(text, flavor, num_layers, *window);
  if (!kinds) return kinds.error();
  m.layers = std::move(kinds).value();
  if (m.count_layers(LayerKind::sliding_attention) > 0) {
    if (!*window || **window == 0) return text.error("sliding_window", "sliding layers need a positive sliding_window");
    g.sliding_window = **window;
  }

  auto sparse = read_sparse_layers(text, flavor, num_layers);
  if (!sparse) return sparse.error();
  // Leading dense layers (the planner's first_k_dense_replace); dense layers
  // elsewhere are still generated, and said out loud.
  while (moe.first_dense_layers < num_layers && !(*sparse)[moe.first_dense_layers]) ++moe.first_dense_layers;
  for (std::uint64_t i = moe.first_dense_layers; i < num_layers; ++i)
    if (!(*sparse)[i]) {
      m.notes.push_back("some dense (mlp_only / decoder_sparse_step) layers follow sparse ones: the manifest has them, "
                        "first_dense_layers counts only the leading ones");
      break;
    }
  if (moe.first_dense_layers == num_layers)
    m.notes.push_back("no layer is sparse (mlp_only_layers / decoder_sparse_step): every layer is a dense MLP");

  // Biases: Qwen2-MoE's q, k, v always have one (Qwen2MoeAttention, like Qwen2);
  // Qwen3-MoE follows attention_bias on q, k, v and o; Mixtral has none.
  bool qkv_bias = false, o_bias = false;
  if (flavor == Flavor::qwen2_moe) {
    auto b = read_flag(text, "qkv_bias", true);
    if (!b) return b.error();
    qkv_bias = *b;
  } else if (flavor == Flavor::qwen3_moe) {
    auto b = read_flag(text, "attention_bias");
    if (!b) return b.error();
    qkv_bias = o_bias = *b;
  }
  const bool qk_norm = flavor == Flavor::qwen3_moe;

  auto tied_text = read_flag(text, "tie_word_embeddings");
  if (!tied_text) return tied_text.error();
  auto tied_root = read_flag(root, "tie_word_embeddings");
  if (!tied_root) return tied_root.error();
  const bool tied = *tied_text || *tied_root;

  using MC = ModuleClass;
  using PR = ParallelRole;
  const auto H = m.hidden_size;
  const auto dt = m.dtype;
  const auto q_width = g.heads * g.head_dim;
  const auto kv_width = g.kv_heads * g.head_dim;
  const auto E = static_cast<std::uint32_t>(moe.routed_experts);
  const auto I = moe.moe_intermediate;
  TensorList t;
  t.add("model.embed_tokens.weight", {m.vocab_size, H}, dt, MC::embedding, PR::vocab, false);
  for (std::uint64_t i = 0; i < num_layers; ++i) {
    const int L = static_cast<int>(i);
    const std::string p = fmt::format("model.layers.{}.", i);
    t.add(p + "input_layernorm.weight", {H}, dt, MC::norms, PR::replicated, false, L);
    t.add(p + "post_attention_layernorm.weight", {H}, dt, MC::norms, PR::replicated, false, L);
    const std::string a = p + "self_attn.";
    t.add(a + "q_proj.weight", {q_width, H}, dt, MC::gqa_attention, PR::column, true, L);
    t.add(a + "k_proj.weight", {kv_width, H}, dt, MC::gqa_attention, PR::column, true, L);
    t.add(a + "v_proj.weight", {kv_width, H}, dt, MC::gqa_attention, PR::column, true, L);
    t.add(a + "o_proj.weight", {H, q_width}, dt, MC::gqa_attention, PR::row, true, L);
    if (qkv_bias) {
      t.add(a + "q_proj.bias", {q_width}, dt, MC::gqa_attention, PR::column, false, L);
      t.add(a + "k_proj.bias", {kv_width}, dt, MC::gqa_attention, PR::column, false, L);
      t.add(a + "v_proj.bias", {kv_width}, dt, MC::gqa_attention, PR::column, false, L);
    }
    if (o_bias) t.add(a + "o_proj.bias", {H}, dt, MC::gqa_attention, PR::replicated, false, L);
    if (qk_norm) {
      t.add(a + "q_norm.weight", {g.head_dim}, dt, MC::gqa_attention, PR::replicated, false, L);
      t.add(a + "k_norm.weight", {g.head_dim}, dt, MC::gqa_attention, PR::replicated, false, L);
    }
    if (!(*sparse)[i]) {
      const std::string f = p + "mlp.";
      t.add(f + "gate_proj.weight", {intermediate, H}, dt, MC::dense_mlp, PR::column, true, L);
      t.add(f + "up_proj.weight", {intermediate, H}, dt, MC::dense_mlp, PR::column, true, L);
      t.add(f + "down_proj.weight", {H, intermediate}, dt, MC::dense_mlp, PR::row, true, L);
      continue;
    }
    if (mixtral) {
      const std::string b = p + "block_sparse_moe.";
      t.add(b + "gate.weight", {moe.routed_experts, H}, dt, MC::router, PR::replicated, true, L);
      t.add(b + "experts.{E}.w1.weight", {I, H}, dt, MC::routed_experts, PR::expert, true, L, E);
      t.add(b + "experts.{E}.w3.weight", {I, H}, dt, MC::routed_experts, PR::expert, true, L, E);
      t.add(b + "experts.{E}.w2.weight", {H, I}, dt, MC::routed_experts, PR::expert, true, L, E);
      continue;
    }
    const std::string b = p + "mlp.";
    t.add(b + "gate.weight", {moe.routed_experts, H}, dt, MC::router, PR::replicated, true, L);
    t.add(b + "experts.{E}.gate_proj.weight", {I, H}, dt, MC::routed_experts, PR::expert, true, L, E);
    t.add(b + "experts.{E}.up_proj.weight", {I, H}, dt, MC::routed_experts, PR::expert, true, L, E);
    t.add(b + "experts.{E}.down_proj.weight", {H, I}, dt, MC::routed_experts, PR::expert, true, L, E);
    if (shared_width > 0) {
      t.add(b + "shared_expert.gate_proj.weight", {shared_width, H}, dt, MC::shared_experts, PR::column, true, L);
      t.add(b + "shared_expert.up_proj.weight", {shared_width, H}, dt, MC::shared_experts, PR::column, true, L);
      t.add(b + "shared_expert.down_proj.weight", {H, shared_width}, dt, MC::shared_experts, PR::row, true, L);
      // A one-output sigmoid gate on the shared expert's output (nn.Linear(hidden, 1)).
      t.add(b + "shared_expert_gate.weight", {1, H}, dt, MC::shared_experts, PR::replicated, true, L);
    }
  }
  t.add("model.norm.weight", {H}, dt, MC::norms, PR::replicated, false);
  if (!tied) t.add("lm_head.weight", {m.vocab_size, H}, dt, MC::lm_head, PR::vocab, true);
  return finish_model(std::move(m), t.take(), text, root);
}

}  // namespace preflight
