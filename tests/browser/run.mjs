// Browser tests of the planner page, as a person would use it: Playwright
// (playwright-core) drives Debian's chromium, headless, against
// `preflight serve` on loopback.
//
// Usage: node run.mjs PATH/TO/preflight [SCREENSHOT_DIR] [REFERENCE_DIR]
// Exit codes: 0 passed, 1 failed (also when playwright-core or chromium is
// missing: scripts/install-deps.sh installs both; the test never skips itself).
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import readline from "node:readline";

const [binary, shotDir = "browser-screenshots", referenceDir = path.join(path.dirname(new URL(import.meta.url).pathname), "../data/reference")] =
  process.argv.slice(2);
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
const require = createRequire(import.meta.url);
let playwright;
try {
  playwright = require("playwright-core");
} catch {
  console.log("FAIL: playwright-core is not installed (scripts/install-deps.sh, or npm ci --prefix tests/browser)");
  process.exit(1);
}
if (!existsSync(chromiumPath)) {
  console.log(`FAIL: no chromium at ${chromiumPath} (scripts/install-deps.sh, or apt-get install chromium)`);
  process.exit(1);
}
mkdirSync(shotDir, { recursive: true });

function startServer() {
  return new Promise((resolve, reject) => {
    const proc = spawn(binary, ["serve", "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
    const lines = readline.createInterface({ input: proc.stdout });
    lines.once("line", line => {
      const m = line.match(/http:\/\/([0-9.]+):(\d+)\//);
      if (!m) reject(new Error("preflight serve said: " + line));
      else resolve({ proc, base: `http://${m[1]}:${m[2]}` });
    });
    proc.once("exit", code => reject(new Error(`preflight serve exited with ${code}`)));
  });
}

const failures = [];
let checks = 0;
function check(cond, what) {
  checks += 1;
  if (!cond) failures.push(what);
  console.log(`${cond ? "ok  " : "FAIL"} ${what}`);
}

// The page has planned when the banner is no longer pending; `previous` waits for a change.
async function verdict(page, previous) {
  await page.waitForFunction(prev => {
    const v = document.getElementById("verdict");
    if (v.classList.contains("pending")) return false;
    const now = v.className + "|" + document.getElementById("verdict-title").textContent + "|" + (v.dataset.headroom || "");
    return prev === undefined || now !== prev;
  }, previous, { timeout: 30000 });
  return page.evaluate(() => {
    const v = document.getElementById("verdict");
    return {
      key: v.className + "|" + document.getElementById("verdict-title").textContent + "|" + (v.dataset.headroom || ""),
      fits: v.dataset.fits, boundary: v.dataset.boundary, headroom: v.dataset.headroom,
      title: document.getElementById("verdict-title").textContent,
      weights: [...document.querySelectorAll("#ranks .seg.weights")].reduce((s, e) => s + Number(e.dataset.bytes), 0),
      groups: document.querySelectorAll("#ranks .rank").length,
    };
  });
}

async function apiPlan(page, base, body) {
  const res = await page.request.post(base + "/api/plan", { data: body });
  return res.json();
}

const { proc, base } = await startServer();
const browser = await playwright.chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1800 } });
  page.on("pageerror", e => failures.push("page error: " + e.message));

  // 1. Load the page: Kimi K3 (the default) on 8 x H100.
  await page.goto(base + "/?gpu=nvidia-h100-sxm-80gb&count=8");
  const v8 = await verdict(page);
  const api8 = await apiPlan(page, base, { gpus: "8xnvidia-h100-sxm-80gb", model: "kimi-k3" });
  check(v8.fits === "false" && v8.boundary === "weights", `8 x H100: red, weights first (page: ${v8.fits}, ${v8.boundary})`);
  check(Number(v8.headroom) === api8.verdict.headroom_bytes, `8 x H100: headroom equals the API's (${v8.headroom})`);
  const suggested = await page.$$eval("#verdict-suggestions li", items => items.map(li => li.textContent));
  check(api8.verdict.suggestions.length > 0 && suggested.length === api8.verdict.suggestions.length &&
        suggested.every((text, i) => text.includes(api8.verdict.suggestions[i].flags)),
        `8 x H100: the page lists the API's suggestions (${suggested.join("; ")})`);
  // Headline totals and the plan's export: the same JSON as the API's.
  const totals = await page.textContent("#verdict-totals");
  check(totals.includes(`${(api8.model.checkpoint_bytes / 1e9).toFixed(1)} GB of weights`),
        `8 x H100: the headline totals give the model's bytes (${totals})`);
  await page.waitForSelector("#export-plan:not([hidden])", { timeout: 30000 });
  const downloaded = async selector => {
    const [download] = await Promise.all([page.waitForEvent("download"), page.click(selector)]);
    return readFileSync(await download.path(), "utf8");
  };
  const exported = JSON.parse(await downloaded("#export-plan"));
  check(exported.verdict.headroom_bytes === api8.verdict.headroom_bytes && exported.model.name === "kimi-k3",
        "8 x H100: the exported plan is the plan's JSON");
  await page.waitForSelector("#export-sweep:not([hidden])", { timeout: 60000 });
  const csv = await downloaded("#export-sweep");
  const csvRows = csv.trim().split("\n");
  check(csvRows[0].startsWith("gpu,gpus,verdict,headroom_bytes") && csvRows.length > 5 &&
        csvRows.every(r => r.split(",").length === 9) && csvRows.some(r => r.includes(",8,red,")),
        `8 x H100: the sweep exports as CSV (${csvRows.length - 1} counts, 8 GPUs red)`);
  // The launch box is the plan's own: its verdict as the first comment, red here.
  await page.waitForFunction(() => document.getElementById("launch").textContent.length > 10, null, { timeout: 60000 });
  const launch8 = await page.textContent("#launch");
  check(launch8.startsWith("# preflight: does NOT fit") && launch8.includes("would fail at start-up") &&
        launch8.includes("# engine: vLLM"), "8 x H100: the launch box carries the red verdict and names its engine");
  // ... and it is /api/launch's answer for the same inputs (the engine the page names), line for line.
  const apiLaunch = await (await page.request.post(base + "/api/launch", { data: { gpus: "8xnvidia-h100-sxm-80gb",
    model: "kimi-k3", engine: "vllm" } })).json();
  const launchLines = launch8.split("\n");
  check(launchLines[0] === apiLaunch.verdict.line &&
        launch8.endsWith("\n" + apiLaunch.commands.map(c => c.shell).join("\n\n")),
        `8 x H100: the launch box equals /api/launch for the same inputs (${apiLaunch.commands.length} command)`);
  await page.screenshot({ path: path.join(shotDir, "1-k3-8xh100.png"), fullPage: true });

  // 2. Change the GPU count from 8 to 32: the verdict and the bars change.
  // The plan is held back 1.5 s (as a hub fetch would be): meanwhile every view of the
  // 8-GPU plan is marked stale, none is shown as the new inputs' answer.
  const VIEWS = ["ranks", "perf", "launch", "headroom-chart", "fit-table", "max-chart"];
  const slowPlan = async route => { await new Promise(r => setTimeout(r, 1500)); await route.continue(); };
  await page.route("**/api/plan", slowPlan);
  await page.fill("#count", "32");
  await page.dispatchEvent("#count", "change");
  await page.waitForFunction(() => document.getElementById("verdict").classList.contains("pending"), null, { timeout: 10000 });
  const pendingViews = await page.evaluate(ids => ids.filter(id => !document.getElementById(id).classList.contains("stale")), VIEWS);
  check(pendingViews.length === 0, `while the new plan loads, every earlier view is marked stale (not marked: ${pendingViews.join(", ")})`);
  const v32 = await verdict(page, v8.key);
  await page.unroute("**/api/plan", slowPlan);
  const api32 = await apiPlan(page, base, { gpus: "32xnvidia-h100-sxm-80gb", model: "kimi-k3" });
  check(v32.fits === String(api32.verdict.fits), `32 x H100: the verdict follows the API (${v32.fits})`);
  check(v32.fits !== v8.fits, "32 x H100: the verdict changed");
  check((await page.$$("#verdict-suggestions li")).length === (api32.verdict.suggestions || []).length,
        "32 x H100: the suggestion list follows the new plan");
  check(v32.weights < v8.weights, `32 x H100: the weight bars shrank (${v8.weights} -> ${v32.weights} B)`);
  check(new URL(page.url()).searchParams.get("count") === "32", "the address carries the new count");
  await page.waitForSelector("#fit-table table", { timeout: 60000 });
  await page.waitForSelector("#max-chart circle", { timeout: 60000 });
  check(await page.locator("#max-chart circle").count() === 7, "maximum context against concurrency is drawn (7 points)");
  const fitRow = await page.getAttribute('#fit-table tr[data-gpu="nvidia-h100-sxm-80gb"]', "data-min");
  const fitApi = await (await page.request.post(base + "/api/fit", { data: { model: "kimi-k3", gpu: ["H100"] } })).json();
  check(Number(fitRow) === fitApi.families[0].min_gpus, `minimum H100 count equals fit's (${fitRow})`);
  await page.screenshot({ path: path.join(shotDir, "2-k3-32xh100.png"), fullPage: true });

  // 3. Upload a config.json: the plan is of that model.
  await page.setInputFiles("#upload", path.join(referenceDir, "models/meta-llama__Llama-3.1-8B-Instruct/config.json"));
  // Wait for the uploaded model's verdict, not for any change: under load (ASan, tests in
  // parallel) a late render of the previous inputs could end a wait for "something new".
  await page.waitForFunction(() => {
    const v = document.getElementById("verdict");
    return !v.classList.contains("pending") && !document.getElementById("verdict-title").textContent.includes("kimi-k3");
  }, null, { timeout: 60000 });
  const vUp = await verdict(page, v32.key);
  check(vUp.title.includes("config.json") || vUp.fits === "false", `uploaded config plans (${vUp.title})`);
  check(vUp.weights < v32.weights, "uploaded 8B model: far fewer weight bytes per rank");
  await page.screenshot({ path: path.join(shotDir, "3-uploaded-config.png"), fullPage: true });

  // 4. Open a shared link: the inputs come from the address and the figures equal the API's.
  const shared = "/?model=deepseek-v3&gpu=nvidia-h200-sxm-141gb&count=8&context=32768&concurrency=16";
  const page2 = await browser.newPage({ viewport: { width: 1280, height: 1800 } });
  page2.on("pageerror", e => failures.push("page error: " + e.message));
  await page2.goto(base + shared);
  const vShared = await verdict(page2);
  const apiShared = await apiPlan(page2, base, { model: "deepseek-v3", gpus: "8xnvidia-h200-sxm-141gb", context: "32768", concurrency: "16" });
  check(await page2.inputValue("#model") === "deepseek-v3", "shared link: the model input is filled");
  check(await page2.inputValue("#context") === "32768", "shared link: the context input is filled");
  check(vShared.fits === String(apiShared.verdict.fits) && Number(vShared.headroom) === apiShared.verdict.headroom_bytes,
        `shared link: verdict and headroom equal the API's (${vShared.fits}, ${vShared.headroom})`);
  const bound = await page2.getAttribute('#perf dd[data-key="decode_tokens_per_s_bound"]', "data-value");
  check(Number(bound) === apiShared.perf.decode_tokens_per_s_bound, `shared link: decode bound equals the API's (${bound})`);
  await page2.waitForFunction(() => document.getElementById("launch").textContent.length > 10, null, { timeout: 60000 });
  check((await page2.textContent("#launch")).includes("deepseek-ai/DeepSeek-V3"), "the launch command names the model");
  await page2.waitForSelector("#max-chart circle", { timeout: 60000 });
  const firstMax = await page2.getAttribute("#max-chart circle", "data-y");
  const apiMax = await (await page2.request.post(base + "/api/max", { data: { model: "deepseek-v3",
    gpus: "8xnvidia-h200-sxm-141gb", concurrency: "1", solve: "context" } })).json();
  check(Number(firstMax) === apiMax.value, `maximum context at 1 request equals max's (${firstMax})`);
  // The charts: round ticks and units on the headroom chart, the chosen count marked, every label of the
  // maximum-context chart inside its drawing.
  const ticks = await page2.$$eval("#headroom-chart text.tick", els => els.length);
  check(ticks >= 6 && (await page2.textContent("#headroom-chart")).includes("headroom, GB"), `headroom chart: ticks and a unit (${ticks} ticks)`);
  check((await page2.textContent("#headroom-chart text.mark")) === "chosen: 8", "headroom chart: the chosen count is marked");
  const clipped = await page2.$$eval("#max-chart svg", svgs => svgs.flatMap(svg => {
    const w = svg.viewBox.baseVal.width;
    return [...svg.querySelectorAll("text:not([transform])")].filter(t => { const b = t.getBBox(); return b.x < 0 || b.x + b.width > w + 0.5; })
      .map(t => t.textContent);
  }));
  check(clipped.length === 0, `maximum-context chart: no label clipped (${clipped.join(",")})`);
  // The fit table: the chosen family always, with the throughput bound and cost of fit's own JSON.
  await page2.waitForSelector("#fit-table tr.chosen", { timeout: 120000 });
  const chosenRow = await page2.getAttribute("#fit-table tr.chosen", "data-gpu");
  const fitJson = await (await page2.request.post(base + "/api/fit", { data: { model: "deepseek-v3", gpu: ["nvidia-h200-sxm-141gb"],
    context: "32768", concurrency: "16" } })).json();
  const perGpu = await page2.textContent('#fit-table tr.chosen td[data-key="tokens_per_s_per_gpu"]');
  check(chosenRow === "nvidia-h200-sxm-141gb" &&
        perGpu.replace(/,/g, "") === String(Math.round(fitJson.families[0].perf.tokens_per_s_per_gpu_bound)),
        `fit table: the chosen family with fit's tokens/s per GPU (${chosenRow}: ${perGpu})`);
  await page2.screenshot({ path: path.join(shotDir, "4-shared-link-deepseek-v3.png"), fullPage: true });
  await page2.setViewportSize({ width: 1440, height: 1800 });
  await page2.screenshot({ path: path.join(shotDir, "4-desktop-1440.png"), fullPage: true });
  const wide = await page2.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(wide <= 1, `1440 px: no horizontal overflow (${wide} px)`);
  await page2.setViewportSize({ width: 1200, height: 1400 });
  await page2.screenshot({ path: path.join(shotDir, "0-readme.png") });  // docs/planner.png

  // 4b. The model is typed (or picked from the catalogue list): planned on change, not per keystroke.
  await page2.fill("#model", "qwen3-0.6b");
  await page2.dispatchEvent("#model", "change");
  const vTyped = await verdict(page2, vShared.key);
  const apiTyped = await apiPlan(page2, base, { model: "qwen3-0.6b", gpus: "8xnvidia-h200-sxm-141gb", context: "32768",
                                                concurrency: "16" });
  check(Number(vTyped.headroom) === apiTyped.verdict.headroom_bytes, `typed model: headroom equals the API's (${vTyped.headroom})`);
  // Weight precision: the page plans the quantized variant as the API does.
  await page2.selectOption("#quantize", "w4a16");
  const vQuant = await verdict(page2, vTyped.key);
  const apiQuant = await apiPlan(page2, base, { model: "qwen3-0.6b", gpus: "8xnvidia-h200-sxm-141gb", context: "32768",
                                                concurrency: "16", quantize: "w4a16" });
  check(Number(vQuant.headroom) === apiQuant.verdict.headroom_bytes && vQuant.weights !== vTyped.weights,
        `weight precision w4a16: headroom equals the API's, the weight bars change (${vTyped.weights} -> ${vQuant.weights} B)`);
  await page2.selectOption("#quantize", "");
  await verdict(page2, vQuant.key);
  // A hub id on a server started without --hub: one line that says how to allow it, no figures.
  await page2.fill("#model", "Qwen/Qwen3-0.6B@main");
  await page2.dispatchEvent("#model", "change");
  await page2.waitForFunction(() => document.getElementById("verdict").className.includes("error"), null, { timeout: 60000 });
  check((await page2.textContent("#verdict-summary")).includes("preflight serve --hub"),
        "a hub id without serve --hub: the page says how to allow it");
  check(await page2.locator("#export-plan").isHidden() && (await page2.textContent("#verdict-totals")) === "",
        "after an error: no plan to export and no totals of the previous inputs");
  const leftover = await page2.evaluate(ids => ids.filter(id => {
    const e = document.getElementById(id);
    return e.textContent.trim() !== "" || e.classList.contains("stale");
  }), ["ranks", "perf", "launch", "headroom-chart", "fit-table", "max-chart"]);
  check(leftover.length === 0, `after an error: the bars, figures, launch box and charts of the previous inputs are gone (left: ${leftover.join(", ")})`);

  // 6. Traffic: a request mix with a TPOT target; the figures equal the API's.
  const traffic = "/?model=deepseek-v3&gpu=nvidia-h200-sxm-141gb&count=8&mix=2K%3A70%25%2C32K%3A25%25%2C128K%3A5%25&concurrency=64&tpot=50ms";
  const page3 = await browser.newPage({ viewport: { width: 1280, height: 1800 } });
  page3.on("pageerror", e => failures.push("page error: " + e.message));
  await page3.goto(base + traffic);
  const vMix = await verdict(page3);
  const apiMix = await apiPlan(page3, base, { model: "deepseek-v3", gpus: "8xnvidia-h200-sxm-141gb", mix: "2K:70%,32K:25%,128K:5%",
                                              concurrency: "64", tpot: "50ms" });
  check(await page3.inputValue("#mix") === "2K:70%,32K:25%,128K:5%", "traffic link: the mix input is filled");
  check(Number(vMix.headroom) === apiMix.verdict.headroom_bytes && apiMix.workload.mix.length === 3,
        `request mix: headroom equals the API's (${vMix.headroom})`);
  const tpot = await page3.getAttribute('#perf dd[data-key="latency.tpot_s"]', "data-value");
  check(Number(tpot) === apiMix.latency.tpot_s, `request mix: TPOT equals the API's (${tpot})`);
  // The planning estimate beside the bound: its p90 TPOT shown is the API's.
  const tpotP90 = await page3.getAttribute('#perf dd[data-key="latency.estimate.tpot_s.p90"]', "data-value");
  check(apiMix.latency.estimate !== null && Number(tpotP90) === apiMix.latency.estimate.tpot_s.p90,
        `request mix: the estimated p90 TPOT equals the API's (${tpotP90})`);
  await page3.waitForFunction(() => document.getElementById("max-chart").textContent.includes("clear the request mix"), null, { timeout: 30000 });
  check(true, "request mix: the maximum-context chart says why it is not drawn");
  await page3.screenshot({ path: path.join(shotDir, "6-traffic-mix.png"), fullPage: true });
  // A target no layout can meet: the banner says latency, not memory, and the fit table names it.
  await page3.fill("#tpot", "1ms");
  await page3.dispatchEvent("#tpot", "change");
  const vTight = await verdict(page3, vMix.key);
  check(vTight.boundary === "tpot" && vTight.title.includes("time-per-output-token target is missed"),
        `TPOT 1 ms: red on tpot (${vTight.boundary}: ${vTight.title})`);
  await page3.waitForSelector("#fit-table tr[data-binding]", { timeout: 120000 });
  const bindings = await page3.$$eval("#fit-table tr[data-binding]", rows => rows.map(r => r.dataset.binding));
  check(bindings.length > 0 && bindings.every(b => b === "tpot"), `TPOT 1 ms: every family's fit binds on tpot (${bindings.join(",")})`);

  // 7. A prefill/decode split: the pools and the KV transfer equal the API's.
  const splitLink = "/?model=kimi-k3&gpu=nvidia-b300-hgx&count=8&context=128K&concurrency=8&prefill_gpus=8xB300&decode_gpus=8xB300";
  await page3.goto(base + splitLink);
  const vSplit = await verdict(page3);
  const apiSplit = await apiPlan(page3, base, { model: "kimi-k3", context: "128K", concurrency: "8", prefill_gpus: "8xB300",
                                               decode_gpus: "8xB300" });
  check(await page3.locator("#split").isVisible(), "split: the pools section is shown");
  check(vSplit.fits === String(apiSplit.verdict.fits) && apiSplit.disaggregated.prefill && apiSplit.disaggregated.decode,
        `split: the verdict follows the API's (${vSplit.fits})`);
  const transfer = await page3.getAttribute('#split-figures dd[data-key="kv_transfer.seconds"]', "data-value");
  check(Number(transfer) === apiSplit.disaggregated.kv_transfer.seconds, `split: the KV transfer equals the API's (${transfer})`);
  await page3.screenshot({ path: path.join(shotDir, "7-prefill-decode-split.png"), fullPage: true });
  // Clearing the split goes back to one cluster, with nothing of the split left.
  await page3.fill("#prefill_gpus", "");
  await page3.fill("#decode_gpus", "");
  await page3.dispatchEvent("#decode_gpus", "change");
  await verdict(page3, vSplit.key);
  check(await page3.locator("#split").isHidden(), "split cleared: the pools section is gone");

  // 5. A phone's width: nothing wider than the screen.
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
  await phone.goto(base + shared);
  await verdict(phone);
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(overflow <= 1, `phone width: no horizontal overflow (${overflow} px)`);
  const order = await phone.evaluate(() => document.getElementById("verdict").getBoundingClientRect().top <
                                            document.getElementById("inputs").getBoundingClientRect().top);
  check(order, "phone width: the verdict comes before the inputs");
  // The screenshot shows every chart drawn, as the desktop one does, and chart text stays readable: each
  // label's rendered height (SVG scaled to the screen) at least 9 CSS px, not the ~5 px a phone-scaled SVG can give.
  await phone.waitForSelector("#max-chart circle", { timeout: 60000 });
  await phone.waitForSelector("#fit-table tr.chosen", { timeout: 120000 });
  const labels = await phone.$$eval("#headroom-chart text, #max-chart text", els =>
    els.map(t => [t.textContent, t.getBoundingClientRect().height]));
  const tiny = labels.filter(([, h]) => h < 9);
  check(labels.length >= 10 && tiny.length === 0,
        `phone width: ${labels.length} chart labels, each at least 9 px high (too small: ${tiny.map(t => t.join(" ")).join(", ")})`);
  await phone.screenshot({ path: path.join(shotDir, "5-phone.png"), fullPage: true });
} catch (e) {
  failures.push("exception: " + (e.stack || e));
} finally {
  await browser.close();
  proc.kill();
}
console.log(`${checks - failures.filter(f => !f.startsWith("exception") && !f.startsWith("page")).length}/${checks} checks passed; screenshots in ${shotDir}`);
for (const f of failures) console.log("FAILED: " + f);
process.exit(failures.length ? 1 : 0);
