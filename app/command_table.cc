#include "command_table.h"

#include "commands.h"

namespace preflight::cli {

namespace {

constexpr CommandRow kCommands[] = {
    {"plan", "the verdict: per-rank ledger, first boundary crossed, headroom",
     "  preflight plan --gpus 8xH100\n"
     "  preflight plan kimi-k3 --gpus 16xH200 --context 128K --concurrency 8\n"
     "  preflight plan --gpus 32xH100 --context 1M --kv-dtype fp8 --dcp 8 --format json\n"
     "  preflight plan deepseek-v3 --gpus 16xH200 --mix 2K:70%,32K:25%,128K:5% --concurrency 64\n"
     "  preflight plan --gpus 8xB300 --context 128K --ttft 5s --tpot 50ms --rate 0.2\n"
     "  preflight plan --prefill-gpus 8xB300 --decode-gpus 16xH200 --context 128K --concurrency 8",
     kPlan, run_plan},
    {"explain", "the same plan with the arithmetic, evidence and source behind every figure",
     "  preflight explain --gpus 8xB300 --context 1M --concurrency 4\n"
     "  preflight explain --gpus 8xB300 --context 1M --only kv",
     kExplain, run_explain},
    {"fit", "minimum GPU count per family, with the layout that achieves it and the binding resource",
     "  preflight fit kimi-k3\n  preflight fit kimi-k3 --gpu H100 --gpu B300 --context 128K --engine vllm\n"
     "  preflight fit deepseek-v3 --context 32K --ttft 2s --tpot 50ms --rate 4",
     kFit, run_fit},
    {"max", "the largest context, number of concurrent requests or request rate that fits, and what binds",
     "  preflight max --gpus 8xB300 --solve context\n  preflight max --gpus 16xH200 --context 128K --solve "
     "concurrency\n"
     "  preflight max deepseek-v3 --gpus 16xH200 --engine vllm --solve rate --ttft 2s --tpot 50ms --context 4K "
     "--input-tokens 3000 --output-tokens 1000",
     kMax, run_max},
    {"sweep", "a family x GPU-count grid of verdicts and headroom (the cheat sheet)",
     "  preflight sweep --gpu H100 --gpu H200 --gpu B300 --counts 8..64 --context 128K\n"
     "  preflight sweep deepseek-v3 --counts 8,16,32 --format csv",
     kSweep, run_sweep},
    {"launch", "the vLLM or SGLang command line for a plan",
     "  preflight launch --gpus 8xB300 --engine vllm --context 1M\n"
     "  preflight launch --gpus 32xH100 --engine sglang --context 128K\n"
     "  preflight launch --prefill-gpus 8xB300 --decode-gpus 8xB300 --engine sglang --context 128K",
     kLaunch, run_launch},
    {"inspect", "the inventory: parameters and bytes by module and dtype, active parameters, cache and state",
     "  preflight inspect kimi-k3\n  preflight inspect ./Kimi-K3/config.json --format json", kInspect, run_inspect},
    {"serve", "the web planner and its JSON API (the same library, on loopback by default)",
     "  preflight serve                 # then open http://127.0.0.1:8080/\n"
     "  preflight serve --port 9000\n"
     "  curl -s 'http://127.0.0.1:8080/api/plan?gpus=8xH100&context=128K'\n"
     "  curl -s -X POST http://127.0.0.1:8080/api/plan -d '{\"gpus\": \"8xB300\", \"context\": \"1M\"}'",
     kServe, run_serve},
    {"gpus", "the accelerator catalogue with capacities and sources",
     "  preflight gpus\n  preflight gpus --format json --catalogue my-gpus.json", kCatalogue, run_gpus},
    {"models", "the model catalogue", "  preflight models", kCatalogue, run_models},
    {"engines", "the engine profiles: defaults and memory rules of vLLM and SGLang, with sources",
     "  preflight engines\n  preflight engines --format json", kCatalogue, run_engines},
};

}  // namespace

std::span<const CommandRow> command_table() { return kCommands; }

}  // namespace preflight::cli
