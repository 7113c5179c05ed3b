// Disk and download figures for an artifact: shard count and average size,
// bytes in GB, GiB and TiB, and download time at line rate (lower bounds:
// protocol overhead, throttling and storage writes only add to them).
#pragma once

#include <vector>

#include "core/figure.h"
#include "model/artifact_facts.h"

namespace preflight {

// Line rates in Gb/s (10^9 bits per second) the plan reports.
inline constexpr double kDownloadRatesGbps[] = {1, 10, 100, 400};

std::vector<Figure> disk_figures(const ArtifactFacts& artifact);

// "3.47 h", "20.8 min", "125 s"
std::string format_duration(double seconds);

}  // namespace preflight
