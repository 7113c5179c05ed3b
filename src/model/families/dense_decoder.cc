// Dense grouped-query-attention decoders: Llama (Llama 2/3/3.1/3.3, CodeLlama),
// Mistral, Qwen2 / Qwen2.5, Qwen3, and the generic reading of an unknown
// model_type (the registry says so in the model's notes).
//
// Tensor names and shapes follow Hugging Face transformers' modeling files
// (models/llama/modeling_llama.py, mistral/modeling_mistral.py,
// qwen2/modeling_qwen2.py, qwen3/modeling_qwen3.py) as saved by
// save_pretrained: `model.embed_tokens.weight`, per layer
// `model.layers.{i}.self_attn.{q,k,v,o}_proj.weight` (+ `.bias`),
// `model.layers.{i}.mlp.{gate,up,down}_proj.weight`, `input_layernorm`,
// `post_attention_layernorm`, then `model.norm.weight` and `lm_head.weight`.
// Checked against the released totals in ../shared/models/TRUTH.md (Llama-3.1
// 8B/70B, Qwen2.5-7B, Qwen3-14B, Qwen3-0.6B: all exact).
//
// Per-flavour differences, each read from the config where the config says it:
//   - Llama: `attention_bias` puts a bias on q, k, v and o; `mlp_bias` on the MLP.
//   - Mistral: no biases; `sliding_window` (when not null) makes every layer sliding.
//   - Qwen2: q, k and v always carry a bias (o does not), whatever the config says
//     (Qwen2Attention builds them with bias=True; Qwen2.5-7B's exact total needs them).
//   - Qwen3: `attention_bias` on q, k, v, o; per-head RMSNorm `q_norm`/`k_norm` [head_dim].
//   - Qwen2/Qwen3 sliding window: only when `use_sliding_window` is true, and then
//     only for layers from `max_window_layers` on (Qwen2Config's rule); their configs
//     usually carry `sliding_window` with `use_sliding_window: false`, which is full
//     attention everywhere.
//   - `layer_types`, when present (newer transformers write it), decides every layer.
#include <fmt/format.h>

#include <optional>

#include "core/bytes.h"
#include "model/families/families.h"
#include "model/family_common.h"
#include "model/json_fields.h"

namespace preflight {

namespace {

enum class Flavor { llama, mistral, qwen2, qwen3, generic };

Flavor flavor_of(const std::string& model_type) {
  if (model_type == "llama") return Flavor::llama;
  if (model_type == "mistral") return Flavor::mistral;
  if (model_type == "qwen2") return Flavor::qwen2;
  if (model_type == "qwen3") return Flavor::qwen3;
  return Flavor::generic;
}

struct Biases {
  bool qkv = false;  // q_proj, k_proj, v_proj
  bool o = false;    // o_proj
  bool mlp = false;  // gate_proj, up_proj, down_proj
};

// An optional non-negative integer (absent or null: nullopt).
Result<std::optional<std::uint64_t>> optional_count(const JsonFields& node, std::string_view key) {
  if (!node.has(key)) return std::optional<std::uint64_t>{};
  auto n = node.non_negative_integer(key);
  if (!n) return n.error();
  return std::optional<std::uint64_t>{*n};
}

// `layer_types` as transformers writes it: one entry per decoder layer.
Result<std::vector<LayerKind>> read_layer_types(const JsonFields& text, std::uint64_t num_layers) {
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

// Which layers use the sliding window, by the flavour's own rule.
Result<std::vector<LayerKind>> read_layer_kinds(const JsonFields& text, Flavor flavor, std::uint64_t num_layers,
                                                std::optional<std::uint64_t> window, std::vector<std::string>& notes) {
  if (text.has("layer_types")) return read_layer_types(text, num_layers);
  std::vector<LayerKind> kinds(num_layers, LayerKind::full_attention);
  switch (flavor) {
    case Flavor::llama: break;  // LlamaAttention has no sliding window
    case Flavor::mistral:
      if (window) kinds.assign(num_layers, LayerKind::sliding_attention);
      break;
    case Flavor::qwen2:
    case Flavor::qwen3: {
      auto use = read_flag(text, "use_sliding_window");
      if (!use) return use.error();
      if (!*use || !window) break;
      auto first = optional_count(text, "max_window_layers");
      if (!first) return first.error();
      // Qwen2Config: layers before max_window_layers keep full attention.
      const std::uint64_t from = first->value_or(0);
      for (std::uint64_t i = from; i < num_layers; ++i) kinds[i] = LayerKind::sliding_attention;
      break;
    }
    case Flavor::generic:
      // Unknown attention: full attention everywhere over-states the KV cache
      // rather than under-stating it.
      if (window) notes.push_back("sliding_window is set but the generic reader cannot tell which layers use it: "
                                  "every layer is counted as full attention");
      break;
  }
  return kinds;
}

}  // namespace

Result<ModelSpec> build_dense_decoder(const nlohmann::json& doc, std::string_view origin) {
  JsonFields root(doc, std::string(origin));
  auto text_r = text_fields(root);
  if (!text_r) return text_r.error();
  const JsonFields text = *text_r;

  ModelSpec m;
  m.family = "dense_decoder";
  m.origin = std::string(origin);
  auto architecture = read_architecture(root);
  if (!architecture) return architecture.error();
  m.architecture = *architecture;
  auto model_type = text.string_or("model_type", "");
  if (!model_type) return model_type.error();
  const Flavor flavor = flavor_of(*model_type);
  auto dtype = read_model_dtype(text, root);
  if (!dtype) return dtype.error();
  m.dtype = *dtype;

  std::uint64_t num_layers = 0, intermediate = 0;
  if (auto e = read_positive_integers(text, {{"hidden_size", &m.hidden_size}, {"num_hidden_layers", &num_layers},
                                 {"num_attention_heads", &m.gqa.heads}, {"intermediate_size", &intermediate},
                                 {"vocab_size", &m.vocab_size}, {"max_position_embeddings", &m.max_context}}))
    return *e;
  if (num_layers > 4096) return text.error("num_hidden_layers", fmt::format("{} layers is implausible", num_layers));
  auto& g = m.gqa;
  // head_dim is explicit when the heads are not hidden_size wide (Qwen3: 128 with
  // hidden 1024 and 16 heads; Mistral-Nemo); otherwise hidden_size / heads.
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
  auto kv = text.positive_integer_or("num_key_value_heads", g.heads);  // absent: multi-head attention
  if (!kv) return kv.error();
  g.kv_heads = *kv;
  if (g.heads % g.kv_heads != 0)
    return text.error("num_key_value_heads",
                      fmt::format("{} attention heads are not a multiple of {} KV heads", g.heads, g.kv_heads));

  auto window = optional_count(text, "sliding_window");
  if (!window) return window.error();
  auto kinds = read_layer_kinds(text, flavor, num_layers, *window, m.notes);
  if (!kinds) return kinds.error();
  m.layers = std::move(kinds).value();
  if (m.count_layers(LayerKind::sliding_attention) > 0) {
    if (!*window || **window == 0) return text.error("sliding_window", "sliding layers need a positive sliding_window");
    g.sliding_window = **window;
  }
  m.moe.dense_intermediate = intermediate;

  Biases bias;
  auto attention_bias = read_flag(text, "attention_bias");
  if (!attention_bias) return attention_bias.error();
  auto mlp_bias = read_flag(text, "mlp_bias");
  if (!mlp_bias) return mlp_bias.error();
  switch (flavor) {
    case Flavor::qwen2: bias.qkv = true; break;
    case Flavor::mistral: break;  // MistralAttention and MistralMLP have no biases
    case Flavor::llama:
    case Flavor::qwen3:
    case Flavor::generic:
      bias.qkv = bias.o = *attention_bias;
      bias.mlp = flavor == Flavor::qwen3 ? false : *mlp_bias;
      break;
  }
  const bool qk_norm = flavor == Flavor::qwen3;

  // tie_word_embeddings: the head reuses the embedding and save_pretrained drops
  // lm_head.weight. Default false for these families (LlamaConfig, Qwen2Config).
  auto tied_text = read_flag(text, "tie_word_embeddings");
  if (!tied_text) return tied_text.error();
  auto tied_root = read_flag(root, "tie_word_embeddings");
  if (!tied_root) return tied_root.error();
  const bool tied = *tied_text || *tied_root;
  // Qwen3's small tied checkpoints store lm_head.weight anyway (a copy of the
  // embedding): Qwen3-0.6B's 1,503,264,768 bytes are exactly 2 x 751,632,384 BF16
  // params = the 596,049,920 counted params + a 151,936 x 1,024 head, and
  // Qwen3-1.7B's index (4,063,479,808 B) likewise holds 2,031,739,904 params =
  // 1,720,574,976 + 151,936 x 2,048. Qwen3-4B (hidden 2,560, tied) does not: its
  // index is 8,044,936,192 B = 2 x 4,022,468,096 with 398 tensors and no head.
  // The config cannot tell them apart; hidden_size <= 2048 is the rule that fits
  // every released tied Qwen3 checkpoint. A safetensors header settles it.
  const bool stored_tied_head = tied && flavor == Flavor::qwen3 && m.hidden_size <= 2048;
  if (stored_tied_head)
    m.notes.push_back(fmt::format(
        "tie_word_embeddings is true but released Qwen3 checkpoints of this size store lm_head.weight as well "
        "({} bytes on disk); engines tie it to embed_tokens and skip loading it, so GPU-resident weights are "
        "that much smaller",
        with_commas(checked_mul(checked_mul(m.vocab_size, m.hidden_size), dtype_bits(m.dtype)) / 8)));
  if (flavor == Flavor::mistral && *attention_bias)
    m.notes.push_back("attention_bias is set but MistralAttention has no biases: none counted");

  using MC = ModuleClass;
  using PR = ParallelRole;
  const auto H = m.hidden_size;
  const auto dt = m.dtype;
  const auto q_width = g.heads * g.head_dim;
  const auto kv_width = g.kv_heads * g.head_dim;
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
    if (bias.qkv) {
      t.add(a + "q_proj.bias", {q_width}, dt, MC::gqa_attention, PR::column, false, L);
      t.add(a + "k_proj.bias", {kv_width}, dt, MC::gqa_attention, PR::column, false, L);
      t.add(a + "v_proj.bias", {kv_width}, dt, MC::gqa_attention, PR::column, false, L);
    }
    // A row-parallel layer adds its bias once, after the reduction: whole on every rank.
    if (bias.o) t.add(a + "o_proj.bias", {H}, dt, MC::gqa_attention, PR::replicated, false, L);
    if (qk_norm) {
      // One RMSNorm weight shared by every head: replicated.
      t.add(a + "q_norm.weight", {g.head_dim}, dt, MC::gqa_attention, PR::replicated, false, L);
      t.add(a + "k_norm.weight", {g.head_dim}, dt, MC::gqa_attention, PR::replicated, false, L);
    }
    const std::string f = p + "mlp.";
    t.add(f + "gate_proj.weight", {intermediate, H}, dt, MC::dense_mlp, PR::column, true, L);
    t.add(f + "up_proj.weight", {intermediate, H}, dt, MC::dense_mlp, PR::column, true, L);
    t.add(f + "down_proj.weight", {H, intermediate}, dt, MC::dense_mlp, PR::row, true, L);
    if (bias.mlp) {
      t.add(f + "gate_proj.bias", {intermediate}, dt, MC::dense_mlp, PR::column, false, L);
      t.add(f + "up_proj.bias", {intermediate}, dt, MC::dense_mlp, PR::column, false, L);
      t.add(f + "down_proj.bias", {H}, dt, MC::dense_mlp, PR::replicated, false, L);
    }
  }
  t.add("model.norm.weight", {H}, dt, MC::norms, PR::replicated, false);
  if (!tied || stored_tied_head) t.add("lm_head.weight", {m.vocab_size, H}, dt, MC::lm_head, PR::vocab, true);
  return finish_model(std::move(m), t.take(), text, root);
}

}  // namespace preflight
