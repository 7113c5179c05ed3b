// A plan of a catalogue model on N catalogue GPUs with a workload and engine,
// as a table-driven test row names it (brief report, suggestions).
#pragma once

#include <cstdint>

#include "plan/plan.h"
#include "support/fixtures.h"

namespace preflight::testing {

struct CataloguePlanCase {
  const char* model;
  const char* gpu;
  std::uint64_t gpus;
  std::uint64_t context;  // 0: weights only (pass 1)
  std::uint64_t concurrency = 1;
  EngineKind engine = EngineKind::generic;
};

inline PlanRequest request_for(const CataloguePlanCase& c, bool perf) {
  PlanRequest req;
  req.gpu_count = c.gpus;
  req.workload.requested = c.context > 0;
  req.workload.context_tokens = c.context;
  req.workload.concurrency = c.concurrency;
  req.engine.kind = c.engine;
  req.perf.enabled = perf;
  return req;
}

inline Plan plan_for(const CataloguePlanCase& c, bool perf) {
  return build_plan(catalogue_model(c.model), catalogue_gpu(c.gpu), request_for(c, perf)).value_or_throw();
}

}  // namespace preflight::testing
