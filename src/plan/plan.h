// Plan: the answer to "does this model serve on N x GPU, and if not, what runs
// out first?" as a plain value. build_plan computes; renderers only read.
//
// Two passes (seed 000): with only --gpus, the weight lower bounds against
// aggregate and per-GPU capacity and a weights-only ledger; with a workload,
// the full per-rank ledger (weights by module, KDA state slots, MLA KV, prefill
// activations, runtime reserve, free) and the verdict.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/figure.h"
#include "core/result.h"
#include "engine/engine_options.h"
#include "engine/engine_sizing.h"
#include "hardware/accelerator.h"
#include "model/inventory.h"
#include "model/model_spec.h"
#include "model/request_state.h"
#include "perf/format_placement.h"
#include "perf/latency.h"
#include "perf/perf_report.h"
#include "placement/layout.h"
#include "placement/ledger.h"
#include "placement/placement.h"
#include "workload/workload.h"

namespace preflight {

// One change that turns a red plan green, verified by planning it (solve/fixes.h).
struct VerdictSuggestion {
  std::string flags;                // "--kv-dtype fp8", "--gpus 16xnvidia-h100-sxm-80gb"
  std::int64_t headroom_bytes = 0;  // free on the tightest rank of the green plan
  std::string layout;               // "TP 8 x DP 1, EP 8, PP 2, DCP 1"
};

struct Verdict {
  bool fits = false;
  Resource first_boundary = Resource::none;
  std::int64_t headroom_bytes = 0;  // min free over ranks; negative: the worst shortfall
  std::uint64_t worst_rank = 0;
  Evidence evidence = Evidence::hypothesis;    // green is a hypothesis; red is derived under the inputs
  std::string summary;                         // one sentence
  std::vector<VerdictSuggestion> suggestions;  // red plans: the smallest changes that plan green (may be empty)
};

// The verdict's word: GREEN (fits; a hypothesis), RED (a boundary crossed) or
// UNCHECKED (memory fits but a latency target could not be checked).
std::string_view verdict_word(const Verdict& v);

struct ChecklistItem {
  std::string step;    // "Pin the artifact"
  std::string status;  // "established" | "open" | "failed"
  std::string detail;
};

struct PlanRequest {
  std::uint64_t gpu_count = 0;
  LayoutOptions layout;
  std::string layout_reason;  // why this layout (set when a search chose it); "" : the flags or choose_layout's
  WorkloadOptions workload;
  EngineOptions engine;
  PerfOptions perf;                        // throughput, cost and cold-start inputs (full plans only)
  LatencyTargets latency;                  // --ttft / --tpot / --rate: checked in every plan, the solvers' too
  bool concurrency_from_rate = false;      // workload.concurrency came from --rate (Little's law)
  std::shared_ptr<const ModelSpec> draft;  // --draft: a speculative draft model (needs workload.spec_tokens)
};

struct Plan {
  std::string model_name;
  std::string model_family;
  std::string model_architecture;  // config.json's architectures[0]
  bool family_reader = true;       // false: the generic reading built the model (its figures are estimates)
  ManifestSource manifest_source = ManifestSource::config;
  std::string files_disagree;  // one line when the files and config.json disagree
  std::string revision;
  std::uint64_t checkpoint_bytes = 0;     // tensor payload in the files
  std::uint64_t loaded_weight_bytes = 0;  // tensor payload as the engine loads it (differs when it casts)
  std::uint64_t logical_params = 0;
  std::uint64_t active_params = 0;
  Accelerator gpu;
  std::uint64_t gpu_count = 0;
  Layout layout;
  WorkloadOptions workload;            // with defaults resolved (context filled in)
  EngineOptions engine_options;        // as requested (kind generic: the seed's planning model)
  std::optional<EngineSizing> engine;  // vLLM / SGLang sizing when --engine names one
  bool second_pass = false;
  std::vector<RankLedger> ranks;
  Verdict verdict;
  std::vector<Figure> figures;  // every number, labelled, with formula and source
  std::vector<ChecklistItem> checklist;
  std::vector<std::string> assumptions;  // planning assumptions in force
  std::optional<PerfReport> perf;        // throughput bounds, cost and cold start (full plans)
  std::optional<LatencyCheck> latency;   // the latency targets against the bounds, when any was given
  std::string draft_name;                // --draft model, when given
  std::string draft_ref;                 // what an engine loads: its hub id when known, else the name or path
  std::uint64_t mtp_layers = 0;          // the model's own draft layers
  std::uint64_t draft_tp = 0;            // TP the draft runs at (the largest divisor of TP its heads accept)
  std::uint64_t draft_weights_per_rank = 0;

  // MTP speculative decoding: draft tokens without a separate --draft model, so
  // the model's own MTP layers draft (and an engine loads them; size_engine.h).
  bool mtp_drafts() const { return workload.spec_tokens > 0 && draft_name.empty(); }
};

// What many plans of one model share: the inventory and the placement index.
// The solvers prepare it once and plan thousands of layouts with it.
struct PlanContext {
  const ModelSpec* model = nullptr;
  Inventory inventory;
  PlacementIndex placement;
  std::vector<std::pair<std::uint64_t, std::string>> tp_divisors;  // model.tp_divisors(), cached
  explicit PlanContext(const ModelSpec& m);

  // A layout and its representative ranks' weights do not depend on the GPU:
  // a sweep asks for the same ones for every family, so verdict-only plans
  // memoize them here (thread-safe; bounded).
  struct Placed {
    Layout layout;
    std::vector<RankWeights> representatives;
  };
  // `gpus_per_node` must already be resolved (the GPU's when the request left it 0).
  Result<std::shared_ptr<const Placed>> placed(std::uint64_t world, const LayoutOptions& options) const;

  // The placement by storage format that throughput figures need, built on
  // first use (sweeps ask for it once per model, not once per cell).
  const FormatPlacement& formats() const;

  // Request state and token cache per rank of one stage (request_state.h),
  // memoized: the solvers plan thousands of layouts that share a few (TP,
  // stage) pairs, and the rows carry formula strings that cost more to build
  // than the plan's arithmetic.
  struct StageRequestState {
    std::vector<StateRow> state;
    std::vector<TokenCacheRow> cache;
  };
  std::shared_ptr<const StageRequestState> stage_request_state(std::uint64_t tp, LayerRange range,
                                                               std::uint64_t kv_bytes, std::uint64_t state_bytes) const;

 private:
  mutable std::mutex mutex_;
  mutable std::once_flag formats_once_;
  // FNV-1a over the key's words (the keys are a few small integers).
  struct KeyHash {
    template <std::size_t N>
    std::size_t operator()(const std::array<std::uint64_t, N>& k) const noexcept {
      std::size_t h = 1469598103934665603ULL;
      for (auto v : k) h = (h ^ v) * 1099511628211ULL;
      return h;
    }
  };
  mutable std::mutex request_state_mutex_;
  mutable std::unordered_map<std::array<std::uint64_t, 5>, std::shared_ptr<const StageRequestState>, KeyHash>
      request_state_;
  mutable std::unique_ptr<FormatPlacement> formats_;
  mutable std::unordered_map<std::array<std::uint64_t, 8>, Result<std::shared_ptr<const Placed>>, KeyHash> placed_;
};

enum class PlanDetail {
  full,          // every rank, every figure, the checklist
  verdict_only,  // the representative (heaviest) ranks and the verdict: the solvers' fast path
};

Result<Plan> build_plan(const PlanContext& context, const Accelerator& gpu, const PlanRequest& request,
                        PlanDetail detail = PlanDetail::full);
Result<Plan> build_plan(const ModelSpec& model, const Accelerator& gpu, const PlanRequest& request);

}  // namespace preflight
