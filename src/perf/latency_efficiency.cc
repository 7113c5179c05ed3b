#include "perf/latency_efficiency.h"

#include <optional>
#include <stdexcept>
#include <utility>

#include "core/json_read.h"
#include "embedded_files.h"

namespace preflight {

namespace {

// One entry; errors name the origin, the JSON pointer and the value.
Result<LatencyEfficiency> entry(const nlohmann::json& j, const std::string& name, std::string_view origin,
                                const std::string& pointer) {
  if (!j.is_object()) return Error{std::string(origin), pointer, "expected an object"};
  LatencyEfficiency e;
  const auto number = [&](const char* key, double& out) -> std::optional<Error> {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number()) return Error{std::string(origin), pointer + "/" + key, "expected a number"};
    out = it->get<double>();
    if (!(out >= 0) || out > 1e6)
      return Error{std::string(origin), pointer + "/" + key, "expected a finite number >= 0"};
    return std::nullopt;
  };
  double fitted = 0, serving = 0;
  for (const auto& [key, out] : {std::pair<const char*, double*>{"memory", &e.step.memory},
                                 {"compute", &e.step.compute},
                                 {"per_layer_s", &e.step.per_layer_s},
                                 {"per_collective_s", &e.step.per_collective_s},
                                 {"per_step_s", &e.step.per_step_s},
                                 {"per_seq_s", &e.step.per_seq_s},
                                 {"band", &e.band},
                                 {"fitted_rows", &fitted},
                                 {"serving_rows", &serving}})
    if (auto err = number(key, *out)) return *err;
  // Optional (files written before it): 1, the dense efficiency's peak share untouched.
  if (j.contains("moe_memory"))
    if (auto err = number("moe_memory", e.step.moe_memory)) return *err;
  if (e.step.memory <= 0 || e.step.memory > 1 || e.step.compute <= 0 || e.step.compute > 1 || e.step.moe_memory <= 0 ||
      e.step.moe_memory > 1)
    return Error{std::string(origin), pointer, "memory, moe_memory and compute efficiencies must lie in (0, 1]"};
  e.fitted_rows = static_cast<std::uint64_t>(fitted);
  e.serving_rows = static_cast<std::uint64_t>(serving);
  const auto src = j.find("source");
  e.source = src != j.end() && src->is_string() ? src->get<std::string>() : std::string(origin);
  e.fitted_on = name;
  return e;
}

}  // namespace

Result<LatencyEfficiencyTable> LatencyEfficiencyTable::parse(std::string_view json_text, std::string_view origin) {
  auto parsed = parse_json(json_text, origin, "", DuplicateKeys::reject);
  if (!parsed) return parsed.error();
  if (!parsed->is_object()) return Error{std::string(origin), "", "expected a JSON object"};
  LatencyEfficiencyTable t;
  const auto d = parsed->find("default");
  if (d == parsed->end()) return Error{std::string(origin), "/default", "missing"};
  auto fallback = entry(*d, "default", origin, "/default");
  if (!fallback) return fallback.error();
  t.fallback_ = std::move(fallback).value();
  if (const auto g = parsed->find("gpus"); g != parsed->end()) {
    if (!g->is_object()) return Error{std::string(origin), "/gpus", "expected an object"};
    for (const auto& [id, j] : g->items()) {
      auto e = entry(j, id, origin, "/gpus/" + id);
      if (!e) return e.error();
      t.by_gpu_.emplace(id, std::move(e).value());
    }
  }
  if (const auto en = parsed->find("engines"); en != parsed->end()) {
    if (!en->is_object()) return Error{std::string(origin), "/engines", "expected an object"};
    for (const auto& [name, j] : en->items()) {
      const auto pointer = "/engines/" + name;
      if (!j.is_object()) return Error{std::string(origin), pointer, "expected an object"};
      const auto v = j.find("per_request_s");
      if (v == j.end() || !v->is_number() || !(v->get<double>() >= 0) || v->get<double>() > 60)
        return Error{std::string(origin), pointer + "/per_request_s", "expected seconds from 0 to 60"};
      EngineFrontEnd f;
      f.per_request_s = v->get<double>();
      if (const auto r = j.find("rows"); r != j.end() && r->is_number_unsigned()) f.rows = r->get<std::uint64_t>();
      const auto src = j.find("source");
      f.source = src != j.end() && src->is_string() ? src->get<std::string>() : std::string(origin);
      t.engines_.emplace(name, std::move(f));
    }
  }
  return t;
}

const EngineFrontEnd& LatencyEfficiencyTable::front_end(std::string_view engine) const {
  if (auto it = engines_.find(engine); it != engines_.end()) return it->second;
  return no_front_end_;
}

const LatencyEfficiencyTable& LatencyEfficiencyTable::embedded() {
  static const LatencyEfficiencyTable t = [] {
    auto parsed = parse(embedded::data_latency_efficiency_json, "data/latency_efficiency.json (embedded)");
    if (!parsed)
      throw std::logic_error("the embedded latency efficiency table is invalid: " + parsed.error().to_string());
    return std::move(parsed).value();
  }();
  return t;
}

const LatencyEfficiency& LatencyEfficiencyTable::find(std::string_view gpu_id) const {
  if (auto it = by_gpu_.find(gpu_id); it != by_gpu_.end()) return it->second;
  return fallback_;
}

}  // namespace preflight
