#include "perf/cost.h"

#include <fmt/format.h>

namespace preflight {

CostEstimate estimate_cost(const CostInputs& in) {
  CostEstimate c;
  auto& f = c.figures;
  if (in.price_usd_per_gpu_hour <= 0 || in.gpus == 0) return c;
  c.priced = true;
  const auto gpus = static_cast<double>(in.gpus);
  c.cluster_usd_per_hour = in.price_usd_per_gpu_hour * gpus;
  f.push_back(real_figure("cost.usd_per_gpu_hour", "price per GPU-hour", in.price_usd_per_gpu_hour, "USD/h",
                          Evidence::estimate, "approximate rental list price (varies by provider, term and date)",
                          in.price_source));
  f.push_back(real_figure("cost.cluster_usd_per_hour", "cluster price per hour", c.cluster_usd_per_hour, "USD/h",
                          Evidence::estimate, fmt::format("{} USD x {} GPUs", in.price_usd_per_gpu_hour, in.gpus),
                          in.price_source));
  const auto per_m = [&](double tokens_per_s) { return c.cluster_usd_per_hour / (tokens_per_s * 3600.0) * 1e6; };
  if (in.cluster_tokens_per_s_bound > 0) {
    c.usd_per_m_at_bound = per_m(in.cluster_tokens_per_s_bound);
    f.push_back(real_figure("cost.usd_per_m_tokens_at_bound",
                            fmt::format("cost per million output tokens at the bound ({} requests)", in.concurrency),
                            c.usd_per_m_at_bound, "USD/M tokens", Evidence::estimate,
                            fmt::format("{:.2f} USD/h / ({:.4g} tokens/s x 3600) x 10^6 (a lower bound on cost: the "
                                        "throughput is an upper bound)",
                                        c.cluster_usd_per_hour, in.cluster_tokens_per_s_bound),
                            "perf.at_concurrency.tokens_per_s_bound and cost.cluster_usd_per_hour"));
    if (in.utilisation > 0) {
      c.usd_per_m_at_utilisation = c.usd_per_m_at_bound / in.utilisation;
      f.push_back(
          real_figure("cost.usd_per_m_tokens_at_utilisation",
                      fmt::format("cost per million output tokens at {:.0f}% of the bound", in.utilisation * 100),
                      c.usd_per_m_at_utilisation, "USD/M tokens", Evidence::estimate,
                      fmt::format("{:.4g} USD/M / {}", c.usd_per_m_at_bound, in.utilisation),
                      "--utilisation: the share of the bound sustained on average, idle hours included"));
    }
  }
  if (in.request_tokens_per_s_bound > 0) {
    c.usd_per_m_single_request = per_m(in.request_tokens_per_s_bound);
    f.push_back(real_figure("cost.usd_per_m_tokens_single_request",
                            "cost per million output tokens serving one request at a time", c.usd_per_m_single_request,
                            "USD/M tokens", Evidence::estimate,
                            fmt::format("{:.2f} USD/h / ({:.4g} tokens/s x 3600) x 10^6", c.cluster_usd_per_hour,
                                        in.request_tokens_per_s_bound),
                            "perf.decode_tokens_per_s_bound"));
  }
  if (in.api_usd_per_m > 0) {
    c.break_even_tokens_per_day = c.cluster_usd_per_hour * 24.0 / in.api_usd_per_m * 1e6;
    f.push_back(real_figure(
        "cost.break_even_tokens_per_day",
        fmt::format("output tokens per day at which the cluster costs the API's {} USD/M", in.api_usd_per_m),
        c.break_even_tokens_per_day, "tokens/day", Evidence::estimate,
        fmt::format("{:.2f} USD/h x 24 / {} USD/M x 10^6", c.cluster_usd_per_hour, in.api_usd_per_m), "--api-price"));
    if (c.usd_per_m_at_bound > 0) {
      c.break_even_utilisation = c.usd_per_m_at_bound / in.api_usd_per_m;
      auto be = real_figure(
          "cost.break_even_utilisation", "average share of the bound needed to match the API price",
          c.break_even_utilisation * 100, "%", Evidence::estimate,
          fmt::format("{:.4g} USD/M at the bound / {} USD/M API{}", c.usd_per_m_at_bound, in.api_usd_per_m,
                      c.break_even_utilisation > 1 ? " (above 100%: the API is cheaper even at the bound)" : ""),
          "--api-price");
      f.push_back(be);
    }
  }
  return c;
}

}  // namespace preflight
