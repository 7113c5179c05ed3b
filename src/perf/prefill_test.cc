// Prefill lower bound: hand-computed table for Llama-3.1-8B on one H100, a
// published first-token latency the bound must not exceed, and the K3 figures.
#include "perf/prefill.h"

#include <gtest/gtest.h>

#include <string>

#include "embedded_files.h"
#include "hardware/gpu_catalogue.h"
#include "model/model_catalogue.h"
#include "model/model_overrides.h"
#include "support/fixtures.h"

namespace preflight {
namespace {

const Accelerator& gpu(const std::string& name) { return testing::catalogue_gpu(name); }

Layout layout_for(const ModelSpec& m, const Accelerator& g, std::uint64_t world, LayoutOptions o = {}) {
  if (o.gpus_per_node == 0) o.gpus_per_node = g.gpus_per_node;
  return choose_layout(m, world, o).value_or_throw();
}

// Llama-3.1-8B-Instruct on one H100, BF16 weights and KV, one prompt of P tokens:
//   compute: 2 x 6,979,588,096 params (layers + final norm) x P + 2 x 525,336,576 (LM head,
//            last position only) + attention 2 x (128 + 128) x 32 heads x 32 layers x P(P+1)/2
//            = 262,144 x P(P+1); at the BF16 rate 989.4 TFLOPS.
//   bandwidth: 15,009,849,344 B weights once + P rows x 8,192 B + KV written P x 131,072 B;
//            at 3.35 TB/s.
// Short prompts are bandwidth-bound (the weights are read once whatever P is); from
// about 300 tokens on the compute term takes over.
TEST(PrefillBoundLlama8B, OneH100Table) {
  const auto m = load_catalogue_model("llama-3.1-8b-instruct", "test").value_or_throw();
  const auto& g = gpu("H100");
  const auto l = layout_for(m, g, 1);
  const PerfInputs in{&m, &g, &l, 1, 0, 2, 4, 0, 0};
  const FormatPlacement placement(m);
  struct Case {
    std::uint64_t prompt, flops, bytes;
    BindingTerm binding;
  };
  const Case cases[] = {
      {1, 15'010'373'632u, 15'009'988'608u, BindingTerm::memory},
      {128, 1'792'153'747'456u, 15'027'675'136u, BindingTerm::memory},
      {1024, 14'570'393'436'160u, 15'152'455'680u, BindingTerm::compute},
      {8192, 131'948'955'566'080u, 16'150'700'032u, BindingTerm::compute},
      {32768, 738'898'902'777'856u, 19'573'252'096u, BindingTerm::compute},
  };
  for (const auto& c : cases) {
    const auto p = estimate_prefill(in, placement, c.prompt).value();
    EXPECT_EQ(p.step.binding_flops.total, c.flops) << c.prompt;
    EXPECT_EQ(p.step.binding_bytes.total, c.bytes) << c.prompt;
    EXPECT_NEAR(p.compute_seconds, static_cast<double>(c.flops) / 989.4e12, 1e-12) << c.prompt;
    EXPECT_NEAR(p.memory_seconds, static_cast<double>(c.bytes) / 3.35e12, 1e-12) << c.prompt;
    EXPECT_EQ(p.step.binding.binding, c.binding) << c.prompt;
    EXPECT_DOUBLE_EQ(p.seconds_bound, std::max(p.compute_seconds, p.memory_seconds)) << c.prompt;
    const auto* f = find_figure(p.figures, "perf.prefill_seconds_bound");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->evidence, Evidence::estimate);
    EXPECT_DOUBLE_EQ(f->value, p.seconds_bound);
  }
}

// Published measurement (cited): TensorRT-LLM docs/source/performance.md, "Low Latency"
// table (data from TensorRT-LLM v0.5; NVIDIA/TensorRT-LLM @138f96d4), H100 GPUs (FP8),
// LLaMA 7B, batch 1, TP 1: first-token latency 7 ms for a 128-token input, 36 ms for 2,048.
// A lower bound must never exceed a measured time. Code Llama 7B is the LLaMA-2-7B
// architecture (32 layers, 32 heads x 128, hidden 4,096, intermediate 11,008; vocab
// 32,016 against 32,000), planned with FP8 weights (vLLM online fp8) and FP8 KV.
//   2,048 tokens: ~2 x 6.5e9 x 2,048 = 2.7e13 FLOP at 1,978.9 TFLOPS FP8 + attention
//   2 x 256 x 32 x 32 x 2,048 x 2,049 / 2 = 1.1e12 at BF16 -> ~15 ms <= 36 ms.
TEST(PrefillBoundPublished, NotAboveTensorRtLlmFirstTokenLatency) {
  ModelSpec m;
  for (const auto& entry : model_catalogue())
    if (entry.name == "codellama-7b")
      m = apply_model_overrides(load_catalogue_model("codellama-7b", "test").value_or_throw(),
                                embedded::embedded_file(entry.config_path), entry.name, ModelOverrides{"fp8", ""})
              .value_or_throw();
  ASSERT_FALSE(m.manifest.tensors.empty());
  const auto& g = gpu("H100");
  const auto l = layout_for(m, g, 1);
  const PerfInputs in{&m, &g, &l, 1, 0, 1, 4, 0, 0};
  EXPECT_LE(estimate_prefill(in, 128).value().seconds_bound, 0.007);
  EXPECT_LE(estimate_prefill(in, 2048).value().seconds_bound, 0.036);
  EXPECT_EQ(estimate_prefill(in, 2048).value().step.binding.binding, BindingTerm::compute);
}

// Kimi K3 on 8 x B300, one 8,192-token prompt: every expert is touched
// (1 - (55/56)^8192 rounds to 1), the MXFP4 experts run at the FP4 rate, and the
// bound is the largest of three named terms, each a figure.
TEST(PrefillBoundK3, EightB300Figures) {
  const auto m = load_catalogue_model("kimi-k3", "test").value_or_throw();
  const auto& g = gpu("B300");
  const auto l = layout_for(m, g, 8);
  const PerfInputs in{&m, &g, &l, 1, 0, 2, 4, 0, 0};
  const FormatPlacement placement(m);
  const auto p = estimate_prefill(in, placement, 8192).value();
  EXPECT_EQ(p.step.binding_bytes.routed, p.step.binding_bytes.routed_resident);
  EXPECT_GT(p.step.binding_flops.by_rate.at(RateClass::fp4), 0u);
  EXPECT_DOUBLE_EQ(p.seconds_bound, std::max({p.compute_seconds, p.memory_seconds, p.communication_seconds}));
  for (const char* id : {"perf.prefill_seconds_bound", "perf.prefill_compute_seconds", "perf.prefill_memory_seconds",
                         "perf.prefill_communication_seconds", "perf.prefill_binding_term",
                         "perf.prefill_flops_per_rank", "perf.prefill_bytes_per_rank"}) {
    const auto* f = find_figure(p.figures, id);
    ASSERT_NE(f, nullptr) << id;
    EXPECT_FALSE(f->formula.empty()) << id;
  }
  // Longer prompts never finish sooner.
  double last = 0;
  for (std::uint64_t prompt : {1u, 512u, 4096u, 32768u}) {
    const auto t = estimate_prefill(in, placement, prompt).value().seconds_bound;
    EXPECT_GE(t, last) << prompt;
    last = t;
  }
  EXPECT_FALSE(estimate_prefill(in, placement, 0).ok());
}

}  // namespace
}  // namespace preflight
