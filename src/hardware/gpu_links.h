// How a node's GPUs reach each other, as the engines' all-reduce code asks it
// (vLLM custom_all_reduce.py: NVML P2P status over NVLink for every pair;
// symm_mem.py: NVLink SHARP multicast): read from the catalogue entry.
#pragma once

#include <string_view>

#include "hardware/accelerator.h"

namespace preflight {

enum class GpuLinks {
  nvls,    // NVLink through a switch with SHARP multicast (nvls_domain > 0: H100/H200/B200 HGX, GB200 NVL)
  nvlink,  // every pair on NVLink, no multicast (A100 HGX, GH200 NVL, AMD xGMI meshes)
  pcie,    // PCIe, or NVLink bridges joining pairs only (L40S, RTX cards, H100 PCIe)
};

// nvls_domain > 0 -> nvls; an interconnect naming NVSwitch, an NVLink Switch,
// xGMI or a fully connected fabric -> nvlink; else pcie.
GpuLinks gpu_links(const Accelerator& gpu);
std::string_view gpu_links_name(GpuLinks links);  // "NVLS", "NVLink all-pairs", "PCIe"

}  // namespace preflight
