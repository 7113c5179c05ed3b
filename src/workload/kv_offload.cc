#include "workload/kv_offload.h"

#include <fmt/format.h>

#include "core/bytes.h"

namespace preflight {

KvOffload kv_offload(const KvOffloadInputs& in) {
  KvOffload o;
  for (auto b : in.stage_bytes_per_token)
    o.group_bytes_per_token = checked_add(o.group_bytes_per_token, checked_mul(b, in.tp));
  if (o.group_bytes_per_token == 0 || in.gpu_bytes_per_token == 0) return o;  // no token cache (recurrent state only)
  o.gpu_tokens = checked_mul(in.gpu_kv_bytes / in.gpu_bytes_per_token, in.dp_groups, "GPU tier tokens");
  const auto cpu_bytes = checked_mul(in.offload_bytes_per_node, in.nodes, "CPU tier bytes");
  o.cpu_tokens = cpu_bytes / o.group_bytes_per_token;
  o.cpu_prompts = in.prompt_tokens > 0 ? o.cpu_tokens / in.prompt_tokens : 0;
  const auto source = "--kv-offload; the plan's cache per token (vLLM offloading connector, LMCache, SGLang HiCache)";
  auto& f = o.figures;
  f.push_back(
      bytes_figure("offload.group_bytes_per_token", "cache per token of one attention group, all its ranks",
                   o.group_bytes_per_token, Evidence::hypothesis,
                   fmt::format("sum over {} stage(s) of the cache per token per rank x TP {} (replicated latents "
                               "stored by every rank)",
                               in.stage_bytes_per_token.size(), in.tp),
                   source));
  f.push_back(exact_figure("offload.gpu_tokens", "tokens the GPU tier holds (KV in use and free)", o.gpu_tokens,
                           "tokens", Evidence::hypothesis,
                           fmt::format("{} B / {} B per token on the tightest rank x {} DP groups",
                                       with_commas(in.gpu_kv_bytes), with_commas(in.gpu_bytes_per_token), in.dp_groups),
                           source));
  f.push_back(
      exact_figure("offload.cpu_tokens", "tokens the CPU tier holds", o.cpu_tokens, "tokens", Evidence::hypothesis,
                   fmt::format("{} per node x {} nodes / {} B per token", format_gib(in.offload_bytes_per_node, 1),
                               in.nodes, with_commas(o.group_bytes_per_token)),
                   source));
  if (in.prompt_tokens > 0)
    f.push_back(exact_figure(
        "offload.cpu_prompts",
        fmt::format("{}-token prefixes the CPU tier keeps for reuse", with_commas(in.prompt_tokens)), o.cpu_prompts,
        "prompts", Evidence::hypothesis,
        fmt::format("{} tokens / {} tokens per prompt", with_commas(o.cpu_tokens), with_commas(in.prompt_tokens)),
        source));
  return o;
}

}  // namespace preflight
