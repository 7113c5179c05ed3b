#include "launch/launch_render.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/bytes.h"
#include "core/text.h"
#include "placement/ledger.h"

namespace preflight {

namespace {

std::string written(const LaunchFlag& f) { return f.value ? f.flag + " " + shell_word(*f.value) : f.flag; }

std::string shell_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& w : argv) out += (out.empty() ? "" : " ") + shell_word(w);
  return out;
}

// One line per group of flags with one origin, in the order the groups first appear.
std::vector<std::string> provenance_lines(const LaunchInput& in, const LaunchPlan& l) {
  struct Group {
    std::string group, recipe_id, label;
    std::vector<const LaunchFlag*> flags;
  };
  std::vector<Group> groups;
  for (const auto& f : l.flags) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const Group& g) { return g.group == f.group && g.recipe_id == f.recipe_id; });
    if (it == groups.end()) {
      groups.push_back(Group{f.group, f.recipe_id, f.recipe_label, {}});
      it = groups.end() - 1;
    }
    it->flags.push_back(&f);
  }
  // Plan, user and engine first, then the recipes from the most general to the most specific.
  const auto rank = [&](const Group& g) -> std::size_t {
    if (g.group == "plan") return 0;
    if (g.group == "user") return 1;
    if (g.group == "engine") return 2;
    if (g.group != "recipe") return 1000;
    for (std::size_t i = 0; i < in.settings.recipes.size(); ++i)
      if (in.settings.recipes[i].id == g.recipe_id) return 3 + i;
    return 999;
  };
  std::stable_sort(groups.begin(), groups.end(), [&](const Group& a, const Group& b) { return rank(a) < rank(b); });
  std::vector<std::string> out;
  for (const auto& g : groups) {
    std::string flags;
    for (const auto* f : g.flags) flags += (flags.empty() ? "" : " ") + written(*f);
    std::vector<std::string> sources;
    for (const auto* f : g.flags)
      if (!f->source.empty() && std::find(sources.begin(), sources.end(), f->source) == sources.end())
        sources.push_back(f->source);
    if (g.group == "recipe") {
      // The recipe's source on its line, then any flag that names its own.
      const auto r = std::find_if(in.settings.recipes.begin(), in.settings.recipes.end(),
                                  [&](const Recipe& x) { return x.id == g.recipe_id; });
      const std::string source = r == in.settings.recipes.end() ? "" : r->source;
      const std::string version = r == in.settings.recipes.end() || !r->min_version
                                      ? ""
                                      : fmt::format(" ({} >= {})", l.engine_name, r->min_version->str());
      out.push_back(fmt::format("# recipe: {}{}: {}{}", g.label, version, flags, source.empty() ? "" : " — " + source));
      for (const auto* f : g.flags)
        if (!f->source.empty() && f->source != source) out.push_back(fmt::format("#   {}: {}", f->flag, f->source));
    } else if (g.group == "user") {
      std::string options;
      for (const auto& s : sources) options += (options.empty() ? "" : ", ") + s;
      out.push_back(fmt::format("# your options: {} (from {})", flags, options));
    } else {
      std::string why;
      for (const auto& s : sources) why += (why.empty() ? "" : "; ") + s;
      out.push_back(fmt::format("# {}: {}{}", g.group, flags, why.empty() ? "" : " — " + why));
    }
  }
  return out;
}

void print_command(std::string& out, const NodeCommand& c) {
  out += shell_line(c.program);
  for (const auto& f : c.flags) out += " \\\n  " + written(f);
  out += "\n";
}

}  // namespace

std::string launch_verdict_line(const Plan& plan) {
  if (plan.verdict.fits) return escape_control("# preflight: fits (deployment hypothesis): " + plan.verdict.summary);
  std::string why = plan.verdict.summary;
  constexpr std::string_view kPrefix = "does not fit: ";
  if (why.rfind(kPrefix, 0) == 0) why = why.substr(kPrefix.size());
  return escape_control("# preflight: does NOT fit: " + why + " — this command would fail at start-up");
}

std::string render_launch(const Plan& plan, const LaunchInput& in, const LaunchPlan& l, bool markdown) {
  std::string out;
  // Every comment line goes through escape_control: its text comes from files
  // and arguments (a model folder's name, a config's architectures, a catalogue
  // GPU's name), and a raw newline there would end the comment and make the rest
  // a command of the pasted script. Commands are quoted word by word (shell_word).
  const auto comment = [&out](std::string_view line) { out += escape_control(line) + "\n"; };
  if (markdown) out += "```bash\n";
  comment(launch_verdict_line(plan));
  if (plan.engine && !plan.engine->failure.empty())
    comment(fmt::format("# {}: {}", l.engine_name, plan.engine->failure));
  comment(fmt::format("# model: {} ({})", in.model.ref, in.model.described));
  comment(fmt::format(
      "# cluster: {} x {}{}; {} node{} of {}", plan.gpu_count, plan.gpu.name,
      in.arch_label.empty() ? ", architecture unknown (no architecture recipe applies)" : ", " + in.arch_label, l.nodes,
      l.nodes == 1 ? "" : "s", l.gpus_per_node));
  comment(fmt::format("# workload: context {} tokens, {} running request{}, KV cache {}, recurrent state {}",
                      with_commas(plan.workload.context_tokens), plan.workload.concurrency,
                      plan.workload.concurrency == 1 ? "" : "s", plan.workload.kv_dtype, plan.workload.state_dtype));
  const auto& lay = plan.layout;
  std::string layout_origin = lay.chosen_by;
  for (const auto s : {Setting::tp, Setting::ep, Setting::pp, Setting::dp, Setting::dcp}) {
    auto it = in.settings.values.find(s);
    if (it == in.settings.values.end() || it->second.from_user()) continue;
    const auto option = fmt::format("{} {}", setting_option(s), it->second.value);
    const auto from = fmt::format("{} from {}", option, it->second.recipe_label);
    // The planner names the option it was given; say the recipe gave it.
    if (layout_origin == option)
      layout_origin = from;
    else
      layout_origin += "; " + from;
  }
  comment(fmt::format("# layout: TP {}, DP {}, EP {}, PP {}, DCP {} ({})", lay.tp, lay.dp, lay.ep, lay.pp, lay.dcp,
                      layout_origin));
  for (const auto& line : provenance_lines(in, l)) comment(line);
  for (const auto& n : l.notes) comment("# note: " + n);
  for (const auto& [k, v] : l.env) out += fmt::format("export {}={}\n", k, shell_word(v));
  if (l.nodes > 1) {
    comment("# topology: " + l.topology);
    for (const auto& [name, what] : l.placeholders) comment(fmt::format("# set {}: {}", name.substr(1), what));
  }
  for (const auto& c : l.commands) {
    if (l.nodes > 1) {
      out += "\n";
      comment(fmt::format("# node {} of {}: {}", c.node, l.nodes, c.role));
    }
    print_command(out, c);
  }
  if (markdown) out += "```\n";
  return out;
}

nlohmann::json launch_json(const Plan& plan, const LaunchInput& in, const LaunchPlan& l) {
  using nlohmann::json;
  json commands = json::array();
  for (const auto& c : l.commands)
    commands.push_back({{"node", c.node}, {"role", c.role}, {"argv", c.argv()}, {"shell", shell_line(c.argv())}});
  json flags = json::array();
  for (const auto& f : l.flags) {
    json j{{"flag", f.flag}, {"value", f.value ? json(*f.value) : json(nullptr)}, {"origin", f.group}};
    if (!f.recipe_id.empty()) j["recipe"] = f.recipe_id;
    if (!f.source.empty()) j["source"] = f.source;
    flags.push_back(std::move(j));
  }
  json env = json::object();
  for (const auto& [k, v] : l.env) env[k] = v;
  json placeholders = json::object();
  for (const auto& [k, v] : l.placeholders) placeholders[k] = v;
  json sources = json::array();
  for (const auto& [what, where] : l.sources) sources.push_back({{"what", what}, {"source", where}});
  const auto& lay = plan.layout;
  return json{
      {"engine", l.engine == EngineKind::vllm ? "vllm" : "sglang"},
      {"engine_name", l.engine_name},
      {"model",
       {{"name", plan.model_name},
        {"ref", in.model.ref},
        {"described", in.model.described},
        {"revision", in.model.revision},
        {"local_path", in.model.local_path}}},
      {"cluster",
       {{"gpu", plan.gpu.id},
        {"count", plan.gpu_count},
        {"arch", in.arch},
        {"nodes", l.nodes},
        {"gpus_per_node", l.gpus_per_node}}},
      {"layout",
       {{"tp", lay.tp},
        {"ep", lay.ep},
        {"pp", lay.pp},
        {"dp", lay.dp},
        {"dcp", lay.dcp},
        {"chosen_by", lay.chosen_by}}},
      {"workload",
       {{"context_tokens", plan.workload.context_tokens},
        {"concurrency", plan.workload.concurrency},
        {"kv_dtype", plan.workload.kv_dtype},
        {"state_dtype", plan.workload.state_dtype}}},
      {"verdict",
       {{"fits", plan.verdict.fits},
        {"first_boundary", std::string(resource_key(plan.verdict.first_boundary))},
        {"summary", plan.verdict.summary},
        {"line", launch_verdict_line(plan)},
        {"exit_code", plan.verdict.fits ? 0 : 1}}},
      {"topology", l.topology},
      {"commands", commands},
      {"flags", flags},
      {"env", env},
      {"placeholders", placeholders},
      {"notes", l.notes},
      {"sources", sources},
  };
}

}  // namespace preflight
