// Disk and cold start: how long from nothing to a serving
// cluster, and from one failed node back to serving. Lower bounds on transfer
// time at the given rates; engine start-up work (CUDA graph capture,
// torch.compile, warm-up) is not included and is stated as left out.
//
//   staging bytes   = artifact bytes x staging copies (e.g. one copy on shared
//                     storage plus one per node's local disk)
//   download        = artifact bytes x 8 / line rate (one copy, once)
//   node load       = the bytes a node's ranks hold / storage read rate per
//                     node; nodes read in parallel, so the slowest node sets it
//   cold start      = download + node load (the copy lands before loading)
//   recover a node  = its share from a staged copy at the read rate (a fresh
//                     node with an empty disk downloads the artifact first: a
//                     TP/EP node needs slices of every shard, so its time is
//                     the cold start's)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/figure.h"

namespace preflight {

// Line rates (Gb/s) every plan reports; the user's --download-gbps is added.
inline constexpr double kColdStartRatesGbps[] = {10, 100};

struct ColdStartInputs {
  std::uint64_t artifact_bytes = 0;                 // what is downloaded: weight shards (and other files when known)
  Evidence artifact_evidence = Evidence::estimate;  // official when summed from the hub listing
  std::string artifact_source;
  std::uint64_t staging_copies = 1;
  std::vector<double> rates_gbps;         // line rates to report (Gb/s)
  double read_gb_s = 2.0;                 // storage read per node, GB/s
  std::string read_source;                // "--read-gb-s" or the default's reasoning
  std::vector<std::uint64_t> node_bytes;  // weights each node's ranks hold
};

struct ColdStartEstimate {
  std::uint64_t staging_bytes = 0;
  std::uint64_t max_node_bytes = 0;
  double load_s = 0;
  std::vector<std::pair<double, double>> total_s;  // (rate Gb/s, download + load)
  double recover_node_s = 0;
  std::vector<Figure> figures;  // coldstart.*, disk.staging_bytes
};

ColdStartEstimate estimate_cold_start(const ColdStartInputs& in);

}  // namespace preflight
