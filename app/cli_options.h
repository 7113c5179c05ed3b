// Command-line options of every sub-command, as one plain struct (the strings
// are parsed by the library's unit parsers so errors name the flag).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace preflight::cli {

struct Options {
  std::string model;             // catalogue name or path; empty = kimi-k3
  std::string gpus;              // "8xH100"
  std::string format = "table";  // table | json | md
  std::string catalogue;         // extra GPU catalogue file
  // Workload (any of these turns on the second pass).
  std::string context;           // "1M", "128K", "131072"
  std::string concurrency;
  std::string kv_dtype;
  std::string state_dtype;
  std::string state_slots;
  std::string reserve;           // "10%" or "8GiB"
  std::string chunk;
  // Parallelism.
  std::string tp;
  std::string dcp;
};

void add_plan_options(CLI::App& app, Options& o);
void add_inspect_options(CLI::App& app, Options& o);
void add_catalogue_options(CLI::App& app, Options& o);

}  // namespace preflight::cli
