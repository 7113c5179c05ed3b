#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/bytes.h"
#include "placement/placement.h"
#include "plan/plan_steps.h"
#include "workload/kv_offload.h"

namespace preflight::plan_steps {

std::string gpu_source(const Accelerator& gpu) {
  return fmt::format("GPU catalogue entry {} ({})", gpu.id, gpu.device_total_source);
}

// Weight lower bounds of the first pass.
void add_weight_bound_figures(Plan& plan, const ModelSpec& model, const Inventory& inv,
                              const std::vector<RankWeights>& placed, std::uint64_t replicated) {
  auto& f = plan.figures;
  const auto& gpu = plan.gpu;
  const auto n = plan.gpu_count;
  const std::string artifact_src = model.artifact ? model.artifact->source : manifest_source_text(model);
  const auto logical =
      model.artifact && model.artifact->logical_parameters ? model.artifact->logical_parameters : inv.logical_params;
  f.push_back(
      exact_figure("model.logical_parameters", "logical parameters", logical, "params",
                   model.artifact && model.artifact->logical_parameters ? Evidence::official : Evidence::derived,
                   model.artifact && model.artifact->logical_parameters
                       ? "the hub's safetensors parameter total, as it reports it (packed 4-bit bytes count as 2)"
                       : "sum of logical tensor elements over the manifest (quantized weights counted unpacked, "
                         "scales excluded)",
                   artifact_src));
  // The files' own bytes are official facts; bytes generated from config.json are derived.
  const bool from_files = model.manifest_source != ManifestSource::config;
  const bool cast_on_load = model.disk_payload_bytes > 0 && model.disk_payload_bytes != inv.payload_bytes;
  if (cast_on_load)
    f.push_back(bytes_figure("model.checkpoint_payload", "tensor payload on disk (the files)", model.disk_payload_bytes,
                             Evidence::official, "sum of the stored tensors' bytes", manifest_source_text(model)));
  f.push_back(bytes_figure(
      "model.tensor_payload",
      cast_on_load ? "tensor payload in GPU memory (as the engine loads it)" : "tensor payload (checkpoint bytes)",
      inv.payload_bytes, from_files && !cast_on_load ? Evidence::official : Evidence::derived,
      fmt::format("sum over {} tensors of elements x dtype width (MXFP4: codes + scales){}", with_commas(inv.tensors),
                  cast_on_load ? "; unquantized tensors stored in another float dtype counted in "
                                 "their parameter's, as --dtype auto loads them"
                               : ""),
      manifest_source_text(model)));
  const bool has_shards = model.artifact && model.artifact->shard_bytes > 0;
  if (has_shards) {
    const auto& a = *model.artifact;
    f.push_back(bytes_figure("artifact.shard_bytes", fmt::format("released weight shards ({} files)", a.shard_count),
                             a.shard_bytes, Evidence::official, "sum of *.safetensors sizes in the pinned revision",
                             a.source));
    if (a.shard_bytes >= inv.payload_bytes)
      f.push_back(bytes_figure("artifact.header_bytes", "safetensors headers (shards minus payload)",
                               a.shard_bytes - inv.payload_bytes, Evidence::derived,
                               fmt::format("{} - {} B", with_commas(a.shard_bytes), with_commas(inv.payload_bytes)),
                               a.source));
  }
  // The released shard bytes when known (seed 000's file-size proxy), else the generated payload.
  const std::uint64_t weights_proxy = has_shards ? model.artifact->shard_bytes : inv.payload_bytes;

  // Nominal aggregate, the seeds' comparison (vendor GB, shown as such).
  const double nominal_total_gb = gpu.nominal_gb * static_cast<double>(n);
  f.push_back(real_figure(
      "cluster.nominal_aggregate_gb", "nominal aggregate memory (vendor GB)", nominal_total_gb, "GB", Evidence::derived,
      fmt::format("{} GPUs x {} GB/GPU (vendor headline; HBM \"GB\" is GiB-sized in practice)", n, gpu.nominal_gb),
      fmt::format("GPU catalogue entry {} (nominal_gb)", gpu.id)));
  const auto nominal_total = static_cast<std::uint64_t>(std::llround(gpu.nominal_gb * 1e9)) * n;
  const bool short_of_nominal = weights_proxy > nominal_total;
  f.push_back(bytes_figure(
      "weights.nominal_shortfall",
      short_of_nominal
          ? (has_shards ? "weight shards beyond nominal aggregate" : "weights beyond nominal aggregate")
          : (has_shards ? "nominal aggregate left after the shards" : "nominal aggregate left after the weights"),
      short_of_nominal ? weights_proxy - nominal_total : nominal_total - weights_proxy, Evidence::derived,
      fmt::format("{} B {} {} {} x {} GB nominal ({} B)", with_commas(weights_proxy),
                  has_shards ? "shards" : "tensor payload", short_of_nominal ? "-" : "vs", n, gpu.nominal_gb,
                  with_commas(nominal_total)),
      artifact_src));
  if (model.artifact && model.artifact->recipe_vram_minimum_gb > 0) {
    const auto recipe = model.artifact->recipe_vram_minimum_gb * kGB;
    if (recipe > weights_proxy)
      f.push_back(bytes_figure("weights.recipe_minimum_left", "recipe vram_minimum_gb left after the shards",
                               recipe - weights_proxy, Evidence::derived,
                               fmt::format("{} GB (pre-release recipe estimate) - {} B shards",
                                           model.artifact->recipe_vram_minimum_gb, with_commas(weights_proxy)),
                               "serving recipe YAML (official, marked as a pre-release estimate)"));
  }
  const auto flat4 = checked_mul(logical, 4) / 8;
  f.push_back(bytes_figure("weights.flat_4bit_bound", "flat 4-bit lower bound", flat4, Evidence::derived,
                           fmt::format("{} params x 4 bits / 8", with_commas(logical)), artifact_src));
  f.push_back(bytes_figure("cluster.device_capacity_per_gpu", "device-reported capacity per GPU",
                           gpu.device_total_bytes, gpu.device_total_evidence,
                           "what CUDA/HIP report as total memory (plans use this)", gpu_source(gpu)));
  const auto device_total = checked_mul(gpu.device_total_bytes, n);
  f.push_back(
      bytes_figure("cluster.device_capacity_total", "device-reported capacity, all GPUs", device_total,
                   gpu.device_total_evidence == Evidence::official ? Evidence::derived : gpu.device_total_evidence,
                   fmt::format("{} x {} B", n, with_commas(gpu.device_total_bytes)), gpu_source(gpu)));
  const auto even = ceil_div(inv.payload_bytes, n);
  f.push_back(bytes_figure(
      "weights.even_share_per_rank", "payload per rank under an even split", even, Evidence::estimate,
      fmt::format("ceil({} B / {} ranks) (assumes perfectly even placement)", with_commas(inv.payload_bytes), n),
      manifest_source_text(model)));
  const auto heaviest =
      std::max_element(placed.begin(), placed.end(), [](const auto& a, const auto& b) { return a.total < b.total; });
  f.push_back(bytes_figure("weights.heaviest_rank", fmt::format("weights on the heaviest rank ({})", heaviest->rank),
                           heaviest->total, Evidence::estimate,
                           fmt::format("sum of rank {}'s tensor shares: TP {} splits, EP {} deals {} experts per MoE "
                                       "layer (each split over MoE-TP {}), PP {} stages, {} replicated in the model",
                                       heaviest->rank, plan.layout.tp, plan.layout.ep, heaviest->experts_per_moe_layer,
                                       plan.layout.moe_tp, plan.layout.pp, format_gb(replicated)),
                           manifest_source_text(model)));
}

void add_active_figures(Plan& plan, const ModelSpec& model, const Inventory& inv) {
  plan.figures.push_back(exact_figure(
      "model.active_parameters", "active parameters per token", inv.active_params, "params", Evidence::derived,
      fmt::format("{} always-on text params (all but the input embedding and routed experts) + {} x {} layers x {} "
                  "params per expert = {} + {}",
                  with_commas(inv.active_trunk_params), model.moe.experts_per_token, inv.moe_layers,
                  with_commas(inv.routed_params_per_expert), with_commas(inv.active_trunk_params),
                  with_commas(inv.active_routed_params)),
      manifest_source_text(model)));
}

// --kv-offload: the tokens the GPU and CPU tiers hold (workload/kv_offload.h).
void add_offload_figures(Plan& plan, const PlanContext& context, const PlanRequest& request) {
  const auto& w = plan.workload;
  if (w.kv_offload_bytes_per_node == 0) return;
  const auto& layout = plan.layout;
  KvOffloadInputs in;
  in.offload_bytes_per_node = w.kv_offload_bytes_per_node;
  in.nodes = layout.nodes;
  in.dp_groups = layout.dp;
  in.tp = layout.tp;
  for (std::uint64_t s = 0; s < layout.pp; ++s) {
    const auto range = layout.pp > 1 ? LayerRange{layout.first_layer(s), layout.stage_layers[s]} : LayerRange{};
    std::uint64_t per_token = 0;
    for (const auto& r :
         context.stage_request_state(layout.tp, range, kv_dtype_bytes(w.kv_dtype), state_dtype_bytes(w.state_dtype))
             ->cache)
      per_token = checked_add(per_token, r.bytes_per_token);
    in.stage_bytes_per_token.push_back(per_token);
  }
  for (const auto& r : plan.ranks) {
    if (r.rank != plan.verdict.worst_rank) continue;
    in.gpu_kv_bytes = r.free;
    for (const auto& row : r.rows)
      if (row.resource == Resource::kv_cache) in.gpu_kv_bytes = checked_add(in.gpu_kv_bytes, row.bytes);
    const auto stage = layout.stage_of(r.rank);
    in.gpu_bytes_per_token = stage < in.stage_bytes_per_token.size() ? in.stage_bytes_per_token[stage] : 0;
  }
  const auto length = typical_length(w);
  const auto& t = request.latency;
  in.prompt_tokens =
      t.input_tokens > 0
          ? t.input_tokens
          : default_input_tokens(length, t.output_tokens > 0 ? t.output_tokens : default_output_tokens(length));
  for (auto& f : kv_offload(in).figures) plan.figures.push_back(std::move(f));
  plan.assumptions.push_back(
      "KV offload: the CPU tier is prefix-cache capacity (running requests keep their KV on the GPU), so it does not "
      "change the verdict; a deployment hypothesis until the connector is measured");
}

}  // namespace preflight::plan_steps
