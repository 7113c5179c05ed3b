// The files win: sparse snapshots (real headers, no data) of
// architectures without a reader and of files that contradict their config
// are planned from their own tensors, and every rank's weights equal a
// brute-force placement of the files computed here tensor by tensor.
#include "artifact/files_manifest.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "artifact/checkpoint_manifest.h"
#include "core/bytes.h"
#include "embedded_files.h"
#include "model/family_registry.h"
#include "model/inventory.h"
#include "plan/ledger_check.h"
#include "plan/plan.h"
#include "report/reconstruction.h"
#include "support/fixtures.h"

namespace preflight {
namespace {

// A shard header holding `tensors` back to back (the data itself is never read).
NamedHeader shard(const std::string& file, const std::vector<FileTensor>& tensors) {
  NamedHeader h{file, {}};
  std::uint64_t at = 0;
  for (const auto& t : tensors) {
    h.header.tensors.push_back(HeaderTensor{t.name, t.dtype, t.shape, at, at + t.bytes});
    at += t.bytes;
  }
  return h;
}

// Every concrete tensor of a manifest (what a checkpoint of it would store).
std::vector<FileTensor> stored(const TensorManifest& m) {
  std::vector<FileTensor> out;
  for_each_concrete_tensor(m, [&](const ConcreteTensor& t) {
    out.push_back(FileTensor{t.name, t.dtype, t.shape, t.bytes});
  });
  return out;
}

FileTensor tensor(const std::string& name, std::vector<std::uint64_t> shape, Dtype dtype = Dtype::BF16) {
  return FileTensor{name, dtype, shape, element_count(shape) * dtype_bits(dtype) / 8};
}

// Each rank's weight bytes, placed tensor by tensor with the rules of
// placement/placement.h written out plainly: a tensor lives in the stage of its
// layer (embedding, vision and projector on the first, the rest on the last);
// replicated tensors are whole on every rank of the stage; column/row/vocab
// tensors split their dimension over TP, the first ranks taking one more
// slice; experts go in contiguous blocks to the EP groups (the first groups
// one more), each group's expert bytes of a stage split over MoE-TP.
std::vector<std::uint64_t> brute_force(const ModelSpec& model, const Layout& l) {
  std::vector<std::uint64_t> out(l.world, 0);
  const auto stage_of = [&](const StoredTensor& t) -> std::uint64_t {
    if (t.layer == kNoLayer)
      return t.module == ModuleClass::embedding || t.module == ModuleClass::vision_tower ||
                     t.module == ModuleClass::projector
                 ? 0
                 : l.pp - 1;
    for (std::uint64_t s = 0; s < l.pp; ++s)
      if (static_cast<std::uint64_t>(t.layer) < l.first_layer(s) + l.stage_layers[s]) return s;
    return l.pp - 1;
  };
  const auto E = model.moe.routed_experts;
  // [stage][EP group] expert bytes, split over MoE-TP at the end.
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> expert_block;
  for (const auto& t : model.manifest.tensors) {
    const auto s = stage_of(t);
    for (std::uint32_t i = 0; i < t.instances; ++i) {
      const auto bytes = t.bytes_each;
      if (t.role == ParallelRole::expert && E > 0) {
        const auto e = t.first_instance + i;
        // Group g holds E / EP experts, the first E % EP groups one more.
        std::uint64_t g = 0, start = 0;
        while (g + 1 < l.ep && e >= start + E / l.ep + (g < E % l.ep ? 1 : 0))
          start += E / l.ep + (g < E % l.ep ? 1 : 0), ++g;
        expert_block[{s, g}] += bytes;
        continue;
      }
      for (std::uint64_t r = s * l.stage_ranks(); r < (s + 1) * l.stage_ranks(); ++r) {
        if (t.role == ParallelRole::replicated || t.role == ParallelRole::expert) {
          out[r] += bytes;
          continue;
        }
        const auto axis = t.role == ParallelRole::row && t.shape.size() > 1 ? 1 : 0;
        const auto dim = t.shape.empty() ? 1 : t.shape[axis];
        const auto k = l.tp_rank(r);
        const auto slices = dim / l.tp + (k < dim % l.tp ? 1 : 0);
        out[r] += slices * (bytes / dim);
      }
    }
  }
  for (const auto& [key, bytes] : expert_block)
    for (std::uint64_t r = key.first * l.stage_ranks(); r < (key.first + 1) * l.stage_ranks(); ++r)
      if (l.ep_index(r) == key.second) {
        const auto m = l.moe_tp_rank(r);
        out[r] += bytes / l.moe_tp + (m < bytes % l.moe_tp ? 1 : 0);
      }
  return out;
}

// Each rank's weight rows in a plan (the generic engine: no engine-side tensors).
std::vector<std::uint64_t> planned_weights(const Plan& plan) {
  std::vector<std::uint64_t> out;
  for (const auto& r : plan.ranks) {
    std::uint64_t w = 0;
    for (const auto& row : r.rows)
      if (row.resource == Resource::weights) w += row.bytes;
    out.push_back(w);
  }
  return out;
}

// Copies every rank holds in all: the payload plus the replicated copies.
std::uint64_t expected_sum(const ModelSpec& model, const Layout& l) {
  std::uint64_t sum = 0;
  for (const auto& t : model.manifest.tensors) {
    const bool replicated =
        t.role == ParallelRole::replicated || (t.role == ParallelRole::expert && model.moe.routed_experts == 0);
    const bool expert = t.role == ParallelRole::expert && !replicated;
    sum += t.bytes() * (replicated ? l.stage_ranks() : expert ? 1 : l.dp);
  }
  return sum;
}

void expect_planned_as_brute_force(const ModelSpec& model, std::uint64_t gpus, LayoutOptions options) {
  PlanRequest request;
  request.gpu_count = gpus;
  request.layout = options;
  request.perf.enabled = false;
  const auto plan = build_plan(model, testing::catalogue_gpu("H100"), request).value_or_throw();
  const auto want = brute_force(model, plan.layout);
  EXPECT_EQ(planned_weights(plan), want) << model.name << " TP " << plan.layout.tp << " PP " << plan.layout.pp << " EP "
                                         << plan.layout.ep;
  std::uint64_t got = 0;
  for (auto w : want) got += w;
  EXPECT_EQ(got, expected_sum(model, plan.layout)) << model.name;
  EXPECT_EQ(weights_disagreement(plan, model), "") << model.name;
}

// phi-2 (no family reader): 453 tensors, 5,559,367,680 B in the real header;
// the generic reading of its config generates a gated three-matrix MLP and no
// biases (7,235,507,200 B, +30%).
constexpr const char* kPhi2Config = R"({
  "architectures": ["PhiForCausalLM"], "model_type": "phi", "hidden_size": 2560, "intermediate_size": 10240,
  "num_attention_heads": 32, "num_key_value_heads": 32, "num_hidden_layers": 32, "vocab_size": 51200,
  "max_position_embeddings": 2048, "torch_dtype": "float16", "tie_word_embeddings": false,
  "partial_rotary_factor": 0.4, "layer_norm_eps": 1e-05, "hidden_act": "gelu_new", "rope_theta": 10000.0})";

std::vector<FileTensor> phi2_tensors() {
  const std::uint64_t H = 2560, I = 10240, V = 51200;
  std::vector<FileTensor> t{tensor("model.embed_tokens.weight", {V, H}, Dtype::F16)};
  for (int l = 0; l < 32; ++l) {
    const auto p = "model.layers." + std::to_string(l) + ".";
    for (const char* proj : {"q_proj", "k_proj", "v_proj", "dense"}) {
      t.push_back(tensor(p + "self_attn." + proj + ".weight", {H, H}, Dtype::F16));
      t.push_back(tensor(p + "self_attn." + proj + ".bias", {H}, Dtype::F16));
    }
    t.push_back(tensor(p + "mlp.fc1.weight", {I, H}, Dtype::F16));
    t.push_back(tensor(p + "mlp.fc1.bias", {I}, Dtype::F16));
    t.push_back(tensor(p + "mlp.fc2.weight", {H, I}, Dtype::F16));
    t.push_back(tensor(p + "mlp.fc2.bias", {H}, Dtype::F16));
    t.push_back(tensor(p + "input_layernorm.weight", {H}, Dtype::F16));
    t.push_back(tensor(p + "input_layernorm.bias", {H}, Dtype::F16));
  }
  t.push_back(tensor("model.final_layernorm.weight", {H}, Dtype::F16));
  t.push_back(tensor("model.final_layernorm.bias", {H}, Dtype::F16));
  t.push_back(tensor("lm_head.weight", {V, H}, Dtype::F16));
  t.push_back(tensor("lm_head.bias", {V}, Dtype::F16));
  return t;
}

// phi has a description now (data/architectures/phi.json): from the config alone
// it generates exactly the tensors of the header above.
TEST(FilesManifest, Phi2DescriptionGeneratesTheHeadersTensors) {
  const auto model = build_model_from_config(kPhi2Config, "phi-2/config.json").value_or_throw();
  ASSERT_TRUE(model.family_reader);
  std::uint64_t files = 0, count = 0;
  for (const auto& t : phi2_tensors()) {
    files += t.bytes;
    ++count;
  }
  EXPECT_EQ(model.manifest.payload_bytes(), files);
  EXPECT_EQ(model.manifest.tensor_count(), count);
}

// The same checkpoint under a model_type nothing describes: the generic reading.
std::string unknown_type(std::string config, const std::string& from, const std::string& to) {
  for (auto at = config.find(from); at != std::string::npos; at = config.find(from, at + to.size()))
    config.replace(at, from.size(), to);
  return config;
}

TEST(FilesManifest, Phi2WithoutAReaderIsPlannedFromItsHeader) {
  auto model = build_model_from_config(unknown_type(kPhi2Config, "\"phi\"", "\"phi_custom\""), "phi-2/config.json")
                   .value_or_throw();
  model.name = "phi-2";
  ASSERT_FALSE(model.family_reader);
  EXPECT_EQ(model.manifest.payload_bytes(), 7'235'507'200u);  // the guess
  const auto files = phi2_tensors();
  ASSERT_EQ(files.size(), 453u);
  const auto r = use_shard_headers(model, {shard("model.safetensors", files)});
  EXPECT_FALSE(r.exact());
  EXPECT_TRUE(r.adds_up());
  EXPECT_EQ(model.manifest_source, ManifestSource::headers);
  EXPECT_EQ(model.manifest.payload_bytes(), 5'559'367'680u);
  EXPECT_EQ(model.manifest.tensor_count(), 453u);
  EXPECT_NE(model.files_disagree.find("the files and config.json disagree"), std::string::npos) << model.files_disagree;
  EXPECT_NE(model.files_disagree.find("files 5,559,367,680 B, config.json 7,235,507,200 B (-23.2%)"), std::string::npos)
      << model.files_disagree;
  for (const auto& t : model.manifest.tensors) EXPECT_NE(t.module, ModuleClass::unclassified) << t.name;
  for (std::uint64_t gpus : {1, 2, 4, 8}) expect_planned_as_brute_force(model, gpus, {});
  expect_planned_as_brute_force(model, 4, LayoutOptions{2, 0, 2, 0, 1, 0});  // TP 2 x PP 2

  // No figure computed from the guessed structure is a derived calculation;
  // the files' own bytes are official; the verdict line names the architecture.
  PlanRequest request;
  request.gpu_count = 2;
  request.workload.requested = true;
  request.workload.context_tokens = 2048;
  const auto plan = build_plan(model, testing::catalogue_gpu("H100"), request).value_or_throw();
  for (const auto& f : plan.figures) {
    if (!f.id.starts_with("cluster.") && !f.id.starts_with("disk.")) {
      EXPECT_NE(f.evidence, Evidence::derived) << f.id;
    }
  }
  for (const auto& rank : plan.ranks)
    for (const auto& row : rank.rows) EXPECT_NE(row.evidence, Evidence::derived) << row.id;
  EXPECT_EQ(find_figure(plan.figures, "model.tensor_payload")->evidence, Evidence::official);
  EXPECT_EQ(find_figure(plan.figures, "model.tensor_payload")->exact, 5'559'367'680u);
  EXPECT_NE(plan.verdict.summary.find("PhiForCausalLM has no family reader"), std::string::npos)
      << plan.verdict.summary;
  EXPECT_EQ(plan.files_disagree, model.files_disagree);

  // inspect's reconstruction follows the same labels.
  for (const auto& f : two_precision_reconstruction(model, build_inventory(model))) {
    if (f.id == "reconstruction.total" || f.id == "reconstruction.unquantized_bytes") {
      EXPECT_EQ(f.evidence, Evidence::official) << f.id;
    } else {
      EXPECT_NE(f.evidence, Evidence::derived) << f.id;
    }
  }
}

// A Gemma-like model without a reader ties its head by class default; the config omits the
// key and the files store no lm_head. The generic reading adds a head of
// vocab x hidden; the files do not have it, so neither does the plan.
TEST(FilesManifest, AnUntiedGuessGetsNoHeadTheFilesDoNotHave) {
  // model_type renamed: Gemma itself is described now (and ties its head by default).
  const std::string config =
      R"({"architectures": ["GemmaCustomForCausalLM"], "model_type": "gemma_custom", "hidden_size": 2048,
    "intermediate_size": 16384, "num_attention_heads": 8, "num_key_value_heads": 1, "head_dim": 256,
    "num_hidden_layers": 18, "vocab_size": 256000, "max_position_embeddings": 8192, "torch_dtype": "bfloat16"})";
  auto model = build_model_from_config(config, "gemma/config.json").value_or_throw();
  std::vector<FileTensor> files;
  std::uint64_t head = 0;
  for (auto& t : stored(model.manifest)) {
    if (t.name == "lm_head.weight")
      head = t.bytes;
    else
      files.push_back(t);
  }
  ASSERT_EQ(head, 256000u * 2048 * 2);  // the guess holds a 1.05 GB head
  const auto generated = model.manifest.payload_bytes();
  use_shard_headers(model, {shard("model.safetensors", files)});
  EXPECT_EQ(model.manifest.payload_bytes(), generated - head);
  for (const auto& t : model.manifest.tensors) EXPECT_NE(t.module, ModuleClass::lm_head) << t.name;
  for (std::uint64_t gpus : {1, 2, 4}) expect_planned_as_brute_force(model, gpus, {});
}

// A family reader's model whose files say otherwise: extra MTP and vision
// tensors, norms stored in F32, a head stored although the config ties it.
TEST(FilesManifest, FilesThatContradictTheirConfig) {
  auto model = testing::catalogue_model("llama-3.1-8b");
  ASSERT_TRUE(model.family_reader);
  auto files = stored(model.manifest);
  std::uint64_t norms_before = 0;
  for (auto& t : files)
    if (t.name.find("norm") != std::string::npos) {
      norms_before += t.bytes;
      t.dtype = Dtype::F32;
      t.bytes *= 2;
    }
  const std::uint64_t H = 4096;
  files.push_back(
      tensor("model.layers.32.self_attn.q_proj.weight", {H, H}));  // an MTP layer past the 32 decoder layers
  files.push_back(tensor("model.layers.32.enorm.weight", {H}));
  files.push_back(tensor("vision_tower.blocks.0.attn.qkv.weight", {3 * 1024, 1024}));
  files.push_back(tensor("multi_modal_projector.linear_1.weight", {H, 1024}));
  const auto generated = model.manifest.payload_bytes();
  auto split = files;  // two shards, to see the order does not matter
  std::vector<FileTensor> first(split.begin(), split.begin() + static_cast<long>(split.size() / 2));
  std::vector<FileTensor> second(split.begin() + static_cast<long>(split.size() / 2), split.end());
  const auto r = use_shard_headers(
      model, {shard("model-00001-of-00002.safetensors", first), shard("model-00002-of-00002.safetensors", second)});
  EXPECT_EQ(r.extra_count, 4u);
  EXPECT_TRUE(r.adds_up());
  const std::uint64_t extra = 2 * H * H + 2 * H + 2 * 3 * 1024 * 1024 + 2 * H * 1024;
  // The files hold the norms in F32; vLLM casts them into their BF16 parameters on load.
  EXPECT_EQ(model.disk_payload_bytes, generated + norms_before + extra);
  EXPECT_EQ(model.manifest.payload_bytes(), generated + extra);
  std::map<ModuleClass, std::uint64_t> by_module;
  for (const auto& t : model.manifest.tensors) by_module[t.module] += t.bytes();
  EXPECT_EQ(by_module[ModuleClass::mtp], 2 * H * H + 2 * H);
  EXPECT_EQ(by_module[ModuleClass::vision_tower], 2u * 3 * 1024 * 1024);
  EXPECT_EQ(by_module[ModuleClass::projector], 2 * H * 1024);
  EXPECT_EQ(by_module[ModuleClass::unclassified], 0u);
  for (std::uint64_t gpus : {1, 2, 8}) expect_planned_as_brute_force(model, gpus, {});
  expect_planned_as_brute_force(model, 8,
                                LayoutOptions{4, 0, 2, 0, 1, 0});  // MTP on the last stage, vision on the first
}

// An MoE architecture without a reader: the experts are the files', dealt over EP.
TEST(FilesManifest, ExpertsOfAnArchitectureWithoutAReader) {
  auto reader = testing::catalogue_model("mixtral-8x7b");
  auto files = stored(reader.manifest);
  std::string config = R"({"architectures": ["SomeMoeForCausalLM"], "model_type": "some_moe", "hidden_size": 4096,
    "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
    "vocab_size": 32000, "max_position_embeddings": 32768, "torch_dtype": "bfloat16"})";
  auto model = build_model_from_config(config, "some_moe/config.json").value_or_throw();
  ASSERT_EQ(model.moe.routed_experts, 0u);
  use_shard_headers(model, {shard("model.safetensors", files)});
  EXPECT_EQ(model.manifest.payload_bytes(), reader.manifest.payload_bytes());
  EXPECT_EQ(model.moe.routed_experts, 8u);  // what the files hold
  std::uint64_t expert_bytes = 0;
  for (const auto& t : model.manifest.tensors)
    if (t.module == ModuleClass::routed_experts) {
      EXPECT_EQ(t.role, ParallelRole::expert) << t.name;
      EXPECT_NE(t.name.find("{E}"), std::string::npos) << t.name;  // folded back into expert groups
      expert_bytes += t.bytes();
    }
  std::uint64_t reader_expert_bytes = 0;
  for (const auto& t : reader.manifest.tensors)
    if (t.module == ModuleClass::routed_experts) reader_expert_bytes += t.bytes();
  EXPECT_EQ(expert_bytes, reader_expert_bytes);
  EXPECT_LT(model.manifest.tensors.size(), 32u * 12);  // 995 stored tensors, a few hundred entries
  for (std::uint64_t gpus : {1, 2, 4, 8}) expect_planned_as_brute_force(model, gpus, {});
  expect_planned_as_brute_force(model, 8, LayoutOptions{2, 4, 1, 0, 1, 0});  // EP 4, MoE-TP 2
}

// A dev-set model through a snapshot of its tensors with its family switched
// off (model_type unknown to preflight): vLLM's KV cache is planned as well as
// with the reader (engine-truth-dev r024, r027, r025: 476,016, 1,044,688 and
// 1,075,312 tokens logged; the reader's plans give 476,400, 1,045,664, 1,078,272).
TEST(FilesManifest, NoReaderSnapshotPlansVllmsKvCacheAsTheReaderDoes) {
  std::string config(embedded::embedded_file("data/models/llama-3.1-8b-instruct/config.json"));
  const auto at = config.find("\"model_type\": \"llama\"");
  ASSERT_NE(at, std::string::npos);
  config.replace(at, 21, "\"model_type\": \"llama_next\"");
  auto generic = build_model_from_config(config, "llama-next/config.json").value_or_throw();
  ASSERT_FALSE(generic.family_reader);
  const auto& reader = testing::catalogue_model("llama-3.1-8b-instruct");
  use_shard_headers(generic, {shard("model.safetensors", stored(reader.manifest))});
  EXPECT_EQ(generic.manifest.payload_bytes(), reader.manifest.payload_bytes());
  struct Case {
    std::uint64_t gpus;
    LayoutOptions layout;
    std::uint64_t logged;
  };
  for (const auto& c : {Case{1, {}, 476'016}, Case{2, {.tp = 2}, 1'044'688}, Case{2, {.tp = 1, .pp = 2}, 1'075'312}}) {
    PlanRequest request;
    request.gpu_count = c.gpus;
    request.layout = c.layout;
    request.workload.requested = true;
    request.workload.context_tokens = 8192;
    request.engine.kind = EngineKind::vllm;
    request.engine.gpu_memory_utilization = 0.95;
    request.engine.version = parse_engine_version("0.19.0", "test").value();
    request.perf.enabled = false;
    const auto& h100 = testing::catalogue_gpu("H100");
    const auto with_reader = build_plan(reader, h100, request).value_or_throw();
    const auto without = build_plan(generic, h100, request).value_or_throw();
    EXPECT_EQ(without.engine->kv_cache_tokens, with_reader.engine->kv_cache_tokens) << c.gpus << " GPUs";
    const double error =
        std::abs(static_cast<double>(without.engine->kv_cache_tokens) - static_cast<double>(c.logged)) /
        static_cast<double>(c.logged);
    EXPECT_LT(error, 0.005) << without.engine->kv_cache_tokens << " vs logged " << c.logged;
    EXPECT_EQ(without.engine->workers.front().weights_bytes, with_reader.engine->workers.front().weights_bytes);
  }
}

// When the files hold exactly the generated tensors, the generated manifest
// (identical names, dtypes and shapes) stays, and only its source changes.
TEST(FilesManifest, ExactFilesKeepTheGeneratedManifest) {
  auto model = testing::catalogue_model("qwen3-0.6b");
  const auto before = model.manifest.tensors.size();
  const auto r = use_shard_headers(model, {shard("model.safetensors", stored(model.manifest))});
  EXPECT_TRUE(r.exact());
  EXPECT_EQ(model.manifest_source, ManifestSource::headers);
  EXPECT_TRUE(model.files_disagree.empty());
  EXPECT_EQ(model.manifest.tensors.size(), before);
}

// A saved hub listing alone: its counts by dtype are the files' total.
TEST(FilesManifest, HubListingCountsAreTheTotal) {
  const auto listing_of = [](std::uint64_t bf16, std::uint64_t f32) {
    HubListing l;
    l.parameters_by_dtype["BF16"] = bf16;
    if (f32 > 0) l.parameters_by_dtype["F32"] = f32;
    return l;
  };
  auto same = testing::catalogue_model("qwen3-0.6b");
  const auto generated = same.manifest.payload_bytes();
  use_listing_totals(same, listing_of(generated / 2, 0));
  EXPECT_EQ(same.manifest_source, ManifestSource::listing);
  EXPECT_TRUE(same.files_disagree.empty());
  EXPECT_EQ(same.manifest.payload_bytes(), generated);

  auto more = testing::catalogue_model("qwen3-0.6b");
  use_listing_totals(more, listing_of(generated / 2, 1000));  // 4,000 B of F32 the config does not describe
  EXPECT_EQ(more.manifest.payload_bytes(), generated + 4000);
  EXPECT_EQ(more.manifest.tensors.back().module, ModuleClass::unclassified);
  EXPECT_EQ(more.manifest.tensors.back().role, ParallelRole::replicated);
  EXPECT_NE(more.files_disagree.find("the 4,000 B beyond are planned as one replicated entry"), std::string::npos)
      << more.files_disagree;
  expect_planned_as_brute_force(more, 2, {});

  auto fewer = testing::catalogue_model("qwen3-0.6b");
  use_listing_totals(fewer, listing_of(generated / 2 - 100, 0));
  EXPECT_EQ(fewer.manifest.payload_bytes(), generated);
  EXPECT_NE(fewer.files_disagree.find("may count some the files do not have"), std::string::npos);

  auto unknown = testing::catalogue_model("qwen3-0.6b");
  HubListing odd;
  odd.parameters_by_dtype["Q4_K"] = 10;
  use_listing_totals(unknown, odd);
  EXPECT_EQ(unknown.manifest_source, ManifestSource::config);
}

TEST(FilesManifest, StorageFormatsByName) {
  EXPECT_EQ(storage_format_of("x.weight", Dtype::BF16), StorageFormat::plain);
  EXPECT_EQ(storage_format_of("x.weight", Dtype::F8_E4M3), StorageFormat::fp8);
  EXPECT_EQ(storage_format_of("x.weight_scale_inv", Dtype::F32), StorageFormat::weight_scale);
  EXPECT_EQ(storage_format_of("x.weight_scale", Dtype::U8), StorageFormat::weight_scale);
  EXPECT_EQ(storage_format_of("x.weight_packed", Dtype::U8), StorageFormat::mxfp4_packed);
  EXPECT_EQ(storage_format_of("x.qweight", Dtype::I32), StorageFormat::int_packed);
  EXPECT_EQ(storage_format_of("x.gate_up_proj_blocks", Dtype::U8), StorageFormat::mxfp4_packed);
  EXPECT_EQ(storage_format_of("x.gate_up_proj_scales", Dtype::U8), StorageFormat::weight_scale);
  EXPECT_EQ(storage_format_of("x.qzeros", Dtype::I32), StorageFormat::zero_point);
  EXPECT_EQ(storage_format_of("x.g_idx", Dtype::I32), StorageFormat::quant_metadata);
  EXPECT_EQ(storage_format_of("x.input_scale", Dtype::F32), StorageFormat::activation_scale);
  EXPECT_EQ(storage_format_of("x.k_scale", Dtype::F32), StorageFormat::activation_scale);
  EXPECT_EQ(storage_format_of("x.weight", Dtype::I8), StorageFormat::int8);
}

}  // namespace
}  // namespace preflight
