// config.json texts of models the catalogue does not carry, with their published
// dimensions, shared by the tests that plan them.
#pragma once

namespace preflight::testing {

// meta-llama/Llama-4-Scout-17B-16E (109B): 48 layers, chunked local attention of 8,192 tokens
// with every fourth layer global, 16 experts, the vision encoder.
inline constexpr const char* kLlama4ScoutConfig = R"({"model_type": "llama4", "torch_dtype": "bfloat16",
         "text_config": {"model_type": "llama4_text", "hidden_size": 5120, "intermediate_size": 8192,
           "intermediate_size_mlp": 16384, "num_hidden_layers": 48, "num_attention_heads": 40, "num_key_value_heads": 8,
           "head_dim": 128, "vocab_size": 202048, "num_local_experts": 16, "num_experts_per_tok": 1,
           "interleave_moe_layer_step": 1, "attention_chunk_size": 8192, "max_position_embeddings": 10485760},
         "vision_config": {"hidden_size": 1408, "intermediate_size": 5632, "num_hidden_layers": 34, "image_size": 336,
           "patch_size": 14, "projector_input_dim": 4096, "projector_output_dim": 4096, "vision_output_dim": 4096}})";

}  // namespace preflight::testing
