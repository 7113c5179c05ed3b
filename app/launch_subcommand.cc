// launch: the engine command line for a plan.
//
// Order of work: the engine, GPU and model name the recipes that apply
// (data/launch/recipes.json, by model, engine, architecture, accelerator and
// count); the user's options win over the recipes' defaults, which fill what
// the user left unset; the plan is made with those filled-in options, so the
// verdict printed on top is the verdict for the printed command; then the
// command is built from the plan and printed with where each flag came from.
// Exit code: the plan's (0 fits, 1 does not, 2 bad input).
#include <filesystem>
#include <iostream>

#include "commands.h"
#include "core/units.h"
#include "launch/disaggregation_flags.h"
#include "launch/gpu_arch.h"
#include "launch/launch_command.h"
#include "launch/launch_render.h"
#include "launch/recipe_catalogue.h"
#include "model/dtype.h"
#include "model/model_catalogue.h"
#include "option_table.h"
#include "plan/ledger_check.h"
#include "plan_inputs.h"
#include "workload/workload.h"

namespace preflight::cli {

namespace {

// The plan inputs a recipe can fill, and the option string each one lives in.
struct SettingField {
  Setting setting;
  std::string Options::*field;
};
const SettingField kSettingFields[] = {
    {Setting::tp, &Options::tp},
    {Setting::ep, &Options::ep},
    {Setting::pp, &Options::pp},
    {Setting::dp, &Options::dp},
    {Setting::dcp, &Options::dcp},
    {Setting::context, &Options::context},
    {Setting::kv_dtype, &Options::kv_dtype},
    {Setting::state_dtype, &Options::state_dtype},
    {Setting::gpu_memory_utilization, &Options::gpu_memory_utilization},
    {Setting::mem_fraction_static, &Options::mem_fraction_static},
    {Setting::max_num_seqs, &Options::max_num_seqs},
    {Setting::max_num_batched_tokens, &Options::max_num_batched_tokens},
    {Setting::block_size, &Options::block_size},
    {Setting::mamba_full_memory_ratio, &Options::mamba_full_memory_ratio},
    {Setting::radix_cache, &Options::radix_cache},
};

std::map<Setting, std::string> user_settings(const Options& o) {
  std::map<Setting, std::string> out;
  for (const auto& [setting, field] : kSettingFields)
    if (!(o.*field).empty()) out[setting] = o.*field;
  if (o.enforce_eager) out[Setting::enforce_eager] = "true";
  return out;
}

Options with_settings(Options o, const LaunchSettings& settings) {
  for (const auto& [setting, field] : kSettingFields) {
    auto it = settings.values.find(setting);
    if (it != settings.values.end()) o.*field = it->second.value;
  }
  if (settings.values.count(Setting::enforce_eager)) o.enforce_eager = true;
  // A launch always serves a workload: with no workload option, plan one
  // request of the full context (the engine must admit one such request).
  if (o.context.empty() && o.concurrency.empty() && o.kv_dtype.empty() && o.state_dtype.empty() &&
      o.state_slots.empty() && o.reserve.empty() && o.chunk.empty())
    o.concurrency = "1";
  return o;
}

// What the engine loads: a catalogue model's hub id, a listing's hub id, or a local folder.
LaunchModel describe_model(const Options& o, const LoadedModel& loaded, std::string& catalogue_name) {
  LaunchModel m;
  const auto& spec = loaded.model;
  m.moe = spec.moe.routed_experts > 0;
  m.kda_state = spec.count_layers(LayerKind::kda) > 0;
  m.recurrent_state =
      m.kda_state || spec.count_layers(LayerKind::gated_deltanet) > 0 || spec.count_layers(LayerKind::mamba2) > 0;
  m.auto_kv_dtype = std::string(dtype_key(resolve_kv_dtype(KvDtype::automatic, dtype_bits(spec.dtype))));
  std::error_code ec;
  if (loaded.hub_transfer && loaded.listing && !loaded.listing->id.empty()) {
    m.ref = loaded.listing->id;
    m.revision = loaded.listing->sha;
    m.described = fmt::format("hub id at commit {}; the engine downloads it", loaded.listing->sha);
    return m;
  }
  if (o.model.empty() || !std::filesystem::exists(o.model, ec)) {
    for (const auto& entry : model_catalogue()) {
      if (entry.name != spec.name) continue;
      catalogue_name = entry.name;
      m.ref = entry.hub_id.empty() ? entry.name : entry.hub_id;
      m.described = "catalogue " + entry.name;
    }
    if (m.ref.empty()) m.ref = spec.name;
    if (m.described.empty()) m.described = "catalogue";
    return m;
  }
  if (loaded.listing && !loaded.listing->id.empty()) {
    m.ref = loaded.listing->id;
    m.described = "hub id from the saved listing " + o.model + "; the engine downloads it";
    return m;
  }
  const std::filesystem::path path(o.model);
  const auto folder = std::filesystem::is_directory(path, ec) ? path
                      : path.has_parent_path()                ? path.parent_path()
                                                              : std::filesystem::path(".");
  m.ref = folder.string();
  m.local_path = true;
  m.described = o.model == m.ref ? "a local path, as given" : "the folder of " + o.model + "; engines load a folder";
  return m;
}

}  // namespace

namespace {

// The pool's flags of a disaggregated deployment, added to every node's command.
void add_pool_flags(LaunchPlan& launch, const std::vector<std::pair<std::string, std::string>>& flags,
                    const std::string& source) {
  for (const auto& [flag, value] : flags) {
    LaunchFlag f{flag,  value.empty() ? std::nullopt : std::optional<std::string>(value), "disaggregation", "", "",
                 source};
    launch.flags.push_back(f);
    for (auto& c : launch.commands) c.flags.push_back(f);
  }
}

// One engine deployment: the plan on top, then its command(s). `pool`: the
// disaggregated side it is (with its flags), or null for a plain launch.
int launch_deployment(const Options& o, Io& io, const DisaggregationFlags* flags, bool prefill) {
  if (o.gpus.empty())
    return fail(io,
                Error{"", "", "--gpus is required (COUNTxFAMILY, e.g. 8xH100), or --prefill-gpus and --decode-gpus"});
  if (o.engine.empty())
    return fail(io, Error{flag_of(&Options::engine), "", "launch needs --engine vllm or --engine sglang"});
  auto kind = parse_engine(o.engine);
  if (!kind) return fail(io, kind.error());
  if (*kind == EngineKind::generic)
    return fail(io, Error{flag_of(&Options::engine), "",
                          "launch needs --engine vllm or --engine sglang (the generic engine has no command line)"});

  auto cluster = resolve_cluster(o);
  if (!cluster) return fail(io, cluster.error());
  const Accelerator& gpu = cluster->gpu;
  auto loaded = load_model_for(o);
  if (!loaded) return fail(io, loaded.error());

  LaunchInput in;
  in.engine = *kind;
  std::string catalogue_name;
  in.model = describe_model(o, *loaded, catalogue_name);
  if (const auto* arch = find_gpu_arch(embedded_gpu_archs(), gpu)) {
    in.arch = arch->arch;
    in.arch_label = arch->label;
    in.arch_source = arch->source;
  }
  if (!o.gpus_per_node.empty()) {
    auto gpn = parse_positive_integer(o.gpus_per_node, flag_of(&Options::gpus_per_node));
    if (!gpn) return fail(io, gpn.error());
    in.gpus_per_node = *gpn;
  }
  in.quantize = o.quantize;
  in.dtype = o.dtype;

  RecipeTarget target{*kind, catalogue_name, loaded->model.family, in.arch, gpu.id, cluster->count, ""};
  auto settings = apply_recipes(user_settings(o), *kind, select_recipes(embedded_recipes(), target));
  if (!settings) return fail(io, settings.error());
  // Recipes keyed by the KV cache dtype (K3's FP8 cache needs prefill query
  // quantization) apply once the dtype is known: the user's, or an earlier recipe's.
  if (auto kv = settings->values.find(Setting::kv_dtype); kv != settings->values.end()) {
    target.kv_dtype = kv->second.value;
    settings = apply_recipes(user_settings(o), *kind, select_recipes(embedded_recipes(), target));
    if (!settings) return fail(io, settings.error());
  }
  in.settings = std::move(settings).value();

  // The recipes fill options the user left unset (as text, as the user would
  // have typed them), so they are parsed and checked as the user's are. They
  // never change what is loaded (no --quantize or --dtype among them): plan the model loaded above.
  auto resolved = resolve_request(with_settings(o, in.settings), ClusterFrom::gpus, &*loaded);
  if (!resolved) return fail(io, resolved.error());
  resolved.value().suggest = false;  // the command's comment states the verdict; suggestions are plan's
  auto plan = make_plan(*resolved);
  if (!plan) return fail(io, named_for_pool(plan.error(), o.latency_phase));
  if (const auto why = plan_invariant_violation(*plan, resolved->loaded.model); !why.empty())
    throw std::logic_error(why);
  in.engine_version = plan->engine_options.version;
  auto launch = build_launch(*plan, in);
  if (!launch) return fail(io, launch.error());
  if (flags != nullptr) add_pool_flags(launch.value(), prefill ? flags->prefill : flags->decode, flags->source);

  if (o.format == "json")
    io.out << json_text(launch_json(*plan, in, *launch)) << "\n";
  else
    io.out << render_launch(*plan, in, *launch, o.format == "md");
  return plan->verdict.fits ? 0 : 1;
}

}  // namespace

int run_launch(const Options& o, Io& io) {
  if (o.prefill_gpus.empty() && o.decode_gpus.empty()) {
    if (auto e = refuse_pool_flags_without_pools(o)) return fail(io, *e);
    return launch_deployment(o, io, nullptr, false);
  }
  // Disaggregated: each pool's command as `launch` gives it for that pool, with its side's flags.
  if (!o.gpus.empty() || o.prefill_gpus.empty() || o.decode_gpus.empty())
    return fail(io, Error{o.gpus.empty() ? (o.prefill_gpus.empty() ? flag_of(&Options::prefill_gpus)
                                                                   : flag_of(&Options::decode_gpus))
                                         : flag_of(&Options::gpus),
                          "", "a disaggregated launch needs --prefill-gpus and --decode-gpus (and no --gpus)"});
  if (o.format == "json")
    return fail(io, Error{flag_of(&Options::format), "json",
                          "a disaggregated launch prints two deployments: use the text form"});
  auto kind = parse_engine(o.engine.empty() ? "generic" : o.engine);
  if (!kind || *kind == EngineKind::generic)
    return fail(io, Error{flag_of(&Options::engine), "", "launch needs --engine vllm or --engine sglang"});
  const auto& flags = disaggregation_flags(*kind);
  int worst = 0;
  for (const bool prefill : {true, false}) {
    io.out << (prefill ? "# ==== prefill pool ====\n" : "\n# ==== decode pool ====\n");
    const int code = launch_deployment(disaggregated_pool_options(o, prefill), io, &flags, prefill);
    if (code == 2) return code;
    worst = std::max(worst, code);
  }
  io.out << "\n# ==== in front of the pools ====\n# " << flags.front << "\n# source: " << flags.source << "\n"
         << "# both pools are planned at the full workload here; `preflight plan --prefill-gpus ... --decode-gpus ...` "
            "sizes each for its phase and the KV transfer\n";
  return worst;
}

}  // namespace preflight::cli
