// Fuzzes the web API's request reader and the commands behind it: any request
// body must give a JSON answer (200, 400 or 404), never a crash, a hang or a
// 500. The first byte picks the command; the rest is the body, read with the
// server's own parser (core/json_read.h: depth-bounded), whose errors are one line.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "api.h"
#include "core/json_read.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const char* const kCommands[] = {"plan", "inspect", "max", "launch", "explain", "nope"};
  const std::string command = kCommands[data[0] % (sizeof(kCommands) / sizeof(kCommands[0]))];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const auto body = preflight::parse_json(text, "request body");
  if (!body) {
    if (body.error().to_string().find('\n') != std::string::npos) __builtin_trap();
    return 0;
  }
  auto options = preflight::cli::options_from_json(*body);
  if (!options) return 0;
  const auto response = preflight::cli::run_api(command, std::move(options).value());
  if (response.status == 500) __builtin_trap();  // an internal error is a bug, not an answer
  (void)nlohmann::json::parse(response.body);    // every answer is JSON (throws, and so fails, otherwise)
  return 0;
}
