// Cost: what a token costs on the plan's cluster, at the throughput bound and
// at a utilisation the user gives, and the break-even against an API price.
// Every figure is a planning estimate: the price is an
// approximate, dated list price (or the user's --price) and the throughput an
// upper bound, so the cost at the bound is a lower bound on cost.
//
//   cluster $/h          = price per GPU-hour x GPUs
//   $/M tokens at bound  = cluster $/h / (tokens/s bound x 3600) x 10^6
//   $/M at utilisation u = $/M at bound / u   (u: share of the bound sustained
//                          on average, idle hours included)
//   break-even u         = $/M at bound / API $/M: the average utilisation above
//                          which the cluster's tokens cost less than the API's
//   break-even tokens/day = cluster $/h x 24 / (API $/M / 10^6)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/figure.h"

namespace preflight {

struct CostInputs {
  double price_usd_per_gpu_hour = 0;  // 0: no price known (the figures say so)
  std::string price_source;           // "--price" or the catalogue's note with its date
  std::uint64_t gpus = 0;
  double cluster_tokens_per_s_bound = 0;  // decode tokens/s of the cluster at the plan's concurrency
  double request_tokens_per_s_bound = 0;  // one request alone (batch 1)
  std::uint64_t concurrency = 0;          // requests behind the cluster bound
  double utilisation = 0.5;               // share of the bound sustained on average
  double api_usd_per_m = 0;               // API price per million output tokens; 0: no break-even
};

struct CostEstimate {
  bool priced = false;
  double cluster_usd_per_hour = 0;
  double usd_per_m_at_bound = 0;
  double usd_per_m_at_utilisation = 0;
  double usd_per_m_single_request = 0;
  double break_even_utilisation = 0;  // 0 when no API price was given
  double break_even_tokens_per_day = 0;
  std::vector<Figure> figures;  // cost.*
};

CostEstimate estimate_cost(const CostInputs& in);

}  // namespace preflight
