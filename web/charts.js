// Small SVG charts for the planner page: no library, so nothing to vendor or
// download. Each function draws into a container element and returns nothing.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";

function svgEl(name, attrs, text) {
  const el = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  if (text !== undefined) el.textContent = text;
  return el;
}

// Bars above and below a zero line: points [{x: label, y: number, title: string, cls: string}].
function barChart(container, points, opts) {
  container.textContent = "";
  if (!points.length) { container.textContent = opts.empty || "no data"; return; }
  const W = 640, H = 220, L = 56, R = 8, T = 12, B = 34;
  const ys = points.map(p => p.y);
  const max = Math.max(0, ...ys), min = Math.min(0, ...ys);
  const span = (max - min) || 1;
  const svg = svgEl("svg", {viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": opts.label || "chart"});
  const y = v => T + (max - v) / span * (H - T - B);
  const bw = (W - L - R) / points.length;
  svg.appendChild(svgEl("line", {x1: L, x2: W - R, y1: y(0), y2: y(0), stroke: "#5b6470"}));
  for (const v of [max, min]) {
    if (v === 0) continue;
    svg.appendChild(svgEl("text", {x: L - 4, y: y(v) + 4, "text-anchor": "end"}, opts.format(v)));
  }
  svg.appendChild(svgEl("text", {x: L - 4, y: y(0) + 4, "text-anchor": "end"}, "0"));
  points.forEach((p, i) => {
    const x = L + i * bw + bw * 0.15;
    const top = Math.min(y(0), y(p.y)), h = Math.max(1, Math.abs(y(p.y) - y(0)));
    const rect = svgEl("rect", {x, y: top, width: bw * 0.7, height: h, class: p.cls || "",
                                fill: p.y >= 0 ? "#1f7a3a" : "#b42318", "data-x": p.x, "data-y": p.y});
    rect.appendChild(svgEl("title", {}, p.title));
    svg.appendChild(rect);
    if (points.length <= 24 || i % Math.ceil(points.length / 24) === 0)
      svg.appendChild(svgEl("text", {x: x + bw * 0.35, y: H - B + 14, "text-anchor": "middle"}, String(p.x)));
  });
  if (opts.xlabel) svg.appendChild(svgEl("text", {x: (W + L) / 2, y: H - 4, "text-anchor": "middle"}, opts.xlabel));
  container.appendChild(svg);
}

// A line with dots: points [{x: number, y: number, label: string, title: string}], x on a log2 scale.
function lineChart(container, points, opts) {
  container.textContent = "";
  if (!points.length) { container.textContent = opts.empty || "no data"; return; }
  const W = 640, H = 220, L = 70, R = 12, T = 12, B = 34;
  const lx = points.map(p => Math.log2(p.x)), ly = points.map(p => Math.log2(Math.max(p.y, 1)));
  const x0 = Math.min(...lx), x1 = Math.max(...lx), y0 = Math.min(...ly), y1 = Math.max(...ly);
  const sx = v => L + (x1 === x0 ? 0.5 : (v - x0) / (x1 - x0)) * (W - L - R);
  const sy = v => T + (y1 === y0 ? 0.5 : (y1 - v) / (y1 - y0)) * (H - T - B);
  const svg = svgEl("svg", {viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": opts.label || "chart"});
  svg.appendChild(svgEl("polyline", {fill: "none", stroke: "#3d5a98", "stroke-width": 2,
    points: points.map((p, i) => `${sx(lx[i])},${sy(ly[i])}`).join(" ")}));
  points.forEach((p, i) => {
    const c = svgEl("circle", {cx: sx(lx[i]), cy: sy(ly[i]), r: 4, fill: "#3d5a98", "data-x": p.x, "data-y": p.y});
    c.appendChild(svgEl("title", {}, p.title));
    svg.appendChild(c);
    svg.appendChild(svgEl("text", {x: sx(lx[i]), y: H - B + 14, "text-anchor": "middle"}, String(p.x)));
    svg.appendChild(svgEl("text", {x: sx(lx[i]) + 6, y: sy(ly[i]) - 6}, p.label));
  });
  if (opts.xlabel) svg.appendChild(svgEl("text", {x: (W + L) / 2, y: H - 4, "text-anchor": "middle"}, opts.xlabel));
  container.appendChild(svg);
}
