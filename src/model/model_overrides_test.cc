// --quantize / --dtype overrides: exact stored bytes of the planned variants
// of catalogue models, checked against what vLLM 0.19 logged loading the same
// models (tests/data/reference/data/engine-truth-dev.csv, "weights_in_profile"), the stored
// tensors of one layer per scheme, the --dtype rules, and one-line errors.
//
// vLLM's logged figure also holds its rotary cos/sin cache, which preflight
// does not count: max_position_embeddings 131,072 x rotary dim 128 x 2 B =
// 33,554,432 B (0.03 GiB) in BF16/F16, twice that in F32. The sanity checks
// compare the exact bytes with the logged GiB minus that cache, within 1%.
#include "model/model_overrides.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "embedded_files.h"
#include "model/model_catalogue.h"
#include "placement/layout.h"
#include "placement/placement.h"

namespace preflight {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Builds a catalogue model the way app/model_source.cc does: the files' model,
// then the overrides applied to the same embedded config.
Result<ModelSpec> planned(const std::string& name, const ModelOverrides& o) {
  auto files = load_catalogue_model(name, "test");
  if (!files) return files.error();
  for (const auto& entry : model_catalogue())
    if (entry.name == name)
      return apply_model_overrides(*files, embedded::embedded_file(entry.config_path),
                                   entry.name + " (" + entry.config_path + ")", o);
  return Error{"test", "", "no catalogue entry " + name};
}

std::map<std::string, std::uint64_t> bytes_by_dtype(const ModelSpec& m) {
  std::map<std::string, std::uint64_t> out;
  for (const auto& t : m.manifest.tensors) out[std::string(dtype_name(t.dtype))] += t.bytes();
  return out;
}

const StoredTensor* find(const ModelSpec& m, const std::string& name) {
  for (const auto& t : m.manifest.tensors)
    if (t.name == name) return &t;
  return nullptr;
}

// Llama-3.1-8B: 32 layers x (q 4096x4096, k and v 1024x4096, o 4096x4096,
// gate and up 14336x4096, down 4096x14336) = 6,979,321,856 Linear parameters
// with 43,008 output rows per layer; embed_tokens and lm_head 128,256 x 4,096
// BF16 each = 2,101,346,304 B; 65 RMSNorm weights of 4,096 BF16 = 532,480 B.
// Llama-3.3-70B: 80 layers, 68,451,041,280 Linear parameters, 83,968 output
// rows per layer; embed_tokens + lm_head 128,256 x 8,192 BF16 = 4,202,692,608 B;
// 161 norms of 8,192 BF16 = 2,637,824 B.
struct VariantCase {
  const char* model;
  ModelOverrides overrides;
  const char* name;                               // the planned model's name
  std::map<std::string, std::uint64_t> by_dtype;  // exact stored bytes
  std::uint64_t total;
  double vllm_logged_gib;  // vLLM "Model loading took" (0: none logged)
  double rope_cache_gib;   // what vLLM's figure holds beyond the weights
};

const VariantCase kVariants[] = {
    // Unchanged: 16,060,522,496 B, the checkpoint's index total; vLLM r018 logged 14.99 GiB.
    {"llama-3.1-8b-instruct",
     {"none", "auto"},
     "llama-3.1-8b-instruct",
     {{"BF16", 16'060'522'496}},
     16'060'522'496,
     14.99,
     0.03},
    // fp8 online (r019, 8.49 GiB): Linear 1 B each + 224 per-tensor F32 scales (896 B);
    // embeddings, lm_head and norms BF16 (2,101,346,304 + 532,480).
    {"llama-3.1-8b-instruct",
     {"fp8", ""},
     "llama-3.1-8b-instruct (+fp8 online)",
     {{"F8_E4M3", 6'979'321'856}, {"F32", 896}, {"BF16", 2'101'878'784}},
     9'081'201'536,
     8.49,
     0.03},
    // W8A8 INT8 (r060 logged 8.49 GiB for RedHatAI's checkpoint): scales [out, 1] BF16 = 32 x 43,008 x 2 B.
    {"llama-3.1-8b-instruct",
     {"w8a8", ""},
     "llama-3.1-8b-instruct (+w8a8)",
     {{"I8", 6'979'321'856}, {"BF16", 2'101'878'784ULL + 2'752'512}},
     9'083'953'152,
     8.49,
     0.03},
    // W4A16 (r057, gptq_marlin, 5.38 GiB): packed I32 = params / 2; weight_shape I64 [2] = 224 x 16 B;
    // group scales [out, in/128] BF16 = params / 64 B.
    {"llama-3.1-8b-instruct",
     {"w4a16", ""},
     "llama-3.1-8b-instruct (+w4a16)",
     {{"I32", 3'489'660'928}, {"I64", 3'584}, {"BF16", 2'101'878'784ULL + 109'051'904}},
     5'700'595'200,
     5.38,
     0.03},
    // --dtype float32 (r021, 29.98 GiB; its rope cache is F32 too: 0.0625 GiB): every BF16 tensor doubles.
    {"llama-3.1-8b-instruct",
     {"", "float32"},
     "llama-3.1-8b-instruct (+float32)",
     {{"F32", 32'121'044'992}},
     32'121'044'992,
     29.98,
     0.0625},
    // --dtype float16 (r020, 14.99 GiB): same bytes, F16.
    {"llama-3.1-8b-instruct",
     {"", "half"},
     "llama-3.1-8b-instruct (+float16)",
     {{"F16", 16'060'522'496}},
     16'060'522'496,
     14.99,
     0.03},
    // FP8-dynamic on the 70B (r074, TP 1, 67.72 GiB): F8_E4M3 Linear + BF16 channel scales
    // 80 x 83,968 x 2 B = 13,434,880 B. vLLM holds those scales as F32 (+13,434,880 B = 0.0125 GiB).
    {"llama-3.3-70b-instruct-fp8-dynamic",
     {"fp8-dynamic", ""},
     "llama-3.3-70b-instruct-fp8-dynamic (+fp8-dynamic)",
     {{"F8_E4M3", 68'451'041'280}, {"BF16", 4'202'692'608ULL + 2'637'824 + 13'434'880}},
     72'669'806'592,
     67.72,
     0.03},
    // Both overrides: online FP8 weights, BF16 tensors held as F32; the FP8 scales were F32 already.
    {"llama-3.1-8b-instruct",
     {"fp8", "float32"},
     "llama-3.1-8b-instruct (+fp8 online, float32)",
     {{"F8_E4M3", 6'979'321'856}, {"F32", 896ULL + 4'203'757'568}},
     11'183'080'320,
     0.0,
     0.0},
};

TEST(ModelOverrides, VariantBytesAreExactAndMatchVllmLogs) {
  for (const auto& c : kVariants) {
    SCOPED_TRACE(std::string(c.model) + " --quantize '" + c.overrides.quantize + "' --dtype '" + c.overrides.dtype +
                 "'");
    const auto m = planned(c.model, c.overrides);
    ASSERT_TRUE(m.ok()) << m.error().to_string();
    EXPECT_EQ(m->name, c.name);
    EXPECT_EQ(bytes_by_dtype(*m), c.by_dtype);
    EXPECT_EQ(m->manifest.payload_bytes(), c.total);
    if (c.vllm_logged_gib > 0) {
      const double weights = c.vllm_logged_gib - c.rope_cache_gib;
      EXPECT_NEAR(static_cast<double>(c.total) / kGiB, weights, weights * 0.01);
    }
  }
}

// vLLM r003 / r068: 33.88 GiB per rank at TP 2. Rank 0 holds half of every
// split tensor, the norms in full, and (the row-parallel layers' [out, 1]
// scales not being split along `in`) all of o_proj's and down_proj's scales:
// (72,669,806,592 - 2,637,824 - 2,621,440) / 2 + 2,637,824 + 2,621,440.
TEST(ModelOverrides, Fp8DynamicSeventyBAtTp2) {
  const auto m = planned("llama-3.3-70b-instruct-fp8-dynamic", {"fp8-dynamic", ""});
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  LayoutOptions options;
  options.tp = 2;
  const auto layout = choose_layout(*m, 2, options);
  ASSERT_TRUE(layout.ok()) << layout.error().to_string();
  const auto ranks = place_weights(m->manifest, *layout, m->layers.size(), 0);
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_EQ(ranks[0].total, 36'337'532'928u);
  EXPECT_NEAR(static_cast<double>(ranks[0].total) / kGiB, 33.88 - 0.03, (33.88 - 0.03) * 0.01);
}

// One decoder layer's q_proj (4096 x 4096) as each scheme stores it.
struct Stored {
  const char* name;
  const char* dtype;
  std::vector<std::uint64_t> shape;
  std::uint64_t bytes;
  std::uint64_t params;
};
struct LayerCase {
  const char* scheme;
  std::vector<Stored> want;
};

TEST(ModelOverrides, StoredTensorsOfOneLinearPerScheme) {
  const std::string q = "model.layers.0.self_attn.q_proj.";
  const LayerCase cases[] = {
      {"fp8", {{"weight", "F8_E4M3", {4096, 4096}, 16'777'216, 16'777'216}, {"weight_scale", "F32", {}, 4, 0}}},
      {"fp8-dynamic",
       {{"weight", "F8_E4M3", {4096, 4096}, 16'777'216, 16'777'216}, {"weight_scale", "BF16", {4096, 1}, 8'192, 0}}},
      {"w8a8", {{"weight", "I8", {4096, 4096}, 16'777'216, 16'777'216}, {"weight_scale", "BF16", {4096, 1}, 8'192, 0}}},
      {"w4a16",
       {{"weight_packed", "I32", {4096, 512}, 8'388'608, 16'777'216},
        {"weight_shape", "I64", {2}, 16, 0},
        {"weight_scale", "BF16", {4096, 32}, 262'144, 0}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.scheme);
    const auto m = planned("llama-3.1-8b-instruct", {c.scheme, ""});
    ASSERT_TRUE(m.ok()) << m.error().to_string();
    std::size_t seen = 0;
    for (const auto& t : m->manifest.tensors) {
      if (!t.name.starts_with(q)) continue;
      ASSERT_LT(seen, c.want.size()) << "unexpected " << t.name;
      const auto& w = c.want[seen++];
      EXPECT_EQ(t.name, q + w.name);
      EXPECT_EQ(dtype_name(t.dtype), w.dtype) << t.name;
      EXPECT_EQ(t.shape, w.shape) << t.name;
      EXPECT_EQ(t.bytes(), w.bytes) << t.name;
      EXPECT_EQ(t.logical_params(), w.params) << t.name;
    }
    EXPECT_EQ(seen, c.want.size());
    // The LM head and the embedding are never quantized.
    for (const char* kept : {"lm_head.weight", "model.embed_tokens.weight"}) {
      const auto* t = find(*m, kept);
      ASSERT_NE(t, nullptr) << kept;
      EXPECT_EQ(t->dtype, Dtype::BF16) << kept;
    }
    // Parameters are counted as the unquantized model's.
    EXPECT_EQ(m->manifest.logical_params(), 8'030'261'248u);
  }
}

// MoE routers the families mark as Linear stay in the model dtype, as vLLM
// builds them (quant_config=None) and llm-compressor's MoE recipes ignore them;
// the experts are quantized.
TEST(ModelOverrides, MoeRoutersStayUnquantized) {
  for (const char* scheme : {"fp8", "fp8-dynamic", "w8a8", "w4a16"}) {
    SCOPED_TRACE(scheme);
    const auto m = planned("mixtral-8x7b-instruct", {scheme, ""});
    ASSERT_TRUE(m.ok()) << m.error().to_string();
    const auto* gate = find(*m, "model.layers.0.block_sparse_moe.gate.weight");
    ASSERT_NE(gate, nullptr);
    EXPECT_EQ(gate->dtype, Dtype::BF16);
    EXPECT_EQ(gate->format, StorageFormat::plain);
    std::uint64_t quantized_experts = 0;
    for (const auto& t : m->manifest.tensors)
      if (t.module == ModuleClass::routed_experts && t.format != StorageFormat::plain && t.logical_params_each > 0)
        quantized_experts += t.instances;
    EXPECT_EQ(quantized_experts, 32u * 8u * 3u);  // 32 layers x 8 experts x w1, w2, w3
  }
}

// --dtype rules on a checkpoint that mixes stored dtypes (DeepSeek-V3: FP8
// block-quantized Linear weights with F32 weight_scale_inv, BF16 embeddings,
// norms and routers, F32 e_score_correction_bias).
TEST(ModelOverrides, DtypeRecastsOnlyPlainTensorsInTheModelDtype) {
  const auto files = load_catalogue_model("deepseek-v3", "test");
  ASSERT_TRUE(files.ok()) << files.error().to_string();
  const auto m = planned("deepseek-v3", {"", "float32"});
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  ASSERT_EQ(files->manifest.tensors.size(), m->manifest.tensors.size());
  for (std::size_t i = 0; i < m->manifest.tensors.size(); ++i) {
    const auto& before = files->manifest.tensors[i];
    const auto& after = m->manifest.tensors[i];
    ASSERT_EQ(before.name, after.name);
    const bool recast = before.format == StorageFormat::plain && before.dtype == Dtype::BF16;
    EXPECT_EQ(after.dtype, recast ? Dtype::F32 : before.dtype) << after.name;
    EXPECT_EQ(after.bytes(), recast ? 2 * before.bytes() : before.bytes()) << after.name;
  }
  EXPECT_EQ(m->dtype, Dtype::F32);
  const auto* bias = find(*m, "model.layers.3.mlp.gate.e_score_correction_bias");
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(bias->dtype, Dtype::F32);
  // A dtype that is already the model's changes nothing but says so.
  const auto same = planned("deepseek-v3", {"", "bfloat16"});
  ASSERT_TRUE(same.ok()) << same.error().to_string();
  EXPECT_EQ(same->name, "deepseek-v3");
  EXPECT_EQ(same->manifest.payload_bytes(), files->manifest.payload_bytes());
  EXPECT_EQ(same->artifact.has_value(), files->artifact.has_value());
  EXPECT_EQ(same->notes.back(), "--dtype bfloat16: already the model dtype (BF16), nothing changed");
}

// The artifact's facts describe the files: kept when nothing changes, left
// out (with a note) when the planned weights differ from them.
TEST(ModelOverrides, ArtifactFactsFollowTheFiles) {
  const auto files = load_catalogue_model("llama-3.1-8b-instruct", "test");
  ASSERT_TRUE(files.ok());
  ASSERT_TRUE(files->artifact.has_value());
  const auto none = planned("llama-3.1-8b-instruct", {"none", "auto"});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->artifact.has_value());
  EXPECT_EQ(none->notes, files->notes);
  const auto fp8 = planned("llama-3.1-8b-instruct", {"fp8", ""});
  ASSERT_TRUE(fp8.ok());
  EXPECT_FALSE(fp8->artifact.has_value());
  ASSERT_GE(fp8->notes.size(), 2u);
  EXPECT_TRUE(fp8->notes[fp8->notes.size() - 2].starts_with("--quantize fp8: vLLM's online FP8"));
  EXPECT_EQ(fp8->notes.back(),
            "artifact facts of meta-llama/Llama-3.1-8B-Instruct left out of this plan: they describe the files as "
            "released (shards, bytes, the hub's parameter count), not the weights after the overrides");
  EXPECT_EQ(fp8->quantization.method, "fp8");
}

struct ErrorCase {
  const char* model;
  ModelOverrides overrides;
  const char* error;
};

TEST(ModelOverrides, ErrorsNameTheFlagAndTheValue) {
  const ErrorCase cases[] = {
      {"llama-3.1-8b-instruct",
       {"fp4", ""},
       "--quantize: unknown scheme 'fp4' (expected fp8, fp8-dynamic, w8a8, w4a16 or none)"},
      {"llama-3.1-8b-instruct",
       {"FP8", ""},
       "--quantize: unknown scheme 'FP8' (expected fp8, fp8-dynamic, w8a8, w4a16 or none)"},
      {"llama-3.1-8b-instruct",
       {"", "bf16"},
       "--dtype: unknown dtype 'bf16' (expected auto, bfloat16, float16 or float32)"},
      {"qwen2.5-7b-instruct-w8a8",
       {"fp8", ""},
       "--quantize: cannot apply 'fp8': the model is already quantized with compressed-tensors (int-quantized), "
       "per /quantization_config of qwen2.5-7b-instruct-w8a8 (data/models/qwen2.5-7b-instruct-w8a8/config.json); "
       "plan it as it is, or pass --quantize none"},
      {"deepseek-v3",
       {"w4a16", "float32"},
       "--quantize: cannot apply 'w4a16': the model is already quantized with fp8, per /quantization_config of "
       "deepseek-v3 (data/models/deepseek-v3/config.json); plan it as it is, or pass --quantize none"},
      {"kimi-k3",
       {"fp8-dynamic", ""},
       "--quantize: cannot apply 'fp8-dynamic': the model is already quantized with compressed-tensors "
       "(mxfp4-pack-quantized), per /text_config/quantization_config of kimi-k3 (data/models/kimi-k3/config.json); "
       "plan it as it is, or pass --quantize none"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.error);
    const auto m = planned(c.model, c.overrides);
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.error().to_string(), c.error);
  }
  // An already-quantized model is fine with --quantize none.
  EXPECT_TRUE(planned("qwen2.5-7b-instruct-w8a8", {"none", ""}).ok());
}

TEST(ModelOverrides, InjectedConfigsReadBackAsTheirSchemes) {
  struct Want {
    const char* scheme;
    const char* method;
    const char* format;
  };
  for (const auto& w :
       {Want{"fp8", "fp8", ""}, Want{"fp8-dynamic", "compressed-tensors", "float-quantized"},
        Want{"w8a8", "compressed-tensors", "int-quantized"}, Want{"w4a16", "compressed-tensors", "pack-quantized"}}) {
    const auto q = quantization_config_for(w.scheme);
    ASSERT_TRUE(q.ok());
    EXPECT_EQ((*q)["quant_method"], w.method) << w.scheme;
    EXPECT_EQ(q->value("format", ""), w.format) << w.scheme;
  }
  EXPECT_TRUE(quantization_config_for("none")->is_null());
  EXPECT_FALSE(overrides_requested({"none", "auto"}));
  EXPECT_FALSE(overrides_requested({"", ""}));
  EXPECT_TRUE(overrides_requested({"", "float16"}));
}

}  // namespace
}  // namespace preflight
