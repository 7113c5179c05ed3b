// PerfInputs: what a throughput bound is computed from.
//
// A plan (model, GPU, layout) plus the decode step's shape: how many requests
// each data-parallel group decodes together and how long their contexts are.
// Every figure computed from these is a lower bound on time (an upper bound on
// tokens/s) or an estimate, never a promise: it assumes perfect overlap of
// memory traffic, math and communication, no kernel-launch or collective
// latency, and no speculation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/result.h"
#include "hardware/accelerator.h"
#include "model/model_spec.h"
#include "model/request_state.h"
#include "placement/layout.h"

namespace preflight {

struct PerfInputs {
  const ModelSpec* model = nullptr;
  const Accelerator* gpu = nullptr;
  const Layout* layout = nullptr;       // from choose_layout, gpus_per_node resolved
  std::uint64_t batch_per_group = 1;    // requests each DP group decodes in one step (per PP microbatch)
  std::uint64_t context = 0;            // tokens each request attends to (prompt + generated so far)
  std::uint64_t kv_dtype_bytes = 2;     // KV cache element: 2 BF16, 1 FP8
  std::uint64_t state_dtype_bytes = 4;  // recurrent state element: 4 FP32 (vLLM/SGLang default)
  std::uint64_t act_dtype_bytes = 0;    // activations on the wire; 0: the model dtype
  // Scale-out link per GPU, GB/s in each direction (one 400 Gb/s NIC = 50).
  // 0: not modelled; traffic between nodes is then counted at the NVLink rate,
  // which keeps the bound a bound but makes it optimistic for groups that
  // span nodes (stated in the figures' formulas).
  double scale_out_gb_s = 0;
};

// Null pointers, a zero batch, a zero dtype width: an Error naming the field.
std::optional<Error> validate_perf_inputs(const PerfInputs& in);

// The figure a GPU's catalogue row lacks for the latency and throughput
// bounds ("no memory bandwidth figure for apple-m3-ultra in the catalogue"),
// or nullopt when it has both (memory bandwidth and the BF16 dense rate). A
// bound from a missing figure is no bound: a plan with latency targets on such
// a GPU is `latency_unchecked`, never green.
std::optional<std::string> missing_latency_figure(const Accelerator& gpu);

// Activation element width on the wire (act_dtype_bytes, else the model dtype).
std::uint64_t activation_bytes(const PerfInputs& in);

// "1.23 s", "45.6 ms", "789 us": step times for formulas.
std::string format_seconds(double s);

// Decoder layers of one pipeline stage, as request_state.h takes them.
LayerRange stage_layer_range(const Layout& layout, std::uint64_t stage);

}  // namespace preflight
