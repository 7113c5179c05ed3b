#include "hardware/gpu_links.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace preflight {

GpuLinks gpu_links(const Accelerator& gpu) {
  if (gpu.nvls_domain > 0) return GpuLinks::nvls;
  std::string text = gpu.interconnect;
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* all_pairs : {"nvswitch", "nvlink switch", "fully connected", "all-to-all", "xgmi"})
    if (text.find(all_pairs) != std::string::npos) return GpuLinks::nvlink;
  return GpuLinks::pcie;
}

std::string_view gpu_links_name(GpuLinks links) {
  switch (links) {
    case GpuLinks::nvls: return "NVLS";
    case GpuLinks::nvlink: return "NVLink all-pairs";
    case GpuLinks::pcie: return "PCIe";
  }
  return "PCIe";
}

}  // namespace preflight
