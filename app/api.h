// The web API over the commands: a request's parameters (a JSON object or a
// query string, named like the CLI's flags without dashes) become the same
// Options the command line fills, the command runs with --format json into
// string streams, and its output is the response body: the API's payloads are
// the CLI's JSON, byte for byte. Requests never touch the file system: MODEL
// and --draft must be catalogue names or an uploaded config.json.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_options.h"
#include "core/result.h"

namespace preflight::cli {

// The commands the API serves: plan, explain, inspect, fit, max, sweep,
// launch, gpus, models, engines.
bool api_command_known(const std::string& command);

// Options from a JSON object body. Keys are the CLI's long flags without the
// dashes, in snake_case or kebab-case ("context", "kv_dtype", "gpu": ["H100"]);
// "model_config" (a config.json as an object or text), "model_index" and
// "model_listing" upload a model. Errors name the key and the value.
Result<Options> options_from_json(const nlohmann::json& body);

// Options from query parameters (GET): the same keys; "gpu" may repeat.
Result<Options> options_from_query(const std::multimap<std::string, std::string>& params);

struct ApiResponse {
  int status = 200;   // 200 (the command ran: the plan fits or not), 400 bad input, 500 internal
  int exit_code = 0;  // the CLI's exit code for the same input
  std::string body;   // JSON
};

// Runs `command` on `options` (format forced to json, files refused).
ApiResponse run_api(const std::string& command, Options options);

// {"error": message, "status": status}
std::string api_error_json(int status, const std::string& message);

}  // namespace preflight::cli
