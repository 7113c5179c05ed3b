// Latency efficiencies by GPU: how much of the roofline's bandwidth and
// compute a serving engine's steps achieve, and their fixed per-step cost
// (data/latency_efficiency.json, fitted by tools/fit_latency.py on public
// measurements, with the error band of the rows held out of the fit).
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "core/result.h"
#include "perf/step_time_model.h"

namespace preflight {

struct LatencyEfficiency {
  StepEfficiency step;
  double band = 0.5;               // relative error: 80% of the fitted rows lie within +-band (held-out rows test it)
  std::string fitted_on;           // "nvidia-h100-sxm-80gb" or "default"
  std::string source;              // the rows it was fitted on
  std::uint64_t fitted_rows = 0;   // static-batch rows the kernel terms were fitted on
  std::uint64_t serving_rows = 0;  // closed-loop rows the serving terms were fitted on (0: the default's)
};

// An engine's front end: the time from a request's arrival to its entering the
// scheduler's queue (HTTP, tokenization, the process hop to the scheduler),
// spent on the CPU beside the GPU's steps; fitted on single-client TTFT.
struct EngineFrontEnd {
  double per_request_s = 0;
  std::uint64_t rows = 0;
  std::string source;
};

// The table: the embedded data/latency_efficiency.json, or a file of the same
// form (--latency-efficiency: calibrate the estimate on your own measurements).
class LatencyEfficiencyTable {
 public:
  static Result<LatencyEfficiencyTable> parse(std::string_view json_text, std::string_view origin);
  static const LatencyEfficiencyTable& embedded();
  // The entry for a catalogue GPU id, else the default.
  const LatencyEfficiency& find(std::string_view gpu_id) const;
  // The front end of "vllm" or "sglang" (optional "engines" object); none: 0 s.
  const EngineFrontEnd& front_end(std::string_view engine) const;

 private:
  LatencyEfficiency fallback_;
  EngineFrontEnd no_front_end_;
  std::map<std::string, EngineFrontEnd, std::less<>> engines_;
  std::map<std::string, LatencyEfficiency, std::less<>> by_gpu_;
};

}  // namespace preflight
