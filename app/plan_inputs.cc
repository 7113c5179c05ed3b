#include "plan_inputs.h"

#include "hub_source.h"

#include <fmt/format.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/units.h"
#include "hardware/gpu_catalogue.h"

namespace preflight::cli {

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
  if (o.no_files) return Error{"catalogue", "", "the web API reads no files; the embedded GPU catalogue applies"};
  auto text = read_file(o.catalogue);
  if (!text) return text.error();
  return GpuCatalogue::embedded().merged_with(*text, o.catalogue);
}

int fail(Io& io, const Error& e) {
  io.err << "preflight: " << e.to_string() << "\n";
  return 2;
}

namespace {

// A plain decimal such as 0.95 (no exponent, no sign), for the engines' fractions.
Result<double> parse_number(const std::string& text, const char* flag) {
  double v = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v, std::chars_format::fixed);
  if (ec != std::errc() || ptr != end || !(v > 0))
    return Error{flag, "", fmt::format("expected a positive number such as 0.9, got '{}'", text)};
  return v;
}

// A share in (0, 1]: 0.6 or 60%.
Result<double> parse_fraction(const std::string& text, const char* flag) {
  const bool percent = !text.empty() && text.back() == '%';
  auto v = parse_number(percent ? text.substr(0, text.size() - 1) : text, flag);
  if (!v) return Error{flag, "", fmt::format("expected a share such as 0.6 or 60%, got '{}'", text)};
  const double share = percent ? *v / 100.0 : *v;
  if (share > 1.0) return Error{flag, "", fmt::format("expected a share at most 1 (100%), got '{}'", text)};
  return share;
}

// An optional decimal flag into `out` (left unchanged when the flag is absent).
std::optional<Error> set_number(const std::string& text, const char* flag, double& out) {
  if (text.empty()) return std::nullopt;
  auto v = parse_number(text, flag);
  if (!v) return v.error();
  out = *v;
  return std::nullopt;
}

// An optional share flag (0.6 or 60%) into `out`.
std::optional<Error> set_fraction(const std::string& text, const char* flag, double& out) {
  if (text.empty()) return std::nullopt;
  auto v = parse_fraction(text, flag);
  if (!v) return v.error();
  out = *v;
  return std::nullopt;
}

template <typename T>
std::optional<Error> set_positive(const std::string& text, const char* flag, T& out) {
  if (text.empty()) return std::nullopt;
  auto v = parse_positive_integer(text, flag);
  if (!v) return v.error();
  out = *v;
  return std::nullopt;
}

}  // namespace

namespace {

Result<HubFetchOptions> hub_options(const Options& o) {
  HubFetchOptions hub{o.no_cache, o.refresh};
  if (!o.shard_headers.empty()) {
    auto mode = parse_shard_header_mode(o.shard_headers);
    if (!mode) return mode.error();
    hub.shard_headers = *mode;
  }
  return hub;
}

// MODEL or --draft: files and hub ids on the command line; catalogue names (and
// hub ids with serve --hub) through the web API.
Result<LoadedModel> load_named_model(const Options& o, const std::string& name, const ModelOverrides& overrides) {
  auto hub = hub_options(o);
  if (!hub) return hub.error();
  if (o.no_files) return load_catalogue_or_hub(name, overrides, o.allow_hub, *hub);
  return load_model(name, overrides, &*hub);
}

}  // namespace

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
    if (auto e = set_positive(o.concurrency, "--concurrency", w.concurrency)) return *e;
  }
  if (any(o.kv_dtype)) w.kv_dtype = o.kv_dtype;
  if (any(o.state_dtype)) w.state_dtype = o.state_dtype;
  if (any(o.state_slots)) {
    if (auto e = set_positive(o.state_slots, "--state-slots", w.state_slots)) return *e;
  }
  if (any(o.reserve)) {
    auto v = parse_reserve(o.reserve, "--reserve");
    if (!v) return v.error();
    w.reserve = *v;
  }
  if (any(o.chunk)) {
    if (auto e = set_positive(o.chunk, "--chunk", w.chunk_tokens)) return *e;
  }
  auto& l = r.layout;
  if (auto e = set_positive(o.tp, "--tp", l.tp)) return *e;
  if (auto e = set_positive(o.ep, "--ep", l.ep)) return *e;
  if (auto e = set_positive(o.pp, "--pp", l.pp)) return *e;
  if (auto e = set_positive(o.dp, "--dp", l.dp)) return *e;
  if (auto e = set_positive(o.dcp, "--dcp", l.dcp)) return *e;
  if (auto e = set_positive(o.gpus_per_node, "--gpus-per-node", l.gpus_per_node)) return *e;

  auto& e = r.engine;
  if (!o.engine.empty()) {
    auto kind = parse_engine(o.engine);
    if (!kind) return kind.error();
    e.kind = *kind;
  }
  e.version = o.engine_version;
  if (auto err = set_number(o.gpu_memory_utilization, "--gpu-memory-utilization", e.gpu_memory_utilization)) return *err;
  if (auto err = set_number(o.mem_fraction_static, "--mem-fraction-static", e.mem_fraction_static)) return *err;
  if (auto err = set_number(o.mamba_full_memory_ratio, "--mamba-full-memory-ratio", e.mamba_full_memory_ratio)) return *err;
  if (auto err = set_positive(o.max_num_batched_tokens, "--max-num-batched-tokens", e.max_num_batched_tokens)) return *err;
  if (auto err = set_positive(o.max_num_seqs, "--max-num-seqs", e.max_num_seqs)) return *err;
  if (auto err = set_positive(o.block_size, "--block-size", e.block_size)) return *err;
  if (!o.radix_cache.empty()) e.radix_cache = o.radix_cache;
  e.enforce_eager = o.enforce_eager;
  auto checked = validate_engine_options(e);
  if (!checked) return checked.error();

  if (any(o.spec_tokens) && o.spec_tokens != "0") {
    auto v = parse_positive_integer(o.spec_tokens, "--spec-tokens");
    if (!v) return v.error();
    if (*v > 64) return Error{"--spec-tokens", "", fmt::format("expected at most 64 draft tokens per step, got {}", *v)};
    w.spec_tokens = *v;
  }
  auto& p = r.perf;
  if (auto err = set_positive(o.prompt_tokens, "--prompt-tokens", p.prompt_tokens)) return *err;
  if (auto err = set_positive(o.staging_copies, "--staging-copies", p.staging_copies)) return *err;
  if (auto err = set_number(o.price, "--price", p.price_usd_per_gpu_hour)) return *err;
  if (auto err = set_number(o.api_price, "--api-price", p.api_usd_per_m)) return *err;
  if (auto err = set_number(o.download_gbps, "--download-gbps", p.download_gbps)) return *err;
  if (auto err = set_number(o.read_gb_s, "--read-gb-s", p.read_gb_s)) return *err;
  if (o.scale_out_gb_s == "0") p.scale_out_gb_s = 0;  // 0: cross-node traffic at the NVLink rate (stated)
  else if (auto err = set_number(o.scale_out_gb_s, "--scale-out-gb-s", p.scale_out_gb_s)) return *err;
  if (auto err = set_fraction(o.utilisation, "--utilisation", p.utilisation)) return *err;
  if (auto err = set_fraction(o.spec_acceptance, "--spec-acceptance", p.spec_acceptance)) return *err;
  if (!o.draft.empty()) {
    if (w.spec_tokens == 0) return Error{"--draft", "", "a draft model needs --spec-tokens N (draft tokens per step)"};
    auto draft = load_named_model(o, o.draft, {});
    if (!draft) return draft.error();
    r.draft = std::make_shared<const ModelSpec>(std::move(draft->model));
  }
  return r;
}

Result<LoadedModel> load_model_for(const Options& o) {
  if (o.upload) return load_uploaded_model(o.upload->name, o.upload->config, o.upload->index, o.upload->listing, {o.quantize, o.dtype});
  return load_named_model(o, o.model, {o.quantize, o.dtype});
}

Result<Cluster> resolve_cluster(const Options& o) {
  auto spec = parse_gpu_spec(o.gpus, "--gpus");
  if (!spec) return spec.error();
  auto catalogue = resolve_catalogue(o);
  if (!catalogue) return catalogue.error();
  auto gpu = catalogue->find(spec->family, "--gpus");
  if (!gpu) return gpu.error();
  return Cluster{**gpu, spec->count};
}

Result<Plan> make_plan(const Options& o) {
  auto cluster = resolve_cluster(o);
  if (!cluster) return cluster.error();
  auto loaded = load_model_for(o);
  if (!loaded) return loaded.error();
  auto request = plan_request(o);
  if (!request) return request.error();
  request.value().gpu_count = cluster->count;
  return build_plan(loaded->model, cluster->gpu, *request);
}

}  // namespace preflight::cli
