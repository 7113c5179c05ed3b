#include "cli_options.h"

namespace preflight::cli {

namespace {
void add_format(CLI::App& app, Options& o, bool with_md = true) {
  app.add_option("--format", o.format, with_md ? "output: table (default), json, md" : "output: table, json")
      ->check(CLI::IsMember(with_md ? std::vector<std::string>{"table", "json", "md"}
                                    : std::vector<std::string>{"table", "json"}));
}
}  // namespace

void add_plan_options(CLI::App& app, Options& o) {
  app.add_option("MODEL", o.model, "catalogue name (default kimi-k3), or a path to config.json or its folder");
  app.add_option("--gpus", o.gpus, "COUNTxFAMILY, e.g. 8xH100, 16xH200, 8xB300")->required();
  app.add_option("--context", o.context, "tokens per request: 131072, 128K, 1M (default: the model's window)")
      ->group("Workload (turns on the second pass)");
  app.add_option("--concurrency", o.concurrency, "running requests (default 1)")->group("Workload (turns on the second pass)");
  app.add_option("--kv-dtype", o.kv_dtype, "MLA cache dtype: bf16 (default) or fp8")->group("Workload (turns on the second pass)");
  app.add_option("--state-dtype", o.state_dtype, "KDA recurrent state dtype: fp32 (default, engines' default) or bf16")
      ->group("Workload (turns on the second pass)");
  app.add_option("--state-slots", o.state_slots, "KDA state slots per running request (default 5, SGLang's buffering)")
      ->group("Workload (turns on the second pass)");
  app.add_option("--reserve", o.reserve, "runtime reserve per GPU: 10% (default) or bytes such as 8GiB")
      ->group("Workload (turns on the second pass)");
  app.add_option("--chunk", o.chunk, "prefill chunk tokens for the activation estimate (default 16384)")
      ->group("Workload (turns on the second pass)");
  app.add_option("--tp", o.tp, "attention tensor parallel size (default: largest dividing heads and GPUs)")
      ->group("Parallelism");
  app.add_option("--dcp", o.dcp, "decode context parallel size dividing TP (default 1)")->group("Parallelism");
  app.add_option("--catalogue", o.catalogue, "extra GPU catalogue JSON: adds or overrides accelerators");
  add_format(app, o);
}

void add_inspect_options(CLI::App& app, Options& o) {
  app.add_option("MODEL", o.model, "catalogue name (default kimi-k3), or a path to config.json or its folder");
  add_format(app, o);
}

void add_catalogue_options(CLI::App& app, Options& o) {
  app.add_option("--catalogue", o.catalogue, "extra GPU catalogue JSON: adds or overrides accelerators");
  add_format(app, o);
}

}  // namespace preflight::cli
