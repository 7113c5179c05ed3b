// The engine command line for a plan (`preflight launch`): vLLM's `vllm serve`
// or SGLang's `python -m sglang.launch_server`, one command per node when the
// layout spans nodes, every flag labelled with where its value came from (the
// plan, the user's option, a recipe, the engine sizing or the engine default).
//
// The plan is authoritative for what it decided (layout, context, cache and
// state dtypes, engine knobs); recipe flags that are not plan inputs follow as
// the recipe wrote them. Multi-node forms follow the engines' documents:
//  - SGLang: the same command on every node with --nnodes, --node-rank and
//    --dist-init-addr (docs.sglang.ai, "Multi-Node Deployment").
//  - vLLM, data parallel with each DP rank inside a node: node 0 serves the API
//    with --data-parallel-size-local, --data-parallel-address and
//    --data-parallel-rpc-port, the others add --headless and
//    --data-parallel-start-rank (docs.vllm.ai, serving/data_parallel_deployment.md).
//  - vLLM, one TP x PP group spanning nodes: multiprocessing with --nnodes,
//    --node-rank, --master-addr and --headless on the workers (docs.vllm.ai,
//    serving/parallelism_scaling.md, "Running vLLM with MultiProcessing").
//  - vLLM, DP ranks whose TP x PP group spans nodes: a Ray cluster (ray start
//    on every node, then one vllm serve with the Ray backends on node 0).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"
#include "engine/engine_options.h"
#include "launch/launch_setting.h"
#include "plan/plan.h"

namespace preflight {

// What the engine loads and what preflight knows about the model's kind.
struct LaunchModel {
  std::string ref;        // hub id ("moonshotai/Kimi-K3") or a local folder
  std::string described;  // "catalogue kimi-k3" / "a local path: ..."
  std::string revision;   // the hub commit read (a hub id as MODEL): --revision, so the engine loads those files
  bool local_path = false;
  bool moe = false;                    // routed experts (expert parallelism applies)
  bool kda_state = false;              // Kimi Delta Attention layers (vLLM keeps their state in FP32)
  bool recurrent_state = false;        // any fixed-state layer kind (KDA, Gated DeltaNet, Mamba-2)
  std::string auto_kv_dtype = "bf16";  // the engines' "auto" KV dtype: the model's (resolve_kv_dtype)
};

struct LaunchInput {
  EngineKind engine = EngineKind::vllm;
  LaunchModel model;
  std::string arch;  // GpuArch::arch; empty when unknown
  std::string arch_label;
  std::string arch_source;
  std::uint64_t gpus_per_node = 0;  // --gpus-per-node; 0: the plan's layout, else the accelerator's domain
  LaunchSettings settings;
  std::optional<EngineVersion> engine_version;  // --engine-version; none when not given
  std::string quantize;                         // --quantize as given
  std::string dtype;                            // --dtype as given
};

// One flag of the command, with its provenance.
struct LaunchFlag {
  std::string flag;
  std::optional<std::string> value;
  std::string group;      // "plan" | "user" | "recipe" | "engine" | "multi-node"
  std::string recipe_id;  // for group "recipe"
  std::string recipe_label;
  std::string source;  // the flag's source when it is not its group's
};

struct NodeCommand {
  std::uint64_t node = 0;
  std::string role;                  // "head: serves the API", "worker", ...
  std::vector<std::string> program;  // {"vllm", "serve", "moonshotai/Kimi-K3"}
  std::vector<LaunchFlag> flags;
  std::vector<std::string> argv() const;
};

struct LaunchPlan {
  EngineKind engine = EngineKind::vllm;
  std::string engine_name;  // "vLLM", "SGLang"
  std::uint64_t nodes = 1;
  std::uint64_t gpus_per_node = 0;
  std::string topology;                                           // how the nodes are started, one sentence
  std::vector<LaunchFlag> flags;                                  // common to every node, in command order
  std::vector<NodeCommand> commands;                              // in start order
  std::vector<std::pair<std::string, std::string>> env;           // set on every node
  std::vector<std::pair<std::string, std::string>> placeholders;  // "$HEAD_IP" -> what to put there
  std::vector<std::string> notes;                                 // overrides, ignored options, warnings
  std::vector<std::pair<std::string, std::string>> sources;       // what -> where from
};

// Builds the commands for `plan`. Errors (exit 2) name the option the engine
// cannot express: --dcp with SGLang, --state-dtype bf16 for KDA with vLLM,
// a GPU count that does not fill whole nodes.
Result<LaunchPlan> build_launch(const Plan& plan, const LaunchInput& input);

// A word as a POSIX shell reads it: bare when safe, single-quoted otherwise;
// "$HEAD_IP..." placeholders stay bare so the shell expands them.
std::string shell_word(const std::string& word);

}  // namespace preflight
