#include "commands.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/units.h"
#include "model_source.h"
#include "hardware/gpu_catalogue.h"
#include "model/inventory.h"
#include "model/model_catalogue.h"
#include "plan/plan.h"
#include "report/json_report.h"
#include "report/text_report.h"

namespace preflight::cli {

namespace {

// Reads a whole file; errors name the path.
Result<std::string> read_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return Error{path, "", "no such file"};
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return Error{path, "", "cannot read the file size"};
  if (size > 256ULL * 1024 * 1024) return Error{path, "", "file is larger than 256 MiB"};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path, "", "cannot open the file"};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Result<GpuCatalogue> resolve_catalogue(const Options& o) {
  if (o.catalogue.empty()) return GpuCatalogue::embedded();
  auto text = read_file(o.catalogue);
  if (!text) return text.error();
  return GpuCatalogue::embedded().merged_with(*text, o.catalogue);
}

int fail(const Error& e) {
  std::cerr << "preflight: " << e.to_string() << "\n";
  return 2;
}

TextStyle style_of(const Options& o) { return o.format == "md" ? TextStyle::markdown : TextStyle::table; }

Result<PlanRequest> plan_request(const Options& o) {
  PlanRequest r;
  auto& w = r.workload;
  const auto any = [&](const std::string& s) {
    if (!s.empty()) w.requested = true;
    return !s.empty();
  };
  if (any(o.context)) {
    auto v = parse_token_count(o.context, "--context");
    if (!v) return v.error();
    w.context_tokens = *v;
  }
  if (any(o.concurrency)) {
    auto v = parse_positive_integer(o.concurrency, "--concurrency");
    if (!v) return v.error();
    w.concurrency = *v;
  }
  if (any(o.kv_dtype)) w.kv_dtype = o.kv_dtype;
  if (any(o.state_dtype)) w.state_dtype = o.state_dtype;
  if (any(o.state_slots)) {
    auto v = parse_positive_integer(o.state_slots, "--state-slots");
    if (!v) return v.error();
    w.state_slots = *v;
  }
  if (any(o.reserve)) {
    auto v = parse_reserve(o.reserve, "--reserve");
    if (!v) return v.error();
    w.reserve = *v;
  }
  if (any(o.chunk)) {
    auto v = parse_positive_integer(o.chunk, "--chunk");
    if (!v) return v.error();
    w.chunk_tokens = *v;
  }
  if (!o.tp.empty()) {
    auto v = parse_positive_integer(o.tp, "--tp");
    if (!v) return v.error();
    r.layout.tp = *v;
  }
  if (!o.dcp.empty()) {
    auto v = parse_positive_integer(o.dcp, "--dcp");
    if (!v) return v.error();
    r.layout.dcp = *v;
  }
  return r;
}

Result<Plan> make_plan(const Options& o) {
  auto spec = parse_gpu_spec(o.gpus, "--gpus");
  if (!spec) return spec.error();
  auto catalogue = resolve_catalogue(o);
  if (!catalogue) return catalogue.error();
  auto gpu = catalogue->find(spec->family, "--gpus");
  if (!gpu) return gpu.error();
  auto loaded = load_model(o.model);
  if (!loaded) return loaded.error();
  auto request = plan_request(o);
  if (!request) return request.error();
  request.value().gpu_count = spec->count;
  return build_plan(loaded->model, **gpu, *request);
}

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
  auto loaded = load_model(o.model);
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

}  // namespace preflight::cli
