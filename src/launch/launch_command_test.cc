// Tests for the engine command lines built from a plan: single node and every
// multi-node form of vLLM and SGLang, where each flag's value came from, the
// options an engine cannot express, the shell quoting and the renderers.
// Plans here are built by hand (a layout, a workload, a verdict), so the tests
// pin the command builder, not the planner.
#include "launch/launch_command.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "launch/launch_render.h"

namespace preflight {
namespace {

struct Shape {
  std::uint64_t world, tp, dp, pp, gpus_per_node;
};

Plan plan_for(const Shape& s) {
  Plan p;
  p.model_name = "m";
  p.gpu.id = "gpu";
  p.gpu.name = "GPU";
  p.gpu.gpus_per_node = static_cast<unsigned>(s.gpus_per_node);
  p.gpu_count = s.world;
  p.layout.world = s.world;
  p.layout.tp = s.tp;
  p.layout.dp = s.dp;
  p.layout.pp = s.pp;
  p.layout.ep = s.world / s.pp;
  p.layout.dcp = 1;
  p.layout.chosen_by = "test";
  p.workload.context_tokens = 131072;
  p.verdict.fits = true;
  p.verdict.summary = "fits under the stated inputs";
  return p;
}

LaunchInput input(EngineKind engine) {
  LaunchInput in;
  in.engine = engine;
  in.model.ref = "org/m";
  in.model.described = "catalogue m";
  in.model.moe = true;
  in.model.kda_state = true;
  in.model.recurrent_state = true;
  return in;
}

std::vector<std::string> shells(const LaunchPlan& l) {
  std::vector<std::string> out;
  for (const auto& c : l.commands) {
    std::string line;
    for (const auto& w : c.argv()) line += (line.empty() ? "" : " ") + shell_word(w);
    out.push_back(line);
  }
  return out;
}

TEST(LaunchCommand, NodeCommandsForEachTopology) {
  const std::string vllm = "vllm serve org/m ";
  const std::string sglang = "python -m sglang.launch_server --model-path org/m ";
  struct Case {
    const char* what;
    EngineKind engine;
    Shape shape;
    std::vector<std::string> want;
  };
  const Case cases[] = {
      {"vLLM one node",
       EngineKind::vllm,
       {8, 8, 1, 1, 8},
       {vllm +
        "--tensor-parallel-size 8 --enable-expert-parallel --max-model-len 131072 --gpu-memory-utilization 0.9"}},
      {"vLLM fewer GPUs than a node",
       EngineKind::vllm,
       {4, 4, 1, 1, 8},
       {vllm +
        "--tensor-parallel-size 4 --enable-expert-parallel --max-model-len 131072 --gpu-memory-utilization 0.9"}},
      {"vLLM DP ranks inside nodes",
       EngineKind::vllm,
       {16, 8, 2, 1, 8},
       {vllm + "--tensor-parallel-size 8 --data-parallel-size 2 --enable-expert-parallel --max-model-len 131072 "
               "--gpu-memory-utilization 0.9 --data-parallel-size-local 1 --data-parallel-address $HEAD_IP "
               "--data-parallel-rpc-port 13345",
        vllm + "--tensor-parallel-size 8 --data-parallel-size 2 --enable-expert-parallel --max-model-len 131072 "
               "--gpu-memory-utilization 0.9 --headless --data-parallel-size-local 1 --data-parallel-start-rank 1 "
               "--data-parallel-address $HEAD_IP --data-parallel-rpc-port 13345"}},
      {"vLLM TP across nodes",
       EngineKind::vllm,
       {16, 16, 1, 1, 8},
       {vllm + "--tensor-parallel-size 16 --enable-expert-parallel --max-model-len 131072 --gpu-memory-utilization 0.9 "
               "--nnodes 2 --node-rank 0 --master-addr $HEAD_IP",
        vllm + "--tensor-parallel-size 16 --enable-expert-parallel --max-model-len 131072 --gpu-memory-utilization 0.9 "
               "--nnodes 2 --node-rank 1 --master-addr $HEAD_IP --headless"}},
      {"vLLM TP x PP across nodes",
       EngineKind::vllm,
       {16, 8, 1, 2, 8},
       {vllm + "--tensor-parallel-size 8 --pipeline-parallel-size 2 --enable-expert-parallel --max-model-len 131072 "
               "--gpu-memory-utilization 0.9 --nnodes 2 --node-rank 0 --master-addr $HEAD_IP",
        vllm + "--tensor-parallel-size 8 --pipeline-parallel-size 2 --enable-expert-parallel --max-model-len 131072 "
               "--gpu-memory-utilization 0.9 --nnodes 2 --node-rank 1 --master-addr $HEAD_IP --headless"}},
      {"vLLM DP ranks spanning nodes: Ray",
       EngineKind::vllm,
       {32, 16, 2, 1, 8},
       {"ray start --head --port 6379", "ray start --address $HEAD_IP:6379 --block",
        "ray start --address $HEAD_IP:6379 --block", "ray start --address $HEAD_IP:6379 --block",
        vllm + "--tensor-parallel-size 16 --data-parallel-size 2 --enable-expert-parallel --max-model-len 131072 "
               "--gpu-memory-utilization 0.9 --distributed-executor-backend ray --data-parallel-backend ray"}},
      {"SGLang one node", EngineKind::sglang, {8, 8, 1, 1, 8}, {sglang + "--tp 8 --ep 8 --context-length 131072"}},
      {"SGLang DP attention",
       EngineKind::sglang,
       {8, 2, 4, 1, 8},
       {sglang + "--tp 8 --dp 4 --enable-dp-attention --ep 8 --context-length 131072"}},
      {"SGLang four nodes",
       EngineKind::sglang,
       {32, 32, 1, 1, 8},
       {sglang + "--tp 32 --ep 32 --context-length 131072 --nnodes 4 --node-rank 0 --dist-init-addr $HEAD_IP:20000",
        sglang + "--tp 32 --ep 32 --context-length 131072 --nnodes 4 --node-rank 1 --dist-init-addr $HEAD_IP:20000",
        sglang + "--tp 32 --ep 32 --context-length 131072 --nnodes 4 --node-rank 2 --dist-init-addr $HEAD_IP:20000",
        sglang + "--tp 32 --ep 32 --context-length 131072 --nnodes 4 --node-rank 3 --dist-init-addr $HEAD_IP:20000"}},
      {"SGLang pipeline",
       EngineKind::sglang,
       {16, 8, 1, 2, 8},
       {sglang + "--tp 8 --ep 8 --pp-size 2 --context-length 131072 --nnodes 2 --node-rank 0 --dist-init-addr "
                 "$HEAD_IP:20000",
        sglang + "--tp 8 --ep 8 --pp-size 2 --context-length 131072 --nnodes 2 --node-rank 1 --dist-init-addr "
                 "$HEAD_IP:20000"}},
  };
  for (const auto& c : cases) {
    auto l = build_launch(plan_for(c.shape), input(c.engine));
    ASSERT_TRUE(l) << c.what << ": " << l.error().to_string();
    EXPECT_EQ(shells(*l), c.want) << c.what;
    EXPECT_EQ(l->placeholders.empty(), l->nodes == 1) << c.what;
  }
}

TEST(LaunchCommand, PlanValuesBecomeFlags) {
  auto plan = plan_for({8, 8, 1, 1, 8});
  plan.workload.kv_dtype = KvDtype::fp8;
  plan.workload.state_dtype = StateDtype::bf16;
  plan.engine_options.mem_fraction_static = 0.84;
  plan.engine_options.max_num_seqs = 128;
  plan.engine_options.block_size = 64;
  plan.engine_options.enforce_eager = true;
  plan.engine_options.radix_cache = "off";
  auto l = build_launch(plan, input(EngineKind::sglang));
  ASSERT_TRUE(l) << l.error().to_string();
  EXPECT_EQ(shells(*l).at(0),
            "python -m sglang.launch_server --model-path org/m --tp 8 --ep 8 --context-length 131072 --kv-cache-dtype "
            "fp8_e4m3 --mamba-ssm-dtype bfloat16 --mem-fraction-static 0.84 --max-running-requests 128 --page-size 64 "
            "--disable-cuda-graph --disable-radix-cache");

  plan.workload.state_dtype = StateDtype::fp32;
  plan.engine_options.gpu_memory_utilization = 0.97;
  auto v = build_launch(plan, input(EngineKind::vllm));
  ASSERT_TRUE(v) << v.error().to_string();
  EXPECT_EQ(
      shells(*v).at(0),
      "vllm serve org/m --tensor-parallel-size 8 --enable-expert-parallel --max-model-len 131072 --kv-cache-dtype "
      "fp8 --gpu-memory-utilization 0.97 --max-num-seqs 128 --block-size 64 --enforce-eager");
}

TEST(LaunchCommand, FlagsSayWhereTheyCameFrom) {
  auto plan = plan_for({8, 8, 1, 1, 8});
  plan.workload.context_tokens = 32768;
  plan.engine_options.gpu_memory_utilization = 0.97;
  auto in = input(EngineKind::vllm);
  Recipe r;
  r.id = "hopper";
  r.label = "vLLM M Hopper override";
  r.source = "the recipe";
  r.min_version = parse_engine_version("0.27.0", "test").value();
  in.settings.recipes.push_back(r);
  in.settings.values[Setting::gpu_memory_utilization] =
      SettingValue{"0.97", "hopper", r.label, "--gpu-memory-utilization 0.97", "the recipe"};
  in.settings.values[Setting::context] = SettingValue{"32K", "", "", "", ""};
  in.settings.pass.push_back(PassFlag{"--moe-backend", "marlin", "hopper", r.label, "the recipe"});
  in.settings.pass.push_back(PassFlag{"--enable-expert-parallel", std::nullopt, "hopper", r.label, "the recipe"});
  auto l = build_launch(plan, in);
  ASSERT_TRUE(l) << l.error().to_string();
  struct Want {
    const char* flag;
    const char* group;
  };
  const Want want[] = {{"--tensor-parallel-size", "plan"},
                       {"--enable-expert-parallel", "plan"},
                       {"--max-model-len", "user"},
                       {"--gpu-memory-utilization", "recipe"},
                       {"--moe-backend", "recipe"}};
  ASSERT_EQ(l->flags.size(), std::size(want));
  for (std::size_t i = 0; i < l->flags.size(); ++i) {
    EXPECT_EQ(l->flags[i].flag, want[i].flag);
    EXPECT_EQ(l->flags[i].group, want[i].group) << want[i].flag;
  }
  // The recipe's --enable-expert-parallel is the plan's already: said, not doubled.
  EXPECT_NE(std::find(l->notes.begin(), l->notes.end(),
                      "vLLM M Hopper override's --enable-expert-parallel is left out: the plan sets it"),
            l->notes.end());
  const auto text = render_launch(plan, in, *l, false);
  for (const char* line : {
           "# preflight: fits (deployment hypothesis): fits under the stated inputs\n",
           "# your options: --max-model-len 32768 (from --context)\n",
           "# recipe: vLLM M Hopper override (vLLM >= 0.27.0): --gpu-memory-utilization 0.97 --moe-backend marlin — "
           "the recipe\n",
           "vllm serve org/m \\\n  --tensor-parallel-size 8 \\\n",
       })
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nin:\n" << text;

  in.engine_version = parse_engine_version("0.26.0", "--engine-version").value();
  auto old = build_launch(plan, in);
  ASSERT_TRUE(old);
  EXPECT_NE(std::find(old->notes.begin(), old->notes.end(),
                      "warning: vLLM M Hopper override needs vLLM >= 0.27.0; --engine-version 0.26.0 is older"),
            old->notes.end());
}

TEST(LaunchCommand, WhatAnEngineCannotExpressIsBadInput) {
  struct Case {
    const char* what;
    EngineKind engine;
    Shape shape;
    std::uint64_t dcp;
    const char* state;
    const char* error;
  };
  const Case cases[] = {
      {"SGLang DCP",
       EngineKind::sglang,
       {8, 8, 1, 1, 8},
       2,
       "fp32",
       "--dcp: SGLang has no decode context parallelism for this plan (DCP 2); use --engine vllm or --dcp 1"},
      {"vLLM KDA state in BF16",
       EngineKind::vllm,
       {8, 8, 1, 1, 8},
       1,
       "bf16",
       "--state-dtype: vLLM keeps the KDA recurrent state in FP32 and has no option to lower it; use --engine sglang "
       "(--mamba-ssm-dtype bfloat16) or --state-dtype fp32"},
      {"partial nodes",
       EngineKind::sglang,
       {12, 4, 3, 1, 8},
       1,
       "fp32",
       "--gpus: 12 GPUs do not fill whole nodes of 8; give --gpus-per-node so each node runs the same number of GPUs"},
      {"generic",
       EngineKind::generic,
       {8, 8, 1, 1, 8},
       1,
       "fp32",
       "--engine: launch needs --engine vllm or --engine sglang (the generic engine has no command line)"},
  };
  for (const auto& c : cases) {
    auto plan = plan_for(c.shape);
    plan.layout.dcp = c.dcp;
    plan.workload.state_dtype = parse_state_dtype(c.state, "test").value_or_throw();
    auto l = build_launch(plan, input(c.engine));
    ASSERT_FALSE(l) << c.what;
    EXPECT_EQ(l.error().to_string(), c.error) << c.what;
  }
}

TEST(LaunchCommand, GpusPerNodeOptionSetsTheNodes) {
  auto in = input(EngineKind::sglang);
  in.gpus_per_node = 4;
  auto l = build_launch(plan_for({8, 8, 1, 1, 8}), in);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->nodes, 2u);
  EXPECT_EQ(l->commands.size(), 2u);
}

TEST(LaunchCommand, ShellWords) {
  struct Case {
    const char* word;
    const char* shell;
  };
  const Case cases[] = {
      {"moonshotai/Kimi-K3", "moonshotai/Kimi-K3"},
      {"0.95", "0.95"},
      {"$HEAD_IP:20000", "$HEAD_IP:20000"},
      {"$HOME", "'$HOME'"},
      {"/models/my model", "'/models/my model'"},
      {"it's", "'it'\\''s'"},
      {"", "''"},
  };
  for (const auto& c : cases) EXPECT_EQ(shell_word(c.word), c.shell) << c.word;
}

TEST(LaunchCommand, VerdictLine) {
  auto plan = plan_for({8, 8, 1, 1, 8});
  EXPECT_EQ(launch_verdict_line(plan), "# preflight: fits (deployment hypothesis): fits under the stated inputs");
  plan.verdict.fits = false;
  plan.verdict.summary = "does not fit: first boundary crossed: weights; rank 0 needs 1 GB";
  EXPECT_EQ(
      launch_verdict_line(plan),
      "# preflight: does NOT fit: first boundary crossed: weights; rank 0 needs 1 GB — this command would fail at "
      "start-up");
}

TEST(LaunchCommand, JsonShape) {
  auto plan = plan_for({32, 32, 1, 1, 8});
  auto in = input(EngineKind::sglang);
  in.settings.env.emplace_back("NCCL_DEBUG", "WARN");
  auto l = build_launch(plan, in);
  ASSERT_TRUE(l);
  const auto j = launch_json(plan, in, *l);
  EXPECT_EQ(j["engine"], "sglang");
  ASSERT_EQ(j["commands"].size(), 4u);
  EXPECT_EQ(j["commands"][3]["node"], 3);
  EXPECT_EQ(j["commands"][0]["argv"][0], "python");
  EXPECT_EQ(j["commands"][1]["shell"].get<std::string>().find("--node-rank 1") != std::string::npos, true);
  EXPECT_EQ(j["env"]["NCCL_DEBUG"], "WARN");
  EXPECT_TRUE(j["placeholders"].contains("$HEAD_IP"));
  EXPECT_TRUE(j["sources"].is_array());
  EXPECT_EQ(j["verdict"]["exit_code"], 0);
}

}  // namespace
}  // namespace preflight
