#include "plan/disaggregated.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/bytes.h"
#include "model/request_state.h"
#include "perf/perf_inputs.h"

namespace preflight {

namespace {

// One prompt's cache and final state on one rank of `tp` over `range`.
std::uint64_t prompt_bytes(const ModelSpec& model, std::uint64_t tp, LayerRange range, std::uint64_t kv_bytes,
                           std::uint64_t state_bytes, std::uint64_t prompt, std::uint64_t dcp) {
  const auto cache = cache_bytes_for_context(token_cache_per_rank(model, kv_bytes, tp, range), prompt);
  std::uint64_t state = 0;
  for (const auto& r : recurrent_state_per_rank(model, tp, state_bytes, range)) state = checked_add(state, r.bytes);
  return checked_add(ceil_div(cache, std::max<std::uint64_t>(dcp, 1)), state);
}

}  // namespace

KvTransfer kv_transfer(const ModelSpec& model, const Layout& decode_layout, const WorkloadOptions& w,
                       std::uint64_t prompt_tokens, double link_gb_s, double rate_per_s) {
  KvTransfer t;
  t.prompt_tokens = prompt_tokens;
  t.link_gb_s = link_gb_s;
  t.rate_per_s = rate_per_s;
  const auto kv = kv_dtype_bytes(w.kv_dtype);
  const auto state = state_dtype_bytes(w.state_dtype);
  t.bytes_per_request = prompt_bytes(model, 1, LayerRange{}, kv, state, prompt_tokens, 1);
  for (std::uint64_t s = 0; s < std::max<std::uint64_t>(decode_layout.pp, 1); ++s)
    t.bytes_per_decode_rank =
        std::max(t.bytes_per_decode_rank, prompt_bytes(model, decode_layout.tp, stage_layer_range(decode_layout, s), kv,
                                                       state, prompt_tokens, decode_layout.dcp));
  t.seconds = link_gb_s > 0 ? static_cast<double>(t.bytes_per_decode_rank) / (link_gb_s * 1e9) : 0;
  if (rate_per_s > 0 && link_gb_s > 0)
    t.link_share = rate_per_s * static_cast<double>(t.bytes_per_request) /
                   (static_cast<double>(decode_layout.world) * link_gb_s * 1e9);
  const auto source = "the model's cache per token and state per request (model/request_state.h); --scale-out-gb-s";
  auto& f = t.figures;
  f.push_back(
      bytes_figure("disagg.kv_transfer.bytes_per_request",
                   fmt::format("cache and state of one {}-token prompt, whole model", with_commas(prompt_tokens)),
                   t.bytes_per_request, Evidence::derived,
                   fmt::format("cache per token at TP 1 x {} tokens (window layers capped) + one recurrent-state slot",
                               with_commas(prompt_tokens)),
                   source));
  f.push_back(
      bytes_figure("disagg.kv_transfer.bytes_per_decode_rank", "the largest share one decode rank receives",
                   t.bytes_per_decode_rank, Evidence::derived,
                   fmt::format("the same at the decode pool's TP {} (MLA latents whole on every rank) / DCP {}, "
                               "the heaviest of {} stage(s)",
                               decode_layout.tp, decode_layout.dcp, decode_layout.pp),
                   source));
  f.push_back(real_figure("disagg.kv_transfer.seconds", "KV transfer per request, lower bound", t.seconds, "s",
                          Evidence::estimate,
                          fmt::format("{} B / {} GB/s per GPU (each decode rank over its own link, in parallel)",
                                      with_commas(t.bytes_per_decode_rank), link_gb_s),
                          source));
  if (rate_per_s > 0)
    f.push_back(real_figure("disagg.kv_transfer.link_share", "share of the decode pool's scale-out links busy with KV",
                            100 * t.link_share, "%", Evidence::estimate,
                            fmt::format("{:.4g} requests/s x {} B / ({} GPUs x {} GB/s)", rate_per_s,
                                        with_commas(t.bytes_per_request), decode_layout.world, link_gb_s),
                            source));
  return t;
}

Verdict combined_verdict(const Plan& prefill, const Plan& decode, const KvTransfer& transfer) {
  Verdict v;
  v.fits = prefill.verdict.fits && decode.verdict.fits && transfer.link_share < 1.0;
  v.headroom_bytes = std::min(prefill.verdict.headroom_bytes, decode.verdict.headroom_bytes);
  v.evidence = v.fits ? Evidence::hypothesis : Evidence::derived;
  if (!prefill.verdict.fits) {
    v.first_boundary = prefill.verdict.first_boundary;
    v.worst_rank = prefill.verdict.worst_rank;
    v.summary = "the prefill pool " + prefill.verdict.summary;
  } else if (!decode.verdict.fits) {
    v.first_boundary = decode.verdict.first_boundary;
    v.worst_rank = decode.verdict.worst_rank;
    v.summary = "the decode pool " + decode.verdict.summary;
  } else if (!v.fits) {
    v.first_boundary = Resource::ttft;
    v.summary = fmt::format(
        "does not fit: first boundary crossed: ttft; the KV transfer needs {:.0f}% of the decode "
        "pool's scale-out links at the rate",
        100 * transfer.link_share);
  } else {
    v.summary = fmt::format(
        "both pools fit under the stated inputs (tightest: {} free); a deployment hypothesis until "
        "benchmarked",
        format_gb(static_cast<std::uint64_t>(v.headroom_bytes), 1));
  }
  return v;
}

}  // namespace preflight
