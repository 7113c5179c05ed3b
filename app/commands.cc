#include "commands.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/units.h"
#include "model_source.h"
#include "plan_inputs.h"
#include "hardware/gpu_catalogue.h"
#include "model/inventory.h"
#include "model/model_catalogue.h"
#include "plan/plan.h"
#include "report/json_report.h"
#include "report/text_report.h"

namespace preflight::cli {

namespace {

TextStyle style_of(const Options& o) { return o.format == "md" ? TextStyle::markdown : TextStyle::table; }

int print_plan(const Options& o, bool explain) {
  auto plan = make_plan(o);
  if (!plan) return fail(plan.error());
  for (const auto& rank : plan->ranks) {
    std::string why;
    if (!check_reconciles(rank, &why)) throw std::logic_error("ledger does not reconcile: " + why);
  }
  if (o.format == "json") std::cout << plan_json(*plan).dump(2) << "\n";
  else std::cout << (explain ? render_explain(*plan, style_of(o)) : render_plan(*plan, style_of(o)));
  return plan->verdict.fits ? 0 : 1;
}

}  // namespace

int run_plan(const Options& o) { return print_plan(o, false); }
int run_explain(const Options& o) { return print_plan(o, true); }

int run_inspect(const Options& o) {
  auto loaded = load_model_for(o);
  if (!loaded) return fail(loaded.error());
  const auto& model = loaded->model;
  const auto inv = build_inventory(model);
  const auto* rec = loaded->reconciliation ? &*loaded->reconciliation : nullptr;
  if (o.format == "json") std::cout << inventory_json(model, inv, rec).dump(2) << "\n";
  else std::cout << render_inventory(model, inv, rec, style_of(o));
  return 0;
}

int run_gpus(const Options& o) {
  auto catalogue = resolve_catalogue(o);
  if (!catalogue) return fail(catalogue.error());
  if (o.format == "json") {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& g : catalogue->all()) j.push_back(accelerator_json(g));
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << render_gpus(catalogue->all(), style_of(o));
  }
  return 0;
}

int run_models(const Options& o) {
  if (o.format == "json") {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& m : model_catalogue())
      j.push_back({{"name", m.name},
                   {"aliases", m.aliases},
                   {"hub_id", m.hub_id},
                   {"description", m.description},
                   {"config_provenance", m.config_provenance},
                   {"default", m.is_default}});
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  for (const auto& m : model_catalogue())
    std::cout << fmt::format("{:<36} {:<54} {}{}\n", m.name, m.hub_id, m.description, m.is_default ? " (default)" : "");
  return 0;
}

int run_engines(const Options&) { return fail(Error{"engines", "", "not implemented yet"}); }

}  // namespace preflight::cli
