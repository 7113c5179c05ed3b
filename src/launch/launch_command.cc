#include "launch/launch_command.h"

#include <fmt/format.h>

#include <algorithm>

namespace preflight {

namespace {

constexpr const char* kHead = "$HEAD_IP";
// Ports from the engines' documents' examples; any free port works.
constexpr const char* kVllmDpRpcPort = "13345";   // docs.vllm.ai, data_parallel_deployment.md
constexpr const char* kSglangDistPort = "20000";  // docs.sglang.ai, multi-node examples
constexpr const char* kRayPort = "6379";          // Ray's default GCS port

// vLLM's default gpu_memory_utilization (vllm/config/cache.py, CacheConfig).
constexpr double kVllmDefaultUtilization = 0.9;

std::string num(double v) { return fmt::format("{}", v); }

class Builder {
 public:
  Builder(const LaunchInput& in, LaunchPlan& out) : in_(in), out_(out) {}

  // A flag whose value comes from a plan input: the user, a recipe, or the plan itself.
  void from(Setting s, std::string flag, std::optional<std::string> value, const std::string& plan_source = "") {
    LaunchFlag f{std::move(flag), std::move(value), "plan", "", "", plan_source};
    auto it = in_.settings.values.find(s);
    if (it != in_.settings.values.end()) {
      if (it->second.from_user()) {
        f.group = "user";
        f.source = std::string(setting_option(s));
      } else {
        f.group = "recipe";
        f.recipe_id = it->second.recipe_id;
        f.recipe_label = it->second.recipe_label;
        f.source = it->second.source;
      }
    }
    add(std::move(f));
  }
  void plan_flag(std::string flag, std::optional<std::string> value, std::string source) {
    add(LaunchFlag{std::move(flag), std::move(value), "plan", "", "", std::move(source)});
  }
  void user_flag(std::string flag, std::optional<std::string> value, std::string option) {
    add(LaunchFlag{std::move(flag), std::move(value), "user", "", "", std::move(option)});
  }
  void engine_flag(std::string flag, std::string value, std::string source) {
    add(LaunchFlag{std::move(flag), std::move(value), "engine", "", "", std::move(source)});
  }
  bool has(const std::string& flag) const {
    return std::any_of(out_.flags.begin(), out_.flags.end(), [&](const LaunchFlag& f) { return f.flag == flag; });
  }
  bool user_set(Setting s) const {
    auto it = in_.settings.values.find(s);
    return it != in_.settings.values.end() && it->second.from_user();
  }
  bool set(Setting s) const { return in_.settings.values.count(s) > 0; }
  // Recipe flags that are not plan inputs, unless the plan already wrote the flag.
  void pass_through() {
    for (const auto& p : in_.settings.pass) {
      if (has(p.flag)) {
        out_.notes.push_back(fmt::format("{}'s {} is left out: the plan sets it", p.recipe_label, p.flag));
        continue;
      }
      add(LaunchFlag{p.flag, p.value, "recipe", p.recipe_id, p.recipe_label, p.source});
    }
  }

 private:
  void add(LaunchFlag f) { out_.flags.push_back(std::move(f)); }
  const LaunchInput& in_;
  LaunchPlan& out_;
};

constexpr const char* kLayoutSource = "the plan's layout";
constexpr const char* kContextSource = "the model's window (max_position_embeddings; no --context given)";

// Options the other engine has: said, not silently dropped.
void ignored(const LaunchInput& in, const Builder& b, LaunchPlan& out, Setting s, const char* why) {
  if (b.user_set(s))
    out.notes.push_back(fmt::format("{} {}: {}", setting_option(s), in.settings.values.at(s).value, why));
}

// The engines' KV cache follows the model's dtype ("auto") unless told fp8;
// preflight's other explicit dtypes have no flag when they equal that.
void kv_dtype_flag(const Plan& plan, const LaunchInput& in, Builder& b, LaunchPlan& out, const char* fp8_name) {
  const auto kv = plan.workload.kv_dtype;
  if (kv == KvDtype::fp8) {
    b.from(Setting::kv_dtype, "--kv-cache-dtype", fp8_name);
  } else if (kv != KvDtype::automatic && dtype_key(kv) != in.model.auto_kv_dtype && b.set(Setting::kv_dtype)) {
    out.notes.push_back(fmt::format(
        "--kv-dtype {}: no flag written; the engine keeps the KV cache in the model's dtype ({}) unless told fp8", kv,
        in.model.auto_kv_dtype));
  }
}

std::optional<double> memory_fraction_from_sizing(const Plan& plan, EngineKind kind) {
  if (plan.engine && plan.engine->kind == kind && plan.engine->memory_fraction > 0) return plan.engine->memory_fraction;
  return std::nullopt;
}

// --spec-tokens N: a --draft model, else the model's own MTP layers, else no
// method can be named (n-gram lookup needs no weights but is workload-specific).
void speculative_flags(const Plan& plan, Builder& b, LaunchPlan& out, bool vllm) {
  const auto n = plan.workload.spec_tokens;
  if (n == 0) return;
  const bool draft = !plan.draft_ref.empty();
  if (!draft && plan.mtp_layers == 0) {
    out.notes.push_back(fmt::format(
        "--spec-tokens {}: the model has no MTP layers and no --draft was given; name a draft model (or add an n-gram "
        "speculative config) yourself",
        n));
    return;
  }
  if (vllm) {
    const auto config = draft ? fmt::format(R"({{"model": "{}", "num_speculative_tokens": {}}})", plan.draft_ref, n)
                              : fmt::format(R"({{"method": "mtp", "num_speculative_tokens": {}}})", n);
    b.plan_flag("--speculative-config", config,
                "--spec-tokens / --draft (docs.vllm.ai, features/spec_decode: --speculative-config JSON)");
  } else {
    b.plan_flag(
        "--speculative-algorithm", draft ? "STANDALONE" : "EAGLE",
        "--spec-tokens / --draft (docs.sglang.ai, advanced_features/speculative_decoding: MTP models use EAGLE, "
        "a separate small model STANDALONE)");
    if (draft) b.plan_flag("--speculative-draft-model-path", plan.draft_ref, "--draft");
    b.plan_flag("--speculative-num-steps", std::to_string(n), "--spec-tokens");
    b.plan_flag("--speculative-eagle-topk", "1", "one chain of drafts (the plan's model of speculation)");
    b.plan_flag("--speculative-num-draft-tokens", std::to_string(n + 1), "--spec-tokens + 1 (the verified positions)");
  }
}

void common_model_flags(const Plan& plan, const LaunchInput& in, Builder& b, LaunchPlan& out, bool vllm) {
  if (!in.quantize.empty() && in.quantize != "none") {
    if (in.quantize == "fp8") {
      b.user_flag("--quantization", "fp8", "--quantize fp8");
    } else {
      out.notes.push_back(fmt::format(
          "--quantize {} plans a pre-quantized (compressed-tensors) checkpoint: serve that checkpoint's folder; its "
          "quantization_config tells the engine, no flag is needed",
          in.quantize));
    }
  }
  if (!in.dtype.empty() && in.dtype != "auto") b.user_flag("--dtype", in.dtype, "--dtype");
  const auto& e = plan.engine_options;
  if (e.max_num_seqs > 0)
    b.from(Setting::max_num_seqs, vllm ? "--max-num-seqs" : "--max-running-requests", std::to_string(e.max_num_seqs));
  if (e.max_num_batched_tokens > 0)
    b.from(Setting::max_num_batched_tokens, vllm ? "--max-num-batched-tokens" : "--chunked-prefill-size",
           std::to_string(e.max_num_batched_tokens));
  if (e.block_size > 0)
    b.from(Setting::block_size, vllm ? "--block-size" : "--page-size", std::to_string(e.block_size));
  if (e.enforce_eager) b.from(Setting::enforce_eager, vllm ? "--enforce-eager" : "--disable-cuda-graph", std::nullopt);
  speculative_flags(plan, b, out, vllm);
}

Result<bool> vllm_flags(const Plan& plan, const LaunchInput& in, Builder& b, LaunchPlan& out) {
  const auto& l = plan.layout;
  const std::string layout_source = kLayoutSource;
  b.from(Setting::tp, "--tensor-parallel-size", std::to_string(l.tp), layout_source);
  if (l.pp > 1) b.from(Setting::pp, "--pipeline-parallel-size", std::to_string(l.pp), layout_source);
  if (l.dp > 1) b.from(Setting::dp, "--data-parallel-size", std::to_string(l.dp), layout_source);
  if (in.model.moe && l.ep > 1) {
    // vLLM's expert-parallel group is every GPU of a stage: TP x DP (data_parallel_deployment.md).
    b.plan_flag("--enable-expert-parallel", std::nullopt, kLayoutSource);
    if (l.ep != l.tp * l.dp)
      out.notes.push_back(fmt::format(
          "vLLM's expert-parallel group is every GPU of a stage (TP x DP = {}); the plan's EP {} splits each expert "
          "over {} GPUs, which vLLM cannot express: it will deal experts over all {}",
          l.tp * l.dp, l.ep, l.tp * l.dp / l.ep, l.tp * l.dp));
  }
  if (l.dcp > 1) b.from(Setting::dcp, "--decode-context-parallel-size", std::to_string(l.dcp), layout_source);
  b.from(Setting::context, "--max-model-len", std::to_string(plan.workload.context_tokens), kContextSource);
  kv_dtype_flag(plan, in, b, out, "fp8");
  if (plan.workload.state_dtype == StateDtype::bf16) {
    if (in.model.kda_state)
      return Error{"--state-dtype", "",
                   "vLLM keeps the KDA recurrent state in FP32 and has no option to lower it; use --engine sglang "
                   "(--mamba-ssm-dtype bfloat16) or --state-dtype fp32"};
    if (in.model.recurrent_state)
      b.from(Setting::state_dtype, "--mamba-ssm-cache-dtype", "bfloat16");
    else
      ignored(in, b, out, Setting::state_dtype, "the model keeps no recurrent state (ignored)");
  }
  if (plan.engine_options.gpu_memory_utilization > 0) {
    b.from(Setting::gpu_memory_utilization, "--gpu-memory-utilization",
           num(plan.engine_options.gpu_memory_utilization));
  } else if (auto sized = memory_fraction_from_sizing(plan, EngineKind::vllm)) {
    b.engine_flag("--gpu-memory-utilization", num(*sized), "the fraction preflight's vLLM sizing planned with");
  } else {
    b.engine_flag("--gpu-memory-utilization", num(kVllmDefaultUtilization),
                  "vLLM's default gpu_memory_utilization (vllm/config/cache.py), written out");
  }
  common_model_flags(plan, in, b, out, true);
  ignored(in, b, out, Setting::mem_fraction_static, "SGLang's knob; vLLM sizes by --gpu-memory-utilization (ignored)");
  ignored(in, b, out, Setting::mamba_full_memory_ratio, "SGLang's state/KV pool split; vLLM has none (ignored)");
  if (plan.engine_options.radix_cache != "on")
    ignored(in, b, out, Setting::radix_cache, "SGLang's radix cache; vLLM's is --enable-prefix-caching (ignored)");
  return true;
}

Result<bool> sglang_flags(const Plan& plan, const LaunchInput& in, Builder& b, LaunchPlan& out) {
  const auto& l = plan.layout;
  if (l.dcp > 1)
    return Error{"--dcp", "",
                 fmt::format("SGLang has no decode context parallelism for this plan (DCP {}); use --engine vllm or "
                             "--dcp 1",
                             l.dcp)};
  const std::string layout_source = kLayoutSource;
  // SGLang's --tp is every GPU of a pipeline stage; --dp splits it into attention groups.
  b.from(Setting::tp, "--tp", std::to_string(l.tp * l.dp), layout_source);
  if (l.dp > 1) {
    b.from(Setting::dp, "--dp", std::to_string(l.dp), layout_source);
    b.plan_flag("--enable-dp-attention", std::nullopt, kLayoutSource);
    out.notes.push_back(
        fmt::format("SGLang's --tp {} is attention TP {} x DP {} (every GPU of a stage)", l.tp * l.dp, l.tp, l.dp));
  }
  if (in.model.moe && l.ep > 1) {
    // SGLang splits each expert over --tp / --ep ranks (moe_tp_size), as the plan's MoE-TP does.
    b.from(Setting::ep, "--ep", std::to_string(l.ep), layout_source);
  }
  if (l.pp > 1) b.from(Setting::pp, "--pp-size", std::to_string(l.pp), layout_source);
  b.from(Setting::context, "--context-length", std::to_string(plan.workload.context_tokens), kContextSource);
  // SGLang spells the format out; preflight's fp8 is e4m3 (one byte per value either way).
  kv_dtype_flag(plan, in, b, out, "fp8_e4m3");
  if (plan.workload.state_dtype == StateDtype::bf16) {
    if (in.model.recurrent_state)
      b.from(Setting::state_dtype, "--mamba-ssm-dtype", "bfloat16");
    else
      ignored(in, b, out, Setting::state_dtype, "the model keeps no recurrent state (ignored)");
  }
  if (plan.engine_options.mem_fraction_static > 0) {
    b.from(Setting::mem_fraction_static, "--mem-fraction-static", num(plan.engine_options.mem_fraction_static));
  } else if (auto sized = memory_fraction_from_sizing(plan, EngineKind::sglang)) {
    b.engine_flag("--mem-fraction-static", num(*sized), "the fraction preflight's SGLang sizing planned with");
  } else {
    out.notes.push_back(
        "--mem-fraction-static is left to SGLang, which derives it from the GPU memory and TP size at start-up");
  }
  common_model_flags(plan, in, b, out, false);
  const auto& e = plan.engine_options;
  if (e.mamba_full_memory_ratio > 0)
    b.from(Setting::mamba_full_memory_ratio, "--mamba-full-memory-ratio", num(e.mamba_full_memory_ratio));
  if (e.radix_cache == "off") b.from(Setting::radix_cache, "--disable-radix-cache", std::nullopt);
  // notes.md: 4 state slots per request with the lazy extra-buffer strategy.
  if (e.radix_cache == "lazy") b.from(Setting::radix_cache, "--mamba-radix-cache-strategy", "extra_buffer_lazy");
  ignored(in, b, out, Setting::gpu_memory_utilization, "vLLM's knob; SGLang sizes by --mem-fraction-static (ignored)");
  return true;
}

LaunchFlag multi(std::string flag, std::optional<std::string> value = std::nullopt) {
  return LaunchFlag{std::move(flag), std::move(value), "multi-node", "", "", ""};
}

// The model, and the commit planned when it came from the Hub: both engines take
// --revision (vLLM EngineArgs.revision, SGLang ServerArgs.revision), so the
// engine downloads the files preflight read, not whatever the branch is now.
std::vector<std::string> serve_program(const LaunchInput& in) {
  std::vector<std::string> argv =
      in.engine == EngineKind::sglang
          ? std::vector<std::string>{"python", "-m", "sglang.launch_server", "--model-path", in.model.ref}
          : std::vector<std::string>{"vllm", "serve", in.model.ref};
  if (!in.model.revision.empty()) {
    argv.emplace_back("--revision");
    argv.push_back(in.model.revision);
  }
  return argv;
}

void single_node(const LaunchInput& in, LaunchPlan& out) {
  out.topology = "one node: run the command there";
  out.commands.push_back(NodeCommand{0, "serves the API", serve_program(in), out.flags});
}

void sglang_nodes(const LaunchInput& in, LaunchPlan& out) {
  const auto addr = fmt::format("{}:{}", kHead, kSglangDistPort);
  out.topology = fmt::format(
      "SGLang multi-node: the same command on each of the {} nodes with its --node-rank; node 0 serves the API "
      "(docs.sglang.ai, multi-node deployment)",
      out.nodes);
  for (std::uint64_t n = 0; n < out.nodes; ++n) {
    NodeCommand c{n, n == 0 ? "head: serves the API" : "worker", serve_program(in), out.flags};
    c.flags.push_back(multi("--nnodes", std::to_string(out.nodes)));
    c.flags.push_back(multi("--node-rank", std::to_string(n)));
    c.flags.push_back(multi("--dist-init-addr", addr));
    out.commands.push_back(std::move(c));
  }
}

void vllm_nodes(const Plan& plan, const LaunchInput& in, LaunchPlan& out) {
  const auto& l = plan.layout;
  const auto group = l.tp * l.pp;  // GPUs of one DP rank
  const auto gpn = out.gpus_per_node;
  if (l.dp > 1 && group <= gpn && gpn % group == 0) {
    const auto local = gpn / group;
    out.topology = fmt::format(
        "vLLM multi-node data parallel: {} DP rank{} per node; node 0 serves the API, the others run headless "
        "(docs.vllm.ai, serving/data_parallel_deployment.md)",
        local, local == 1 ? "" : "s");
    for (std::uint64_t n = 0; n < out.nodes; ++n) {
      const auto ranks =
          local == 1 ? fmt::format("DP rank {}", n) : fmt::format("DP ranks {}..{}", n * local, n * local + local - 1);
      NodeCommand c{n, n == 0 ? "head: serves the API, " + ranks : "headless: " + ranks, serve_program(in), out.flags};
      if (n > 0) c.flags.push_back(multi("--headless"));
      c.flags.push_back(multi("--data-parallel-size-local", std::to_string(local)));
      if (n > 0) c.flags.push_back(multi("--data-parallel-start-rank", std::to_string(n * local)));
      c.flags.push_back(multi("--data-parallel-address", kHead));
      c.flags.push_back(multi("--data-parallel-rpc-port", kVllmDpRpcPort));
      out.commands.push_back(std::move(c));
    }
    return;
  }
  if (l.dp == 1) {
    out.topology = fmt::format(
        "vLLM multi-node with multiprocessing: one TP x PP group of {} GPUs over {} nodes; node 0 serves the API, the "
        "others run headless (docs.vllm.ai, serving/parallelism_scaling.md)",
        group, out.nodes);
    for (std::uint64_t n = 0; n < out.nodes; ++n) {
      NodeCommand c{n, n == 0 ? "head: serves the API" : "headless worker", serve_program(in), out.flags};
      c.flags.push_back(multi("--nnodes", std::to_string(out.nodes)));
      c.flags.push_back(multi("--node-rank", std::to_string(n)));
      c.flags.push_back(multi("--master-addr", kHead));
      if (n > 0) c.flags.push_back(multi("--headless"));
      out.commands.push_back(std::move(c));
    }
    return;
  }
  out.topology = fmt::format(
      "vLLM on a Ray cluster: each DP rank's TP x PP group of {} GPUs spans nodes, so start Ray on every node first "
      "(ray start), then run vllm serve once on node 0 (docs.vllm.ai, serving/parallelism_scaling.md)",
      group);
  out.commands.push_back(NodeCommand{0, "Ray head", {"ray", "start", "--head", "--port", kRayPort}, {}});
  for (std::uint64_t n = 1; n < out.nodes; ++n)
    out.commands.push_back(NodeCommand{
        n, "Ray worker", {"ray", "start", "--address", fmt::format("{}:{}", kHead, kRayPort), "--block"}, {}});
  NodeCommand serve{0, "head: serves the API (after every node joined Ray)", serve_program(in), out.flags};
  serve.flags.push_back(multi("--distributed-executor-backend", "ray"));
  serve.flags.push_back(multi("--data-parallel-backend", "ray"));
  out.commands.push_back(std::move(serve));
}

}  // namespace

std::vector<std::string> NodeCommand::argv() const {
  auto out = program;
  for (const auto& f : flags) {
    out.push_back(f.flag);
    if (f.value) out.push_back(*f.value);
  }
  return out;
}

std::string shell_word(const std::string& word) {
  if (word.rfind(kHead, 0) == 0 &&
      word.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ_$:0123456789") == std::string::npos)
    return word;
  const bool safe = !word.empty() && word.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789_./:=@%+,-") == std::string::npos;
  if (safe) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

Result<LaunchPlan> build_launch(const Plan& plan, const LaunchInput& in) {
  LaunchPlan out;
  out.engine = in.engine;
  if (in.engine == EngineKind::generic)
    return Error{"--engine", "",
                 "launch needs --engine vllm or --engine sglang (the generic engine has no command line)"};
  out.engine_name = in.engine == EngineKind::vllm ? "vLLM" : "SGLang";
  const auto world = plan.layout.world;
  out.gpus_per_node = in.gpus_per_node > 0            ? in.gpus_per_node
                      : plan.layout.gpus_per_node > 0 ? plan.layout.gpus_per_node
                                                      : std::max<std::uint64_t>(plan.gpu.gpus_per_node, 1);
  if (world > out.gpus_per_node && world % out.gpus_per_node != 0)
    return Error{"--gpus", "",
                 fmt::format("{} GPUs do not fill whole nodes of {}; give --gpus-per-node so each node runs the same "
                             "number of GPUs",
                             world, out.gpus_per_node)};
  out.nodes = world > out.gpus_per_node ? world / out.gpus_per_node : 1;
  if (world < out.gpus_per_node) out.gpus_per_node = world;

  Builder b(in, out);
  auto flags = in.engine == EngineKind::vllm ? vllm_flags(plan, in, b, out) : sglang_flags(plan, in, b, out);
  if (!flags) return flags.error();
  b.pass_through();
  out.notes.insert(out.notes.begin(), in.settings.overrides.begin(), in.settings.overrides.end());

  for (const auto& r : in.settings.recipes) {
    if (r.min_version && in.engine_version && *in.engine_version < *r.min_version)
      out.notes.push_back(fmt::format("warning: {} needs {} >= {}; --engine-version {} is older", r.label,
                                      out.engine_name, r.min_version->str(), in.engine_version->str()));
  }
  if (in.model.local_path)
    out.notes.push_back(
        fmt::format("the model is the local folder {}: every node needs it at that path", in.model.ref));

  if (out.nodes == 1)
    single_node(in, out);
  else if (in.engine == EngineKind::sglang)
    sglang_nodes(in, out);
  else
    vllm_nodes(plan, in, out);
  if (out.nodes > 1) out.placeholders.emplace_back(kHead, "the address of node 0, reachable from every node");
  out.env = in.settings.env;

  if (!in.arch.empty()) out.sources.emplace_back(fmt::format("architecture {}", in.arch), in.arch_source);
  for (const auto& r : in.settings.recipes) out.sources.emplace_back(fmt::format("recipe {}", r.id), r.source);
  out.sources.emplace_back(
      "engine flags",
      in.engine == EngineKind::vllm
          ? "vLLM engine arguments (vllm/engine/arg_utils.py; docs.vllm.ai, vllm serve CLI reference)"
          : "SGLang server arguments (python/sglang/srt/server_args.py; docs.sglang.ai, Server Arguments)");
  return out;
}

}  // namespace preflight
