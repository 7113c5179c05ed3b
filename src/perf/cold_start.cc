#include "perf/cold_start.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/bytes.h"
#include "perf/disk.h"

namespace preflight {

namespace {
std::string rate_id(double gbps) {
  // 10 -> "10", 2.5 -> "2p5": figure ids stay plain identifiers.
  auto s = fmt::format("{:g}", gbps);
  std::replace(s.begin(), s.end(), '.', 'p');
  return s;
}
}  // namespace

ColdStartEstimate estimate_cold_start(const ColdStartInputs& in) {
  ColdStartEstimate c;
  auto& f = c.figures;
  const auto bytes = in.artifact_bytes;
  f.push_back(bytes_figure("coldstart.artifact_bytes", "bytes to download (one copy)", bytes, in.artifact_evidence,
                           in.artifact_evidence == Evidence::official
                               ? "sum of the pinned revision's file sizes"
                               : "tensor payload of the manifest (no hub listing: "
                                 "shard headers and other files not counted)",
                           in.artifact_source));
  c.staging_bytes = checked_mul(bytes, std::max<std::uint64_t>(in.staging_copies, 1), "staging bytes");
  auto staging = bytes_figure(
      "disk.staging_bytes",
      fmt::format("disk for {} staged cop{}", in.staging_copies, in.staging_copies == 1 ? "y" : "ies"), c.staging_bytes,
      Evidence::derived, fmt::format("{} B x {} copies", with_commas(bytes), in.staging_copies),
      "--staging-copies (e.g. shared storage plus one local copy per node)");
  f.push_back(staging);

  for (auto b : in.node_bytes) c.max_node_bytes = std::max(c.max_node_bytes, b);
  const auto nodes = in.node_bytes.size();
  if (in.read_gb_s > 0 && nodes > 0) {
    c.load_s = static_cast<double>(c.max_node_bytes) / (in.read_gb_s * 1e9);
    auto load =
        real_figure("coldstart.load_s",
                    fmt::format("load weights from storage ({} node{} in parallel)", nodes, nodes == 1 ? "" : "s"),
                    c.load_s, "s", Evidence::estimate,
                    fmt::format("{} B on the heaviest node (its ranks' shares, a replicated tensor read once, at most "
                                "the payload) / ({} GB/s x 10^9)",
                                with_commas(c.max_node_bytes), in.read_gb_s),
                    in.read_source);
    load.display = format_duration(c.load_s);
    f.push_back(load);
  }
  for (double rate : in.rates_gbps) {
    if (rate <= 0) continue;
    const double download = static_cast<double>(bytes) * 8.0 / (rate * 1e9);
    const double total = download + c.load_s;
    c.total_s.emplace_back(rate, total);
    auto t = real_figure(fmt::format("coldstart.total_s_at_{}gbps", rate_id(rate)),
                         fmt::format("cold start at {:g} Gb/s: download then load (lower bound)", rate), total, "s",
                         Evidence::estimate,
                         fmt::format("{} B x 8 / ({:g} x 10^9 b/s) = {} download + {} load", with_commas(bytes), rate,
                                     format_duration(download), format_duration(c.load_s)),
                         "line rate is the user's link; engine warm-up (CUDA graphs, compilation) not included");
    t.display = format_duration(total);
    f.push_back(t);
  }
  if (in.read_gb_s > 0 && nodes > 0) {
    c.recover_node_s = c.load_s;
    auto r = real_figure("coldstart.recover_node_s", "bring back one failed node from a staged copy", c.recover_node_s,
                         "s", Evidence::estimate,
                         fmt::format("{} B / ({} GB/s x 10^9): the node reloads its share, the others keep theirs (a "
                                     "node with an empty disk first downloads the artifact: the cold start figures)",
                                     with_commas(c.max_node_bytes), in.read_gb_s),
                         in.read_source);
    r.display = format_duration(c.recover_node_s);
    f.push_back(r);
  }
  return c;
}

}  // namespace preflight
