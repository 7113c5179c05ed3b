#include "perf/decode_bytes.h"

#include <cmath>

#include "core/bytes.h"
#include "model/request_state.h"

namespace preflight {

bool read_in_full(ModuleClass m) {
  switch (m) {
    case ModuleClass::embedding:
    case ModuleClass::routed_experts:
    case ModuleClass::mtp:
    case ModuleClass::vision_tower:
    case ModuleClass::audio_tower:
    case ModuleClass::projector:
      return false;
    default:
      return true;
  }
}

double expert_touch_fraction(std::uint64_t k, std::uint64_t experts, std::uint64_t tokens) {
  if (experts == 0 || tokens == 0 || k == 0) return 0.0;
  if (k >= experts) return 1.0;
  // 1 - (1 - k/E)^T = -expm1(T log1p(-k/E)): accurate for small k/E and large T alike.
  const long double p = static_cast<long double>(k) / static_cast<long double>(experts);
  return static_cast<double>(-std::expm1(static_cast<long double>(tokens) * std::log1p(-p)));
}

namespace {

void add(std::map<std::string, std::uint64_t>& m, const std::string& key, std::uint64_t bytes) {
  if (bytes == 0) return;
  auto& v = m[key];
  v = checked_add(v, bytes, "decode bytes");
}

}  // namespace

RankStepBytes rank_step_bytes(const PerfInputs& in, const FormatPlacement& placement, const RankFormatWeights& weights,
                              const StepShape& shape) {
  const auto& model = *in.model;
  const auto& layout = *in.layout;
  RankStepBytes out;
  out.rank = weights.rank;
  out.stage = weights.stage;
  out.active = rank_active(layout, weights.rank, shape);
  out.experts_on_rank = weights.experts_per_moe_layer;
  out.expert_fraction =
      expert_touch_fraction(model.moe.experts_per_token, model.moe.routed_experts, shape.moe_tokens());
  out.experts_touched = static_cast<double>(out.experts_on_rank) * out.expert_fraction;

  std::map<std::string, std::uint64_t> weights_by_format;
  for (const auto& [format, modules] : weights.bytes) {
    for (const auto& [module, bytes] : modules) {
      if (module == ModuleClass::routed_experts) {
        out.routed_resident = checked_add(out.routed_resident, bytes);
        const auto expected =
            static_cast<std::uint64_t>(std::llround(static_cast<double>(bytes) * out.expert_fraction));
        out.routed = checked_add(out.routed, expected);
        add(weights_by_format, format, expected);
      } else if (out.active && read_in_full(module)) {
        out.trunk = checked_add(out.trunk, bytes);
        add(weights_by_format, format, bytes);
      }
    }
  }
  if (out.active) {
    // A tied LM head reads the embedding's vocab slice on the last stage.
    for (const auto& [format, bytes] : placement.tied_head_bytes(layout, weights.rank)) {
      out.trunk = checked_add(out.trunk, bytes);
      add(weights_by_format, format, bytes);
    }
    if (weights.stage == 0) {
      for (const auto& [format, row] : placement.embedding_row_bytes()) {
        const auto bytes = checked_mul(shape.tokens_per_group, row, "embedding rows");
        out.embedding_rows = checked_add(out.embedding_rows, bytes);
        add(weights_by_format, format, bytes);
      }
    }
    const auto range = stage_layer_range(layout, weights.stage);
    const auto cache = token_cache_per_rank(model, in.kv_dtype_bytes, layout.tp, range);
    if (shape.prefill) {
      std::uint64_t per_token = 0;
      for (const auto& r : cache) per_token = checked_add(per_token, r.bytes_per_token);
      out.kv = ceil_div(checked_mul(per_token, shape.context, "KV written"), layout.dcp);
    } else {
      const auto per_request = cache_bytes_for_context(cache, shape.context);
      out.kv = ceil_div(checked_mul(per_request, shape.requests_per_group, "KV read"), layout.dcp);
    }
    std::uint64_t slot = 0;
    for (const auto& r : recurrent_state_per_rank(model, layout.tp, in.state_dtype_bytes, range))
      slot = checked_add(slot, r.bytes);
    out.state = checked_mul(checked_mul(slot, shape.requests_per_group, "state traffic"), shape.prefill ? 1 : 2,
                            "state traffic");
  }
  out.by_format = weights_by_format;
  add(out.by_format, kKvCacheKey, out.kv);
  add(out.by_format, kStateKey, out.state);
  for (const auto& [key, bytes] : out.by_format) out.total = checked_add(out.total, bytes, "decode bytes");
  return out;
}

Result<std::vector<RankStepBytes>> decode_bytes(const PerfInputs& in, const FormatPlacement& placement) {
  if (auto e = validate_perf_inputs(in)) return *e;
  const auto shape = decode_step(in, in.batch_per_group);
  std::vector<RankStepBytes> out;
  out.reserve(in.layout->world);
  for (std::uint64_t r = 0; r < in.layout->world; ++r)
    out.push_back(rank_step_bytes(in, placement, placement.rank_weights(*in.layout, r), shape));
  return out;
}

}  // namespace preflight
