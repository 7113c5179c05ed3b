// @huggingface/hub's parseSafetensorsMetadata against a hub at HUB_URL: the
// comparison side of bench/hub_compare/compare.py. Prints one JSON line.
// Usage: node parse.mjs HUB_URL ORG/NAME REVISION
import { parseSafetensorsMetadata } from "@huggingface/hub";

const [hubUrl, repo, revision] = process.argv.slice(2);
const start = performance.now();
const r = await parseSafetensorsMetadata({ repo: { type: "model", name: repo }, hubUrl, revision, computeParametersCount: true });
const ms = performance.now() - start;
const tensors = r.sharded ? Object.values(r.headers).reduce((n, h) => n + Object.keys(h).filter(k => k !== "__metadata__").length, 0)
                          : Object.keys(r.header).length - 1;
console.log(JSON.stringify({ ms, sharded: r.sharded, shards: r.sharded ? Object.keys(r.headers).length : 1, tensors,
                             parameters: r.parameterTotal ?? Object.values(r.parameterCount).reduce((a, b) => a + b, 0) }));
