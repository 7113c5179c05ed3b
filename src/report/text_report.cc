#include "report/text_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/bytes.h"
#include "model/request_state.h"
#include "report/reconstruction.h"

namespace preflight {

namespace {

char resource_glyph(Resource r) {
  switch (r) {
    case Resource::weights:
      return '#';
    case Resource::reserve:
      return 'r';
    case Resource::activations:
      return 'a';
    case Resource::recurrent_state:
      return 's';
    case Resource::kv_cache:
      return 'k';
    case Resource::ttft:
    case Resource::tpot:
    case Resource::latency_unchecked:
      return '?';  // not a ledger row: never drawn
    case Resource::none:
      return '.';
  }
  return '?';
}

std::string heading(TextStyle style, int level, std::string_view text) {
  if (style == TextStyle::markdown) return fmt::format("\n{} {}\n\n", std::string(level + 1, '#'), text);
  return fmt::format("\n{}\n{}\n", text, std::string(text.size(), level == 1 ? '=' : '-'));
}

// Ranks whose rows are byte-identical are shown once ("ranks 0-7").
struct RankGroup {
  std::uint64_t first = 0, last = 0;
  const RankLedger* ledger = nullptr;
};

bool same_rows(const RankLedger& a, const RankLedger& b) {
  if (a.rows.size() != b.rows.size() || a.capacity != b.capacity) return false;
  for (std::size_t i = 0; i < a.rows.size(); ++i)
    if (a.rows[i].id != b.rows[i].id || a.rows[i].bytes != b.rows[i].bytes) return false;
  return true;
}

std::vector<RankGroup> group_ranks(const std::vector<RankLedger>& ranks) {
  std::vector<RankGroup> groups;
  for (const auto& r : ranks) {
    if (!groups.empty() && same_rows(*groups.back().ledger, r) && groups.back().last + 1 == r.rank) {
      groups.back().last = r.rank;
      continue;
    }
    groups.push_back({r.rank, r.rank, &r});
  }
  return groups;
}

std::string rank_name(const RankGroup& g) {
  return g.first == g.last ? fmt::format("rank {}", g.first) : fmt::format("ranks {}-{}", g.first, g.last);
}

std::string bytes_cell(std::uint64_t b) { return fmt::format("{} ({})", format_gb(b, 2), format_binary(b, 2)); }

void ledger_table(std::string& out, const RankGroup& g, TextStyle style) {
  const auto& l = *g.ledger;
  if (style == TextStyle::markdown) {
    out += fmt::format("**{}** `{}`\n\n| row | bytes | evidence | formula |\n|---|---:|---|---|\n", rank_name(g),
                       rank_bar(l, 40));
    for (const auto& r : l.rows)
      out +=
          fmt::format("| {} | {} | {} | {} |\n", r.label, bytes_cell(r.bytes), evidence_label(r.evidence), r.formula);
    out += fmt::format("| **total demand** | {} | | sum of rows |\n", bytes_cell(l.demand));
    if (l.fits())
      out += fmt::format("| free | {} | derived calculation | capacity - demand |\n", bytes_cell(l.free));
    else
      out += fmt::format("| **over capacity** | {} | derived calculation | demand - capacity |\n", bytes_cell(l.over));
    out += fmt::format("| capacity | {} | | device-reported |\n\n", bytes_cell(l.capacity));
    return;
  }
  out += fmt::format("{}  [{}]\n", rank_name(g), rank_bar(l, 50));
  for (const auto& r : l.rows)
    out += fmt::format("  {:<34} {:>30}  {}\n", r.label, bytes_cell(r.bytes), evidence_label(r.evidence));
  out += fmt::format("  {:<34} {:>30}\n", "total demand", bytes_cell(l.demand));
  if (l.fits())
    out += fmt::format("  {:<34} {:>30}\n", "free", bytes_cell(l.free));
  else
    out += fmt::format("  {:<34} {:>30}  <- {} crossed the boundary\n", "OVER capacity", bytes_cell(l.over),
                       resource_key(l.first_boundary));
  out += fmt::format("  {:<34} {:>30}\n", "capacity (device-reported)", bytes_cell(l.capacity));
}

void figure_lines(std::string& out, const std::vector<Figure>& figures, std::string_view prefix, TextStyle style,
                  bool with_formula) {
  for (const auto& f : figures) {
    if (!prefix.empty() && !f.id.starts_with(prefix)) continue;
    if (style == TextStyle::markdown) {
      out += fmt::format("- **{}**: {} — *{}*", f.label, f.display, evidence_label(f.evidence));
      if (with_formula) out += fmt::format("; `{}`; source: {}", f.formula, f.source);
      out += "\n";
    } else {
      out += fmt::format("  {:<46} {}  [{}]\n", f.label, f.display, evidence_label(f.evidence));
      if (with_formula) {
        out += fmt::format("  {:<46}   = {}\n", "", f.formula);
        out += fmt::format("  {:<46}   source: {}\n", "", f.source);
      }
    }
  }
}

void checklist_lines(std::string& out, const Plan& plan, TextStyle style) {
  out += heading(style, 2, "Preflight checklist");
  int i = 1;
  for (const auto& c : plan.checklist) {
    const char* mark = c.status == "established" ? "[x]" : c.status == "failed" ? "[!]" : "[ ]";
    if (style == TextStyle::markdown)
      out += fmt::format("{}. {} **{}** ({}): {}\n", i++, mark, c.step, c.status, c.detail);
    else
      out += fmt::format("{}. {} {}: {}\n", i++, mark, c.step, c.detail);
  }
}

void verdict_block(std::string& out, const Plan& plan, TextStyle style) {
  const auto& v = plan.verdict;
  const std::string word(verdict_word(v));
  if (style == TextStyle::markdown)
    out += fmt::format("**Verdict: {}** ({}): {}\n\nfirst boundary: `{}`; headroom on the tightest rank: {} B\n", word,
                       evidence_label(v.evidence), v.summary, resource_key(v.first_boundary), v.headroom_bytes);
  else
    out += fmt::format("Verdict: {} [{}]\n  {}\n  first boundary: {}\n", word, evidence_label(v.evidence), v.summary,
                       resource_key(v.first_boundary));
  for (const auto& x : v.suggestions)
    out += fmt::format("{}green with {} ({} free on the tightest rank; {})\n",
                       style == TextStyle::markdown ? "- " : "  ", x.flags,
                       format_gb(static_cast<std::uint64_t>(std::max<std::int64_t>(x.headroom_bytes, 0)), 1), x.layout);
}

// "kv_cache 51.5%, bf16 42.5%, mxfp4 5.4%": the shares of a figure family, largest first.
std::string share_line(const std::vector<Figure>& figures, std::string_view prefix) {
  std::vector<const Figure*> shares;
  for (const auto& f : figures)
    if (f.id.starts_with(prefix)) shares.push_back(&f);
  std::stable_sort(shares.begin(), shares.end(), [](const Figure* a, const Figure* b) { return a->value > b->value; });
  std::string out;
  for (const auto* f : shares) {
    if (f->value < 0.05) continue;
    out += fmt::format("{}{} {:.1f}%", out.empty() ? "" : ", ", f->id.substr(prefix.size()), f->value);
  }
  return out;
}

void perf_block(std::string& out, const Plan& plan, TextStyle style) {
  const auto& p = *plan.perf;
  out += heading(style, 2, "Throughput bounds, cost (upper bounds and estimates, never promises)");
  if (!p.available) {
    out += fmt::format("  no throughput figures: {}\n", p.unavailable);
    return;
  }
  if (!plan.verdict.fits)
    out += fmt::format(
        "  the plan does not fit (first boundary: {}): these bounds describe a deployment that would not "
        "start as planned\n",
        resource_key(plan.verdict.first_boundary));
  const bool batched = p.decode.concurrency > 1;
  for (const char* id :
       {"perf.decode_tokens_per_s_bound", "perf.binding_term", "perf.decode_tokens_per_s_per_gpu_bound",
        "perf.concurrency", "perf.at_concurrency.tokens_per_s_per_request_bound",
        "perf.at_concurrency.tokens_per_s_bound", "perf.at_concurrency.tokens_per_s_per_gpu_bound",
        "perf.at_concurrency.binding_term", "perf.bytes_per_token", "perf.prefill_seconds_bound",
        "perf.prefill_binding_term", "perf.spec.tokens_per_step", "perf.spec.decode_tokens_per_s_bound"}) {
    // The batched figures repeat the batch-1 ones when one request is in flight.
    if (!batched && std::string_view(id).starts_with("perf.at_concurrency")) continue;
    if (!batched && std::string_view(id) == "perf.concurrency") continue;
    if (const auto* f = find_figure(plan.figures, id)) figure_lines(out, {*f}, "", style, false);
  }
  const auto all = share_line(plan.figures, "perf.bytes_share.");
  const auto weights = share_line(plan.figures, "perf.weight_bytes_share.");
  const char* bullet = style == TextStyle::markdown ? "- " : "  ";
  if (!all.empty()) out += fmt::format("{}bytes read per token by storage format: {}\n", bullet, all);
  if (!weights.empty()) out += fmt::format("{}of the weight bytes alone: {}\n", bullet, weights);
  figure_lines(out, plan.figures, "cost.", style, false);
  if (!p.cost.priced)
    out += fmt::format("{}cost: no dated list price for {} in the catalogue; pass --price USD per GPU-hour\n", bullet,
                       plan.gpu.id);
}

std::string plan_header(const Plan& plan, TextStyle style) {
  std::string out;
  out += (style == TextStyle::markdown ? "# " : "") +
         fmt::format("preflight plan: {} on {} x {}\n", plan.model_name, plan.gpu_count, plan.gpu.name);
  if (!plan.files_disagree.empty())
    out += fmt::format("{}{}{}\n", style == TextStyle::markdown ? "\n**" : "", plan.files_disagree,
                       style == TextStyle::markdown ? "**" : "");
  if (!plan.revision.empty())
    out += fmt::format("{}revision {}\n", style == TextStyle::markdown ? "\n" : "", plan.revision);
  out += fmt::format("{}layout: TP {} x DP {} attention, EP {}, PP {}, DCP {} ({})\n",
                     style == TextStyle::markdown ? "\n" : "", plan.layout.tp, plan.layout.dp, plan.layout.ep,
                     plan.layout.pp, plan.layout.dcp, plan.layout.chosen_by);
  if (plan.second_pass) {
    const auto& w = plan.workload;
    const auto spec = w.spec_tokens ? fmt::format(", {} speculative tokens{}", w.spec_tokens,
                                                  plan.draft_name.empty() ? "" : " (draft " + plan.draft_name + ")")
                                    : "";
    const bool has_state = find_figure(plan.figures, "state.slot_per_rank") != nullptr;
    const auto lengths = w.mix.empty() ? fmt::format("{} tokens", with_commas(w.context_tokens))
                                       : fmt::format("a mix of {}", describe_mix(w.mix));
    out += fmt::format("workload: {} x {} request{}, KV {}{}, prefill chunk {}\n", lengths, w.concurrency,
                       w.concurrency == 1 ? "" : "s", w.kv_dtype,
                       has_state ? fmt::format(", recurrent state {} x {} slots{}", w.state_dtype, w.state_slots,
                                               w.spec_tokens ? fmt::format(" + {} speculative", w.spec_tokens) : "")
                                 : "",
                       with_commas(w.chunk_tokens));
    if (!spec.empty()) out += fmt::format("speculative decoding: {}\n", spec.substr(2));
  } else {
    out += "pass 1 (weights only): add --context/--concurrency/--reserve for request-level pressure\n";
  }
  return out;
}

}  // namespace

std::string rank_bar(const RankLedger& l, int width) {
  std::string bar;
  const double scale = static_cast<double>(width) / static_cast<double>(std::max(l.capacity, l.demand));
  double acc = 0;
  for (const auto& r : l.rows) {
    acc += static_cast<double>(r.bytes) * scale;
    const auto target = static_cast<std::size_t>(acc + 0.5);
    while (bar.size() < target) bar.push_back(resource_glyph(r.resource));
  }
  const auto cap = static_cast<std::size_t>(static_cast<double>(l.capacity) * scale + 0.5);
  while (bar.size() < cap) bar.push_back('.');
  // Mark what lies beyond the capacity.
  for (std::size_t i = cap; i < bar.size(); ++i) bar[i] = '!';
  return bar;
}

namespace {

constexpr std::size_t kPlanWidth = 100;  // columns: a plan reads in a terminal and a review diff

// `text` broken at spaces into lines of at most `width` columns: the first after
// `indent`, the rest after `continuation`. A word longer than the width stays whole.
std::string wrapped(std::string_view text, std::size_t width, std::string_view indent, std::string_view continuation) {
  std::string out, line;
  std::string_view lead = indent;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    const auto word = text.substr(start, end - start);
    if (!line.empty() && lead.size() + line.size() + 1 + word.size() > width) {
      out += fmt::format("{}{}\n", lead, line);
      line.clear();
      lead = continuation;
    }
    if (!line.empty()) line += ' ';
    line += word;
    start = end + 1;
  }
  if (!line.empty()) out += fmt::format("{}{}\n", lead, line);
  return out;
}

std::string wrapped(std::string_view text, std::size_t width, std::string_view indent) {
  return wrapped(text, width, indent, indent);
}

// Every line of `text` within `width` columns: a figure row moves its evidence
// tag ("[derived calculation]") to the next line under the value column; any
// other line breaks at spaces, continuing two columns past its own indent (a
// bullet's text, not its dash). A word longer than the width stays whole.
std::string fit_to_width(const std::string& text, std::size_t width) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.size() <= width) {
      out += line + "\n";
      continue;
    }
    const auto indent = line.find_first_not_of(' ');
    const auto tag = line.rfind("  [");
    if (line.back() == ']' && tag != std::string::npos && tag > 0 && line.size() - tag < 40 && tag <= width) {
      out += line.substr(0, tag) + "\n";
      out += std::string(std::min<std::size_t>(49, width / 2), ' ') + line.substr(tag + 2) + "\n";
      continue;
    }
    const std::size_t lead = indent == std::string::npos ? 0 : indent;
    const std::size_t bullet = line.compare(lead, 2, "- ") == 0 ? 2 : 0;
    const std::string cont(std::min<std::size_t>(lead + bullet + 2, width / 2), ' ');
    out += wrapped(std::string_view(line).substr(lead), width, std::string_view(line).substr(0, lead), cont);
  }
  if (!text.empty() && text.back() != '\n' && !out.empty()) out.pop_back();
  return out;
}

}  // namespace

std::string within_plan_width(const std::string& text) { return fit_to_width(text, kPlanWidth); }

std::string render_plan(const Plan& plan, TextStyle style) {
  return style == TextStyle::table ? fit_to_width(render_plan_lines(plan, style), kPlanWidth)
                                   : render_plan_lines(plan, style);
}

std::string render_plan_lines(const Plan& plan, TextStyle style) {
  std::string out = plan_header(plan, style);
  out += "\n";
  verdict_block(out, plan, style);
  out += heading(style, 2, "Weight lower bounds");
  for (const char* id :
       {"model.logical_parameters", "artifact.shard_bytes", "cluster.nominal_aggregate_gb", "weights.nominal_shortfall",
        "weights.recipe_minimum_left", "weights.flat_4bit_bound", "cluster.device_capacity_per_gpu",
        "cluster.device_capacity_total", "weights.even_share_per_rank", "weights.heaviest_rank"}) {
    if (const auto* f = find_figure(plan.figures, id)) figure_lines(out, {*f}, "", style, false);
  }
  if (plan.engine) {
    const auto& e = *plan.engine;
    out += heading(style, 2,
                   fmt::format("Engine: {} {}{} (what it would log at start-up)", e.name, e.version,
                               e.version_defaulted ? ", the newest modelled" : ""));
    if (!e.version_note.empty()) out += fmt::format("  warning: {}\n", e.version_note);
    figure_lines(out, plan.figures, "engine.", style, false);
    if (!e.failure.empty()) out += fmt::format("  the engine would refuse to start: {}\n", e.failure);
    if (e.range && e.range->points.size() > 1) {
      const auto& r = *e.range;
      if (!r.kv_min_version.empty()) {  // some release sized a cache
        out += fmt::format(
            "  release unknown (no --engine-version): across {} {} to {} ({} releases whose rules differ{}) "
            "KV tokens {} ({}) to {} ({}); max concurrency {:.2f}x ({}) to {:.2f}x ({}) [planning estimate]\n",
            e.name, r.points.front().version, r.points.back().version, r.points.size(),
            r.ends_from_refusals ? "; the caches each sizes before refusing the request" : "",
            with_commas(r.release_kv_tokens_min), r.kv_min_version, with_commas(r.release_kv_tokens_max),
            r.kv_max_version, r.release_concurrency_min, r.concurrency_min_version, r.release_concurrency_max,
            r.concurrency_max_version);
        if (r.band > 0)
          out += fmt::format(
              "    with the sizing's own error (+-{:.1f}%, its largest on start-up logs it was not written "
              "from): KV tokens {} to {}; max concurrency {:.2f}x to {:.2f}x [planning estimate]\n",
              r.band * 100, with_commas(r.kv_cache_tokens_min), with_commas(r.kv_cache_tokens_max),
              r.max_concurrency_min, r.max_concurrency_max);
      }
      for (const auto& p : r.points)
        if (!p.failure.empty())
          out += fmt::format("    {} {} would refuse to start: {}\n", e.name, p.version, p.failure);
    }
  } else if (plan.second_pass) {
    out += heading(style, 2, "Request state");
    figure_lines(out, plan.figures, "state.", style, false);
    figure_lines(out, plan.figures, "kv.", style, false);
    figure_lines(out, plan.figures, "activations.", style, false);
  }
  out += heading(style, 2, "Per-rank ledger");
  if (style == TextStyle::table)
    out += "  bar: # weights  r reserve  a activations  s recurrent state  k KV cache  . free  ! over capacity\n";
  for (const auto& g : group_ranks(plan.ranks)) ledger_table(out, g, style);
  if (find_figure(plan.figures, "offload.cpu_tokens") != nullptr) {
    out += heading(style, 2, "KV offload to CPU memory (deployment hypotheses)");
    figure_lines(out, plan.figures, "offload.", style, false);
  }
  if (plan.latency) {
    out += heading(style, 2, "Latency targets (against the roofline bounds)");
    figure_lines(out, plan.figures, "latency.", style, false);
  }
  if (plan.perf) perf_block(out, plan, style);
  out += heading(style, 2, "Disk and download");
  figure_lines(out, plan.figures, "disk.", style, false);
  figure_lines(out, plan.figures, "coldstart.", style, false);
  out += heading(style, 2, "Assumptions");
  for (const auto& a : plan.assumptions) out += fmt::format("- {}\n", a);
  checklist_lines(out, plan, style);
  out += "\n`preflight explain` with the same flags shows the arithmetic behind every figure.\n";
  return out;
}

std::string render_brief(const Plan& plan) {
  const auto& v = plan.verdict;
  const auto fig = [&](std::string_view id) { return find_figure(plan.figures, id); };
  std::string out =
      fmt::format("{} on {} x {}: {}\n", plan.model_name, plan.gpu_count, plan.gpu.id, layout_summary(plan.layout));
  out += fmt::format("Verdict: {} [{}]\n", verdict_word(v), evidence_label(v.evidence));
  out += wrapped(v.summary, 100, "  ");
  const auto headroom = v.headroom_bytes >= 0 ? static_cast<std::uint64_t>(v.headroom_bytes)
                                              : static_cast<std::uint64_t>(-(v.headroom_bytes + 1)) + 1;
  out += fmt::format("first boundary: {}; rank {} {} {}\n", resource_key(v.first_boundary), v.worst_rank,
                     v.headroom_bytes >= 0 ? "keeps" : "is short by", format_gb(headroom, 1));
  if (!v.suggestions.empty())
    out += fmt::format(
        "green with {} ({} free on the tightest rank)\n", v.suggestions.front().flags,
        format_gb(static_cast<std::uint64_t>(std::max<std::int64_t>(v.suggestions.front().headroom_bytes, 0)), 1));
  if (const auto* f = fig("weights.heaviest_rank"))
    out += fmt::format("weights on the heaviest rank: {}\n", f->display);
  if (plan.engine) {
    const auto& e = *plan.engine;
    out += fmt::format("{} {}: {} tokens of KV cache, {:.2f} requests of {} tokens{}\n", e.name, e.version,
                       with_commas(e.kv_cache_tokens), e.max_concurrency, with_commas(plan.workload.context_tokens),
                       e.failure.empty() ? "" : "; would refuse to start");
  } else if (plan.second_pass) {
    if (const auto* f = fig("kv.per_request_per_rank")) out += fmt::format("{}: {}\n", f->label, f->display);
    if (const auto* f = fig("state.slot_per_rank")) out += fmt::format("{}: {}\n", f->label, f->display);
  }
  if (const auto* f = fig("perf.decode_tokens_per_s_bound"); f && v.fits)
    out += fmt::format("{}: {}\n", f->label, f->display);
  out += "the full plan: the same command without --brief; the arithmetic: preflight explain\n";
  return out;
}

namespace {

// The figure-id prefixes and ledger resources of each explain --only section.
struct ExplainSection {
  std::string_view name;
  std::vector<std::string_view> prefixes;
  std::vector<Resource> rows;
};

const ExplainSection* explain_section(std::string_view only) {
  static const std::vector<ExplainSection> kSections = {
      {"weights", {"model.", "artifact.", "cluster.", "weights."}, {Resource::weights}},
      {"state",
       {"state.", "activations.", "reserve."},
       {Resource::recurrent_state, Resource::activations, Resource::reserve}},
      {"kv", {"kv.", "offload."}, {Resource::kv_cache}},
      {"engine", {"engine."}, {}},
      {"perf", {"perf.", "latency."}, {}},
      {"disk", {"disk.", "coldstart."}, {}},
  };
  for (const auto& s : kSections)
    if (s.name == only) return &s;
  return nullptr;
}

}  // namespace

std::string render_explain(const Plan& plan, TextStyle style, std::string_view only) {
  const auto* section = explain_section(only);
  const auto shown = [&](std::string_view id) {
    if (!section) return true;
    for (auto p : section->prefixes)
      if (id.starts_with(p)) return true;
    return false;
  };
  std::string out = plan_header(plan, style);
  out += "\n";
  verdict_block(out, plan, style);
  if (plan.verdict.fits && !section)
    out +=
        "  A green verdict is a deployment hypothesis: it says the bytes can be placed under these inputs, not "
        "that latency, throughput or reliability targets are met. Benchmark it.\n";
  out += heading(style, 2,
                 section ? fmt::format("The {} figures, with their evidence, formula and source", section->name)
                         : std::string("Every figure, with its evidence, formula and source"));
  std::vector<Figure> figures;
  for (const auto& f : plan.figures)
    if (shown(f.id)) figures.push_back(f);
  if (figures.empty()) out += fmt::format("  (no {} figures in this plan)\n", only);
  figure_lines(out, figures, "", style, true);
  if (section && section->rows.empty()) return out;
  out += heading(style, 2, "Ledger rows (tightest rank)");
  const auto& worst = *std::find_if(plan.ranks.begin(), plan.ranks.end(),
                                    [&](const RankLedger& l) { return l.rank == plan.verdict.worst_rank; });
  for (const auto& r : worst.rows) {
    if (section && std::find(section->rows.begin(), section->rows.end(), r.resource) == section->rows.end()) continue;
    out += fmt::format("  {:<30} {:>28}  [{}]\n  {:<30}   = {}\n", r.label, bytes_cell(r.bytes),
                       evidence_label(r.evidence), "", r.formula);
  }
  if (section) return out;
  out += fmt::format("  sum of rows {} B {} capacity {} B: {}\n", with_commas(worst.demand), worst.fits() ? "<=" : ">",
                     with_commas(worst.capacity),
                     worst.fits() ? fmt::format("{} B free", with_commas(worst.free))
                                  : fmt::format("{} B over", with_commas(worst.over)));
  out += heading(style, 2, "Evidence labels");
  out +=
      "  official fact: read from a pinned artifact, report or serving recipe\n"
      "  derived calculation: arithmetic on official facts alone\n"
      "  planning estimate: adds an explicit assumption (even placement, a reserve %, a dtype)\n"
      "  deployment hypothesis: a configuration that still needs a benchmark\n";
  checklist_lines(out, plan, style);
  return out;
}

std::string render_inventory(const ModelSpec& model, const Inventory& inv, const Reconciliation* rec, TextStyle style) {
  std::string out;
  out += (style == TextStyle::markdown ? "# " : "") + fmt::format("preflight inspect: {}\n", model.name);
  out += fmt::format("{} ({}), {} layers", model.architecture, model.family, model.layers.size());
  if (model.count_layers(LayerKind::kda) > 0)
    out += fmt::format(": {} KDA + {} MLA", model.count_layers(LayerKind::kda), model.count_layers(LayerKind::mla));
  out += "\n";
  if (!model.files_disagree.empty()) out += model.files_disagree + "\n";
  out += fmt::format("tensors from: {}\n", manifest_source_text(model));
  if (!model.family_reader)
    out += fmt::format(
        "{} has no family reader: its structure was read as a generic decoder, and figures computed from "
        "it are planning estimates\n",
        model.architecture.empty() ? model.name : model.architecture);
  if (model.artifact)
    out += fmt::format("artifact: {}@{}, {} shards, {} B (official fact, {})\n", model.artifact->hub_id,
                       model.artifact->revision, model.artifact->shard_count, with_commas(model.artifact->shard_bytes),
                       model.artifact->checked_on);
  out += heading(style, 2, "Parameters and bytes by module");
  if (style == TextStyle::markdown)
    out += "| module | tensors | parameters | bytes | by dtype |\n|---|---:|---:|---:|---|\n";
  else
    out += fmt::format("  {:<26} {:>9} {:>20} {:>24}  {}\n", "module", "tensors", "parameters", "bytes", "by dtype");
  for (const auto& r : inv.by_module) {
    std::string dtypes;
    for (const auto& [d, b] : r.bytes_by_dtype)
      dtypes += (dtypes.empty() ? "" : ", ") + fmt::format("{} {}", d, format_gb(b, 2));
    if (style == TextStyle::markdown)
      out += fmt::format("| {} | {} | {} | {} | {} |\n", module_label(r.module), with_commas(r.tensors),
                         with_commas(r.logical_params), with_commas(r.bytes), dtypes);
    else
      out += fmt::format("  {:<26} {:>9} {:>20} {:>24}  {}\n", module_label(r.module), with_commas(r.tensors),
                         with_commas(r.logical_params), with_commas(r.bytes), dtypes);
  }
  out += fmt::format("{}  {:<26} {:>9} {:>20} {:>24}\n", style == TextStyle::markdown ? "\n" : "", "total",
                     with_commas(inv.tensors), with_commas(inv.logical_params), with_commas(inv.payload_bytes));
  out += heading(style, 2, "Bytes by storage format");
  for (const auto& [d, b] : inv.bytes_by_dtype)
    out += fmt::format("  {:<20} {:>24} B  {}\n", d, with_commas(b), format_gb(b, 3));
  out += heading(style, 2, "Two-precision reconstruction");
  figure_lines(out, two_precision_reconstruction(model, inv), "", style, true);
  out += heading(style, 2, "Cache per token and state per sequence (whole model, TP 1)");
  for (const auto& r : token_cache_per_rank(model, 2, 1))
    out += fmt::format("  {:<18} {} B/token BF16, {} B FP8{}: {} ({})\n", layer_kind_key(r.kind),
                       with_commas(r.bytes_per_token), with_commas(r.bytes_per_token / 2),
                       r.token_cap > 0 ? fmt::format(", capped at {} tokens", r.token_cap) : "", r.formula,
                       model.family_reader ? "derived" : "estimate");
  const auto bf16 = recurrent_state_per_rank(model, 1, 2);
  const auto fp32 = recurrent_state_per_rank(model, 1, 4);
  for (std::size_t i = 0; i < fp32.size(); ++i)
    out += fmt::format(
        "  {:<18} {} B ({}) per sequence with FP32 recurrent state, {} B with BF16; of which "
        "short-conv {} B ({})\n",
        layer_kind_key(fp32[i].kind), with_commas(fp32[i].bytes), format_mib(fp32[i].bytes), with_commas(bf16[i].bytes),
        with_commas(fp32[i].conv_bytes), model.family_reader ? "derived" : "estimate");
  if (!model.notes.empty()) {
    out += heading(style, 2, "Reader notes");
    for (const auto& n : model.notes) out += fmt::format("- {}\n", n);
  }
  if (rec) {
    const bool headers = rec->method == ReconciliationMethod::shard_headers;
    out +=
        heading(style, 2,
                headers              ? "Reconciliation against the shard headers"
                : rec->bytes_known() ? "Reconciliation against the index and each shard's size (bytes exact per shard)"
                                     : "Reconciliation against the index (names only)");
    out += fmt::format("  generated {} tensors, {} B; real {} tensors{}\n", with_commas(rec->generated_tensors),
                       with_commas(rec->generated_bytes), with_commas(rec->real_tensors),
                       rec->bytes_known()
                           ? fmt::format(", {} B payload + {} B headers in {} shards", with_commas(rec->real_bytes),
                                         with_commas(rec->header_bytes), rec->shard_count)
                           : fmt::format(" in {} shards", rec->shard_count));
    if (rec->method == ReconciliationMethod::index_and_shard_sizes)
      out += fmt::format(
          "  {} shard(s) verified by size (payload = file size - 8 - header length = generated bytes "
          "there); {} read in full because they differed; dtypes and shapes seen only there\n",
          rec->shards_verified_by_size, rec->shards_read_in_full);
    if (rec->index_total_size)
      out += fmt::format("  index metadata.total_size {} (as reported: not always bytes)\n",
                         with_commas(*rec->index_total_size));
    out += fmt::format("  missing {} ({} B), extra {} ({} B), mismatched {} (real - generated {} B): {}\n",
                       rec->missing_count, with_commas(rec->missing_bytes), rec->extra_count,
                       with_commas(rec->extra_bytes), rec->mismatched_count, rec->mismatch_delta,
                       rec->exact() ? "exact match" : "differs");
    if (rec->bytes_known())
      out += fmt::format("  check: {} - {} + {} + ({}) = {} {}\n", with_commas(rec->generated_bytes),
                         with_commas(rec->missing_bytes), with_commas(rec->extra_bytes), rec->mismatch_delta,
                         with_commas(rec->real_bytes), rec->adds_up() ? "(adds up)" : "(DOES NOT ADD UP)");
    for (const auto& d : rec->examples)
      out += fmt::format("    {}: generated {} | real {}\n", d.name, d.generated.empty() ? "-" : d.generated,
                         d.real.empty() ? "-" : d.real);
  }
  return out;
}

std::string render_gpus(const std::vector<Accelerator>& gpus, TextStyle style) {
  std::string out;
  if (style == TextStyle::markdown)
    out +=
        "| id | name | nominal | device-reported | evidence | HBM TB/s | BF16 TF | FP4 | per node | $/GPU-h |\n"
        "|---|---|---:|---:|---|---:|---:|---|---:|---:|\n";
  else
    out += fmt::format("{:<38} {:>8} {:>16} {:<10} {:>7} {:>8} {:>4} {:>5} {:>8}\n", "id", "nominal", "device-reported",
                       "evidence", "TB/s", "BF16 TF", "FP4", "node", "$/GPU-h");
  for (const auto& g : gpus) {
    const auto price =
        g.price_usd_per_gpu_hour > 0 ? fmt::format("{:.2f}", g.price_usd_per_gpu_hour) : std::string("-");
    // A figure nobody publishes prints as "?", not as a 0 that reads like "none".
    const auto figure = [&](const char* key, double v) {
      return g.is_unknown(key) ? std::string("?") : fmt::format("{}", v);
    };
    const auto bandwidth = figure("memory_bandwidth_tb_s", g.memory_bandwidth_tb_s);
    const auto bf16 = figure("bf16_dense_tflops", g.bf16_dense_tflops);
    if (style == TextStyle::markdown)
      out += fmt::format("| {} | {} | {} GB | {} | {} | {} | {} | {} | {} | {} |\n", g.id, g.name, g.nominal_gb,
                         format_gib(g.device_total_bytes), evidence_label(g.device_total_evidence), bandwidth, bf16,
                         g.fp4_native ? "yes" : "no", g.gpus_per_node, price);
    else
      out += fmt::format("{:<38} {:>5} GB {:>16} {:<10} {:>7} {:>8} {:>4} {:>5} {:>8}\n", g.id, g.nominal_gb,
                         format_gib(g.device_total_bytes), evidence_key(g.device_total_evidence), bandwidth, bf16,
                         g.fp4_native ? "yes" : "no", g.gpus_per_node, price);
  }
  out +=
      "\nnominal: the vendor's headline; device-reported: what CUDA/HIP report as total (plans use it).\n"
      "Sources for every figure: preflight gpus --format json.\n";
  return out;
}

}  // namespace preflight
