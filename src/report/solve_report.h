// Renderings of the solvers' answers (fit, max, sweep): text tables for
// people, Markdown, JSON for scripts and CSV for spreadsheets. They read the
// solver results; they compute nothing.
//
// CSV columns (one header line, one row per family or cell; text fields are
// quoted when they contain a comma or a quote):
//   fit: gpu,gpus_per_node,fits,min_gpus,nodes,tp,dp,ep,pp,dcp,headroom_bytes,headroom_gb,binding,binding_at_gpus,note
//   sweep: gpu,gpus_per_node,gpus,nodes,verdict,headroom_bytes,headroom_gb,binding,tp,dp,ep,pp,dcp,note
// `gpu` is the catalogue id, `verdict` green | red | n/a (no layout could be
// planned), `binding` a resource key (weights, reserve, activations,
// recurrent_state, kv_cache; for green, the tightest resource), headroom_gb
// decimal GB (10^9) with 3 decimals, negative when short.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "model/model_spec.h"
#include "plan/plan.h"
#include "report/text_report.h"
#include "solve/fit.h"
#include "solve/max_rate.h"
#include "solve/max_solver.h"
#include "solve/sweep.h"

namespace preflight {

inline constexpr std::string_view kFitCsvHeader =
    "gpu,gpus_per_node,fits,min_gpus,nodes,tp,dp,ep,pp,dcp,headroom_bytes,headroom_gb,binding,binding_at_gpus,note";
inline constexpr std::string_view kSweepCsvHeader =
    "gpu,gpus_per_node,gpus,nodes,verdict,headroom_bytes,headroom_gb,binding,tp,dp,ep,pp,dcp,note,"
    "decode_tokens_per_s_bound,tokens_per_s_per_gpu_bound,perf_binding,usd_per_m_tokens_at_bound";

// "weights only (pass 1)" or "context 131,072 tokens x 8 requests, bf16 cache, fp32 state, 10% reserve, generic
// engine".
std::string describe_workload(const ModelSpec& model, const PlanRequest& request);
// "TP8 DP3 EP24" (+ " MoE-TP2", " PP2", " DCP4" when not 1).
std::string layout_label(const Layout& layout);
nlohmann::json layout_json(const Layout& layout);

std::string render_fit(const ModelSpec& model, const PlanRequest& request, const FitOptions& options,
                       const std::vector<FamilyFit>& fits, TextStyle style);
std::string fit_csv(const std::vector<FamilyFit>& fits);
nlohmann::json fit_json(const ModelSpec& model, const PlanRequest& request, const FitOptions& options,
                        const std::vector<FamilyFit>& fits);

std::string render_max(const ModelSpec& model, const Accelerator& gpu, const PlanRequest& request,
                       const MaxResult& result, TextStyle style);
nlohmann::json max_json(const ModelSpec& model, const Accelerator& gpu, const PlanRequest& request,
                        const MaxResult& result);

std::string render_max_rate(const ModelSpec& model, const Accelerator& gpu, const PlanRequest& request,
                            const MaxRateResult& result, TextStyle style);
nlohmann::json max_rate_json(const ModelSpec& model, const Accelerator& gpu, const PlanRequest& request,
                             const MaxRateResult& result);

std::string render_sweep(const ModelSpec& model, const PlanRequest& request, const Sweep& sweep, TextStyle style);
std::string sweep_csv(const Sweep& sweep);
nlohmann::json sweep_json(const ModelSpec& model, const PlanRequest& request, const Sweep& sweep);

}  // namespace preflight
