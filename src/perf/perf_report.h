// PerfReport: the throughput, cost and cold-start figures of one plan,
// computed from the plan's layout and workload with the roofline
// of roofline.h, the prefill bound of prefill.h, speculative.h, cost.h and
// cold_start.h. Every figure is an upper bound on speed (a lower bound on time
// and cost) or an estimate; speculative figures are hypotheses (the
// acceptance rate is the user's).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/figure.h"
#include "hardware/accelerator.h"
#include "model/model_spec.h"
#include "perf/cold_start.h"
#include "perf/cost.h"
#include "perf/format_placement.h"
#include "perf/prefill.h"
#include "perf/roofline.h"
#include "placement/layout.h"
#include "workload/workload.h"

namespace preflight {

// Defaults and their reasons are in the CLI help and perf_report.cc.
struct PerfOptions {
  bool enabled = true;
  std::uint64_t prompt_tokens = 0;    // TTFT prompt; 0: min(context, 8192)
  double price_usd_per_gpu_hour = 0;  // --price; 0: the catalogue's list price
  double utilisation = 0.5;           // --utilisation: share of the bound sustained on average
  double api_usd_per_m = 0;           // --api-price: USD per million output tokens; 0: no break-even
  std::uint64_t staging_copies = 1;   // --staging-copies
  double download_gbps = 0;           // --download-gbps: a line rate added to 10 and 100 Gb/s
  double read_gb_s = 2.0;             // --read-gb-s: storage read per node, GB/s
  double scale_out_gb_s = 50.0;       // --scale-out-gb-s: per GPU each way (one 400 Gb/s NIC); 0: NVLink rate
  double spec_acceptance = 0.7;       // --spec-acceptance: per draft token
};

struct PerfPlanInputs {
  const ModelSpec* model = nullptr;
  const FormatPlacement* placement = nullptr;
  const Accelerator* gpu = nullptr;
  const Layout* layout = nullptr;
  const WorkloadOptions* workload = nullptr;  // context resolved, kv_dtype resolved
  PerfOptions options;
  std::vector<std::uint64_t> node_bytes;   // weights held by each node's ranks (cold start)
  std::uint64_t draft_bytes_per_rank = 0;  // --draft weights on a rank (read N times per step)
  std::string draft_name;
  std::uint64_t artifact_bytes = 0;  // download size
  Evidence artifact_evidence = Evidence::estimate;
  std::string artifact_source;
};

struct SpecEstimate {
  std::uint64_t tokens = 0;  // draft tokens per step
  double acceptance = 0;
  double tokens_per_step = 1;     // expected, speculative.h
  StepEstimate verify;            // N + 1 positions per request (batch 1)
  double draft_seconds = 0;       // the draft's N forward passes, memory-bound
  double tokens_per_s_bound = 0;  // per request
};

struct PerfReport {
  bool available = false;
  std::string unavailable;  // why there are no throughput figures
  std::uint64_t batch_per_group = 1;
  DecodeEstimate decode;
  PrefillEstimate prefill;
  SpecEstimate spec;
  CostEstimate cost;
  ColdStartEstimate cold_start;
  std::vector<Figure> figures;  // perf.*, cost.*, coldstart.*, disk.staging_bytes
  std::vector<std::string> assumptions;

  // Headline values for reports and the JSON contract.
  double decode_tokens_per_s_bound = 0;                                         // one request, no speculation
  std::vector<std::pair<std::string, std::uint64_t>> bytes_per_token_by_dtype;  // batch 1, largest first
  std::vector<std::pair<std::string, double>> weight_bytes_share;               // % of weight bytes, same order
};

// Never throws: an accelerator without bandwidth or rates gives a report with
// `available` false and the reason; cold start is computed regardless.
PerfReport build_perf_report(const PerfPlanInputs& in);

// A decode step's inputs for `workload` (resolved) on `layout`: the batch each
// DP group decodes, the typical request length (a mix's mean), the cache and
// state widths. The one place a plan's workload becomes PerfInputs.
PerfInputs workload_perf_inputs(const ModelSpec& model, const Accelerator& gpu, const Layout& layout,
                                const WorkloadOptions& workload, double scale_out_gb_s);

// Requests each DP group decodes per step: ceil(concurrency / (DP x PP)).
std::uint64_t decode_batch_per_group(const Layout& layout, std::uint64_t concurrency);

}  // namespace preflight
