// ModelSpec: what preflight knows about one model, whatever it was read from.
//
// The architecture numbers the planner needs (layer kinds, attention and MoE
// dimensions) plus the tensor manifest and, when known, the artifact's official
// facts (shards, file bytes, revision, license). Families (kimi_k3_family.*)
// build it from a config; the catalogue attaches artifact facts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/artifact_facts.h"
#include "model/dtype.h"
#include "model/quantization.h"
#include "model/tensor_manifest.h"

namespace preflight {

// The attention kind of a decoder layer: decides its per-token cache or
// per-request state (request_state.h).
enum class LayerKind {
  full_attention,     // GQA/MHA: K and V per token per KV head
  sliding_attention,  // same, capped at the sliding window
  chunked_attention,  // local attention in fixed chunks (capped at the chunk)
  mla,                // Multi-head Latent Attention: one latent (+ rope) per token
  kda,                // Kimi Delta Attention: fixed recurrent state + short conv
  gated_deltanet,     // Gated DeltaNet: fixed recurrent state + short conv
  mamba2,             // Mamba-2 SSM: fixed state + conv
  short_conv,         // gated short convolution (LFM2 conv layers): only a conv window per request
  lightning,          // lightning attention (MiniMax-M1/Text-01): a fixed heads x d x d state per request
  stateless,  // keeps nothing per request: attention reading another layer's KV (Gemma 3n KV sharing), MLP-only layers
};

// Every kind, in the enum's order (the keys descriptions and layer_types use).
inline constexpr LayerKind kAllLayerKinds[] = {
    LayerKind::full_attention,
    LayerKind::sliding_attention,
    LayerKind::chunked_attention,
    LayerKind::mla,
    LayerKind::kda,
    LayerKind::gated_deltanet,
    LayerKind::mamba2,
    LayerKind::short_conv,
    LayerKind::lightning,
    LayerKind::stateless,
};

std::string_view layer_kind_key(LayerKind k);

// Grouped-query attention (full, sliding or chunked layers).
struct GqaDims {
  std::uint64_t heads = 0;
  std::uint64_t kv_heads = 0;
  std::uint64_t head_dim = 0;    // K (and Q) head size
  std::uint64_t v_head_dim = 0;  // V head size (usually head_dim)
  std::uint64_t sliding_window = 0;
  std::uint64_t attention_chunk = 0;
  // Full-attention layers shaped apart from the others (Gemma 4's global layers:
  // num_global_key_value_heads x global_head_dim); 0: as above.
  std::uint64_t full_kv_heads = 0;
  std::uint64_t full_head_dim = 0;
};

// Gated DeltaNet (Qwen3-Next linear attention).
struct DeltaNetDims {
  std::uint64_t k_heads = 0;
  std::uint64_t v_heads = 0;
  std::uint64_t k_head_dim = 0;
  std::uint64_t v_head_dim = 0;
  std::uint64_t conv_kernel = 0;
};

// Mamba-2 mixer.
struct Mamba2Dims {
  std::uint64_t heads = 0;
  std::uint64_t head_dim = 0;
  std::uint64_t state_size = 0;  // ssm_state_size (d_state)
  std::uint64_t groups = 1;      // n_groups
  std::uint64_t conv_kernel = 0;
};

// Gated short convolution (LFM2): a depthwise conv of `kernel` taps over `dim`
// channels; the cache keeps the last kernel - 1 positions.
struct ShortConvDims {
  std::uint64_t dim = 0;
  std::uint64_t kernel = 0;
};

// Lightning attention (MiniMax): linear attention whose state is head_dim x head_dim per head.
struct LightningDims {
  std::uint64_t heads = 0;
  std::uint64_t head_dim = 0;
};

// The multimodal encoder as an engine profiles it: the largest item (an image at the
// processor's maximum size) in encoder patches and in the tokens it becomes, and the
// encoder's width. Zero when the description does not state them.
struct MultimodalDims {
  std::uint64_t encoder_hidden = 0;
  std::uint64_t encoder_intermediate = 0;
  std::uint64_t patches_per_item = 0;  // encoder positions of one maximum-size item
  std::uint64_t tokens_per_item = 0;   // language-model tokens it becomes (after merging / pooling)
};

struct MlaDims {
  std::uint64_t heads = 0;
  std::uint64_t q_lora_rank = 0;
  std::uint64_t kv_lora_rank = 0;
  std::uint64_t qk_nope_head_dim = 0;
  std::uint64_t qk_rope_head_dim = 0;
  std::uint64_t v_head_dim = 0;
  std::uint64_t index_head_dim = 0;  // DeepSeek-V3.2 lightning indexer key size (0: none)
};

struct KdaDims {
  std::uint64_t heads = 0;
  std::uint64_t head_dim = 0;          // recurrent state is head_dim x head_dim per head
  std::uint64_t conv_kernel = 0;       // short convolution keeps conv_kernel - 1 positions
  std::uint64_t conv_projections = 3;  // q, k and v each have a short convolution
};

struct MoeDims {
  std::uint64_t routed_experts = 0;
  std::uint64_t experts_per_token = 0;
  std::uint64_t shared_experts = 0;
  std::uint64_t moe_intermediate = 0;
  std::uint64_t latent_dim = 0;  // 0 when experts work at hidden_size
  std::uint64_t first_dense_layers = 0;
  std::uint64_t dense_intermediate = 0;
};

// Where the plan's tensor manifest came from (the files win; the config is
// the fallback). The evidence of every weight figure follows it.
enum class ManifestSource {
  headers,          // every shard header: each stored tensor's name, dtype and shape (official)
  index_and_sizes,  // the index's names and each shard's exact bytes; headers of shards that differ (official)
  listing,  // a hub listing's element counts by dtype: the total is the files' (official), the split config.json's
  config,   // generated from config.json by a family reader (derived) or the generic reading (estimate)
};
std::string_view manifest_source_key(ManifestSource s);  // "headers", "index_and_sizes", "config"

struct ModelSpec;
// Where the manifest's tensors come from, as a figure's source line.
std::string manifest_source_text(const ModelSpec& model);

struct ModelSpec {
  std::string name;          // catalogue name or file path
  std::string family;        // "kimi_k3"
  std::string architecture;  // "KimiK3ForConditionalGeneration"
  std::string origin;        // where the config came from
  Dtype dtype = Dtype::BF16;
  std::uint64_t hidden_size = 0;
  std::uint64_t vocab_size = 0;
  std::uint64_t max_context = 0;  // max_position_embeddings
  std::vector<LayerKind> layers;  // 0-indexed decoder layers (MTP layers are not counted)
  GqaDims gqa;
  MlaDims mla;
  KdaDims kda;
  DeltaNetDims gdn;
  Mamba2Dims mamba;
  ShortConvDims short_conv;
  LightningDims lightning;
  MultimodalDims mm;
  MoeDims moe;
  std::uint64_t mtp_layers = 0;           // multi-token-prediction layers stored beyond num_hidden_layers
  std::vector<std::string> notes;         // what the family reader assumed or could not read
  std::uint64_t attn_res_block_size = 0;  // 0 when the model has no Attention Residuals
  // Engine-facing details read from the config (finish_model):
  bool tied_embeddings = false;  // tie_word_embeddings: the LM head reuses the embedding
  bool pooling_runner =
      false;  // served as an embedding / pooling model (model/pooling_runner.h): no LM head, no sampler
  std::uint64_t rope_cache_positions = 0;  // positions engines precompute RoPE for (YaRN: original x factor)
  // A second RoPE of other base for the sliding-window layers (Gemma 3's
  // rope_local_base_freq): its own cache of this many positions; 0: none.
  std::uint64_t local_rope_cache_positions = 0;
  std::uint64_t rotary_dim = 0;  // rotated dimensions per head (MLA: qk_rope_head_dim)
  QuantizationScheme quantization;
  TensorManifest manifest;
  ManifestSource manifest_source = ManifestSource::config;
  // False when no family reader knows the architecture and the generic
  // decoder reading built the model: its structure is a guess, so figures
  // computed from it are planning estimates, never derived calculations.
  bool family_reader = true;
  // One line when the files and config.json disagree (the plan uses the files); "" otherwise.
  std::string files_disagree;
  // The files' tensor bytes when they differ from the manifest's, which holds
  // what the engine loads (an F32-stored tensor of a BF16 model is cast); 0 when equal.
  std::uint64_t disk_payload_bytes = 0;
  std::optional<ArtifactFacts> artifact;

  std::uint64_t count_layers(LayerKind kind) const;

  // Head counts that attention TP must divide, with what they are ("96 KDA heads").
  std::vector<std::pair<std::uint64_t, std::string>> tp_divisors() const;
};

}  // namespace preflight
