// Small SVG charts for the planner page: no library, so nothing to vendor or
// download. Each function draws into a container element and returns nothing.
// The drawing is as wide as its container (text stays at its CSS size on a
// phone), with a labelled y axis, ticks at round values and the x values
// thinned to what fits.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";

function svgEl(name, attrs, text) {
  const el = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  if (text !== undefined) el.textContent = text;
  return el;
}

// Round tick values covering [lo, hi]: steps of 1, 2 or 5 x 10^k, about `count` of them.
function niceTicks(lo, hi, count) {
  const span = hi - lo || Math.abs(hi) || 1;
  const raw = span / Math.max(count, 1);
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map(m => m * mag).find(s => s >= raw);
  const ticks = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) ticks.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  return ticks;
}

function chartWidth(container) {
  return Math.max(300, Math.min(960, container.clientWidth || 640));
}

// The over-capacity hatching, as the rank bars draw it.
function hatchDefs(svg) {
  const defs = svgEl("defs");
  const p = svgEl("pattern", {id: "over-hatch", width: 8, height: 8, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)"});
  p.appendChild(svgEl("rect", {width: 8, height: 8, fill: "#e7a19b"}));
  p.appendChild(svgEl("rect", {width: 4, height: 8, fill: "#b42318"}));
  defs.appendChild(p);
  svg.appendChild(defs);
}

// Bars above and below a zero line: points [{x: label, y: number, title: string, cls: string}];
// the bar with cls "current" is the chosen one, outlined and labelled.
function barChart(container, points, opts) {
  container.textContent = "";
  if (!points.length) { container.textContent = opts.empty || "no data"; return; }
  const W = chartWidth(container), H = 240, L = 58, R = 10, T = 14, B = 40;
  const ys = points.map(p => p.y);
  const ticks = niceTicks(Math.min(0, ...ys), Math.max(0, ...ys), 5);
  const max = Math.max(ticks[ticks.length - 1], ...ys, 0), min = Math.min(ticks[0], ...ys, 0);
  const span = (max - min) || 1;
  const svg = svgEl("svg", {viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img", "aria-label": opts.label || "chart"});
  hatchDefs(svg);
  const y = v => T + (max - v) / span * (H - T - B);
  const bw = (W - L - R) / points.length;
  for (const v of ticks) {
    svg.appendChild(svgEl("line", {x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid"}));
    svg.appendChild(svgEl("text", {x: L - 4, y: y(v) + 4, "text-anchor": "end", class: "tick"}, opts.format(v)));
  }
  svg.appendChild(svgEl("line", {x1: L, x2: W - R, y1: y(0), y2: y(0), stroke: "#5b6470"}));
  if (opts.unit)
    svg.appendChild(svgEl("text", {x: 12, y: (T + H - B) / 2, "text-anchor": "middle",
                                   transform: `rotate(-90 12 ${(T + H - B) / 2})`, class: "axis"}, opts.unit));
  const every = Math.max(1, Math.ceil(points.length / Math.floor((W - L - R) / 34)));
  points.forEach((p, i) => {
    const x = L + i * bw + bw * 0.15;
    const top = Math.min(y(0), y(p.y)), h = Math.max(1, Math.abs(y(p.y) - y(0)));
    const rect = svgEl("rect", {x, y: top, width: Math.max(1, bw * 0.7), height: h, class: p.cls || "",
                                fill: p.y >= 0 ? "#1f7a3a" : "url(#over-hatch)", "data-x": p.x, "data-y": p.y});
    rect.appendChild(svgEl("title", {}, p.title));
    svg.appendChild(rect);
    if (p.cls === "current")
      svg.appendChild(svgEl("text", {x: Math.min(Math.max(x + bw * 0.35, L + 30), W - R - 30), y: T + 2, "text-anchor": "middle",
                                     class: "mark"}, `chosen: ${p.x}`));
    if (i % every === 0 || p.cls === "current")
      svg.appendChild(svgEl("text", {x: x + bw * 0.35, y: H - B + 14, "text-anchor": "middle", class: "tick"}, String(p.x)));
  });
  if (opts.xlabel) svg.appendChild(svgEl("text", {x: (W + L) / 2, y: H - 6, "text-anchor": "middle", class: "axis"}, opts.xlabel));
  container.appendChild(svg);
}

// Token counts as people say them: 512, 4K, 68K, 1M.
function tokensLabel(v) {
  if (v >= 1048576 && v % 1048576 === 0) return (v / 1048576) + "M";
  if (v >= 1024) return Math.round(v / 1024) + "K";
  return String(Math.round(v));
}

// A line with dots: points [{x: number, y: number, label: string, title: string}], both axes log2.
function lineChart(container, points, opts) {
  container.textContent = "";
  if (!points.length) { container.textContent = opts.empty || "no data"; return; }
  const W = chartWidth(container), H = 240, L = 64, R = 16, T = 18, B = 40;
  const lx = points.map(p => Math.log2(p.x)), ly = points.map(p => Math.log2(Math.max(p.y, 1)));
  const x0 = Math.min(...lx), x1 = Math.max(...lx);
  const y0 = Math.floor(Math.min(...ly)), y1 = Math.ceil(Math.max(...ly)) + (Math.ceil(Math.max(...ly)) === Math.floor(Math.min(...ly)) ? 1 : 0);
  const sx = v => L + (x1 === x0 ? 0.5 : (v - x0) / (x1 - x0)) * (W - L - R);
  const sy = v => T + (y1 - v) / (y1 - y0) * (H - T - B);
  const svg = svgEl("svg", {viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img", "aria-label": opts.label || "chart"});
  // Powers of two on the y axis, at most six of them.
  const stepY = Math.max(1, Math.ceil((y1 - y0) / 6));
  for (let e = y0; e <= y1; e += stepY) {
    svg.appendChild(svgEl("line", {x1: L, x2: W - R, y1: sy(e), y2: sy(e), class: "grid"}));
    svg.appendChild(svgEl("text", {x: L - 4, y: sy(e) + 4, "text-anchor": "end", class: "tick"}, tokensLabel(Math.pow(2, e))));
  }
  if (opts.unit)
    svg.appendChild(svgEl("text", {x: 12, y: (T + H - B) / 2, "text-anchor": "middle",
                                   transform: `rotate(-90 12 ${(T + H - B) / 2})`, class: "axis"}, opts.unit));
  svg.appendChild(svgEl("polyline", {fill: "none", stroke: "#3d5a98", "stroke-width": 2,
    points: points.map((p, i) => `${sx(lx[i])},${sy(ly[i])}`).join(" ")}));
  points.forEach((p, i) => {
    const cx = sx(lx[i]), cy = sy(ly[i]);
    const c = svgEl("circle", {cx, cy, r: 4, fill: "#3d5a98", "data-x": p.x, "data-y": p.y});
    c.appendChild(svgEl("title", {}, p.title));
    svg.appendChild(c);
    svg.appendChild(svgEl("text", {x: cx, y: H - B + 14, "text-anchor": "middle", class: "tick"}, String(p.x)));
    // The value beside its dot, kept inside the drawing (right-aligned near the right edge, below the top).
    const right = cx > W - R - 60;
    svg.appendChild(svgEl("text", {x: right ? cx - 6 : cx + 6, y: Math.max(cy - 6, T + 10), "text-anchor": right ? "end" : "start",
                                   class: "value"}, p.label));
  });
  if (opts.xlabel) svg.appendChild(svgEl("text", {x: (W + L) / 2, y: H - 6, "text-anchor": "middle", class: "axis"}, opts.xlabel));
  container.appendChild(svg);
}
