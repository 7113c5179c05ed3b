// Descriptions the gathered corpus has no pair for, checked against the
// headline parameter counts their model cards publish (rounded figures, so the
// check is loose: within 1.5%). It catches a missing expert stack, a doubled
// projection or a head counted twice; exact bytes need a real index, and each
// of these architectures gets an exact test once one is gathered.
#include <gtest/gtest.h>

#include <cmath>

#include "model/family_registry.h"
#include "support/model_configs.h"

namespace preflight {
namespace {

struct Card {
  const char* model;   // the model card
  const char* config;  // its published dimensions
  double params;       // the card's headline parameter count
  const char* family;  // the description that must read it
};

const Card kCards[] = {
    {"mosaicml/mpt-7b (6.7B)",
     R"({"model_type": "mpt", "d_model": 4096, "n_layers": 32, "n_heads": 32, "expansion_ratio": 4,
         "vocab_size": 50432, "max_seq_len": 2048, "no_bias": true})",
     6.7e9, "mpt"},
    {"allenai/OLMoE-1B-7B-0924 (6.9B)",
     R"({"model_type": "olmoe", "hidden_size": 2048, "num_hidden_layers": 16, "num_attention_heads": 16,
         "num_key_value_heads": 16, "intermediate_size": 1024, "num_experts": 64, "num_experts_per_tok": 8,
         "vocab_size": 50304, "max_position_embeddings": 4096, "tie_word_embeddings": false})",
     6.9e9, "olmoe"},
    {"CohereForAI/c4ai-command-r-v01 (35B)",
     R"({"model_type": "cohere", "hidden_size": 8192, "num_hidden_layers": 40, "num_attention_heads": 64,
         "num_key_value_heads": 64, "intermediate_size": 22528, "vocab_size": 256000,
         "max_position_embeddings": 131072, "use_qk_norm": false})",
     35e9, "cohere"},
    {"bigcode/starcoder2-15b (16B)",
     R"({"model_type": "starcoder2", "hidden_size": 6144, "num_hidden_layers": 40, "num_attention_heads": 48,
         "num_key_value_heads": 4, "intermediate_size": 24576, "vocab_size": 49152, "use_bias": true,
         "max_position_embeddings": 16384, "tie_word_embeddings": false})",
     16e9, "starcoder2"},
    {"bigcode/starcoder (15.5B)",
     R"({"model_type": "gpt_bigcode", "n_embd": 6144, "n_layer": 40, "n_head": 48, "n_inner": 24576,
         "vocab_size": 49152, "n_positions": 8192, "multi_query": true})",
     15.5e9, "gpt_bigcode"},
    {"meta-llama/Llama-4-Scout-17B-16E (109B)", testing::kLlama4ScoutConfig, 109e9, "llama4"},
    {"mistralai/Mistral-Small-3.1-24B-Instruct-2503 (24B)",
     R"({"model_type": "mistral3", "text_config": {"model_type": "mistral", "hidden_size": 5120,
           "intermediate_size": 32768, "num_hidden_layers": 40, "num_attention_heads": 32, "num_key_value_heads": 8,
           "head_dim": 128, "vocab_size": 131072, "max_position_embeddings": 131072},
         "vision_config": {"model_type": "pixtral", "hidden_size": 1024, "intermediate_size": 4096,
           "num_hidden_layers": 24, "num_attention_heads": 16, "head_dim": 64, "patch_size": 14, "image_size": 1540}})",
     24e9, "mistral3"},
    {"Qwen/Qwen3-VL-30B-A3B-Instruct (31.1B)",
     R"({"architectures": ["Qwen3VLMoeForConditionalGeneration"], "model_type": "qwen3_vl_moe", "torch_dtype": "bfloat16", "tie_word_embeddings": false,
 "text_config": {"model_type": "qwen3_vl_moe_text", "hidden_size": 2048, "intermediate_size": 6144, "moe_intermediate_size": 768,
   "num_hidden_layers": 48, "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128, "num_experts": 128,
   "num_experts_per_tok": 8, "vocab_size": 151936, "max_position_embeddings": 262144, "decoder_sparse_step": 1, "mlp_only_layers": []},
 "vision_config": {"depth": 27, "hidden_size": 1152, "intermediate_size": 4304, "num_heads": 16, "num_position_embeddings": 2304,
   "out_hidden_size": 2048, "patch_size": 16, "spatial_merge_size": 2, "temporal_patch_size": 2, "deepstack_visual_indexes": [8, 16, 24]}})",
     31.1e9, "qwen3_vl_moe"},
    {"llava-hf/llava-onevision-qwen2-7b-ov-hf (8.03B)",
     R"({"model_type": "llava_onevision", "torch_dtype": "bfloat16",
         "text_config": {"model_type": "qwen2", "hidden_size": 3584, "intermediate_size": 18944, "num_hidden_layers": 28,
           "num_attention_heads": 28, "num_key_value_heads": 4, "vocab_size": 152128, "max_position_embeddings": 32768,
           "tie_word_embeddings": false},
         "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 1152, "intermediate_size": 4304,
           "num_hidden_layers": 26, "num_attention_heads": 16, "image_size": 384, "patch_size": 14}})",
     8.03e9, "llava"},
    {"moonshotai/Kimi-VL-A3B-Instruct (16.4B)",
     R"({"model_type": "kimi_vl", "torch_dtype": "bfloat16",
         "text_config": {"model_type": "deepseek_v3", "hidden_size": 2048, "num_hidden_layers": 27,
           "num_attention_heads": 16, "num_key_value_heads": 16, "kv_lora_rank": 512, "q_lora_rank": null,
           "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "intermediate_size": 11264,
           "moe_intermediate_size": 1408, "n_routed_experts": 64, "n_shared_experts": 2, "num_experts_per_tok": 6,
           "first_k_dense_replace": 1, "vocab_size": 163840, "max_position_embeddings": 131072,
           "topk_method": "noaux_tc", "tie_word_embeddings": false},
         "vision_config": {"model_type": "moonvit", "hidden_size": 1152, "intermediate_size": 4304,
           "num_hidden_layers": 27, "num_attention_heads": 16, "patch_size": 14, "init_pos_emb_height": 64,
           "init_pos_emb_width": 64, "merge_kernel_size": [2, 2]}})",
     16.4e9, "kimi_vl"},
    {"tencent/Hunyuan-A13B-Instruct (80B; the Tencent-Hunyuan/Hunyuan-A13B config)",
     R"({"architectures": ["HunYuanMoEV1ForCausalLM"], "model_type": "hunyuan", "vocab_size": 128167, "hidden_size": 4096, "num_hidden_layers": 32,
          "num_attention_heads": 32, "num_key_value_heads": 8, "attention_head_dim": 128, "intermediate_size": 3072, "num_experts": 64,
          "moe_topk": [8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8,8],
          "moe_intermediate_size": [3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072,3072],
          "num_shared_expert": [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],
          "use_mixed_mlp_moe": true, "use_qk_norm": true, "use_cla": false, "cla_share_factor": 2, "attention_bias": false, "mlp_bias": false,
          "max_position_embeddings": 32768, "tie_word_embeddings": true, "torch_dtype": "bfloat16"})",
     80e9, "hunyuan_v1_moe"},
    {"mistralai/Mamba-Codestral-7B-v0.1 (7.3B)",
     R"({"model_type": "mamba2", "hidden_size": 4096, "num_hidden_layers": 64, "num_heads": 128, "head_dim": 64,
         "n_groups": 8, "state_size": 128, "conv_kernel": 4, "expand": 2, "use_bias": false, "use_conv_bias": true,
         "vocab_size": 32768, "tie_word_embeddings": false})",
     7.3e9, "mamba2"},
    {"ai21labs/Jamba-v0.1 (52B)",
     R"({"model_type": "jamba", "hidden_size": 4096, "num_hidden_layers": 32, "attn_layer_period": 8,
         "attn_layer_offset": 4, "expert_layer_period": 2, "expert_layer_offset": 1, "num_experts": 16,
         "num_experts_per_tok": 2, "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8,
         "mamba_d_state": 16, "mamba_d_conv": 4, "mamba_expand": 2, "mamba_dt_rank": 256, "vocab_size": 65536,
         "tie_word_embeddings": false, "max_position_embeddings": 262144})",
     52e9, "jamba"},
    {"nvidia/Nemotron-H-8B-Base-8K (8B; 24 Mamba-2, 4 attention, 24 MLP layers)",
     R"({"model_type": "nemotron_h", "hidden_size": 4096, "num_hidden_layers": 52,
         "hybrid_override_pattern": "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-",
         "intermediate_size": 21504, "num_attention_heads": 32, "num_key_value_heads": 8, "attention_head_dim": 128,
         "mamba_num_heads": 128, "mamba_head_dim": 64, "ssm_state_size": 128, "n_groups": 8, "conv_kernel": 4,
         "vocab_size": 131072, "tie_word_embeddings": false, "max_position_embeddings": 8192})",
     8e9, "nemotron_h"},
    // The Hub's counts: 10.3B (GLM-4.1V-9B-Thinking) and 108B (GLM-4.5V, text from GLM-4.5-Air; an MTP
    // layer with its own embedding and head would make it 110.1B, so none is stored).
    {"zai-org/GLM-4.1V-9B-Thinking (10.3B)",
     R"({"architectures": ["Glm4vForConditionalGeneration"], "model_type": "glm4v", "torch_dtype": "bfloat16", "tie_word_embeddings": false,
 "text_config": {"model_type": "glm4v_text", "hidden_size": 4096, "intermediate_size": 13696, "num_hidden_layers": 40, "num_attention_heads": 32, "num_key_value_heads": 2, "vocab_size": 151552, "max_position_embeddings": 65536, "partial_rotary_factor": 0.5, "rms_norm_eps": 1e-05, "attention_bias": true},
 "vision_config": {"model_type": "glm4v", "depth": 24, "hidden_size": 1536, "intermediate_size": 13696, "num_heads": 12, "image_size": 336, "patch_size": 14, "out_hidden_size": 4096, "spatial_merge_size": 2, "temporal_patch_size": 2, "in_channels": 3, "attention_bias": false}})",
     10.3e9, "glm4v"},
    {"zai-org/GLM-4.5V (108B)",
     R"({"architectures": ["Glm4vMoeForConditionalGeneration"], "model_type": "glm4v_moe", "torch_dtype": "bfloat16", "tie_word_embeddings": false,
 "text_config": {"model_type": "glm4v_moe_text", "hidden_size": 4096, "intermediate_size": 10944, "moe_intermediate_size": 1408, "num_hidden_layers": 46, "num_attention_heads": 96, "num_key_value_heads": 8, "head_dim": 128, "n_routed_experts": 128, "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 1, "vocab_size": 151552, "attention_bias": true, "max_position_embeddings": 65536, "partial_rotary_factor": 0.5, "num_nextn_predict_layers": 1},
 "vision_config": {"model_type": "glm4v_moe", "depth": 24, "hidden_size": 1536, "intermediate_size": 10944, "num_heads": 12, "image_size": 336, "patch_size": 14, "out_hidden_size": 4096, "spatial_merge_size": 2, "temporal_patch_size": 2}})",
     108e9, "glm4v_moe"},
    {"meta-llama/Llama-3.2-90B-Vision-Instruct (88.8B; text 8192 wide, 100 layers of which 20 cross-attention)",
     R"({"architectures": ["MllamaForConditionalGeneration"], "model_type": "mllama", "torch_dtype": "bfloat16",
 "text_config": {"model_type": "mllama_text_model", "hidden_size": 8192, "num_hidden_layers": 100, "num_attention_heads": 64, "num_key_value_heads": 8, "intermediate_size": 28672, "vocab_size": 128256, "max_position_embeddings": 131072,
   "cross_attention_layers": [3, 8, 13, 18, 23, 28, 33, 38, 43, 48, 53, 58, 63, 68, 73, 78, 83, 88, 93, 98]},
 "vision_config": {"hidden_size": 1280, "intermediate_size": 5120, "num_hidden_layers": 32, "num_global_layers": 8, "image_size": 560, "patch_size": 14, "max_num_tiles": 4, "vision_output_dim": 7680}})",
     88.8e9, "mllama"},
    // Step3: the card's 321B (316B language model); the vision MLP of 15,360 is what that total needs (the config
    // class default 3,072 would give 318.2B). Stacked experts, one shared KV head of 256 (MFA).
    {"stepfun-ai/step3 (321B)",
     R"({"architectures": ["Step3VLForConditionalGeneration"], "model_type": "step3_vl", "torch_dtype": "bfloat16", "projector_bias": false, "understand_projector_stride": 2,
 "text_config": {"model_type": "step3_text", "hidden_size": 7168, "intermediate_size": 18432, "num_attention_heads": 64, "num_attention_groups": 1, "num_hidden_layers": 61, "vocab_size": 128815, "head_dim": 256, "share_q_dim": 2048, "moe_num_experts": 48, "moe_top_k": 3, "moe_intermediate_size": 5120, "share_expert_dim": 5120, "moe_layers_enum": "4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59", "max_position_embedding": 65536, "rope_theta": 500000},
 "vision_config": {"model_type": "step3_vision_encoder", "hidden_size": 1792, "intermediate_size": 15360, "num_hidden_layers": 63, "num_attention_heads": 16, "patch_size": 14, "image_size": 728, "output_hidden_size": 4096}})",
     321e9, "step3_vl"},
    // DeepSeek-VL2: the SigLIP encoder with its attention pool (the published 3.37B needs the pool) and the
    // downsample MLP projector; tiny reads plain attention, the full model MLA with a score-correction bias.
    {"deepseek-ai/deepseek-vl2-tiny (3.37B)",
     R"({"architectures": ["DeepseekVLV2ForCausalLM"], "model_type": "deepseek_vl_v2", "torch_dtype": "bfloat16", "tile_tag": "2D", "global_view_pos": "head",
 "vision_config": {"model_name": "siglip_so400m_patch14_384", "image_size": 384, "patch_size": 14, "width": 1152, "layers": 27, "heads": 16, "mlp_ratio": 3.7362, "global_pool": "map", "ignore_head": true, "class_token": false},
 "projector_config": {"projector_type": "downsample_mlp_gelu", "input_dim": 1152, "n_embed": 1280, "depth": 2, "mlp_ratio": 1, "downsample_ratio": 2},
 "language_config": {"model_type": "deepseek_v2", "hidden_size": 1280, "num_hidden_layers": 12, "num_attention_heads": 10, "num_key_value_heads": 10, "use_mla": false, "intermediate_size": 6848, "moe_intermediate_size": 896, "n_routed_experts": 64, "num_experts_per_tok": 6, "n_shared_experts": 2, "first_k_dense_replace": 1, "moe_layer_freq": 1, "topk_method": "greedy", "vocab_size": 129280, "max_position_embeddings": 4096, "tie_word_embeddings": false}})",
     3.37e9, "deepseek_vl_v2"},
    {"deepseek-ai/deepseek-vl2 (27.5B)",
     R"({"architectures": ["DeepseekVLV2ForCausalLM"], "model_type": "deepseek_vl_v2", "torch_dtype": "bfloat16", "tile_tag": "2D", "global_view_pos": "head", "vision_config": {"model_name": "siglip_so400m_patch14_384", "image_size": 384, "patch_size": 14, "width": 1152, "layers": 27, "heads": 16, "mlp_ratio": 3.7362, "global_pool": "map", "ignore_head": true, "class_token": false}, "projector_config": {"projector_type": "downsample_mlp_gelu", "input_dim": 1152, "n_embed": 2560, "depth": 2, "mlp_ratio": 1, "downsample_ratio": 2}, "language_config": {"model_type": "deepseek_v2", "hidden_size": 2560, "num_hidden_layers": 30, "num_attention_heads": 32, "num_key_value_heads": 32, "use_mla": true, "intermediate_size": 12288, "moe_intermediate_size": 1536, "n_routed_experts": 72, "num_experts_per_tok": 6, "n_shared_experts": 2, "first_k_dense_replace": 1, "moe_layer_freq": 1, "topk_method": "noaux_tc", "vocab_size": 129280, "max_position_embeddings": 4096, "tie_word_embeddings": false, "kv_lora_rank": 512, "q_lora_rank": null, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128}})", 27.5e9,
     "deepseek_vl_v2"},
    // DBRX: 131,596,523,520 parameters (132B on the card, 36B active: 35,853,146,112 here), experts
    // stored fused across experts (w1, v1, w2 of [16 x 10,752, 6,144]).
    {"databricks/dbrx-instruct (132B)",
     R"({"architectures": ["DbrxForCausalLM"], "model_type": "dbrx", "d_model": 6144, "n_heads": 48, "n_layers": 40, "max_seq_len": 32768, "vocab_size": 100352, "attn_config": {"clip_qkv": 8, "kv_n_heads": 8, "rope_theta": 500000}, "ffn_config": {"ffn_hidden_size": 10752, "moe_jitter_eps": 0, "moe_loss_weight": 0.05, "moe_num_experts": 16, "moe_top_k": 4}, "output_router_logits": false, "tie_word_embeddings": false, "torch_dtype": "bfloat16"})",
     132e9, "dbrx"},
    // OPT: learned positions with the 2-row offset, biased projections and LayerNorms, a tied head;
    // OPT-350m projects 512-wide embeddings in and out and puts its LayerNorms after the blocks.
    // (6,658,473,984 and 331,196,416 parameters here.)
    {"facebook/opt-6.7b (6.7B)",
     R"({"model_type": "opt", "architectures": ["OPTForCausalLM"], "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
         "ffn_dim": 16384, "vocab_size": 50272, "max_position_embeddings": 2048, "word_embed_proj_dim": 4096, "torch_dtype": "float16"})",
     6.7e9, "opt"},
    {"facebook/opt-350m (331M)",
     R"({"model_type": "opt", "architectures": ["OPTForCausalLM"], "hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16,
         "ffn_dim": 4096, "vocab_size": 50272, "max_position_embeddings": 2048, "word_embed_proj_dim": 512,
         "do_layer_norm_before": false, "torch_dtype": "float16"})",
     331e6, "opt"},
    // Mistral Small 4 (mistralai/Mistral-Small-4-119B-2603): a mistral3 wrapper whose text_config is
    // mistral4 (MLA + 128 fused routed experts), with Mistral4Config's default dimensions and a Pixtral
    // tower (119,401,298,944 parameters here; the card's name says 119B).
    {"mistralai/Mistral-Small-4-119B-2603 (119B)",
     R"({"architectures": ["Mistral3ForConditionalGeneration"], "model_type": "mistral3", "torch_dtype": "bfloat16",
         "text_config": {"model_type": "mistral4", "hidden_size": 4096, "num_hidden_layers": 36, "num_attention_heads": 32,
           "num_key_value_heads": 32, "vocab_size": 131072, "intermediate_size": 12288, "q_lora_rank": 1024, "kv_lora_rank": 256,
           "qk_nope_head_dim": 64, "qk_rope_head_dim": 64, "v_head_dim": 128, "n_routed_experts": 128, "num_experts_per_tok": 4,
           "moe_intermediate_size": 2048, "n_shared_experts": 1, "first_k_dense_replace": 0, "max_position_embeddings": 1048576,
           "tie_word_embeddings": false},
         "vision_config": {"model_type": "pixtral", "hidden_size": 1024, "intermediate_size": 4096, "num_hidden_layers": 24,
           "num_attention_heads": 16, "head_dim": 64, "image_size": 1540, "patch_size": 14, "num_channels": 3}})",
     119e9, "mistral3"},
};

TEST(UncorpusedDescriptions, ParameterCountsNearTheModelCards) {
  for (const auto& c : kCards) {
    SCOPED_TRACE(c.model);
    const auto m = build_model_from_config(c.config, "config.json").value_or_throw();
    EXPECT_EQ(m.family, c.family);
    EXPECT_TRUE(m.family_reader);
    const double params = static_cast<double>(m.manifest.logical_params());
    EXPECT_LT(std::fabs(params - c.params) / c.params, 0.015) << params;
  }
}

// Llama 3.2 11B Vision, exact: the public index of meta-llama/Llama-3.2-11B-Vision-Instruct
// gives metadata.total_size 21,340,441,670 B (BF16: 10,670,220,835 parameters, an odd count the
// description reproduces to the unit: embed_tokens' 8 extra rows, the [1] gates, the tile and
// aspect-ratio embeddings of 9 rows, 1601 positions for 560-pixel tiles). The config carries the
// released dimensions; no stored snapshot of the pair was found, so it is not in the corpus.
TEST(UncorpusedDescriptions, Llama32VisionIsExactAgainstItsIndexTotal) {
  const auto m =
      build_model_from_config(
          R"({"architectures": ["MllamaForConditionalGeneration"], "image_token_index": 128256, "model_type": "mllama", "torch_dtype": "bfloat16", "transformers_version": "4.45.0.dev0",
 "text_config": {"model_type": "mllama_text_model", "hidden_size": 4096, "num_hidden_layers": 40, "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256, "max_position_embeddings": 131072, "cross_attention_layers": [3, 8, 13, 18, 23, 28, 33, 38], "tie_word_embeddings": false, "torch_dtype": "bfloat16"},
 "vision_config": {"model_type": "mllama_vision_model", "hidden_size": 1280, "intermediate_size": 5120, "num_hidden_layers": 32, "num_global_layers": 8, "attention_heads": 16, "image_size": 560, "patch_size": 14, "max_num_tiles": 4, "vision_output_dim": 7680, "supported_aspect_ratios": [[1, 1], [1, 2], [1, 3], [1, 4], [2, 1], [2, 2], [3, 1], [4, 1]], "intermediate_layers_indices": [3, 7, 15, 23, 30]}})",
          "config.json")
          .value_or_throw();
  EXPECT_EQ(m.family, "mllama");
  EXPECT_EQ(m.manifest.payload_bytes(), 21'340'441'670u);
  EXPECT_EQ(m.manifest.logical_params(), 10'670'220'835u);
  // 32 self-attention layers carry the KV cache; the 8 cross-attention layers attend to image tokens.
  EXPECT_EQ(m.count_layers(LayerKind::full_attention), 32u);
  EXPECT_EQ(m.count_layers(LayerKind::stateless), 8u);
}

// Two descriptions read from transformers' modules alone (no pair, no card figure to hold them to):
// Arcee's MLP has no gate (4,619,184,640 parameters for the AFM-4.5B dimensions: the Llama count
// less 36 gate matrices of 18,432 x 2,560), and OLMo 3 is OLMo 2 with layer_types' sliding layers.
TEST(UncorpusedDescriptions, ArceeHasNoGateAndOlmo3SlidesWhereLayerTypesSay) {
  const auto arcee =
      build_model_from_config(
          R"({"architectures":["ArceeForCausalLM"],"model_type":"arcee","hidden_size":2560,"intermediate_size":18432,"num_hidden_layers":36,"num_attention_heads":20,"num_key_value_heads":4,"head_dim":128,"vocab_size":128004,"max_position_embeddings":65536,"tie_word_embeddings":false,"torch_dtype":"bfloat16"})",
          "config.json")
          .value_or_throw();
  EXPECT_EQ(arcee.family, "arcee");
  EXPECT_EQ(arcee.manifest.logical_params(), 4'619'184'640u);
  for (const auto& t : arcee.manifest.tensors) EXPECT_EQ(t.name.find("gate_proj"), std::string::npos) << t.name;
  const auto olmo3 = build_model_from_config(R"({"model_type": "olmo3", "hidden_size": 4096, "num_hidden_layers": 4,
      "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 100278, "sliding_window": 4096,
      "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "full_attention"]})",
                                             "config.json")
                         .value_or_throw();
  EXPECT_EQ(olmo3.family, "olmo2");
  EXPECT_EQ(olmo3.count_layers(LayerKind::sliding_attention), 3u);
  EXPECT_EQ(olmo3.gqa.sliding_window, 4096u);
}

TEST(UncorpusedDescriptions, Llama4LayersAreChunkedExceptTheNoPeOnes) {
  const auto m = build_model_from_config(kCards[5].config, "config.json").value_or_throw();
  EXPECT_EQ(m.count_layers(LayerKind::chunked_attention), 36u);  // every 4th layer (NoPE) is global
  EXPECT_EQ(m.count_layers(LayerKind::full_attention), 12u);
  EXPECT_EQ(m.gqa.attention_chunk, 8192u);
  EXPECT_EQ(m.moe.routed_experts, 16u);
}

}  // namespace
}  // namespace preflight
