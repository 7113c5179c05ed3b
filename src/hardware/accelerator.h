// Accelerator: one entry of the GPU catalogue (data/gpus.json).
//
// Two capacities matter and differ: the vendor's nominal figure ("80 GB", which
// for HBM parts is really GiB-sized stacks) and what the device reports to
// CUDA/HIP as total memory (an H100 "80 GB" reports 79.19 GiB to CUDA, the
// figure vLLM logs as total_gpu_memory). Plans use the device-reported total;
// the seeds' nominal comparison (8 x 80 GB = 640 GB) is shown as such.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/figure.h"

namespace preflight {

struct Accelerator {
  std::string id;                    // "nvidia-h100-sxm-80gb"
  std::string vendor;                // "NVIDIA"
  std::string name;                  // "NVIDIA H100 SXM5 80GB"
  std::string architecture;          // "hopper", "blackwell", "cdna3": engines pick kernels (and padding) by it
  std::vector<std::string> aliases;  // "h100", "h100-sxm", ... matched case-insensitively

  double nominal_gb = 0;                                // vendor headline capacity, as the vendor writes it
  std::uint64_t smi_total_bytes = 0;                    // nvidia-smi / hl-smi memory.total; 0 if unknown
  std::uint64_t device_total_bytes = 0;                 // CUDA/HIP-reported total: what plans use
  Evidence device_total_evidence = Evidence::estimate;  // official when measured
  std::string device_total_source;                      // the log, probe or rule behind device_total_bytes

  std::string memory_type;           // "HBM3"
  double memory_bandwidth_tb_s = 0;  // TB/s (10^12 B/s)
  double bf16_dense_tflops = 0;      // 0 when unknown
  double fp8_dense_tflops = 0;       // 0 when unsupported or unknown
  bool fp4_native = false;           // hardware FP4 (MXFP4/NVFP4) tensor cores
  double fp4_dense_tflops = 0;
  std::string interconnect;      // "NVLink 4 + NVSwitch"
  double interconnect_gb_s = 0;  // per-accelerator bidirectional GB/s
  unsigned nvls_domain = 0;      // GPUs sharing an NVLink SHARP (multicast) switch; 0: none
  unsigned gpus_per_node = 1;    // scale-up domain used for node counts
  std::string node_note;         // free text from the source
  unsigned tdp_w = 0;
  double price_usd_per_gpu_hour = 0;  // 0 when no reliable source
  std::string price_note;             // provider and date
  std::string sources;                // where every figure above comes from
  // Figures the catalogue gives as null: nobody publishes them. They read as 0
  // above (no rate to plan with) and reports show them as unknown, not 0.
  std::vector<std::string> unknown;
  bool is_unknown(std::string_view key) const;

  bool operator==(const Accelerator&) const = default;  // every field (GpuCatalogueQuick compares two reads)
};

}  // namespace preflight
