// JSON renderings of plans, inventories and catalogues (the stable contract in
// docs/json.md and tests/data/reference/design/CLI.md). They read values; they compute nothing.
#pragma once

#include <nlohmann/json.hpp>

#include "artifact/reconciliation.h"
#include "hardware/accelerator.h"
#include "model/inventory.h"
#include "model/model_spec.h"
#include "plan/plan.h"

namespace preflight {

nlohmann::json figure_json(const Figure& f);
nlohmann::json engine_json(const EngineSizing& e);
nlohmann::json plan_json(const Plan& plan);
// `latency.estimate` of a plan's JSON: the simulated percentiles, throughput,
// energy, band and the step model they came from.
nlohmann::json latency_estimate_json(const LatencyEstimate& e, const LatencyTargets& targets);
nlohmann::json inventory_json(const ModelSpec& model, const Inventory& inv, const Reconciliation* reconciliation);
nlohmann::json reconciliation_json(const Reconciliation& r);
nlohmann::json accelerator_json(const Accelerator& gpu);

}  // namespace preflight
