// GpuCatalogue: reading, validating, merging and searching the accelerator
// catalogue (schema "preflight.gpus/1", see data/gpus.json and gpu_catalogue.h).
//
// Validation is strict about what it knows and lenient about what it does not:
// every known field is checked for type and range (so a typo in a number never
// becomes a silent zero in a memory plan), unknown keys are ignored (so newer
// catalogues still load). The first problem found is reported, in the order the
// fields appear in the schema, so messages are deterministic.
#include "hardware/gpu_catalogue.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <utility>

#include "core/bytes.h"
#include "core/house_layout.h"
#include "core/json_read.h"
#include "core/suggest.h"
#include "core/text.h"
#include "embedded_files.h"

namespace preflight {

namespace {

using nlohmann::json;
using Fail = std::optional<Error>;

// The rule for a device total when only nvidia-smi's figure is known: CUDA's
// total (torch.cuda.mem_get_info, vLLM's total_gpu_memory) sits 0.43-0.71 GiB
// below nvidia-smi's memory.total on every card where both were measured
// (H100 79.65/79.19, H200 140.40/139.80, B200 179.06/178.35, L4 22.49/22.03,
// A10 22.49/22.06, A100-40GB 40.00/39.49; tests/data/reference/data/gpus-notes.md section 2);
// the median gap is about 0.5 GiB.
constexpr Bytes kSmiToDeviceGap = kGiB / 2;
constexpr std::string_view kSmiRule =
    "nvidia-smi total minus 0.5 GiB, the median gap between nvidia-smi and CUDA totals "
    "measured on H100/H200/B200/L4/A10/A100 (0.43-0.71 GiB)";

// Bounds that reject absurd values before they reach byte arithmetic. They are
// orders of magnitude above any real part (the largest today is 512 GB) yet keep
// gib x 2^30 and MiB x 2^20 far inside 64 bits.
constexpr double kMaxCapacityGb = 1e7;
constexpr std::uint64_t kMaxSmiMib = 1ULL << 33;
constexpr double kMaxRate = 1e9;  // TB/s, TFLOPS, GB/s
constexpr double kMaxPrice = 1e6;
constexpr std::uint64_t kMaxCount = 1'000'000;  // gpus_per_node, tdp_w

constexpr std::string_view kMissing = "missing (required)";

// Where a value sits: the origin (file name) and the JSON pointer of its parent.
struct Where {
  std::string_view origin;
  std::string pointer;

  Error at(std::string_view key, std::string message) const {
    return Error{std::string(origin), key.empty() ? pointer : fmt::format("{}/{}", pointer, key), std::move(message)};
  }
  Where child(std::string_view key) const { return Where{origin, fmt::format("{}/{}", pointer, key)}; }
};

const json* member(const json& object, std::string_view key) {
  auto it = object.find(std::string(key));
  return it == object.end() ? nullptr : &*it;
}

bool blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; });
}

// A name or source is printed in every report and launch script: a newline in it
// could forge a line ("Verdict: GREEN"), an escape sequence drive the terminal.
// So read_string and read_aliases refuse what core/text.h's has_control finds.

// Each reader leaves `out` untouched when the key is absent; the caller decides
// whether absence is an error (complete entries) or fine (partial overrides).
Fail read_string(const json& obj, std::string_view key, const Where& w, bool non_empty, std::string& out) {
  const json* v = member(obj, key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) return w.at(key, fmt::format("expected a string, got {}", show(*v)));
  const auto& s = v->get_ref<const std::string&>();
  if (non_empty && blank(s)) return w.at(key, fmt::format("expected a non-empty string, got {}", show(*v)));
  if (has_control(s)) return w.at(key, fmt::format("expected text without control characters, got {}", show(*v)));
  out = s;
  return std::nullopt;
}

enum class Sign { positive, non_negative };

Fail read_number(const json& obj, std::string_view key, const Where& w, Sign sign, double max, double& out) {
  const json* v = member(obj, key);
  if (v == nullptr) return std::nullopt;
  // null: nobody publishes the figure (Accelerator::unknown names it); 0 stays "none".
  if (v->is_null() && sign == Sign::non_negative) return std::nullopt;
  const char* what = sign == Sign::positive ? "a positive number" : "a non-negative number";
  if (!v->is_number()) return w.at(key, fmt::format("expected {}, got {}", what, show(*v)));
  const double d = v->get<double>();
  const bool in_sign = sign == Sign::positive ? d > 0 : d >= 0;
  if (!std::isfinite(d) || !in_sign) return w.at(key, fmt::format("expected {}, got {}", what, show(*v)));
  // A denormal such as 5e-324 is above 0 but no rate or capacity: dividing by it
  // gives infinity. Every figure of the catalogue is 0 (unknown) or at least 1e-6.
  if (d != 0 && d < 1e-6) return w.at(key, fmt::format("expected 0 or at least 1e-06, got {}", show(*v)));
  if (d > max) return w.at(key, fmt::format("expected at most {}, got {}", max, show(*v)));
  out = d;
  return std::nullopt;
}

Fail read_count(const json& obj, std::string_view key, const Where& w, Sign sign, std::uint64_t max,
                std::uint64_t& out) {
  const json* v = member(obj, key);
  if (v == nullptr) return std::nullopt;
  if (v->is_null() && sign == Sign::non_negative) return std::nullopt;
  const char* what = sign == Sign::positive ? "a positive integer" : "a non-negative integer";
  const Error bad = w.at(key, fmt::format("expected {}, got {}", what, show(*v)));
  std::uint64_t u = 0;
  if (v->is_number_unsigned()) {
    u = v->get<std::uint64_t>();
  } else if (v->is_number_integer()) {
    return bad;  // nlohmann stores non-negative integer literals as unsigned
  } else if (v->is_number_float()) {
    // Accept 700.0 (some JSON writers emit integral floats), reject 700.5.
    const double d = v->get<double>();
    if (!std::isfinite(d) || d < 0 || d != std::floor(d)) return bad;
    if (d > static_cast<double>(max)) return w.at(key, fmt::format("expected at most {}, got {}", max, show(*v)));
    u = static_cast<std::uint64_t>(d);
  } else {
    return bad;
  }
  if (sign == Sign::positive && u == 0) return bad;
  if (u > max) return w.at(key, fmt::format("expected at most {}, got {}", max, show(*v)));
  out = u;
  return std::nullopt;
}

Fail read_bool(const json& obj, std::string_view key, const Where& w, bool& out) {
  const json* v = member(obj, key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_boolean()) return w.at(key, fmt::format("expected true or false, got {}", show(*v)));
  out = v->get<bool>();
  return std::nullopt;
}

// Ids are stable keys for scripts and --catalogue overrides, so they are kept
// plain: lower-case letters, digits, '-', '.', '_', starting with a letter or digit.
Fail read_id(const json& obj, const Where& w, std::string& out) {
  const json* v = member(obj, "id");
  if (v == nullptr) return w.at("id", std::string(kMissing));
  if (auto f = read_string(obj, "id", w, true, out)) return f;
  const auto plain = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
  };
  const bool starts_alnum = (out.front() >= 'a' && out.front() <= 'z') || (out.front() >= '0' && out.front() <= '9');
  if (!starts_alnum || !std::all_of(out.begin(), out.end(), plain))
    return w.at("id", fmt::format("expected a lower-case id of letters, digits, '-', '.' and '_', "
                                  "got {}",
                                  show(*v)));
  return std::nullopt;
}

Fail read_aliases(const json& obj, const Where& w, std::vector<std::string>& out) {
  const json* v = member(obj, "aliases");
  if (v == nullptr) return std::nullopt;
  if (!v->is_array()) return w.at("aliases", fmt::format("expected an array of strings, got {}", show(*v)));
  std::vector<std::string> aliases;
  const Where aw = w.child("aliases");
  for (std::size_t i = 0; i < v->size(); ++i) {
    const json& a = (*v)[i];
    const std::string key = std::to_string(i);
    if (!a.is_string() || GpuCatalogue::lookup_key(a.get_ref<const std::string&>()).empty())
      return aw.at(key, fmt::format("expected a name with a letter or digit, got {}", show(a)));
    if (has_control(a.get_ref<const std::string&>()))
      return aw.at(key, fmt::format("expected text without control characters, got {}", show(a)));
    aliases.push_back(a.get<std::string>());
  }
  out = std::move(aliases);
  return std::nullopt;
}

std::optional<Evidence> evidence_from_key(std::string_view key) {
  for (Evidence e : {Evidence::official, Evidence::derived, Evidence::estimate, Evidence::hypothesis})
    if (evidence_key(e) == key) return e;
  return std::nullopt;
}

struct DeviceTotal {
  std::optional<double> gib;  // absent: derive from smi_total_mib by the 0.5 GiB rule
  Evidence evidence = Evidence::estimate;
  std::string source;
};

// "device_total": {"gib": 79.19, "evidence": "official", "source": "..."}.
// evidence and source are required: the device total is the one figure every
// plan divides by, so it must say how it is known.
Fail read_device_total(const json& obj, const Where& w, std::optional<DeviceTotal>& out) {
  const json* v = member(obj, "device_total");
  if (v == nullptr) return std::nullopt;
  if (!v->is_object())
    return w.at("device_total", fmt::format("expected an object with gib, evidence and source, got {}", show(*v)));
  const Where dw = w.child("device_total");
  DeviceTotal dt;
  double gib = 0;
  if (auto f = read_number(*v, "gib", dw, Sign::positive, kMaxCapacityGb, gib)) return f;
  if (member(*v, "gib") != nullptr) dt.gib = gib;

  const json* ev = member(*v, "evidence");
  if (ev == nullptr) return dw.at("evidence", "missing; expected one of official, derived, estimate, hypothesis");
  std::optional<Evidence> parsed;
  if (ev->is_string()) parsed = evidence_from_key(ev->get_ref<const std::string&>());
  if (!parsed)
    return dw.at("evidence", fmt::format("expected one of official, derived, estimate, "
                                         "hypothesis, got {}",
                                         show(*ev)));
  dt.evidence = *parsed;

  if (member(*v, "source") == nullptr) return dw.at("source", "missing; every figure needs a source");
  if (auto f = read_string(*v, "source", dw, true, dt.source)) return f;
  out = std::move(dt);
  return std::nullopt;
}

// Builds one Accelerator from its JSON object. With `complete`, the required
// fields must be present (`missing` is the message when one is not) and the
// device total is computed; without it (a partial override checked on its own)
// only the fields present are validated. `id` is always required.
Result<Accelerator> build_entry(const json& e, const Where& w, bool complete, std::string_view missing) {
  if (!e.is_object())
    return Error{std::string(w.origin), w.pointer, fmt::format("expected an accelerator object, got {}", show(e))};
  Accelerator a;
  if (auto f = read_id(e, w, a.id)) return *f;
  if (auto f = read_string(e, "vendor", w, false, a.vendor)) return *f;
  if (auto f = read_string(e, "name", w, true, a.name)) return *f;
  if (auto f = read_string(e, "architecture", w, false, a.architecture)) return *f;
  if (auto f = read_aliases(e, w, a.aliases)) return *f;
  if (auto f = read_number(e, "nominal_gb", w, Sign::positive, kMaxCapacityGb, a.nominal_gb)) return *f;
  std::uint64_t smi_mib = 0;
  if (auto f = read_count(e, "smi_total_mib", w, Sign::positive, kMaxSmiMib, smi_mib)) return *f;
  std::optional<DeviceTotal> device_total;
  if (auto f = read_device_total(e, w, device_total)) return *f;
  if (auto f = read_string(e, "memory_type", w, false, a.memory_type)) return *f;
  if (auto f = read_number(e, "memory_bandwidth_tb_s", w, Sign::non_negative, kMaxRate, a.memory_bandwidth_tb_s))
    return *f;
  if (auto f = read_number(e, "bf16_dense_tflops", w, Sign::non_negative, kMaxRate, a.bf16_dense_tflops)) return *f;
  if (auto f = read_number(e, "fp8_dense_tflops", w, Sign::non_negative, kMaxRate, a.fp8_dense_tflops)) return *f;
  if (auto f = read_bool(e, "fp4_native", w, a.fp4_native)) return *f;
  if (auto f = read_number(e, "fp4_dense_tflops", w, Sign::non_negative, kMaxRate, a.fp4_dense_tflops)) return *f;
  if (auto f = read_string(e, "interconnect", w, false, a.interconnect)) return *f;
  if (auto f = read_number(e, "interconnect_gb_s", w, Sign::non_negative, kMaxRate, a.interconnect_gb_s)) return *f;
  std::uint64_t count = a.nvls_domain;
  if (auto f = read_count(e, "nvls_domain", w, Sign::non_negative, kMaxCount, count)) return *f;
  a.nvls_domain = static_cast<unsigned>(count);
  count = a.gpus_per_node;
  if (auto f = read_count(e, "gpus_per_node", w, Sign::positive, kMaxCount, count)) return *f;
  a.gpus_per_node = static_cast<unsigned>(count);
  if (auto f = read_string(e, "node_note", w, false, a.node_note)) return *f;
  count = a.tdp_w;
  if (auto f = read_count(e, "tdp_w", w, Sign::non_negative, kMaxCount, count)) return *f;
  a.tdp_w = static_cast<unsigned>(count);
  if (auto f = read_number(e, "price_usd_per_gpu_hour", w, Sign::non_negative, kMaxPrice, a.price_usd_per_gpu_hour))
    return *f;
  if (auto f = read_string(e, "price_note", w, false, a.price_note)) return *f;
  if (auto f = read_string(e, "sources", w, true, a.sources)) return *f;

  a.smi_total_bytes = smi_mib * kMiB;
  for (const char* key : {"memory_bandwidth_tb_s", "bf16_dense_tflops", "fp8_dense_tflops", "fp4_dense_tflops",
                          "interconnect_gb_s", "tdp_w", "price_usd_per_gpu_hour"})
    if (const json* v = member(e, key); v != nullptr && v->is_null()) a.unknown.emplace_back(key);
  if (!complete) return a;

  if (member(e, "name") == nullptr) return w.at("name", std::string(missing));
  if (member(e, "nominal_gb") == nullptr) return w.at("nominal_gb", std::string(missing));
  if (smi_mib == 0 && !device_total)
    return w.at("", "needs smi_total_mib or device_total (the device-reported total memory)");
  if (a.sources.empty()) a.sources = fmt::format("{} (no sources given)", w.origin);

  if (device_total && device_total->gib) {
    // round(gib x 2^30): the logged figure has two decimals, so the bytes are
    // the nearest byte to what the log printed, not a measurement to the byte.
    a.device_total_bytes = static_cast<Bytes>(std::llround(*device_total->gib * static_cast<double>(kGiB)));
  } else if (smi_mib != 0) {
    if (a.smi_total_bytes <= kSmiToDeviceGap)
      return w.at("smi_total_mib", fmt::format("expected more than 512 (the device-total estimate subtracts "
                                               "0.5 GiB), got {}",
                                               smi_mib));
    a.device_total_bytes = a.smi_total_bytes - kSmiToDeviceGap;
  } else {
    return w.child("device_total").at("gib", "missing; without smi_total_mib the device total must be given in GiB");
  }
  if (smi_mib != 0 && device_total && device_total->gib && a.device_total_bytes > a.smi_total_bytes)
    return w.child("device_total")
        .at("gib", fmt::format("expected at most smi_total_mib ({} MiB = {:.2f} GiB), got {}", smi_mib,
                               static_cast<double>(a.smi_total_bytes) / static_cast<double>(kGiB), *device_total->gib));
  if (device_total) {
    a.device_total_evidence = device_total->evidence;
    a.device_total_source = device_total->source;
  } else {
    a.device_total_evidence = Evidence::estimate;
    a.device_total_source = fmt::format("nvidia-smi memory.total {} MiB; device total = {}", smi_mib, kSmiRule);
  }
  return a;
}

// The top level: {"schema": "preflight.gpus/1", "note": "...", "accelerators": [...]}.
Result<const json*> accelerators_of(const json& doc, std::string_view origin) {
  if (!doc.is_object())
    return Error{std::string(origin), "",
                 fmt::format("expected a JSON object with an \"accelerators\" array, got {}", show(doc))};
  if (const json* schema = member(doc, "schema");
      schema != nullptr && (!schema->is_string() || schema->get_ref<const std::string&>() != GpuCatalogue::kSchema))
    return Error{std::string(origin), "/schema",
                 fmt::format("expected \"{}\", got {}", GpuCatalogue::kSchema, show(*schema))};
  const json* list = member(doc, "accelerators");
  if (list == nullptr)
    return Error{std::string(origin), "/accelerators", "missing; expected an array of accelerator objects"};
  if (!list->is_array())
    return Error{std::string(origin), "/accelerators",
                 fmt::format("expected an array of accelerator objects, got {}", show(*list))};
  return list;
}

Where entry_where(std::string_view origin, std::size_t i) { return Where{origin, fmt::format("/accelerators/{}", i)}; }

// Registers an entry's id, name and aliases in the lookup index. A key already
// taken by another entry is an error: a name must mean exactly one accelerator.
Fail add_keys(std::unordered_map<std::string, std::size_t>& index, const std::vector<Accelerator>& all, std::size_t idx,
              const Where& w) {
  const Accelerator& a = all[idx];
  const auto claim = [&](std::string_view kind, const std::string& text, const std::string& field) -> Fail {
    const std::string key = GpuCatalogue::lookup_key(text);
    if (key.empty()) return std::nullopt;
    auto [it, inserted] = index.emplace(key, idx);
    if (!inserted && it->second != idx)
      return w.at(field, fmt::format("{} '{}' already names '{}'", kind, text, all[it->second].id));
    return std::nullopt;
  };
  if (auto f = claim("id", a.id, "id")) return f;
  if (auto f = claim("name", a.name, "name")) return f;
  for (std::size_t i = 0; i < a.aliases.size(); ++i)
    if (auto f = claim("alias", a.aliases[i], fmt::format("aliases/{}", i))) return f;
  return std::nullopt;
}

// The embedded catalogue's quick index: a plan needs one accelerator of
// 33, so the entries are found by their lines in the house layout of data/gpus.json
// (each entry an object opened and closed at four spaces, its "id", "name" and
// "aliases" one line each at six) and only the entry asked for is parsed and
// validated. Anything not in that layout leaves the index unusable and every
// lookup to the full parse; GpuCatalogueQuick.* holds the two to the same answers.
struct QuickIndex {
  bool usable = false;
  std::vector<std::string_view> entries;                // each entry's text, "{" to "}"
  std::unordered_map<std::string, std::size_t> by_key;  // lookup_key(id | name | alias) -> entry
};

QuickIndex build_quick_index(std::string_view text) {
  QuickIndex index;
  auto entries = house_layout_entries(text, "accelerators");
  if (!entries) return index;
  for (std::size_t i = 0; i < entries->size(); ++i) {
    const auto entry = (*entries)[i];
    auto id = house_layout_string(entry, "id");
    auto name = house_layout_string(entry, "name");
    if (!id || !name) return index;
    auto keys = house_layout_strings(entry, "aliases");
    if (!keys) return index;
    keys->push_back(std::move(*id));
    keys->push_back(std::move(*name));
    for (const auto& k : *keys) {
      const auto key = GpuCatalogue::lookup_key(k);
      if (key.empty()) return index;
      if (auto [it, inserted] = index.by_key.emplace(key, i); !inserted && it->second != i) return index;
    }
  }
  index.entries = std::move(*entries);
  index.usable = true;
  return index;
}

const QuickIndex& quick_index() {
  static const QuickIndex index = build_quick_index(embedded::data_gpus_json);
  return index;
}

}  // namespace

std::size_t GpuCatalogue::embedded_quick_entries() { return quick_index().usable ? quick_index().entries.size() : 0; }

Result<Accelerator> GpuCatalogue::find_embedded(std::string_view name, std::string_view origin) {
  const QuickIndex& index = quick_index();
  constexpr std::string_view kOrigin = "data/gpus.json (embedded)";
  if (index.usable) {
    if (auto it = index.by_key.find(lookup_key(name)); it != index.by_key.end()) {
      auto entry = parse_json(index.entries[it->second], kOrigin);
      if (entry) {
        auto accelerator = build_entry(*entry, entry_where(kOrigin, it->second), true, kMissing);
        if (accelerator) return accelerator;
      }
    }
  }
  // Not found quickly (a typo gets its did-you-mean), or not in the house layout.
  auto found = embedded().find(name, origin);
  if (!found) return found.error();
  return **found;
}

std::string GpuCatalogue::lookup_key(std::string_view name) {
  std::string key;
  key.reserve(name.size());
  for (char c : name) {
    if (c == '-' || c == '_' || c == ' ') continue;
    // ASCII only, as std::tolower in the "C" locale (the program never sets another).
    key.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  }
  return key;
}

Result<GpuCatalogue> GpuCatalogue::parse(std::string_view json_text, std::string_view origin) {
  try {
    auto doc = parse_json(json_text, origin);
    if (!doc) return doc.error();
    auto list = accelerators_of(*doc, origin);
    if (!list) return list.error();

    GpuCatalogue catalogue;
    std::unordered_map<std::string, std::size_t> first_at;  // id -> position in the file
    for (std::size_t i = 0; i < (*list)->size(); ++i) {
      const json& entry = (**list)[i];
      const Where w = entry_where(origin, i);
      auto accelerator = build_entry(entry, w, true, kMissing);
      if (!accelerator) return accelerator.error();
      if (auto [it, inserted] = first_at.emplace(accelerator->id, i); !inserted)
        return w.at("id", fmt::format("duplicate id '{}' (first at /accelerators/{})", accelerator->id, it->second));
      catalogue.accelerators_.push_back(std::move(accelerator).value());
      if (auto f = add_keys(catalogue.index_, catalogue.accelerators_, i, w)) return *f;
    }
    catalogue.source_owned_ = std::make_shared<const std::string>(json_text);
    catalogue.source_ = *catalogue.source_owned_;
    return catalogue;
  } catch (const json::exception& e) {
    // Not expected (every access above is type-checked first); kept so that no
    // exception escapes a parser fed arbitrary input.
    return Error{std::string(origin), "", "invalid catalogue: " + escape_control(e.what())};
  }
}

const GpuCatalogue& GpuCatalogue::embedded() {
  static const GpuCatalogue catalogue = [] {
    auto parsed = parse(embedded::data_gpus_json, "data/gpus.json (embedded)");
    if (!parsed) throw std::logic_error("the embedded GPU catalogue is invalid: " + parsed.error().to_string());
    auto built = std::move(parsed).value();
    built.source_owned_.reset();  // the binary's own bytes outlive every catalogue
    built.source_ = embedded::data_gpus_json;
    return built;
  }();
  return catalogue;
}

Result<GpuCatalogue> GpuCatalogue::merged_with(std::string_view override_json, std::string_view origin) const {
  try {
    auto doc = parse_json(override_json, origin);  // core/json_read.h: depth-bounded, duplicate keys refused
    if (!doc) return doc.error();
    auto list = accelerators_of(*doc, origin);
    if (!list) return list.error();

    GpuCatalogue merged;
    merged.accelerators_ = accelerators_;
    // Each entry's object as this catalogue was given (it parsed once, so it parses again).
    auto base = parse_json(source_, "the catalogue being overridden");
    if (!base) return base.error();
    auto base_list = accelerators_of(*base, "the catalogue being overridden");
    if (!base_list) return base_list.error();
    std::vector<json> raw(std::make_move_iterator((*base_list)->begin()), std::make_move_iterator((*base_list)->end()));
    std::unordered_map<std::string, std::size_t> by_id;
    for (std::size_t j = 0; j < accelerators_.size(); ++j) by_id.emplace(accelerators_[j].id, j);

    // Entries the override touches, with where they are in the override text.
    std::vector<std::pair<std::size_t, Where>> changed, added;
    std::unordered_map<std::string, std::size_t> first_at;
    for (std::size_t i = 0; i < (*list)->size(); ++i) {
      const json& entry = (**list)[i];
      const Where w = entry_where(origin, i);
      // Check the fields given on their own first, so type errors point here.
      auto given = build_entry(entry, w, false, kMissing);
      if (!given) return given.error();
      const std::string& id = given->id;
      if (auto [it, inserted] = first_at.emplace(id, i); !inserted)
        return w.at("id", fmt::format("duplicate id '{}' (first at /accelerators/{})", id, it->second));
      if (auto known = by_id.find(id); known != by_id.end()) {
        // Field-by-field override; objects and arrays (device_total, aliases)
        // are replaced whole, which is what a user correcting them means.
        const std::size_t j = known->second;
        for (const auto& [key, value] : entry.items()) raw[j][key] = value;
        auto rebuilt = build_entry(raw[j], w, true, kMissing);
        if (!rebuilt) return rebuilt.error();
        merged.accelerators_[j] = std::move(rebuilt).value();
        changed.emplace_back(j, w);
      } else {
        auto fresh = build_entry(entry, w, true,
                                 fmt::format("missing; '{}' is not in the catalogue, so a new entry needs name, "
                                             "nominal_gb and smi_total_mib or device_total",
                                             id));
        if (!fresh) return fresh.error();
        merged.accelerators_.push_back(std::move(fresh).value());
        raw.push_back(entry);
        added.emplace_back(merged.accelerators_.size() - 1, w);
      }
    }

    // Rebuild the index: untouched entries cannot clash (this catalogue was
    // valid), so any clash is reported against the override entry causing it.
    std::vector<bool> touched(merged.accelerators_.size(), false);
    for (const auto& [j, w] : changed) touched[j] = true;
    for (const auto& [j, w] : added) touched[j] = true;
    for (std::size_t j = 0; j < merged.accelerators_.size(); ++j)
      if (!touched[j])
        if (auto f = add_keys(merged.index_, merged.accelerators_, j, Where{origin, ""})) return *f;
    for (const auto* group : {&changed, &added})
      for (const auto& [j, w] : *group)
        if (auto f = add_keys(merged.index_, merged.accelerators_, j, w)) return *f;

    json document = {{"accelerators", std::move(raw)}};
    merged.source_owned_ =
        std::make_shared<const std::string>(document.dump(-1, ' ', false, json::error_handler_t::replace));
    merged.source_ = *merged.source_owned_;
    return merged;
  } catch (const json::exception& e) {
    return Error{std::string(origin), "", "invalid catalogue: " + escape_control(e.what())};
  }
}

Result<const Accelerator*> GpuCatalogue::find(std::string_view name, std::string_view origin) const {
  const std::string key = lookup_key(name);
  if (auto it = index_.find(key); !key.empty() && it != index_.end()) return &accelerators_[it->second];

  // Suggest the closest alias or id (aliases first: they are what people type).
  const std::string* best = nullptr;
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  constexpr std::size_t kLongestWorthComparing = 64;
  if (!key.empty() && key.size() <= kLongestWorthComparing) {
    for (const auto& a : accelerators_) {
      const auto consider = [&](const std::string& candidate) {
        const std::size_t d = edit_distance(key, lookup_key(candidate));
        if (d < best_distance) {
          best_distance = d;
          best = &candidate;
        }
      };
      for (const auto& alias : a.aliases) consider(alias);
      consider(a.id);
    }
  }
  const std::size_t close_enough = std::max<std::size_t>(2, key.size() / 3);
  if (best != nullptr && best_distance <= close_enough)
    return Error{std::string(origin), "",
                 fmt::format("unknown GPU '{}'; did you mean '{}'? (preflight gpus lists the "
                             "catalogue)",
                             name, *best)};
  return Error{std::string(origin), "", fmt::format("unknown GPU '{}' (preflight gpus lists the catalogue)", name)};
}

bool Accelerator::is_unknown(std::string_view key) const {
  return std::find(unknown.begin(), unknown.end(), key) != unknown.end();
}

}  // namespace preflight
