#include "api.h"

#include <fmt/format.h>

#include <functional>
#include <set>
#include <sstream>

#include "commands.h"
#include "core/json_read.h"
#include "core/result.h"
#include "core/text.h"

namespace preflight::cli {

namespace {

using Runner = int (*)(const Options&, Io&);

const std::map<std::string, Runner>& commands() {
  static const std::map<std::string, Runner> table = {
      {"plan", run_plan},     {"explain", run_explain}, {"inspect", run_inspect}, {"fit", run_fit},
      {"max", run_max},       {"sweep", run_sweep},     {"launch", run_launch},   {"gpus", run_gpus},
      {"models", run_models}, {"engines", run_engines},
  };
  return table;
}

// Keys that take one string value, and the Options member they fill.
const std::map<std::string, std::string Options::*>& string_keys() {
  static const std::map<std::string, std::string Options::*> table = {
      {"model", &Options::model},
      {"gpus", &Options::gpus},
      {"context", &Options::context},
      {"concurrency", &Options::concurrency},
      {"mix", &Options::mix},
      {"kv_dtype", &Options::kv_dtype},
      {"state_dtype", &Options::state_dtype},
      {"state_slots", &Options::state_slots},
      {"reserve", &Options::reserve},
      {"chunk", &Options::chunk},
      {"kv_offload", &Options::kv_offload},
      {"ttft", &Options::ttft},
      {"tpot", &Options::tpot},
      {"rate", &Options::rate},
      {"input_tokens", &Options::input_tokens},
      {"output_tokens", &Options::output_tokens},
      {"tp", &Options::tp},
      {"ep", &Options::ep},
      {"pp", &Options::pp},
      {"dp", &Options::dp},
      {"dcp", &Options::dcp},
      {"gpus_per_node", &Options::gpus_per_node},
      {"prefill_gpus", &Options::prefill_gpus},
      {"decode_gpus", &Options::decode_gpus},
      {"prefill_tp", &Options::prefill_tp},
      {"prefill_ep", &Options::prefill_ep},
      {"prefill_pp", &Options::prefill_pp},
      {"prefill_dp", &Options::prefill_dp},
      {"decode_tp", &Options::decode_tp},
      {"decode_ep", &Options::decode_ep},
      {"decode_pp", &Options::decode_pp},
      {"decode_dp", &Options::decode_dp},
      {"engine", &Options::engine},
      {"engine_version", &Options::engine_version},
      {"gpu_memory_utilization", &Options::gpu_memory_utilization},
      {"mem_fraction_static", &Options::mem_fraction_static},
      {"max_num_batched_tokens", &Options::max_num_batched_tokens},
      {"max_num_seqs", &Options::max_num_seqs},
      {"block_size", &Options::block_size},
      {"mamba_full_memory_ratio", &Options::mamba_full_memory_ratio},
      {"radix_cache", &Options::radix_cache},
      {"quantize", &Options::quantize},
      {"dtype", &Options::dtype},
      {"prompt_tokens", &Options::prompt_tokens},
      {"price", &Options::price},
      {"utilisation", &Options::utilisation},
      {"api_price", &Options::api_price},
      {"staging_copies", &Options::staging_copies},
      {"download_gbps", &Options::download_gbps},
      {"read_gb_s", &Options::read_gb_s},
      {"scale_out_gb_s", &Options::scale_out_gb_s},
      {"spec_tokens", &Options::spec_tokens},
      {"spec_acceptance", &Options::spec_acceptance},
      {"draft", &Options::draft},
      {"counts", &Options::counts},
      {"max_gpus", &Options::max_gpus},
      {"solve", &Options::solve},
      {"shard_headers", &Options::shard_headers},
  };
  return table;
}

constexpr std::size_t kMaxValueLength = 256;

std::string normalised(std::string key) {
  for (auto& c : key)
    if (c == '-') c = '_';
  return key;
}

// Values the CLI would parse from text; the option parsers then validate them.
Result<std::string> value_text(const std::string& key, const nlohmann::json& v) {
  std::string text;
  if (v.is_string()) text = v.get<std::string>();
  else if (v.is_number_unsigned()) text = std::to_string(v.get<std::uint64_t>());
  else if (v.is_number_integer()) text = std::to_string(v.get<std::int64_t>());
  else if (v.is_number_float()) text = fmt::format("{}", v.get<double>());
  else return Error{key, "", fmt::format("expected a string or a number, got {}", show(v))};
  if (text.size() > kMaxValueLength)
    return Error{key, "", fmt::format("value longer than {} characters", kMaxValueLength)};
  return text;
}

std::optional<Error> set_key(Options& o, const std::string& raw_key, const nlohmann::json& v) {
  const auto key = normalised(raw_key);
  if (key == "format") return std::nullopt;  // always json
  if (key == "catalogue") return Error{"catalogue", "", "the web API reads no files; the embedded GPU catalogue applies"};
  if (key == "gpu") {
    const auto add = [&](const nlohmann::json& one) -> std::optional<Error> {
      auto t = value_text("gpu", one);
      if (!t) return t.error();
      if (o.gpu_families.size() >= 64) return Error{"gpu", "", "at most 64 families"};
      o.gpu_families.push_back(*t);
      return std::nullopt;
    };
    if (v.is_array()) {
      for (const auto& one : v)
        if (auto e = add(one)) return e;
      return std::nullopt;
    }
    return add(v);
  }
  if (key == "enforce_eager" || key == "tensors") {
    bool& flag = key == "tensors" ? o.tensors : o.enforce_eager;
    if (v.is_boolean()) flag = v.get<bool>();
    else if (v == "true" || v == "1") flag = true;
    else if (v == "false" || v == "0" || v == "") flag = false;
    else return Error{key, "", fmt::format("expected true or false, got {}", show(v))};
    return std::nullopt;
  }
  const auto& keys = string_keys();
  const auto it = keys.find(key);
  if (it == keys.end()) return Error{raw_key, "", "unknown parameter (the API takes the CLI's long flags without dashes)"};
  auto t = value_text(key, v);
  if (!t) return t.error();
  o.*(it->second) = *t;
  return std::nullopt;
}

Result<std::string> upload_text(const char* key, const nlohmann::json& v) {
  if (v.is_object()) return v.dump();
  if (v.is_string()) return v.get<std::string>();
  return Error{key, "", "expected the file's JSON (an object) or its text"};
}

}  // namespace

bool api_command_known(const std::string& command) { return commands().count(command) > 0; }

Result<Options> options_from_json(const nlohmann::json& body) {
  if (!body.is_object()) return Error{"request body", "", "expected a JSON object of parameters"};
  Options o;
  o.no_files = true;
  UploadedModel upload;
  bool uploaded = false;
  for (const auto& [raw_key, v] : body.items()) {
    const auto key = normalised(raw_key);
    if (key == "model_config" || key == "model_index" || key == "model_listing") {
      if (v.is_null()) continue;
      auto text = upload_text(key.c_str(), v);
      if (!text) return text.error();
      if (key == "model_config") upload.config = *text, uploaded = true;
      else if (key == "model_index") upload.index = *text;
      else upload.listing = *text;
      continue;
    }
    if (key == "model_name") {
      auto t = value_text(key, v);
      if (!t) return t.error();
      upload.name = *t;
      continue;
    }
    if (v.is_null()) continue;
    if (auto e = set_key(o, raw_key, v)) return *e;
  }
  if (!upload.index.empty() || !upload.listing.empty())
    if (!uploaded) return Error{"model_config", "", "an uploaded index or hub listing needs the config.json too"};
  if (uploaded) {
    if (!o.model.empty()) return Error{"model", o.model, "give either a catalogue model or an uploaded config, not both"};
    o.upload = std::move(upload);
  }
  return o;
}

Result<Options> options_from_query(const std::multimap<std::string, std::string>& params) {
  Options o;
  o.no_files = true;
  for (const auto& [key, value] : params) {
    if (value.empty()) continue;
    if (auto e = set_key(o, key, nlohmann::json(value))) return *e;
  }
  return o;
}

std::string api_error_json(int status, const std::string& message) {
  return nlohmann::json{{"error", one_line(message)}, {"status", status}}.dump(-1, ' ', false,
                                                                            nlohmann::json::error_handler_t::replace);
}

ApiResponse run_api(const std::string& command, Options options) {
  ApiResponse r;
  const auto it = commands().find(command);
  if (it == commands().end()) {
    r.status = 404;
    r.exit_code = 2;
    r.body = api_error_json(404, fmt::format("no API command '{}'", command));
    return r;
  }
  options.format = "json";
  options.no_files = true;
  std::ostringstream out, err;
  Io io{out, err};
  try {
    r.exit_code = it->second(options, io);
  } catch (const InputError& e) {
    r.exit_code = 2;
    err << "preflight: " << e.what() << "\n";
  } catch (const RequestStopped& e) {
    // A budget check stopped the work: the server's limit, not the input, ended it.
    r.status = 503;
    r.exit_code = 3;
    r.body = api_error_json(503, e.what());
    return r;
  } catch (const std::exception& e) {
    r.status = 500;
    r.exit_code = 3;
    r.body = api_error_json(500, fmt::format("internal error: {}", e.what()));
    return r;
  }
  if (r.exit_code == 2 || out.str().empty()) {
    auto message = err.str();
    if (message.rfind("preflight: ", 0) == 0) message = message.substr(11);
    while (!message.empty() && message.back() == '\n') message.pop_back();
    if (message.empty()) message = "bad input";
    r.status = 400;
    r.exit_code = 2;
    r.body = api_error_json(400, message);
    return r;
  }
  r.status = 200;
  r.body = out.str();
  return r;
}

}  // namespace preflight::cli
