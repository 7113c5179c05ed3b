#include "plan/checklist.h"

#include <fmt/format.h>

#include "core/bytes.h"

namespace preflight {

std::vector<ChecklistItem> build_checklist(const Plan& plan, const ModelSpec& model) {
  std::vector<ChecklistItem> out;
  const auto fig = [&](std::string_view id) { return find_figure(plan.figures, id); };

  if (model.artifact && !model.artifact->revision.empty()) {
    const auto& a = *model.artifact;
    out.push_back({"Pin the artifact", "established",
                   fmt::format("{}@{}: {} shards, {} B ({}), checked {}", a.hub_id, a.revision, a.shard_count,
                               with_commas(a.shard_bytes), format_gb(a.shard_bytes, 1), a.checked_on)});
  } else {
    out.push_back(
        {"Pin the artifact", "open", "no pinned revision: record the revision, stored bytes and shard count"});
  }

  if (const auto* flat = fig("weights.flat_4bit_bound")) {
    const double nominal = plan.gpu.nominal_gb * static_cast<double>(plan.gpu_count) * 1e9;
    const bool impossible = static_cast<double>(flat->exact) > nominal;
    out.push_back({"Reject impossible aggregate HBM", impossible ? "failed" : "established",
                   fmt::format("flat 4-bit bound {} vs {} x {} GB = {:.0f} GB nominal{}", format_tb(flat->exact),
                               plan.gpu_count, plan.gpu.nominal_gb, nominal / 1e9,
                               impossible ? ": stop here" : "; the shard bytes are the next proxy")});
  }

  if (plan.second_pass) {
    const auto* r = fig("reserve.per_gpu");
    out.push_back({"Reserve runtime headroom", "open",
                   fmt::format("{} per GPU assumed ({}); replace with a measured figure", r ? r->display : "?",
                               r ? r->formula : "")});
  } else {
    out.push_back({"Reserve runtime headroom", "open", "add --reserve (and a workload) for the second pass"});
  }

  out.push_back(
      {"Choose TP, EP, PP and DCP from the engine's supported matrix", "open",
       fmt::format("planned TP {} x DP {} attention, EP {}, PP {}, DCP {} ({}); confirm the engine supports it",
                   plan.layout.tp, plan.layout.dp, plan.layout.ep, plan.layout.pp, plan.layout.dcp,
                   plan.layout.chosen_by)});

  if (plan.second_pass && plan.engine && !plan.engine->workers.empty()) {
    // The engine sizes its own pools: what one request of the workload holds
    // on the first worker, against what the engine allocated there.
    const auto& w = plan.engine->workers.front();
    const auto n = plan.workload.concurrency;
    std::string detail =
        fmt::format("{} requests at {} tokens hold {} of token cache", n, with_commas(plan.workload.context_tokens),
                    format_binary(checked_mul(n, w.kv_request_bytes)));
    if (w.state_request_bytes > 0)
      detail += fmt::format(" and {} of recurrent state", format_binary(checked_mul(n, w.state_request_bytes)));
    detail +=
        fmt::format(" per rank; {} holds {} tokens", plan.engine->name, with_commas(plan.engine->kv_cache_tokens));
    if (plan.engine->state_slots > 0)
      detail += fmt::format(" and {} state slots", with_commas(plan.engine->state_slots));
    out.push_back({"Model both request pools", "established", detail});
  } else if (plan.second_pass) {
    const auto* state = fig("state.pool_per_rank");
    const auto* cache = fig("kv.pool_per_rank");
    out.push_back(
        {"Model both request pools", "established",
         fmt::format("recurrent state {} and token cache {} per rank for {} requests at {} tokens",
                     state ? format_binary(state->exact) : "none", cache ? format_binary(cache->exact) : "none",
                     plan.workload.concurrency, with_commas(plan.workload.context_tokens))});
  } else {
    out.push_back({"Model both request pools", "open", "add --context and --concurrency for the second pass"});
  }

  const auto per_node = plan.gpu.gpus_per_node == 0 ? 1 : plan.gpu.gpus_per_node;
  const auto nodes = ceil_div(plan.gpu_count, per_node);
  out.push_back(
      {"Verify the fabric", "open",
       fmt::format("{} node(s) of {} {}; {}{}; expert all-to-all crosses {}", nodes, per_node, plan.gpu.name,
                   plan.gpu.interconnect,
                   plan.gpu.interconnect_gb_s > 0 ? fmt::format(" ({} GB/s per GPU)", plan.gpu.interconnect_gb_s) : "",
                   nodes > 1 ? "the inter-node network (RDMA): measure it" : "the scale-up domain only")});

  if (const auto* d10 = fig("disk.download_s_at_10gbps")) {
    out.push_back(
        {"Plan disk and cold start", "open",
         fmt::format("{} of shards per copy; download at 10 Gb/s >= {}; add caches, staging copies, images "
                     "and recovery downloads",
                     fig("disk.shard_bytes") ? format_gb(fig("disk.shard_bytes")->exact, 1) : "?", d10->display)});
  } else {
    out.push_back({"Plan disk and cold start", "open", "artifact file sizes unknown: read the hub listing"});
  }

  out.push_back({"Benchmark your workload", "open",
                 "input/output lengths, concurrency, prefix reuse and latency targets must match production; a green "
                 "plan is a deployment hypothesis"});

  if (model.artifact && !model.artifact->license.name.empty()) {
    std::string clauses;
    for (const auto& c : model.artifact->license.clauses) clauses += (clauses.empty() ? "" : "; ") + c;
    out.push_back(
        {"Procurement: read the license", "open", fmt::format("{}: {}", model.artifact->license.name, clauses)});
  }
  return out;
}

}  // namespace preflight
