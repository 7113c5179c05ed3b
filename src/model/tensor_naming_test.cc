#include "model/tensor_naming.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/family_registry.h"

namespace preflight {
namespace {

// A 4-layer decoder whose layer 1 is MLA, layer 2 KDA and layer 3 Mamba-2, so
// the attention class can be seen to follow the config.
ModelSpec four_layers() {
  ModelSpec m;
  m.layers = {LayerKind::full_attention, LayerKind::mla, LayerKind::kda, LayerKind::mamba2};
  return m;
}

TEST(TensorNaming, ConventionsOfTheServedArchitectures) {
  const auto model = four_layers();
  const auto& naming = TensorNaming::embedded();
  using MC = ModuleClass;
  using PR = ParallelRole;
  struct Case {
    const char* name;
    MC module;
    PR role;
    int layer;
    int expert;  // -1: none
  };
  for (const auto& c : std::vector<Case>{
           // Llama, Mistral, Qwen: q/k/v/o_proj, gate/up/down_proj
           {"model.embed_tokens.weight", MC::embedding, PR::vocab, kNoLayer, -1},
           {"model.layers.0.self_attn.q_proj.weight", MC::gqa_attention, PR::column, 0, -1},
           {"model.layers.0.self_attn.q_proj.bias", MC::gqa_attention, PR::column, 0, -1},
           {"model.layers.0.self_attn.o_proj.weight", MC::gqa_attention, PR::row, 0, -1},
           {"model.layers.0.self_attn.o_proj.bias", MC::gqa_attention, PR::replicated, 0,
            -1},  // added once, after the reduce
           {"model.layers.0.self_attn.q_norm.weight", MC::gqa_attention, PR::replicated, 0, -1},
           {"model.layers.0.mlp.gate_proj.weight", MC::dense_mlp, PR::column, 0, -1},
           {"model.layers.0.mlp.down_proj.weight", MC::dense_mlp, PR::row, 0, -1},
           {"model.layers.0.input_layernorm.weight", MC::norms, PR::replicated, 0, -1},
           {"model.norm.weight", MC::norms, PR::replicated, kNoLayer, -1},
           {"lm_head.weight", MC::lm_head, PR::vocab, kNoLayer, -1},
           // phi-2: dense, fc1/fc2, final_layernorm
           {"model.layers.3.self_attn.dense.weight", MC::linear_attention, PR::row, 3, -1},
           {"model.layers.0.mlp.fc1.weight", MC::dense_mlp, PR::column, 0, -1},
           {"model.layers.0.mlp.fc2.bias", MC::dense_mlp, PR::replicated, 0, -1},
           {"model.final_layernorm.bias", MC::norms, PR::replicated, kNoLayer, -1},
           // GPT-2 / StarCoder: c_attn, c_proj, c_fc, wte, wpe, ln_f
           {"transformer.wte.weight", MC::embedding, PR::vocab, kNoLayer, -1},
           {"transformer.wpe.weight", MC::embedding, PR::replicated, kNoLayer, -1},
           {"transformer.h.0.attn.c_attn.weight", MC::gqa_attention, PR::column, 0, -1},
           {"transformer.h.0.attn.c_proj.weight", MC::gqa_attention, PR::row, 0, -1},
           {"transformer.h.0.mlp.c_fc.weight", MC::dense_mlp, PR::column, 0, -1},
           {"transformer.h.0.mlp.c_proj.weight", MC::dense_mlp, PR::row, 0, -1},
           {"transformer.h.0.ln_1.weight", MC::norms, PR::replicated, 0, -1},
           {"transformer.ln_f.weight", MC::norms, PR::replicated, kNoLayer, -1},
           // Falcon, GPT-NeoX, Bloom: query_key_value, dense_h_to_4h
           {"transformer.h.1.self_attention.query_key_value.weight", MC::mla_attention, PR::column, 1, -1},
           {"transformer.h.0.mlp.dense_h_to_4h.weight", MC::dense_mlp, PR::column, 0, -1},
           {"gpt_neox.layers.0.attention.dense.weight", MC::gqa_attention, PR::row, 0, -1},
           {"gpt_neox.embed_in.weight", MC::embedding, PR::vocab, kNoLayer, -1},
           {"embed_out.weight", MC::lm_head, PR::vocab, kNoLayer, -1},
           {"transformer.word_embeddings.weight", MC::embedding, PR::vocab, kNoLayer, -1},
           // MPT / DBRX / Baichuan: Wqkv, W_pack
           {"transformer.blocks.2.attn.Wqkv.weight", MC::kda_attention, PR::column, 2, -1},
           {"model.layers.0.self_attn.W_pack.weight", MC::gqa_attention, PR::column, 0, -1},
           // Mixtral, Qwen-MoE, DeepSeek: experts, shared experts, routers
           {"model.layers.0.block_sparse_moe.experts.7.w1.weight", MC::routed_experts, PR::expert, 0, 7},
           {"model.layers.0.block_sparse_moe.experts.7.w2.weight", MC::routed_experts, PR::expert, 0, 7},
           {"model.layers.0.block_sparse_moe.gate.weight", MC::router, PR::replicated, 0, -1},
           {"model.layers.0.mlp.gate.weight", MC::router, PR::replicated, 0, -1},
           {"model.layers.0.mlp.gate.e_score_correction_bias", MC::router, PR::replicated, 0, -1},
           {"model.layers.0.mlp.shared_expert.gate_proj.weight", MC::shared_experts, PR::column, 0, -1},
           {"model.layers.0.mlp.shared_experts.down_proj.weight", MC::shared_experts, PR::row, 0, -1},
           {"model.layers.0.mlp.shared_expert_gate.weight", MC::router, PR::replicated, 0, -1},
           {"model.layers.1.self_attn.kv_a_proj_with_mqa.weight", MC::mla_attention, PR::replicated, 1, -1},
           {"model.layers.1.self_attn.kv_b_proj.weight", MC::mla_attention, PR::column, 1, -1},
           // gpt-oss, Llama 4: every expert of a layer in one tensor
           {"model.layers.0.mlp.experts.gate_up_proj_blocks", MC::routed_experts, PR::expert, 0, -1},
           {"language_model.model.layers.0.feed_forward.experts.down_proj", MC::routed_experts, PR::expert, 0, -1},
           // Mamba-2: mixer
           {"backbone.layers.3.mixer.in_proj.weight", MC::linear_attention, PR::column, 3, -1},
           {"backbone.layers.3.mixer.A_log", MC::linear_attention, PR::replicated, 3, -1},
           {"backbone.embeddings.weight", MC::embedding, PR::vocab, kNoLayer, -1},
           // Vision-language: towers and projectors are not decoder layers
           {"visual.blocks.0.attn.qkv.weight", MC::vision_tower, PR::replicated, kNoLayer, -1},
           {"vision_tower.vision_model.encoder.layers.0.self_attn.q_proj.weight", MC::vision_tower, PR::replicated,
            kNoLayer, -1},
           {"multi_modal_projector.linear_1.weight", MC::projector, PR::replicated, kNoLayer, -1},
           {"model.mm_projector.0.weight", MC::projector, PR::replicated, kNoLayer, -1},
           {"mlp1.1.weight", MC::projector, PR::replicated, kNoLayer, -1},
           // MTP: a layer past the decoder's
           {"model.layers.4.self_attn.q_proj.weight", MC::mtp, PR::replicated, 4, -1},
           {"model.layers.4.enorm.weight", MC::mtp, PR::replicated, 4, -1},
           {"mtp.layers.0.eh_proj.weight", MC::mtp, PR::replicated, kNoLayer, -1},
           // Mistral's original format: output.weight is the head
           {"output.weight", MC::lm_head, PR::vocab, kNoLayer, -1},
           // Nothing matches: replicated, unclassified
           {"model.some_new_thing.weight", MC::unclassified, PR::replicated, kNoLayer, -1},
       }) {
    const auto got = naming.classify(c.name, model);
    EXPECT_EQ(got.module, c.module) << c.name << " (rule " << got.rule << ")";
    EXPECT_EQ(got.role, c.role) << c.name << " (rule " << got.rule << ")";
    EXPECT_EQ(got.layer, c.layer) << c.name;
    EXPECT_EQ(got.expert ? static_cast<int>(*got.expert) : -1, c.expert) << c.name;
  }
}

// Found by classifying indexes gathered from public snapshots (MiniCPM-V 2.6,
// DeepSeek-OCR2, MiMo-7B, GraniteMoE 3.1, a MiniCPM-V fine-tune): a second
// numbered stack is an encoder, not decoder layers; MTP blocks, fused
// GraniteMoE experts and custom projectors by name.
TEST(TensorNaming, EncoderStacksAndNamesFoundInTheWild) {
  auto model = four_layers();
  const auto& naming = TensorNaming::embedded();
  const std::vector<std::string_view> names = {
      "model.layers.0.self_attn.q_proj.weight",       "model.layers.1.self_attn.q_proj.weight",
      "model.layers.2.self_attn.q_proj.weight",       "model.layers.3.self_attn.q_proj.weight",
      "vpm.encoder.layers.0.self_attn.q_proj.weight", "vpm.encoder.layers.1.self_attn.q_proj.weight",
      "vpm.encoder.layers.2.self_attn.q_proj.weight", "vpm.encoder.layers.3.self_attn.q_proj.weight",
      "vpm.encoder.layers.4.self_attn.q_proj.weight", "model.sam_model.blocks.0.attn.qkv.weight"};
  const auto decoder = naming.decoder_stack(names, model.layers.size());
  EXPECT_EQ(decoder, "model.layers");
  const auto vpm = naming.classify("vpm.encoder.layers.0.self_attn.q_proj.weight", model, decoder);
  EXPECT_EQ(vpm.module, ModuleClass::vision_tower);
  EXPECT_EQ(vpm.role, ParallelRole::replicated);
  EXPECT_EQ(vpm.layer, kNoLayer);
  EXPECT_FALSE(vpm.text);
  EXPECT_EQ(naming.classify("model.qwen2_model.model.model.layers.3.mlp.up_proj.weight", model, decoder).module,
            ModuleClass::vision_tower);
  EXPECT_EQ(naming.classify("model.layers.2.self_attn.q_proj.weight", model, decoder).module,
            ModuleClass::kda_attention);
  EXPECT_EQ(naming.classify("vpm.embeddings.patch_embedding.weight", model, decoder).module, ModuleClass::vision_tower);
  EXPECT_EQ(naming.classify("model.mtp_layers.0.input_proj.weight", model, decoder).module, ModuleClass::mtp);
  EXPECT_EQ(naming.classify("model.mtp_layers.0.self_attn.q_proj.weight", model, decoder).module, ModuleClass::mtp);
  const auto granite = naming.classify("model.layers.0.block_sparse_moe.input_linear.weight", model, decoder);
  EXPECT_EQ(granite.module, ModuleClass::routed_experts);
  EXPECT_TRUE(granite.fused_experts);
  EXPECT_EQ(naming.classify("model.layers.0.block_sparse_moe.router.layer.weight", model, decoder).module,
            ModuleClass::router);
  EXPECT_EQ(naming.classify("gene_projector.proj.0.weight", model, decoder).module, ModuleClass::projector);
  EXPECT_EQ(naming.stack_of("model.layers.12.mlp.up_proj.weight")->first, "model.layers");
  EXPECT_EQ(naming.stack_of("model.layers.12.mlp.up_proj.weight")->second, 12u);
  EXPECT_FALSE(naming.stack_of("model.norm.weight").has_value());
}

TEST(TensorNaming, BadTablesAreOneLineErrors) {
  struct Case {
    const char* json;
    const char* error;
  };
  for (const auto& c : std::vector<Case>{
           {"{}", "naming.json: /rules: expected a list of rules"},
           {R"({"rules": [{"module": "norms", "role": "replicated"}]})",
            "naming.json: /rules/0: a rule needs 'any' components or 'contains' text"},
           {R"({"rules": [{"any": ["x"], "module": "nope", "role": "replicated"}]})",
            "naming.json: /rules/0/module: unknown module class \"nope\""},
           {R"({"rules": [{"any": ["x"], "module": "norms", "role": "diagonal"}]})",
            "naming.json: /rules/0/role: unknown role \"diagonal\""},
           {R"({"rules": [{"any": "x", "module": "norms", "role": "replicated"}]})",
            "naming.json: /rules/0/any: expected a list of strings, got \"x\""},
       }) {
    const auto parsed = TensorNaming::parse(c.json, "naming.json");
    ASSERT_FALSE(parsed.ok()) << c.json;
    EXPECT_EQ(parsed.error().to_string(), c.error);
  }
}

}  // namespace
}  // namespace preflight
