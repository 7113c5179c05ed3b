// The planner page: inputs in the address bar, figures from the JSON API
// (the command line's JSON), drawn in the order seed 000 prescribes: first do
// the weights fit, then what the workload adds.
"use strict";

const $ = id => document.getElementById(id);
const FIELDS = ["model", "gpu", "count", "context", "concurrency", "kv_dtype", "state_dtype", "reserve", "engine",
                "engine_version", "quantize", "tp", "ep", "pp", "dp", "price", "api_price", "mix", "ttft", "tpot", "rate",
                "prefill_gpus", "decode_gpus"];
// Only `plan` sizes a prefill/decode split; the other views plan the colocated cluster above.
const SPLIT = ["prefill_gpus", "decode_gpus"];
const WORKLOAD = ["context", "concurrency", "kv_dtype", "state_dtype", "reserve", "engine", "tp", "ep", "pp", "dp",
                  "price", "api_price"];
const RESOURCES = [["weights", "weights"], ["reserve", "reserve"], ["activations", "activations"],
                   ["recurrent_state", "recurrent state"], ["kv_cache", "KV cache"], ["free", "free"], ["over", "over capacity"]];
const FIT_FAMILIES = ["H100", "H200", "B200", "B300", "GB300", "MI300X", "MI355X"];
const MAX_CONCURRENCY = [1, 2, 4, 8, 16, 32, 64];
// The views below the verdict: marked stale (dimmed, "updating") as soon as the inputs
// change, fresh again once redrawn for the new inputs, emptied when the new inputs fail.
const VIEWS = ["ranks", "perf", "launch", "headroom-chart", "fit-table", "max-chart"];
const stale = ids => { for (const id of ids) $(id).classList.add("stale"); };
const fresh = ids => { for (const id of ids) $(id).classList.remove("stale"); };

let uploaded = null;   // {name, text} of an uploaded config.json
let generation = 0;    // drops responses to superseded inputs

const gb = b => (b / 1e9).toFixed(1) + " GB";
const gib = b => (b / 1073741824).toFixed(2) + " GiB";
const bytes = b => `${gb(b)} (${gib(b)})`;
const num = (v, d = 1) => Number(v).toLocaleString("en-US", {maximumFractionDigits: d});
const minutes = s => s >= 3600 ? (s / 3600).toFixed(2) + " h" : s >= 600 ? (s / 60).toFixed(1) + " min" : Math.round(s) + " s";

// The inputs as API parameters (empty fields left out: the CLI's defaults apply).
function params() {
  const p = {};
  for (const f of FIELDS) {
    const v = $(f).value.trim();
    if (v !== "" && f !== "gpu" && f !== "count" && f !== "model") p[f] = v;
  }
  p.gpus = `${$("count").value || 1}x${$("gpu").value}`;
  if (uploaded) { p.model_config = uploaded.text; p.model_name = uploaded.name; }
  else p.model = $("model").value;
  return p;
}

function saveToUrl() {
  const q = new URLSearchParams();
  for (const f of FIELDS) {
    const v = $(f).value.trim();
    if (v !== "" && !(f === "model" && uploaded)) q.set(f, v);
  }
  history.replaceState(null, "", "?" + q.toString());
}

function loadFromUrl() {
  const q = new URLSearchParams(location.search);
  for (const f of FIELDS) if (q.has(f)) $(f).value = q.get(f);
}

async function api(command, body) {
  const res = await fetch("/api/" + command, {method: "POST", headers: {"Content-Type": "application/json"},
                                              body: JSON.stringify(body)});
  const json = await res.json();
  if (res.status !== 200) throw new Error(json.error || res.statusText);
  return json;
}

// A plan's ranks grouped by identical ledgers (as the text report does).
function rankGroups(ranks) {
  const groups = [];
  for (const r of ranks) {
    const key = JSON.stringify(r.rows.map(x => [x.id, x.bytes])) + r.capacity_bytes;
    const g = groups.find(x => x.key === key);
    if (g) g.ranks.push(r.rank); else groups.push({key, ranks: [r.rank], ledger: r});
  }
  return groups;
}

function rankLabel(list) {
  if (list.length === 1) return `rank ${list[0]}`;
  const contiguous = list.every((r, i) => i === 0 || r === list[i - 1] + 1);
  return contiguous ? `ranks ${list[0]}-${list[list.length - 1]}` : `${list.length} ranks`;
}

function drawRanks(plan) {
  const box = $("ranks");
  box.textContent = "";
  for (const g of rankGroups(plan.ranks)) {
    const l = g.ledger;
    const total = Math.max(l.capacity_bytes, l.demand_bytes);
    const div = document.createElement("div");
    div.className = "rank";
    div.dataset.ranks = g.ranks.join(",");
    const name = document.createElement("div");
    name.className = "name";
    const state = l.over_bytes > 0 ? `over by ${bytes(l.over_bytes)}` : `${bytes(l.free_bytes)} free`;
    name.innerHTML = `<span>${rankLabel(g.ranks)}</span><span>${bytes(l.demand_bytes)} of ${bytes(l.capacity_bytes)}: ${state}</span>`;
    const bar = document.createElement("div");
    bar.className = "bar";
    const segs = l.rows.map(r => ({cls: r.resource, bytes: r.bytes, text: `${r.label}: ${bytes(r.bytes)} [${r.evidence}] = ${r.formula}`, id: r.id}));
    if (l.free_bytes > 0) segs.push({cls: "free", bytes: l.free_bytes, text: `free: ${bytes(l.free_bytes)}`, id: "free"});
    for (const s of segs) {
      if (s.bytes <= 0) continue;
      const el = document.createElement("div");
      el.className = "seg " + s.cls;
      el.style.width = (100 * s.bytes / total) + "%";
      el.title = s.text;
      el.tabIndex = 0;
      el.dataset.id = s.id;
      el.dataset.bytes = s.bytes;
      const show = () => { $("segment-detail").textContent = s.text; };
      el.addEventListener("click", show);
      el.addEventListener("focus", show);
      el.addEventListener("mouseenter", show);
      bar.appendChild(el);
    }
    if (l.over_bytes > 0) {
      const cap = document.createElement("div");
      cap.className = "capacity";
      cap.style.left = (100 * l.capacity_bytes / total) + "%";
      cap.title = `capacity ${bytes(l.capacity_bytes)}`;
      bar.appendChild(cap);
    }
    div.append(name, bar);
    box.appendChild(div);
  }
  $("legend").innerHTML = RESOURCES.map(([cls, label]) => `<span><i class="seg ${cls}"></i>${label}</span>`).join("");
}

function drawVerdict(plan) {
  const v = plan.verdict;
  const box = $("verdict");
  const unchecked = v.first_boundary === "latency_unchecked";  // memory fits, a latency figure is missing
  box.className = "verdict " + (v.fits ? "fits" : unchecked ? "unchecked" : "red");
  box.dataset.fits = v.fits;
  box.dataset.boundary = v.first_boundary;
  box.dataset.headroom = v.headroom_bytes;
  const latency = {ttft: "the time-to-first-token target", tpot: "the time-per-output-token target"}[v.first_boundary];
  $("verdict-title").textContent = v.fits
    ? `Fits: ${plan.model.name} on ${plan.cluster.count} x ${plan.cluster.gpu}`
    : latency ? `Memory fits, but ${latency} is missed`
    : unchecked ? "Memory fits, but the latency targets are not checked"
    : `Does not fit: ${v.first_boundary} runs out first`;
  $("verdict-summary").textContent = v.summary;
  // A red plan's suggestions: each change planned green by the server (verdict.suggestions).
  const list = $("verdict-suggestions");
  list.textContent = "";
  for (const s of v.suggestions || []) {
    const li = document.createElement("li");
    li.textContent = `green with ${s.flags} (${(Math.max(s.headroom_bytes, 0) / 1e9).toFixed(1)} GB free on the tightest rank; ${s.layout})`;
    list.appendChild(li);
  }
  // Headline totals: the model's bytes against the cluster's device memory.
  const c = plan.cluster;
  const memory = c.capacity_bytes_per_gpu * c.count;
  $("verdict-totals").textContent = `model ${gb(plan.model.checkpoint_bytes)} of weights (${num(plan.model.parameters / 1e9, 1)}B ` +
    `parameters, ${num(plan.model.active_parameters / 1e9, 1)}B active) against ${gb(memory)} of device memory ` +
    `(${c.count} x ${c.gpu_name}): ${(100 * plan.model.checkpoint_bytes / memory).toFixed(0)}% before the workload ` +
    `[derived calculation: checkpoint bytes / (device-reported capacity per GPU x ${c.count} GPUs)]`;
  const l = plan.layout;
  $("verdict-meta").textContent = `evidence: ${v.evidence}` +
    (v.fits ? " (a deployment hypothesis until benchmarked)" : " (derived under these inputs)") +
    ` · layout TP ${l.tp} x DP ${l.dp}, EP ${l.ep}, PP ${l.pp} (${l.chosen_by}) · first boundary: ${v.first_boundary}`;
}

function figure(plan, id) { return plan.figures.find(f => f.id === id); }

function drawPerf(plan) {
  const dl = $("perf");
  dl.textContent = "";
  const add = (label, value, note, key, raw) => {
    const dt = document.createElement("dt"); dt.textContent = label;
    const dd = document.createElement("dd"); dd.innerHTML = value + (note ? ` <small>${note}</small>` : "");
    if (key) { dd.dataset.key = key; dd.dataset.value = raw; }
    dl.append(dt, dd);
  };
  const t = plan.latency;
  if (t) {
    const target = v => v === null ? "no target" : `target ${v < 1 ? (1000 * v).toFixed(0) + " ms" : v + " s"}`;
    add("time to first token", `${t.ttft_s.toFixed(3)} s`, `${target(t.targets.ttft_s)}; ${t.targets.input_tokens}-token prompt` +
        (t.targets.rate_per_s ? `, prefill ${(100 * t.prefill_share).toFixed(0)}% of the time at the rate` : ""), "latency.ttft_s", t.ttft_s);
    add("time per output token", `${(1000 * t.tpot_s).toFixed(2)} ms`, `${target(t.targets.tpot_s)}; ${t.concurrency} running requests` +
        (t.targets.rate_per_s ? `, decode ${(100 * t.decode_share).toFixed(0)}% of the time` : ""), "latency.tpot_s", t.tpot_s);
    const e = t.estimate;
    if (e) {
      // The planning estimate beside the bounds: the simulated scheduler's percentiles.
      const ms = x => `${(1000 * x).toFixed(x < 0.1 ? 1 : 0)} ms`;
      const band = `planning estimate +-${(100 * e.band).toFixed(0)}%; ${e.arrivals}`;
      add("time to first token, estimated", `p50 ${ms(e.ttft_s.p50)}, p90 ${ms(e.ttft_s.p90)}, p99 ${ms(e.ttft_s.p99)}`, band,
          "latency.estimate.ttft_s.p90", e.ttft_s.p90);
      add("time per output token, estimated", `p50 ${ms(e.tpot_s.p50)}, p90 ${ms(e.tpot_s.p90)}, p99 ${ms(e.tpot_s.p99)}`, band,
          "latency.estimate.tpot_s.p90", e.tpot_s.p90);
      add("output tokens/s, estimated", `${num(e.output_tokens_per_s)} tokens/s`, "whole cluster; " + band,
          "latency.estimate.output_tokens_per_s", e.output_tokens_per_s);
    }
  }
  const p = plan.perf;
  if (!p) return;
  if (!p.available) { add("throughput", "not available", p.unavailable); }
  else {
    if (p.plan_fits === false) add("note", "the plan does not fit", "these bounds describe a deployment that would not start");
    add("decode, one request", `${num(p.decode_tokens_per_s_bound)} tokens/s`, `upper bound; binding: ${p.binding_term}`,
        "decode_tokens_per_s_bound", p.decode_tokens_per_s_bound);
    const a = p.at_concurrency;
    add(`decode, ${a.concurrency} requests`, `${num(a.tokens_per_s_bound)} tokens/s (${num(a.tokens_per_s_per_gpu_bound)} per GPU)`,
        `upper bound; binding: ${a.binding_term}`, "at_concurrency.tokens_per_s_bound", a.tokens_per_s_bound);
    const shares = Object.entries(p.weight_bytes_share_by_dtype).sort((x, y) => y[1] - x[1])
      .filter(([, v]) => v >= 0.05).map(([k, v]) => `${k} ${v.toFixed(1)}%`).join(", ");
    add("bytes per token", gb(p.bytes_per_token), `weights by format: ${shares}`, "bytes_per_token", p.bytes_per_token);
    add(`time to first token (${num(p.prefill.prompt_tokens, 0)}-token prompt)`, `${p.prefill.seconds_bound.toFixed(3)} s`,
        "lower bound", "prefill.seconds_bound", p.prefill.seconds_bound);
    if (p.cost) {
      add("cost at the bound", `${p.cost.usd_per_m_tokens_at_bound.toFixed(3)} USD per M tokens`,
          `${p.cost.cluster_usd_per_hour.toFixed(2)} USD/h cluster`, "cost.usd_per_m_tokens_at_bound", p.cost.usd_per_m_tokens_at_bound);
      add("cost at 50% of the bound", `${p.cost.usd_per_m_tokens_at_utilisation.toFixed(3)} USD per M tokens`, "");
      if (p.cost.break_even_utilisation !== undefined)
        add("break-even against the API", `${(100 * p.cost.break_even_utilisation).toFixed(0)}% of the bound`,
            `${num(p.cost.break_even_tokens_per_day / 1e6)} M tokens/day`);
    } else {
      add("cost", "no catalogue price", "enter USD per GPU-hour");
    }
  }
  const c = p.cold_start;
  add("cold start at 10 Gb/s", minutes(c.total_s_by_gbps["10"]), "download then load (lower bound)", "cold_start.10", c.total_s_by_gbps["10"]);
  add("cold start at 100 Gb/s", minutes(c.total_s_by_gbps["100"]), `load ${minutes(c.load_s)} of ${gb(c.max_node_bytes)} per node at 2 GB/s`);
  add("bring back one node", minutes(c.recover_node_s), "from a staged copy");
}

// A download link for `text` (the plan's JSON, the sweep's CSV), replacing the previous one.
function offer(id, text, type, filename) {
  const a = $(id);
  if (a.href) URL.revokeObjectURL(a.href);
  a.href = URL.createObjectURL(new Blob([text], {type}));
  a.download = filename;
  a.hidden = false;
}

function withdraw(id) {
  const a = $(id);
  if (a.href) URL.revokeObjectURL(a.href);
  a.removeAttribute("href");
  a.hidden = true;
}

function sweepCsv(sweep) {
  const cols = ["gpu", "gpus", "verdict", "headroom_bytes", "binding", "tp", "dp", "ep", "pp"];
  const lines = [cols.join(",")];
  for (const f of sweep.families)
    for (const c of f.cells)
      lines.push([f.gpu, c.gpus, c.verdict, c.headroom_bytes, c.binding,
                  c.layout ? c.layout.tp : "", c.layout ? c.layout.dp : "", c.layout ? c.layout.ep : "",
                  c.layout ? c.layout.pp : ""].join(","));
  return lines.join("\n") + "\n";
}

async function drawHeadroom(base, gen) {
  const family = $("gpu").value;
  $("headroom-family").textContent = family;
  const count = Math.max(1, parseInt($("count").value || "1", 10));
  const hi = Math.min(512, Math.max(64, 2 * count));
  const body = Object.assign({}, base, {gpu: [family], counts: `1..${hi}`});
  delete body.gpus;
  try {
    const sweep = await api("sweep", body);
    if (gen !== generation) return;
    offer("export-sweep", sweepCsv(sweep), "text/csv", `preflight-sweep-${family}.csv`);
    const cells = sweep.families[0].cells.filter(c => c.verdict !== "n/a");
    barChart($("headroom-chart"), cells.map(c => ({
      x: c.gpus, y: c.headroom_bytes / 1e9, cls: c.gpus === count ? "current" : "",
      title: `${c.gpus} GPUs: ${c.verdict}, ${gb(c.headroom_bytes)} headroom on the tightest rank (${c.binding})`
    })), {format: v => v.toFixed(0), unit: "headroom, GB", xlabel: "GPUs", label: "headroom by GPU count"});
  } catch (e) { if (gen === generation) $("headroom-chart").textContent = e.message; }
}

async function drawFit(base, gen) {
  // The usual families and always the one chosen above (the server drops repeats).
  const body = Object.assign({}, base, {gpu: FIT_FAMILIES.concat([$("gpu").value])});
  delete body.gpus; delete body.tp; delete body.ep; delete body.pp; delete body.dp;
  try {
    const fit = await api("fit", body);
    if (gen !== generation) return;
    const chosen = $("gpu").value;
    const rows = fit.families.map(f => `<tr data-gpu="${f.gpu}" data-min="${f.fits ? f.min_gpus : ""}" data-binding="${f.binding || ""}"` +
      `${f.gpu === chosen ? ' class="chosen"' : ""}><td>${f.name}</td>` +
      `<td class="num">${f.fits ? f.min_gpus : "none"}</td><td>${f.fits ? `TP ${f.layout.tp} DP ${f.layout.dp} EP ${f.layout.ep} PP ${f.layout.pp}` : ""}</td>` +
      `<td class="num" data-key="tokens_per_s_per_gpu">${f.perf ? num(f.perf.tokens_per_s_per_gpu_bound, 0) : ""}</td>` +
      `<td class="num">${f.perf && f.perf.usd_per_m_tokens_at_bound ? f.perf.usd_per_m_tokens_at_bound.toFixed(2) : ""}</td>` +
      `<td>${f.binding || ""}</td><td>${f.summary || ""}</td></tr>`).join("");
    $("fit-table").innerHTML = `<table><thead><tr><th>family</th><th class="num">min GPUs</th><th>layout</th>` +
      `<th class="num">tokens/s per GPU (bound)</th><th class="num">USD per M tokens (at the bound)</th>` +
      `<th>binding (memory or latency)</th><th>below it</th></tr></thead><tbody>${rows}</tbody></table>`;
  } catch (e) { if (gen === generation) $("fit-table").textContent = e.message; }
}

async function drawMax(base, gen) {
  if (base.mix || base.rate) {  // the chart varies one context and the concurrency: a mix or a rate fixes them
    $("max-chart").textContent = "The chart varies one context length against the concurrency: clear the request mix and the rate to draw it.";
    return;
  }
  const points = [];
  for (const c of MAX_CONCURRENCY) {
    const body = Object.assign({}, base, {solve: "context", concurrency: String(c)});
    delete body.context;
    try {
      const m = await api("max", body);
      if (gen !== generation) return;
      if (m.found) points.push({x: c, y: m.value, label: tokensLabel(m.value),
                                title: `${c} requests: up to ${num(m.value, 0)} tokens each (${m.binding} binds beyond)`});
    } catch (e) { break; }
  }
  if (gen !== generation) return;
  lineChart($("max-chart"), points, {xlabel: "concurrent requests", unit: "max context, tokens",
                                     label: "maximum context by concurrency", empty: "no context fits at these settings"});
}

async function drawLaunch(base, gen) {
  const body = Object.assign({}, base);
  // A launch names an engine; the generic memory rules have none, so say which one the command is for.
  const defaulted = !body.engine;
  if (defaulted) body.engine = "vllm";
  try {
    const l = await api("launch", body);
    if (gen !== generation) return;
    const head = [l.verdict.line];  // the plan's verdict as a comment, "would fail at start-up" when red
    if (defaulted) head.push("# engine: vLLM (the page plans with the generic rules; pick vllm or sglang above for an engine's)");
    if (uploaded) head.push(`# model: ${uploaded.name} was uploaded: replace its path with the model's folder or hub id`);
    $("launch").dataset.fits = l.verdict.fits;
    $("launch").textContent = head.join("\n") + "\n" + l.commands.map(c => c.shell).join("\n\n");
  } catch (e) { if (gen === generation) $("launch").textContent = "# " + e.message; }
}

// A prefill/decode split: the combined verdict, the KV transfer and each pool's verdict;
// the bars are the decode pool's (it holds every running request).
function drawSplit(result) {
  const d = result.disaggregated;
  const decode = d.decode;
  drawVerdict(Object.assign({}, decode, {verdict: Object.assign({suggestions: []}, result.verdict)}));
  $("verdict-title").textContent = result.verdict.fits
    ? `Fits: ${decode.model.name}, prefill on ${d.prefill.cluster.count} x ${d.prefill.cluster.gpu}, decode on ${decode.cluster.count} x ${decode.cluster.gpu}`
    : `Does not fit: ${result.verdict.first_boundary} (${result.verdict.summary.split(" ").slice(0, 3).join(" ")})`;
  const dl = $("split-figures");
  dl.textContent = "";
  const add = (label, value, key, raw) => {
    const dt = document.createElement("dt"); dt.textContent = label;
    const dd = document.createElement("dd"); dd.textContent = value;
    if (key) { dd.dataset.key = key; dd.dataset.value = raw; }
    dl.append(dt, dd);
  };
  const kv = d.kv_transfer;
  add("KV per request", `${gb(kv.bytes_per_request)} for a ${num(kv.prompt_tokens, 0)}-token prompt`, "kv_transfer.bytes_per_request", kv.bytes_per_request);
  add("KV transfer", `${(1000 * kv.seconds).toFixed(1)} ms at ${kv.link_gb_s_per_gpu} GB/s per GPU (lower bound, added to TTFT)`, "kv_transfer.seconds", kv.seconds);
  for (const [name, pool] of [["prefill pool", d.prefill], ["decode pool", decode]])
    add(name, `${pool.verdict.fits ? "fits" : "red"}: ${pool.verdict.summary}`, name.split(" ")[0] + ".fits", pool.verdict.fits);
  $("split").hidden = false;
  drawRanks(decode);
  drawPerf(decode);
}

async function update() {
  const gen = ++generation;
  saveToUrl();
  const full = params();
  const split = SPLIT.some(f => full[f]);
  const base = Object.assign({}, full);
  for (const f of SPLIT) delete base[f];
  $("split").hidden = true;
  $("split-figures").textContent = "";
  $("verdict").className = "verdict pending";
  stale(VIEWS);
  $("verdict-suggestions").textContent = "";  // the previous inputs' suggestions are not these inputs'
  $("verdict-totals").textContent = "";
  withdraw("export-plan");
  withdraw("export-sweep");
  try {
    if (split) {
      const result = await api("plan", Object.assign({}, base, {prefill_gpus: full.prefill_gpus || "", decode_gpus: full.decode_gpus || ""},
                                                     {gpus: undefined}));
      if (gen !== generation) return;
      drawSplit(result);
      offer("export-plan", JSON.stringify(result, null, 2) + "\n", "application/json", "preflight-plan-split.json");
      for (const id of ["headroom-chart", "fit-table", "max-chart"])
        $(id).textContent = "Planned for one colocated cluster: clear the prefill and decode pools to see it.";
      $("launch").textContent = "# a prefill/decode split: `preflight launch` with --prefill-gpus and --decode-gpus gives both pools' commands";
      fresh(VIEWS);
      return;
    }
    const plan = await api("plan", base);
    if (gen !== generation) return;
    drawVerdict(plan);
    offer("export-plan", JSON.stringify(plan, null, 2) + "\n", "application/json", `preflight-plan-${plan.model.name.replace(/[^A-Za-z0-9._-]/g, "_")}.json`);
    drawRanks(plan);
    drawPerf(plan);
    fresh(["ranks", "perf"]);
  } catch (e) {
    if (gen !== generation) return;
    $("verdict").className = "verdict error";
    $("verdict").dataset.fits = "";
    $("verdict-title").textContent = "Cannot plan these inputs";
    $("verdict-summary").textContent = e.message;
    $("verdict-suggestions").textContent = "";
    $("verdict-meta").textContent = "";
    // Nothing of the previous inputs stays: every view is emptied.
    for (const id of VIEWS) $(id).textContent = "";
    fresh(VIEWS);
    return;
  }
  // The slower views after the verdict, in the page's order; the old figures go first,
  // so nothing on the page belongs to other inputs.
  for (const id of ["launch", "headroom-chart", "fit-table", "max-chart"]) $(id).textContent = "";
  fresh(["launch", "headroom-chart", "fit-table", "max-chart"]);
  drawLaunch(base, gen);
  await drawHeadroom(base, gen);
  await drawFit(base, gen);
  await drawMax(base, gen);
}

async function init() {
  const [models, gpus] = await Promise.all([api("models", {}), api("gpus", {})]);
  // Catalogue names to pick from; a hub id may be typed when the server runs with --hub.
  $("model-list").innerHTML = models.map(m => `<option value="${m.name}">`).join("");
  $("model").value = (models.find(m => m.default) || models[0]).name;
  $("gpu").innerHTML = gpus.filter(g => g.device_total_bytes > 0)
    .map(g => `<option value="${g.id}">${g.name} (${(g.device_total_bytes / 1073741824).toFixed(0)} GiB)</option>`).join("");
  $("gpu").value = "nvidia-h100-sxm-80gb";
  loadFromUrl();
  let timer = null;
  const later = () => { clearTimeout(timer); timer = setTimeout(update, 250); };
  for (const f of FIELDS) {
    $(f).addEventListener("change", update);
    // A model id is planned when complete (change), never per keystroke: with --hub it is a fetch.
    if ($(f).tagName === "INPUT" && f !== "model") $(f).addEventListener("input", later);
  }
  $("upload").addEventListener("change", async ev => {
    const file = ev.target.files[0];
    if (!file) return;
    if (file.size > 2 * 1024 * 1024) { $("upload-status").textContent = "larger than 2 MB: not a config.json"; return; }
    uploaded = {name: file.name, text: await file.text()};
    $("upload-status").textContent = `using ${file.name} (uploaded; not kept in the address)`;
    $("model").disabled = true;
    update();
  });
  $("copy-launch").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText($("launch").textContent); $("copy-status").textContent = "copied"; }
    catch (e) { $("copy-status").textContent = "select the text to copy"; }
  });
  update();
}

init();
