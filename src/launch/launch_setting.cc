#include "launch/launch_setting.h"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>

namespace preflight {

std::string_view setting_option(Setting s) {
  switch (s) {
    case Setting::tp:
      return "--tp";
    case Setting::ep:
      return "--ep";
    case Setting::pp:
      return "--pp";
    case Setting::dp:
      return "--dp";
    case Setting::dcp:
      return "--dcp";
    case Setting::context:
      return "--context";
    case Setting::kv_dtype:
      return "--kv-dtype";
    case Setting::state_dtype:
      return "--state-dtype";
    case Setting::gpu_memory_utilization:
      return "--gpu-memory-utilization";
    case Setting::mem_fraction_static:
      return "--mem-fraction-static";
    case Setting::max_num_seqs:
      return "--max-num-seqs";
    case Setting::max_num_batched_tokens:
      return "--max-num-batched-tokens";
    case Setting::block_size:
      return "--block-size";
    case Setting::mamba_full_memory_ratio:
      return "--mamba-full-memory-ratio";
    case Setting::radix_cache:
      return "--radix-cache";
    case Setting::enforce_eager:
      return "--enforce-eager";
  }
  return "";
}

namespace {

enum class Kind { integer, number, kv_dtype, state_dtype, switch_true, switch_off };

struct Binding {
  std::initializer_list<std::string_view> flags;  // the engine's spellings (aliases)
  Setting setting;
  Kind kind;
};

// vLLM engine arguments (vllm/engine/arg_utils.py; docs.vllm.ai, "vllm serve" CLI reference).
const Binding kVllm[] = {
    {{"--tensor-parallel-size", "-tp"}, Setting::tp, Kind::integer},
    {{"--pipeline-parallel-size", "-pp"}, Setting::pp, Kind::integer},
    {{"--data-parallel-size", "-dp"}, Setting::dp, Kind::integer},
    {{"--decode-context-parallel-size", "-dcp"}, Setting::dcp, Kind::integer},
    {{"--max-model-len"}, Setting::context, Kind::integer},
    {{"--kv-cache-dtype"}, Setting::kv_dtype, Kind::kv_dtype},
    {{"--mamba-ssm-cache-dtype"}, Setting::state_dtype, Kind::state_dtype},
    {{"--gpu-memory-utilization"}, Setting::gpu_memory_utilization, Kind::number},
    {{"--max-num-seqs"}, Setting::max_num_seqs, Kind::integer},
    {{"--max-num-batched-tokens"}, Setting::max_num_batched_tokens, Kind::integer},
    {{"--block-size"}, Setting::block_size, Kind::integer},
    {{"--enforce-eager"}, Setting::enforce_eager, Kind::switch_true},
};

// SGLang server arguments (python/sglang/srt/server_args.py; docs.sglang.ai, "Server Arguments").
const Binding kSglang[] = {
    {{"--tp", "--tp-size", "--tensor-parallel-size"}, Setting::tp, Kind::integer},
    {{"--dp", "--dp-size", "--data-parallel-size"}, Setting::dp, Kind::integer},
    {{"--ep", "--ep-size", "--expert-parallel-size"}, Setting::ep, Kind::integer},
    {{"--pp-size", "--pipeline-parallel-size"}, Setting::pp, Kind::integer},
    {{"--context-length"}, Setting::context, Kind::integer},
    {{"--kv-cache-dtype"}, Setting::kv_dtype, Kind::kv_dtype},
    {{"--mamba-ssm-dtype"}, Setting::state_dtype, Kind::state_dtype},
    {{"--mem-fraction-static"}, Setting::mem_fraction_static, Kind::number},
    {{"--max-running-requests"}, Setting::max_num_seqs, Kind::integer},
    {{"--chunked-prefill-size"}, Setting::max_num_batched_tokens, Kind::integer},
    {{"--page-size"}, Setting::block_size, Kind::integer},
    {{"--mamba-full-memory-ratio"}, Setting::mamba_full_memory_ratio, Kind::number},
    {{"--disable-radix-cache"}, Setting::radix_cache, Kind::switch_off},
    {{"--disable-cuda-graph"}, Setting::enforce_eager, Kind::switch_true},
};

Result<std::string> translate(Kind kind, const RecipeFlag& f) {
  const auto bad = [&](std::string_view expected) {
    return Error{f.flag, "", fmt::format("expected {}, got '{}'", expected, f.value.value_or(""))};
  };
  const bool switch_kind = kind == Kind::switch_true || kind == Kind::switch_off;
  if (switch_kind) {
    if (f.value) return bad("no value (a switch)");
    return std::string(kind == Kind::switch_true ? "true" : "off");
  }
  if (!f.value) return bad("a value");
  const auto& v = *f.value;
  switch (kind) {
    case Kind::integer:
      if (v.empty() || v.size() > 12 || !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
          v.find_first_not_of('0') == std::string::npos)
        return bad("a positive integer");
      return v;
    case Kind::number:
      if (v.empty() || v.find_first_not_of("0123456789.") != std::string::npos) return bad("a number such as 0.9");
      return v;
    // vLLM's fp8 is e4m3 on CUDA; SGLang spells the formats out. Either way one byte per value.
    case Kind::kv_dtype:
      if (v == "fp8" || v == "fp8_e4m3" || v == "fp8_e5m2") return std::string("fp8");
      if (v == "auto") return std::string("auto");
      if (v == "bfloat16" || v == "bf16") return std::string("bf16");
      if (v == "float16" || v == "fp16" || v == "half") return std::string("fp16");
      return bad("fp8, fp8_e4m3, fp8_e5m2, auto, bfloat16 or float16");
    case Kind::state_dtype:
      if (v == "bfloat16" || v == "bf16") return std::string("bf16");
      if (v == "float32" || v == "fp32") return std::string("fp32");
      return bad("bfloat16 or float32");
    case Kind::switch_true:
    case Kind::switch_off:
      break;
  }
  return bad("a value");
}

std::string written(const RecipeFlag& f) { return f.value ? f.flag + " " + *f.value : f.flag; }

}  // namespace

Result<std::optional<std::pair<Setting, std::string>>> bind_engine_flag(EngineKind engine, const RecipeFlag& flag) {
  const auto scan = [&](const auto& table) -> Result<std::optional<std::pair<Setting, std::string>>> {
    for (const auto& b : table) {
      if (std::find(b.flags.begin(), b.flags.end(), flag.flag) == b.flags.end()) continue;
      auto value = translate(b.kind, flag);
      if (!value) return value.error();
      return std::optional<std::pair<Setting, std::string>>{std::pair{b.setting, *value}};
    }
    return std::optional<std::pair<Setting, std::string>>{};
  };
  switch (engine) {
    case EngineKind::vllm:
      return scan(kVllm);
    case EngineKind::sglang:
      return scan(kSglang);
    case EngineKind::generic:
      break;
  }
  return std::optional<std::pair<Setting, std::string>>{};
}

Result<LaunchSettings> apply_recipes(const std::map<Setting, std::string>& user, EngineKind engine,
                                     const std::vector<Recipe>& recipes) {
  LaunchSettings out;
  for (const auto& [setting, value] : user) out.values[setting] = SettingValue{value, "", "", "", ""};
  for (const auto& r : recipes) {
    // Bind the whole recipe first: SGLang's --tp with a --dp in the same recipe is TP x DP.
    std::map<Setting, std::pair<std::string, const RecipeFlag*>> bound;
    for (const auto& f : r.flags) {
      auto b = bind_engine_flag(engine, f);
      if (!b) return Error{fmt::format("recipe {}", r.id), b.error().origin, b.error().message};
      if (*b) {
        bound[(*b)->first] = {(*b)->second, &f};
        continue;
      }
      PassFlag pass{f.flag, f.value, r.id, r.label, f.source.empty() ? r.source : f.source};
      auto same = std::find_if(out.pass.begin(), out.pass.end(), [&](const PassFlag& p) { return p.flag == f.flag; });
      if (same == out.pass.end()) {
        out.pass.push_back(std::move(pass));
      } else {
        if (same->value != f.value)
          out.overrides.push_back(fmt::format("{} {} replaces {} {}", r.label, written(f), same->recipe_label,
                                              same->value ? same->flag + " " + *same->value : same->flag));
        *same = std::move(pass);
      }
    }
    if (engine == EngineKind::sglang && bound.count(Setting::tp) && bound.count(Setting::dp)) {
      auto& tp = bound[Setting::tp];
      const auto total = std::stoull(tp.first);
      const auto dp = std::stoull(bound[Setting::dp].first);
      if (total % dp != 0)
        return Error{fmt::format("recipe {}", r.id), "--dp", fmt::format("DP {} does not divide --tp {}", dp, total)};
      tp.first = std::to_string(total / dp);
    }
    for (const auto& [setting, entry] : bound) {
      const auto& [value, flag] = entry;
      SettingValue next{value, r.id, r.label, written(*flag), flag->source.empty() ? r.source : flag->source};
      auto it = out.values.find(setting);
      if (it == out.values.end()) {
        out.values.emplace(setting, std::move(next));
      } else if (it->second.from_user()) {
        if (it->second.value != value)
          out.overrides.push_back(fmt::format("your {} {} replaces {} of {}", setting_option(setting), it->second.value,
                                              next.engine_flag, r.label));
      } else {
        if (it->second.value != value)
          out.overrides.push_back(fmt::format("{} {} replaces {} of {}", r.label, next.engine_flag,
                                              it->second.engine_flag, it->second.recipe_label));
        it->second = std::move(next);
      }
    }
    for (const auto& entry : r.env) {
      // (a named pair, not a structured binding: clang 14 cannot capture those)
      auto same = std::find_if(out.env.begin(), out.env.end(), [&](const auto& e) { return e.first == entry.first; });
      if (same == out.env.end())
        out.env.emplace_back(entry.first, entry.second);
      else
        same->second = entry.second;
    }
    out.recipes.push_back(r);
  }
  return out;
}

}  // namespace preflight
