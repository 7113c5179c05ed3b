#include "hardware/gpu_links.h"

#include <string>

#include "core/text.h"

namespace preflight {

GpuLinks gpu_links(const Accelerator& gpu) {
  if (gpu.nvls_domain > 0) return GpuLinks::nvls;
  const std::string text = to_lower(gpu.interconnect);
  for (const char* all_pairs : {"nvswitch", "nvlink switch", "fully connected", "all-to-all", "xgmi"})
    if (text.find(all_pairs) != std::string::npos) return GpuLinks::nvlink;
  return GpuLinks::pcie;
}

std::string_view gpu_links_name(GpuLinks links) {
  switch (links) {
    case GpuLinks::nvls:
      return "NVLS";
    case GpuLinks::nvlink:
      return "NVLink all-pairs";
    case GpuLinks::pcie:
      return "PCIe";
  }
  return "PCIe";
}

}  // namespace preflight
