// Gemma 2 and Gemma 3 decoders: text-only (`gemma2`, `gemma3_text`, e.g.
// gemma-2-9b-it, gemma-3-1b-it) and the multimodal `gemma3` wrapper
// (gemma-3-4b/12b/27b-it: `text_config` + a SigLIP `vision_config` + projector).
//
// Tensor names and shapes follow Hugging Face transformers
// (models/gemma2/modeling_gemma2.py, gemma3/modeling_gemma3.py,
// siglip/modeling_siglip.py) and the released checkpoints, whose keys are those
// written by gemma3/convert_gemma3_weights_orbax_to_hf.py:
//   text      [language_model.]model.embed_tokens.weight, model.norm.weight,
//             model.layers.{i}.self_attn.{q,k,v,o}_proj.weight (+ q_norm/k_norm in Gemma 3),
//             model.layers.{i}.mlp.{gate,up,down}_proj.weight and four norms per layer:
//             input_layernorm, post_attention_layernorm, pre_feedforward_layernorm,
//             post_feedforward_layernorm
//   vision    vision_tower.vision_model.embeddings.patch_embedding.{weight,bias},
//             .embeddings.position_embedding.weight [(image/patch)^2, hidden],
//             .encoder.layers.{i}.self_attn.{q,k,v,out}_proj.{weight,bias},
//             .encoder.layers.{i}.layer_norm{1,2}.{weight,bias}, .mlp.fc{1,2}.{weight,bias},
//             .post_layernorm.{weight,bias}
//   projector multi_modal_projector.mm_input_projection_weight [vision hidden, text hidden]
//             (a bare nn.Parameter, not an nn.Linear), multi_modal_projector.mm_soft_emb_norm.weight
// The embeddings are tied (no lm_head stored). The totals reproduce the Hub's
// safetensors parameter counts exactly (gemma-2-2b-it 2,614,341,888; gemma-2-9b-it
// 9,241,705,984, 464 tensors; gemma-3-1b-it 999,885,952; gemma-3-4b-it 4,300,079,472;
// gemma-3-27b-it 27,432,406,640, which medgemma-27b-it's index total_size
// 54,864,813,280 confirms as all-BF16 bytes).
//
// Released Gemma 3 configs leave many fields to transformers' defaults (the
// 27B's text_config has no vocab_size: 262,208 = 262,144 + 64 image tokens);
// those defaults are applied here and listed in the model's notes.
#include <fmt/format.h>

#include "model/families/families.h"
#include "model/family_common.h"
#include "model/json_fields.h"

namespace preflight {

namespace {

enum class Flavor { gemma2, gemma3 };

// A config default, as transformers' Gemma2Config / Gemma3TextConfig define it.
struct Default {
  std::string_view key;
  std::uint64_t value;
};

class DefaultedReader {
 public:
  DefaultedReader(const JsonFields& node, std::string_view config_class) : node_(node), class_(config_class) {}

  Result<std::uint64_t> read(Default d) {
    if (node_.has(d.key)) return node_.positive_integer(d.key);
    used_.push_back(fmt::format("{} {}", d.key, d.value));
    return d.value;
  }

  // One note naming every default applied.
  void note(std::vector<std::string>& notes) const {
    if (used_.empty()) return;
    std::string list;
    for (const auto& u : used_) list += (list.empty() ? "" : ", ") + u;
    notes.push_back(fmt::format("absent from the config, {} defaults used: {}", class_, list));
  }

 private:
  const JsonFields& node_;
  std::string_view class_;
  std::vector<std::string> used_;
};

struct VisionDims {
  std::uint64_t hidden = 0, intermediate = 0, layers = 0, patch = 0, image = 0, channels = 3;
};

Result<VisionDims> read_vision(const JsonFields& v, std::vector<std::string>& notes) {
  VisionDims d;
  if (auto e = read_positive_integers(v, {{"hidden_size", &d.hidden}, {"intermediate_size", &d.intermediate},
                                 {"num_hidden_layers", &d.layers}, {"patch_size", &d.patch}, {"image_size", &d.image}}))
    return *e;
  auto channels = v.positive_integer_or("num_channels", 3);
  if (!channels) return channels.error();
  d.channels = *channels;
  // A stride-patch Conv2d drops the remainder (SigLIP so400m-patch14-384: 27 x 27 patches).
  if (d.patch > d.image)
    return v.error("patch_size", fmt::format("{} exceeds image_size {}", d.patch, d.image));
  if (d.layers > 1024) return v.error("num_hidden_layers", fmt::format("{} layers is implausible", d.layers));
  auto head = read_flag(v, "vision_use_head");
  if (!head) return head.error();
  if (*head) notes.push_back("vision_use_head is true: the SigLIP pooling head's tensors are not counted");
  return d;
}

void add_vision_tensors(TensorList& t, const VisionDims& v, std::uint64_t text_hidden, Dtype dt) {
  using MC = ModuleClass;
  using PR = ParallelRole;
  // The tower and projector are replicated on every rank in this plan (a
  // planning estimate: engines may shard the encoder by TP).
  auto vt = [&](const std::string& name, std::vector<std::uint64_t> shape, bool linear) {
    t.add("vision_tower.vision_model." + name, std::move(shape), dt, MC::vision_tower, PR::replicated, linear, kNoLayer,
          1, false);
  };
  const auto H = v.hidden;
  const auto positions = (v.image / v.patch) * (v.image / v.patch);
  vt("embeddings.patch_embedding.weight", {H, v.channels, v.patch, v.patch}, false);  // a Conv2d, not a Linear
  vt("embeddings.patch_embedding.bias", {H}, false);
  vt("embeddings.position_embedding.weight", {positions, H}, false);
  for (std::uint64_t i = 0; i < v.layers; ++i) {
    const std::string p = fmt::format("encoder.layers.{}.", i);
    for (const char* x : {"q_proj", "k_proj", "v_proj", "out_proj"}) {
      vt(p + fmt::format("self_attn.{}.weight", x), {H, H}, true);
      vt(p + fmt::format("self_attn.{}.bias", x), {H}, false);
    }
    vt(p + "layer_norm1.weight", {H}, false);
    vt(p + "layer_norm1.bias", {H}, false);
    vt(p + "layer_norm2.weight", {H}, false);
    vt(p + "layer_norm2.bias", {H}, false);
    vt(p + "mlp.fc1.weight", {v.intermediate, H}, true);
    vt(p + "mlp.fc1.bias", {v.intermediate}, false);
    vt(p + "mlp.fc2.weight", {H, v.intermediate}, true);
    vt(p + "mlp.fc2.bias", {H}, false);
  }
  vt("post_layernorm.weight", {H}, false);
  vt("post_layernorm.bias", {H}, false);
  // Gemma3MultiModalProjector: RMSNorm over the pooled vision tokens, then a
  // matmul by a bare parameter stored [vision hidden, text hidden].
  t.add("multi_modal_projector.mm_input_projection_weight", {H, text_hidden}, dt, MC::projector, PR::replicated, false,
        kNoLayer, 1, false);
  t.add("multi_modal_projector.mm_soft_emb_norm.weight", {H}, dt, MC::projector, PR::replicated, false, kNoLayer, 1,
        false);
}

}  // namespace

Result<ModelSpec> build_gemma(const nlohmann::json& doc, std::string_view origin) {
  JsonFields root(doc, std::string(origin));
  const bool wrapper = root.has("text_config");
  auto text_r = wrapper ? root.object("text_config") : Result<JsonFields>(root);
  if (!text_r) return text_r.error();
  const JsonFields text = *text_r;

  ModelSpec m;
  m.family = "gemma";
  m.origin = std::string(origin);
  auto architecture = read_architecture(root);
  if (!architecture) return architecture.error();
  m.architecture = *architecture;
  auto root_type = root.string_or("model_type", "");
  if (!root_type) return root_type.error();
  auto text_type = text.string_or("model_type", "");
  if (!text_type) return text_type.error();
  Flavor flavor = Flavor::gemma3;
  if (*root_type == "gemma2" || *text_type == "gemma2") flavor = Flavor::gemma2;
  else if (*root_type != "gemma3" && *root_type != "gemma3_text" && *text_type != "gemma3_text")
    return root.error("model_type", fmt::format("\"{}\" is not a Gemma 2 or Gemma 3 model", *root_type));
  const bool gemma3 = flavor == Flavor::gemma3;
  auto dtype = read_model_dtype(text, root);
  if (!dtype) return dtype.error();
  m.dtype = *dtype;

  std::uint64_t num_layers = 0, intermediate = 0;
  if (auto e = read_positive_integers(text, {{"hidden_size", &m.hidden_size}, {"num_hidden_layers", &num_layers},
                                 {"intermediate_size", &intermediate}}))
    return *e;
  if (num_layers > 4096) return text.error("num_hidden_layers", fmt::format("{} layers is implausible", num_layers));

  // Gemma's head_dim never derives from hidden_size (gemma-2-9b: 16 heads x 256
  // over a 3,584 hidden); both config classes default it to 256.
  DefaultedReader d(text, gemma3 ? "Gemma3TextConfig" : "Gemma2Config");
  auto& g = m.gqa;
  std::uint64_t window = 0;
  struct DefaultedField { Default def; std::uint64_t* out; };
  for (auto f : {DefaultedField{{"num_attention_heads", 8}, &g.heads},
                 DefaultedField{{"num_key_value_heads", 4}, &g.kv_heads}, DefaultedField{{"head_dim", 256}, &g.head_dim},
                 DefaultedField{{"vocab_size", gemma3 ? 262'208u : 256'000u}, &m.vocab_size},
                 DefaultedField{{"max_position_embeddings", gemma3 ? 131'072u : 8'192u}, &m.max_context},
                 DefaultedField{{"sliding_window", 4'096}, &window}}) {
    auto n = d.read(f.def);
    if (!n) return n.error();
    *f.out = *n;
  }
  g.v_head_dim = g.head_dim;
  if (g.heads % g.kv_heads != 0)
    return text.error("num_key_value_heads",
                      fmt::format("{} attention heads are not a multiple of {} KV heads", g.heads, g.kv_heads));

  // Layer kinds: layer_types when written; otherwise Gemma 2 alternates
  // (even layers sliding, Gemma2DecoderLayer) and Gemma 3 has one global layer
  // after every sliding_window_pattern - 1 local ones (5 : 1 by default).
  if (text.has("layer_types")) {
    auto types = text.string_list("layer_types");
    if (!types) return types.error();
    if (types->size() != num_layers)
      return text.error("layer_types", fmt::format("{} entries for {} layers", types->size(), num_layers));
    for (std::size_t i = 0; i < types->size(); ++i) {
      const auto& t = (*types)[i];
      if (t == "full_attention") m.layers.push_back(LayerKind::full_attention);
      else if (t == "sliding_attention") m.layers.push_back(LayerKind::sliding_attention);
      else
        return Error{text.origin(), fmt::format("{}/{}", text.pointer_to("layer_types"), i),
                     fmt::format("unknown layer type \"{}\" (expected full_attention or sliding_attention)", t)};
    }
  } else {
    std::uint64_t pattern = 2;
    if (gemma3) {
      auto p = d.read({"sliding_window_pattern", 6});
      if (!p) return p.error();
      pattern = *p;
    }
    for (std::uint64_t i = 0; i < num_layers; ++i)
      m.layers.push_back((i + 1) % pattern == 0 ? LayerKind::full_attention : LayerKind::sliding_attention);
  }
  if (m.count_layers(LayerKind::sliding_attention) > 0) g.sliding_window = window;
  d.note(m.notes);
  m.moe.dense_intermediate = intermediate;

  auto attention_bias = read_flag(text, "attention_bias");
  if (!attention_bias) return attention_bias.error();
  // Tied unless a config says otherwise (both config classes default to true).
  auto tied = text.has("tie_word_embeddings") ? read_flag(text, "tie_word_embeddings", true)
                                              : read_flag(root, "tie_word_embeddings", true);
  if (!tied) return tied.error();

  using MC = ModuleClass;
  using PR = ParallelRole;
  const auto H = m.hidden_size;
  const auto dt = m.dtype;
  const auto q_width = g.heads * g.head_dim;
  const auto kv_width = g.kv_heads * g.head_dim;
  const std::string top = wrapper ? "language_model." : "";
  const std::string model = top + "model.";
  TensorList t;
  t.add(model + "embed_tokens.weight", {m.vocab_size, H}, dt, MC::embedding, PR::vocab, false);
  for (std::uint64_t i = 0; i < num_layers; ++i) {
    const int L = static_cast<int>(i);
    const std::string p = model + fmt::format("layers.{}.", i);
    for (const char* norm : {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                             "post_feedforward_layernorm"})
      t.add(p + norm + ".weight", {H}, dt, MC::norms, PR::replicated, false, L);
    const std::string a = p + "self_attn.";
    t.add(a + "q_proj.weight", {q_width, H}, dt, MC::gqa_attention, PR::column, true, L);
    t.add(a + "k_proj.weight", {kv_width, H}, dt, MC::gqa_attention, PR::column, true, L);
    t.add(a + "v_proj.weight", {kv_width, H}, dt, MC::gqa_attention, PR::column, true, L);
    t.add(a + "o_proj.weight", {H, q_width}, dt, MC::gqa_attention, PR::row, true, L);
    if (*attention_bias) {
      t.add(a + "q_proj.bias", {q_width}, dt, MC::gqa_attention, PR::column, false, L);
      t.add(a + "k_proj.bias", {kv_width}, dt, MC::gqa_attention, PR::column, false, L);
      t.add(a + "v_proj.bias", {kv_width}, dt, MC::gqa_attention, PR::column, false, L);
      t.add(a + "o_proj.bias", {H}, dt, MC::gqa_attention, PR::replicated, false, L);
    }
    if (gemma3) {
      t.add(a + "q_norm.weight", {g.head_dim}, dt, MC::gqa_attention, PR::replicated, false, L);
      t.add(a + "k_norm.weight", {g.head_dim}, dt, MC::gqa_attention, PR::replicated, false, L);
    }
    t.add(p + "mlp.gate_proj.weight", {intermediate, H}, dt, MC::dense_mlp, PR::column, true, L);
    t.add(p + "mlp.up_proj.weight", {intermediate, H}, dt, MC::dense_mlp, PR::column, true, L);
    t.add(p + "mlp.down_proj.weight", {H, intermediate}, dt, MC::dense_mlp, PR::row, true, L);
  }
  t.add(model + "norm.weight", {H}, dt, MC::norms, PR::replicated, false);
  if (!*tied) t.add(top + "lm_head.weight", {m.vocab_size, H}, dt, MC::lm_head, PR::vocab, true);

  if (wrapper) {
    // Gemma3Config would fall back to a stock SigLIP (768 wide) without one: a
    // different model, so a missing vision_config is an error.
    auto vc = root.object("vision_config");
    if (!vc) return vc.error();
    auto v = read_vision(*vc, m.notes);
    if (!v) return v.error();
    add_vision_tensors(t, *v, H, dt);
  }
  return finish_model(std::move(m), t.take(), text, root);
}

}  // namespace preflight
