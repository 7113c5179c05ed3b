#include "api.h"

#include <fmt/format.h>

#include <functional>
#include <set>
#include <sstream>

#include "commands.h"
#include "core/json_read.h"
#include "core/result.h"
#include "core/text.h"
#include "option_table.h"

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

constexpr std::size_t kMaxValueLength = 256;

std::string normalised(std::string key) {
  for (auto& c : key)
    if (c == '-') c = '_';
  return key;
}

// Values the CLI would parse from text; the option parsers then validate them.
Result<std::string> value_text(const std::string& key, const nlohmann::json& v) {
  std::string text;
  if (v.is_string())
    text = v.get<std::string>();
  else if (v.is_number_unsigned())
    text = std::to_string(v.get<std::uint64_t>());
  else if (v.is_number_integer())
    text = std::to_string(v.get<std::int64_t>());
  else if (v.is_number_float())
    text = fmt::format("{}", v.get<double>());
  else
    return Error{key, "", fmt::format("expected a string or a number, got {}", show(v))};
  if (text.size() > kMaxValueLength)
    return Error{key, "", fmt::format("value longer than {} characters", kMaxValueLength)};
  return text;
}

// A key is an option of the table (option_table.h) that the API takes:
// its flag without dashes, '-' as '_'.
std::optional<Error> set_key(Options& o, const std::string& raw_key, const nlohmann::json& v) {
  const auto key = normalised(raw_key);
  const auto* spec = option_for_key(key);
  if (spec == nullptr)
    return Error{raw_key, "", "unknown parameter (the API takes the CLI's long flags without dashes)"};
  if (spec->api == ApiUse::ignored) return std::nullopt;
  if (spec->api == ApiUse::refused) return Error{key, "", std::string(spec->api_refusal)};
  if (const auto* list = std::get_if<std::vector<std::string> Options::*>(&spec->member)) {
    auto& values = o.**list;
    const auto add = [&](const nlohmann::json& one) -> std::optional<Error> {
      auto t = value_text(key, one);
      if (!t) return t.error();
      if (values.size() >= 64) return Error{key, "", "at most 64 values"};
      values.push_back(*t);
      return std::nullopt;
    };
    if (v.is_array()) {
      for (const auto& one : v)
        if (auto e = add(one)) return e;
      return std::nullopt;
    }
    return add(v);
  }
  if (const auto* flag = std::get_if<bool Options::*>(&spec->member)) {
    bool& out = o.**flag;
    if (v.is_boolean())
      out = v.get<bool>();
    else if (v == "true" || v == "1")
      out = true;
    else if (v == "false" || v == "0" || v == "")
      out = false;
    else
      return Error{key, "", fmt::format("expected true or false, got {}", show(v))};
    return std::nullopt;
  }
  auto t = value_text(key, v);
  if (!t) return t.error();
  o.*std::get<std::string Options::*>(spec->member) = *t;
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
      if (key == "model_config")
        upload.config = *text, uploaded = true;
      else if (key == "model_index")
        upload.index = *text;
      else
        upload.listing = *text;
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
    if (!o.model.empty())
      return Error{"model", o.model, "give either a catalogue model or an uploaded config, not both"};
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
  return nlohmann::json{{"error", one_line(message)}, {"status", status}}.dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
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
