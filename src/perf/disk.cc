#include "perf/disk.h"

#include <fmt/format.h>

#include "core/bytes.h"

namespace preflight {

std::string format_duration(double seconds) {
  if (seconds >= 3600) return fmt::format("{:.2f} h", seconds / 3600);
  if (seconds >= 600) return fmt::format("{:.1f} min", seconds / 60);
  return fmt::format("{:.0f} s", seconds);
}

std::vector<Figure> disk_figures(const ArtifactFacts& a) {
  std::vector<Figure> out;
  const std::string src = a.source;
  out.push_back(exact_figure("disk.shard_count", "weight shards", a.shard_count, "files", Evidence::official,
                             "count of *.safetensors files in the pinned revision", src));
  auto shards = bytes_figure("disk.shard_bytes", "weight shard bytes", a.shard_bytes, Evidence::official,
                             "sum of the *.safetensors file sizes", src);
  shards.display = fmt::format("{} B = {} = {} = {}", with_commas(a.shard_bytes), format_gb(a.shard_bytes, 1),
                               format_gib(a.shard_bytes, 1), format_tib(a.shard_bytes, 2));
  out.push_back(shards);
  if (a.shard_count > 0) {
    const auto avg = a.shard_bytes / a.shard_count;
    auto f = bytes_figure("disk.average_shard_bytes", "average shard", avg, Evidence::derived,
                          fmt::format("{} B / {} shards", with_commas(a.shard_bytes), a.shard_count), src);
    f.display = fmt::format("{} B = {}", with_commas(avg), format_gb(avg, 1));
    out.push_back(f);
  }
  if (a.file_count > 0)
    out.push_back(bytes_figure("disk.all_files_bytes", fmt::format("all {} visible files", a.file_count), a.file_bytes,
                               Evidence::official, "sum of every visible file's size", src));
  if (a.used_storage_bytes > a.file_bytes && a.file_bytes > 0)
    out.push_back(bytes_figure("disk.used_storage_extra", "hub usedStorage beyond the visible files",
                               a.used_storage_bytes - a.file_bytes, Evidence::derived,
                               fmt::format("{} - {} B (repository accounting, not a download size)",
                                           with_commas(a.used_storage_bytes), with_commas(a.file_bytes)),
                               src));
  for (double gbps : kDownloadRatesGbps) {
    const double seconds = static_cast<double>(a.shard_bytes) * 8.0 / (gbps * 1e9);
    auto f = real_figure(fmt::format("disk.download_s_at_{}gbps", static_cast<int>(gbps)),
                         fmt::format("download at {} Gb/s line rate (lower bound)", gbps), seconds, "s",
                         Evidence::derived, fmt::format("{} B x 8 / ({} x 10^9 b/s)", with_commas(a.shard_bytes), gbps),
                         "shard bytes; line rate is the user's link");
    f.display = format_duration(seconds);
    out.push_back(f);
  }
  return out;
}

}  // namespace preflight
