// quadpath view: draws the map from offscreen bitmaps (one pixel per cell) scaled by the
// view transform, so that panning and zooming a 1024x1024 map costs a few drawImage calls.
// Everything it shows comes from the JSON/binary API of the server (see api.rs).
"use strict";

const $ = (id) => document.getElementById(id);
const canvas = $("map");
let ctx = canvas.getContext("2d"); // the overlay's while it is drawn (see renderOverlay)

// Colours of the leaves layer, picked per leaf by `leafColour` (the browser test checks them).
const LEAF_COLOURS = [[255, 170, 60], [90, 200, 250], [170, 120, 250], [110, 220, 120]];
const LEAF_ALPHA = 0.45;
const TERRAIN = {
  ".": [240, 237, 228], "G": [240, 237, 228], "@": [40, 40, 48], "O": [40, 40, 48],
  "T": [46, 110, 60], "W": [60, 110, 190], "S": [150, 170, 90],
};
const BUILDING = [150, 60, 40];
const BUILDING_BYTE = 1;

const st = {
  info: null, w: 0, h: 0, terrain: null,
  scale: 1, ox: 0, oy: 0,             // screen = cell * scale + offset (CSS pixels)
  bitmaps: {},                        // layer name -> offscreen canvas, one pixel per cell
  leaves: null, gates: null,          // {mode, rev, data}
  clusters: null,                     // the fast layer's [{area, entrances, fresh}]
  units: null,                        // {count, units, cells} and st.bitmaps.units
  start: null, goal: null, paths: null,
  flowGoal: null, flow: null,
  trace: null, traceAt: 0, tracePlay: null,   // the traced search, events shown, animation
  revision: 0, busy: Promise.resolve(),
};

function leafColour(x, y, w, h) {
  return LEAF_COLOURS[(x * 7 + y * 13 + w + h) % LEAF_COLOURS.length];
}

function status(text) { $("status").textContent = text || ""; }

async function api(path, options) {
  const r = await fetch(path, options);
  if (!r.ok) {
    let message = r.status + " " + r.statusText;
    try { message = (await r.json()).error; } catch (e) { /* not JSON */ }
    throw new Error(message);
  }
  const type = r.headers.get("Content-Type") || "";
  return type.startsWith("application/json") ? r.json() : r.arrayBuffer();
}

function post(path, body) {
  return api(path, { method: "POST", body: JSON.stringify(body || {}) });
}

// ---- bitmaps -------------------------------------------------------------------------

function bitmap(colourOf) {
  const off = document.createElement("canvas");
  off.width = st.w; off.height = st.h;
  const g = off.getContext("2d");
  const img = g.createImageData(st.w, st.h);
  const px = img.data;
  for (let i = 0, n = st.w * st.h; i < n; i++) {
    const c = colourOf(i);
    if (!c) continue;
    px[4 * i] = c[0]; px[4 * i + 1] = c[1]; px[4 * i + 2] = c[2];
    px[4 * i + 3] = c.length > 3 ? c[3] : 255;
  }
  g.putImageData(img, 0, 0);
  return off;
}

function terrainColour(code) {
  if (code === BUILDING_BYTE) return BUILDING;
  const ch = String.fromCharCode(code);
  if (TERRAIN[ch]) return TERRAIN[ch];
  const free = st.info.costs[code] !== null;
  const v = (code * 37) % 40;
  return free ? [215 + v / 2, 215, 200 - v] : [70 + v, 70, 80];
}

function hueColour(label, alpha) {
  const h = (label * 137.508) % 360, s = 0.65, l = 0.55;
  const f = (n) => {
    const k = (n + h / 30) % 12;
    return Math.round(255 * (l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4), alpha];
}

function costColour(cost) {
  // log2 of the cost: gold below 1, mud brown above, plain at 1.
  const t = Math.max(-1, Math.min(1, Math.log2(cost) / 4));
  if (t < 0) return [255, 200, 40, Math.round(-t * 220)];
  return [120, 70, 20, Math.round(t * 220)];
}

function flowColour(d, max) {
  if (Number.isNaN(d)) return null;
  const t = max > 0 ? d / max : 0;
  return [Math.round(255 - 225 * t), Math.round(250 - 190 * t), Math.round(180 - 60 * t), 170];
}

async function loadTerrain() {
  st.terrain = new Uint8Array(await api("/api/terrain"));
  const t = st.terrain;
  const palette = [];
  for (let c = 0; c < 256; c++) palette.push(terrainColour(c));
  st.bitmaps.terrain = bitmap((i) => palette[t[i]]);
  if (st.info.costs.some((c, code) => c !== null && c !== 1 && code !== 0)) {
    st.bitmaps.costs = bitmap((i) => {
      const c = t[i] === BUILDING_BYTE ? null : st.info.costs[t[i]];
      return c === null || c === 1 ? null : costColour(c);
    });
  } else {
    st.bitmaps.costs = null;
  }
}

async function loadLayer(name) {
  if (name === "components") {
    const labels = new Uint32Array(await api("/api/components"));
    st.bitmaps.components = bitmap((i) => labels[i] ? hueColour(labels[i], 120) : null);
  } else if (name === "clearance") {
    const c = new Uint8Array(await api("/api/clearance"));
    const k = st.info.size;
    st.bitmaps.clearance = bitmap((i) => {
      if (c[i] === 0) return st.terrain[i] === BUILDING_BYTE || st.info.costs[st.terrain[i]] === null ? null : [220, 40, 40, 110];
      const t = Math.min(1, (c[i] - 1) / Math.max(4, 4 * k));
      return [40, Math.round(120 + 100 * t), 60, Math.round(60 + 60 * t)];
    });
  } else if (name === "clusters") {
    st.clusters = (await api("/api/clusters")).clusters;
  } else if (name === "units") {
    loadUnits(await api("/api/units"));
  } else if (name === "leaves" || name === "gates") {
    const mode = $("layer-mode").value;
    const got = await api("/api/" + name + "?mode=" + mode);
    st[name] = { mode, rev: st.revision, data: name === "leaves" ? got.leaves : got.crossings };
    if (name === "leaves") st.bitmaps.leaves = leafBitmap(got.leaves);
    else st.bitmaps.gates = gateBitmap(got.crossings);
  }
}

async function refreshLayers() {
  const jobs = [];
  for (const name of ["components", "clearance", "leaves", "gates", "clusters", "units"]) {
    if ($("layer-" + name).checked) jobs.push(loadLayer(name));
    else if (["leaves", "gates", "clusters", "units"].includes(name)) st[name] = null;
    else st.bitmaps[name] = null;
  }
  await Promise.all(jobs);
}

// ---- drawing -------------------------------------------------------------------------

function resize() {
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(canvas.clientWidth * dpr);
  canvas.height = Math.round(canvas.clientHeight * dpr);
  draw();
}

function fit() {
  const s = Math.min(canvas.clientWidth / st.w, canvas.clientHeight / st.h);
  st.scale = s;
  st.ox = (canvas.clientWidth - st.w * s) / 2;
  st.oy = (canvas.clientHeight - st.h * s) / 2;
  draw();
}

// While the overlay is drawn: the CSS pixel rectangle it covers round the view.
let viewMargin = null;

// The cells in view (or in the overlay's area while it is drawn), clipped to the map.
function visible() {
  const m = viewMargin || { x1: 0, y1: 0, x2: canvas.clientWidth, y2: canvas.clientHeight };
  const x1 = Math.max(0, Math.floor((m.x1 - st.ox) / st.scale));
  const y1 = Math.max(0, Math.floor((m.y1 - st.oy) / st.scale));
  const x2 = Math.min(st.w, Math.ceil((m.x2 - st.ox) / st.scale));
  const y2 = Math.min(st.h, Math.ceil((m.y2 - st.oy) / st.scale));
  return { x1, y1, x2, y2 };
}

let drawQueued = false;
function draw() {
  if (drawQueued) return;
  drawQueued = true;
  requestAnimationFrame(() => { drawQueued = false; drawNow(); });
}

function drawNow() {
  if (!st.info) return;
  const dpr = window.devicePixelRatio || 1;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.fillStyle = "#777";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.setTransform(dpr * st.scale, 0, 0, dpr * st.scale, dpr * st.ox, dpr * st.oy);
  ctx.imageSmoothingEnabled = false;
  const layers = ["terrain", "costs", "components", "clearance"];
  for (const name of layers) {
    const on = name === "terrain" || $("layer-" + name).checked;
    if (on && st.bitmaps[name]) ctx.drawImage(st.bitmaps[name], 0, 0);
  }
  if ($("layer-flow").checked && st.bitmaps.flow) ctx.drawImage(st.bitmaps.flow, 0, 0);
  if (st.leaves && st.bitmaps.leaves && $("layer-leaves").checked) ctx.drawImage(st.bitmaps.leaves, 0, 0);
  if (st.gates && st.bitmaps.gates && $("layer-gates").checked) ctx.drawImage(st.bitmaps.gates, 0, 0);
  const px = 1 / st.scale; // one CSS pixel in cells
  drawOverlay(dpr);
  if (st.trace) drawTrace(px);
  if (st.paths) {
    if ($("layer-fastpath").checked) drawPath(st.paths.fast.cells, "rgba(30,91,216,0.9)", px * 3);
    drawPath(st.paths.exact.cells, "rgba(208,32,42,0.95)", px * 3);
  }
  marker(st.start, "#f08000", px);
  marker(st.goal || st.flowGoal, "#d000d0", px);
}

// ---- the vector overlay -----------------------------------------------------------------
// Leaf outlines, gates, clusters, units and flow arrows can be hundreds of thousands of
// shapes on a 1024x1024 map. They are drawn into an offscreen canvas covering the view and
// a margin round it, and while the view moves that canvas is only copied (shifted and
// scaled); it is drawn again once the view has rested for OVERLAY_REST ms, or at once when
// what it shows changes or the view has left its margin or zoomed by over a factor of 2.
const OVERLAY_REST = 120;
const overlay = { canvas: document.createElement("canvas"), key: null, scale: 0, ox: 0, oy: 0, timer: 0 };
let overlayDraws = 0;

// What the overlay shows, apart from the view: it is redrawn when this changes.
function overlayKey() {
  const on = (name) => $("layer-" + name).checked;
  return [st.revision, on("leaves") && st.leaves, on("gates") && st.gates, on("clusters") && st.clusters,
    on("units") && st.units, on("flow") && st.flow, st.w, canvas.width, canvas.height];
}

function sameKey(a, b) {
  return a !== null && a.length === b.length && a.every((x, i) => x === b[i]);
}

function drawOverlay(dpr) {
  const key = overlayKey();
  if (!key.slice(1, 6).some(Boolean)) return;
  const fresh = sameKey(overlay.key, key) && overlay.scale === st.scale && overlay.ox === st.ox && overlay.oy === st.oy;
  if (!fresh) {
    clearTimeout(overlay.timer);
    const ratio = st.scale / overlay.scale;
    // Where the overlay's corner is now, in CSS pixels, and whether it still covers the view.
    const mx = canvas.clientWidth / 2, my = canvas.clientHeight / 2;
    const x0 = st.ox + (-overlay.ox - mx) / overlay.scale * st.scale;
    const y0 = st.oy + (-overlay.oy - my) / overlay.scale * st.scale;
    const covers = x0 <= 0 && y0 <= 0 && x0 + 2 * canvas.clientWidth * ratio >= canvas.clientWidth &&
      y0 + 2 * canvas.clientHeight * ratio >= canvas.clientHeight;
    if (sameKey(overlay.key, key) && ratio > 0.5 && ratio < 2 && covers) {
      overlay.timer = setTimeout(() => { overlay.scale = 0; draw(); }, OVERLAY_REST);
    } else {
      renderOverlay(key, dpr);
    }
  }
  const ratio = st.scale / overlay.scale;
  const mx = canvas.clientWidth / 2, my = canvas.clientHeight / 2;
  ctx.setTransform(dpr * ratio, 0, 0, dpr * ratio,
    dpr * (st.ox + (-overlay.ox - mx) / overlay.scale * st.scale),
    dpr * (st.oy + (-overlay.oy - my) / overlay.scale * st.scale));
  ctx.imageSmoothingEnabled = true;
  ctx.drawImage(overlay.canvas, 0, 0, overlay.canvas.width / dpr, overlay.canvas.height / dpr);
  ctx.imageSmoothingEnabled = false;
  ctx.setTransform(dpr * st.scale, 0, 0, dpr * st.scale, dpr * st.ox, dpr * st.oy);
}

// Draws the overlay for the current view: the view and half of it again on every side.
function renderOverlay(key, dpr) {
  overlayDraws++;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  const oc = overlay.canvas;
  if (oc.width !== 2 * canvas.width || oc.height !== 2 * canvas.height) {
    oc.width = 2 * canvas.width; oc.height = 2 * canvas.height;
  }
  const g = oc.getContext("2d");
  g.setTransform(1, 0, 0, 1, 0, 0);
  g.clearRect(0, 0, oc.width, oc.height);
  g.imageSmoothingEnabled = false;
  g.setTransform(dpr * st.scale, 0, 0, dpr * st.scale, dpr * (st.ox + w / 2), dpr * (st.oy + h / 2));
  Object.assign(overlay, { key, scale: st.scale, ox: st.ox, oy: st.oy });
  const margin = { x1: -w / 2, y1: -h / 2, x2: 1.5 * w, y2: 1.5 * h };
  const px = 1 / st.scale;
  const saved = ctx;
  ctx = g; viewMargin = margin;
  try {
    if (key[1]) drawLeaves(px);
    if (key[2]) drawGates(px);
    if (key[3]) drawClusters(px);
    if (key[4]) drawUnits(px);
    if (key[5]) drawArrows(px);
  } finally {
    ctx = saved; viewMargin = null;
  }
}

// The leaves' fills, drawn once per load into a bitmap of one pixel per cell.
function leafBitmap(d) {
  const off = document.createElement("canvas");
  off.width = st.w; off.height = st.h;
  const g = off.getContext("2d");
  for (let i = 0; i < d.length; i += 4) {
    const c = leafColour(d[i], d[i + 1], d[i + 2], d[i + 3]);
    g.fillStyle = `rgba(${c[0]},${c[1]},${c[2]},${LEAF_ALPHA})`;
    g.fillRect(d[i], d[i + 1], d[i + 2], d[i + 3]);
  }
  return off;
}

// The outlines of the leaves in view that are at least 4 pixels wide.
function drawLeaves(px) {
  const v = visible();
  const d = st.leaves.data;
  const outline = new Path2D();
  for (let i = 0; i < d.length; i += 4) {
    const x = d[i], y = d[i + 1], w = d[i + 2], h = d[i + 3];
    if (x >= v.x2 || y >= v.y2 || x + w <= v.x1 || y + h <= v.y1) continue;
    if (w * st.scale >= 4) outline.rect(x, y, w, h);
  }
  ctx.strokeStyle = "rgba(20,60,120,0.8)";
  ctx.lineWidth = px;
  ctx.stroke(outline);
}

// The gate cells, one pixel a cell: the gates layer at any zoom, at the cost of one
// drawImage a frame (a 1024x1024 map has hundreds of thousands of crossings).
const GATE_COLOUR = [0, 150, 60, 255];
function gateBitmap(d) {
  const mask = new Uint8Array(st.w * st.h);
  for (let i = 0; i < d.length; i += 2) mask[d[i + 1] * st.w + d[i]] = 1;
  return bitmap((i) => mask[i] ? GATE_COLOUR : null);
}

// The crossings as lines between cell centres, from GATE_LINES pixels a cell on, where they
// can be told apart and few are in view.
const GATE_LINES = 6;
function drawGates(px) {
  if (st.scale < GATE_LINES) return;
  const v = visible();
  const d = st.gates.data;
  const p = new Path2D();
  for (let i = 0; i < d.length; i += 4) {
    const ax = d[i] + 0.5, ay = d[i + 1] + 0.5, bx = d[i + 2] + 0.5, by = d[i + 3] + 0.5;
    if (Math.max(ax, bx) < v.x1 || Math.min(ax, bx) > v.x2 || Math.max(ay, by) < v.y1 || Math.min(ay, by) > v.y2) continue;
    p.moveTo(ax, ay); p.lineTo(bx, by);
  }
  ctx.strokeStyle = "rgba(0,150,60,0.9)";
  ctx.lineWidth = Math.max(px * 1.5, 0.15);
  ctx.stroke(p);
}

// Cluster borders (dashed red while an edit left the cluster's routes stale) and their
// entrance cells, filled.
const CLUSTER_COLOUR = "rgba(150,40,170,0.95)";
function drawClusters(px) {
  const fresh = new Path2D(), stale = new Path2D(), entrances = new Path2D();
  for (const c of st.clusters) {
    const [x, y, w, h] = c.area;
    (c.fresh ? fresh : stale).rect(x, y, w, h);
    const e = c.entrances;
    for (let i = 0; i < e.length; i += 2) entrances.rect(e[i], e[i + 1], 1, 1);
  }
  ctx.lineWidth = 2 * px;
  ctx.strokeStyle = CLUSTER_COLOUR;
  ctx.stroke(fresh);
  ctx.setLineDash([6 * px, 4 * px]);
  ctx.strokeStyle = "rgba(220,30,30,0.95)";
  ctx.stroke(stale);
  ctx.setLineDash([]);
  ctx.fillStyle = CLUSTER_COLOUR;
  ctx.fill(entrances);
  // Below 3 pixels a cell, an entrance is marked by a ring of fixed size as well.
  if (st.scale < 3) {
    const ring = new Path2D();
    for (const c of st.clusters) {
      const e = c.entrances;
      for (let i = 0; i < e.length; i += 2) {
        ring.moveTo(e[i] + 0.5 + 2 * px, e[i + 1] + 0.5);
        ring.arc(e[i] + 0.5, e[i + 1] + 0.5, 2 * px, 0, 2 * Math.PI);
      }
    }
    ctx.lineWidth = px;
    ctx.stroke(ring);
  }
}

// The units: their cells in a bitmap (one pixel a cell), and the unit index's occupied
// cells as outlined squares, darker with more units.
const UNIT_COLOUR = [20, 20, 20, 230];
function loadUnits(got) {
  st.units = got;
  const mask = new Uint8Array(st.w * st.h);
  const u = got.units;
  for (let i = 0; i < u.length; i += 4) {
    for (let y = Math.floor(u[i + 1]); y < Math.min(st.h, Math.ceil(u[i + 3])); y++) {
      for (let x = Math.floor(u[i]); x < Math.min(st.w, Math.ceil(u[i + 2])); x++) mask[y * st.w + x] = 1;
    }
  }
  st.bitmaps.units = bitmap((i) => mask[i] ? UNIT_COLOUR : null);
  $("units-summary").textContent = `${got.count} units in ${got.cells.length / 5} cells of the index`;
}

function drawUnits(px) {
  const c = st.units.cells;
  let most = 1;
  for (let i = 4; i < c.length; i += 5) most = Math.max(most, c[i]);
  const outline = new Path2D();
  for (let i = 0; i < c.length; i += 5) {
    const t = c[i + 4] / most;
    ctx.fillStyle = `rgba(255,120,0,${(0.12 + 0.4 * t).toFixed(3)})`;
    ctx.fillRect(c[i], c[i + 1], c[i + 2] - c[i], c[i + 3] - c[i + 1]);
    outline.rect(c[i], c[i + 1], c[i + 2] - c[i], c[i + 3] - c[i + 1]);
  }
  ctx.lineWidth = px;
  ctx.strokeStyle = "rgba(190,80,0,0.9)";
  ctx.stroke(outline);
  if (st.bitmaps.units) ctx.drawImage(st.bitmaps.units, 0, 0);
}

async function spawnUnits() {
  const count = Number($("units-count").value), seed = Number($("units-seed").value);
  try {
    loadUnits(await post("/api/units", { count, seed }));
    $("layer-units").checked = true;
    draw();
  } catch (e) { status("units: " + e.message); }
}

const STEPS = [[1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0], [-1, -1], [0, -1], [1, -1]];
function drawArrows(px) {
  // One arrow per square of cells about 14 CSS pixels wide, whatever the zoom.
  const every = Math.max(1, Math.ceil(14 / st.scale));
  const v = visible();
  const p = new Path2D();
  const len = every * 0.35;
  for (let y = v.y1 - (v.y1 % every); y < v.y2; y += every) {
    for (let x = v.x1 - (v.x1 % every); x < v.x2; x += every) {
      const dir = st.flow.step[y * st.w + x];
      if (dir === 255) continue;
      const [dx, dy] = STEPS[dir];
      const n = Math.hypot(dx, dy);
      const cx = x + 0.5 * Math.min(every, 1) + (every > 1 ? every / 2 - 0.5 : 0);
      const cy = y + 0.5 * Math.min(every, 1) + (every > 1 ? every / 2 - 0.5 : 0);
      const ux = dx / n * len, uy = dy / n * len;
      p.moveTo(cx - ux, cy - uy); p.lineTo(cx + ux, cy + uy);
      p.moveTo(cx + ux, cy + uy); p.lineTo(cx + ux * 0.2 - uy * 0.5, cy + uy * 0.2 + ux * 0.5);
      p.moveTo(cx + ux, cy + uy); p.lineTo(cx + ux * 0.2 + uy * 0.5, cy + uy * 0.2 - ux * 0.5);
    }
  }
  ctx.strokeStyle = "rgba(20,30,80,0.75)";
  ctx.lineWidth = px;
  ctx.stroke(p);
}

function drawPath(cells, colour, width) {
  if (!cells || cells.length === 0) return;
  const k = st.info.size;
  ctx.beginPath();
  ctx.moveTo(cells[0][0] + k / 2, cells[0][1] + k / 2);
  for (const [x, y] of cells) ctx.lineTo(x + k / 2, y + k / 2);
  ctx.strokeStyle = colour;
  ctx.lineWidth = Math.max(width, 0.25);
  ctx.lineJoin = "round";
  ctx.stroke();
}

function marker(cell, colour, px) {
  if (!cell) return;
  const k = st.info.size;
  ctx.beginPath();
  ctx.arc(cell[0] + k / 2, cell[1] + k / 2, Math.max(k / 2, 5 * px), 0, 2 * Math.PI);
  ctx.fillStyle = colour;
  ctx.fill();
}

// ---- queries -------------------------------------------------------------------------

function showPaths() {
  for (const mode of ["exact", "fast"]) {
    const p = st.paths && st.paths[mode];
    const fmt = (v, d) => (v === undefined || v === null ? "–" : Number(v).toFixed(d));
    $(mode + "-length").textContent = p ? (p.error ? "none" : fmt(p.length, 4)) : "–";
    $(mode + "-cost").textContent = p && !p.error ? fmt(p.cost, 4) : "–";
    $(mode + "-us").textContent = p ? fmt(p.query_us, 1) : "–";
    $(mode + "-expansions").textContent = p ? p.expansions : "–";
    $(mode + "-length").title = p && p.error ? p.error : "";
  }
  const c = (v) => (v ? v[0] + "," + v[1] : "?");
  $("ends").textContent = st.start ? "from " + c(st.start) + " to " + c(st.goal) : "no start yet";
}

async function findPath() {
  if (!st.start || !st.goal) { st.paths = null; showPaths(); return; }
  try {
    st.paths = await api(`/api/path?from=${st.start}&to=${st.goal}`);
    status(st.paths.exact.error || "");
  } catch (e) { st.paths = null; status(e.message); }
  showPaths();
  draw();
}

async function loadFlow(goal) {
  try {
    const buf = await api("/api/flow" + (goal ? "?goal=" + goal : ""));
    const n = st.w * st.h;
    const distance = new Float32Array(buf.slice(0, 4 * n));
    const step = new Uint8Array(buf, 4 * n, n);
    let max = 0;
    for (const d of distance) if (!Number.isNaN(d) && d > max) max = d;
    st.flow = { distance, step, max };
    st.bitmaps.flow = bitmap((i) => flowColour(distance[i], max));
    if (goal) st.flowGoal = goal;
    status("");
  } catch (e) { status(e.message); }
  draw();
}

// After an edit: the terrain, the layers shown, the path and the field, all reloaded.
async function afterEdit(answer) {
  st.revision = answer.revision;
  await loadTerrain();
  await refreshLayers();
  if (st.flowGoal) await loadFlow(null);
  await findPath();
  $("undo").disabled = answer.undo_depth === 0;
}

// ---- input ---------------------------------------------------------------------------

function cellAt(ev) {
  const r = canvas.getBoundingClientRect();
  const x = Math.floor((ev.clientX - r.left - st.ox) / st.scale);
  const y = Math.floor((ev.clientY - r.top - st.oy) / st.scale);
  return x >= 0 && y >= 0 && x < st.w && y < st.h ? [x, y] : null;
}

const tool = () => document.querySelector("input[name=tool]:checked").value;
let drag = null;
const painted = new Set();

canvas.addEventListener("mousedown", (ev) => {
  drag = { x: ev.clientX, y: ev.clientY, ox: st.ox, oy: st.oy, moved: false,
           paint: tool() === "paint" && ev.button === 0 && !ev.shiftKey };
  painted.clear();
  if (drag.paint) paintAt(cellAt(ev));
});

window.addEventListener("mousemove", (ev) => {
  if (drag) {
    if (Math.hypot(ev.clientX - drag.x, ev.clientY - drag.y) > 4) drag.moved = true;
    if (drag.paint) { paintAt(cellAt(ev)); return; }
    if (drag.moved) {
      st.ox = drag.ox + ev.clientX - drag.x;
      st.oy = drag.oy + ev.clientY - drag.y;
      draw();
    }
    return;
  }
  if (ev.target === canvas) hoverAt(cellAt(ev));
});

window.addEventListener("mouseup", (ev) => {
  const d = drag;
  drag = null;
  if (!d) return;
  if (d.paint) return;
  if (d.moved || ev.target !== canvas) return;
  const cell = cellAt(ev);
  if (!cell) return;
  if (ev.shiftKey) { loadFlow(cell); return; }
  if (tool() !== "path") return;
  if (!st.start || st.goal) { st.start = cell; st.goal = null; st.paths = null; st.trace = null; stopTrace(); showPaths(); draw(); }
  else { st.goal = cell; findPath(); }
});

// The right button pans (in the Paint tool the left one paints): no context menu.
canvas.addEventListener("contextmenu", (ev) => ev.preventDefault());

canvas.addEventListener("wheel", (ev) => {
  ev.preventDefault();
  const r = canvas.getBoundingClientRect();
  const mx = ev.clientX - r.left, my = ev.clientY - r.top;
  const factor = Math.exp(-ev.deltaY * 0.0015);
  const fitScale = Math.min(canvas.clientWidth / st.w, canvas.clientHeight / st.h);
  const s = Math.max(fitScale / 4, Math.min(64, st.scale * factor));
  st.ox = mx - (mx - st.ox) * (s / st.scale);
  st.oy = my - (my - st.oy) * (s / st.scale);
  st.scale = s;
  draw();
}, { passive: false });

function paintAt(cell) {
  if (!cell) return;
  const size = Math.max(1, Math.min(128, parseInt($("brush").value, 10) || 1));
  const x = Math.max(0, cell[0] - Math.floor((size - 1) / 2));
  const y = Math.max(0, cell[1] - Math.floor((size - 1) / 2));
  const key = x + "," + y;
  if (painted.has(key)) return;
  painted.add(key);
  const body = { x, y, size, paint: $("paint-kind").value };
  if (body.paint === "terrain") body.code = $("paint-code").value;
  st.busy = st.busy.then(async () => {
    try { await afterEdit(await post("/api/edit", body)); } catch (e) { status(e.message); }
  });
}

async function undo() {
  st.busy = st.busy.then(async () => {
    try {
      const a = await post("/api/undo");
      if (!a.undone) status("nothing to undo");
      await afterEdit(a);
    } catch (e) { status(e.message); }
  });
}

let hoverBusy = false, hoverNext = null;
async function hoverAt(cell) {
  if (!cell) return;
  if (hoverBusy) { hoverNext = cell; return; }
  hoverBusy = true;
  try {
    const h = await api("/api/hover?cell=" + cell);
    const leaf = h.leaf ? `${h.leaf[0]},${h.leaf[1]} ${h.leaf[2]}x${h.leaf[3]}` : "none (closed)";
    const goal = h.goal ? h.goal.join(",") : null;
    $("hover").textContent =
      `cell ${cell[0]},${cell[1]}  terrain ${JSON.stringify(h.terrain)}${h.building ? " + building" : ""}\n` +
      `open for the class: ${h.open ? "yes" : "no"}\n` +
      `leaf ${leaf}\ncomponent ${h.component ?? "–"}\n` +
      (goal ? `distance to ${goal}: ${h.distance_to_goal === null ? "unreachable" : h.distance_to_goal.toFixed(4)}`
            : "distance to goal: shift-click a goal");
  } catch (e) { status(e.message); }
  hoverBusy = false;
  if (hoverNext) { const c = hoverNext; hoverNext = null; hoverAt(c); }
}

// ---- scenario ------------------------------------------------------------------------

async function runScenario() {
  try {
    const r = await api("/api/scenario");
    const count = (v) => r.queries.filter((q) => q.verdict === v).length;
    $("scenario-summary").textContent = `${r.queries.length} queries` +
      (r.judged ? `: ${count("failed")} failed, ${count("suboptimal")} suboptimal (fast)` : " (not judged: the file is for 1x1 agents at unit costs)") +
      (r.dynamic ? `; ${r.patches_left} patches left` : "");
    const fmt = (v) => (v === null ? "none" : v.toFixed(3));
    const rows = r.queries.map((q, i) =>
      `<tr class="${q.verdict || ""}" data-i="${i}"><td>${q.line}</td><td>${q.start}</td><td>${q.goal}</td>` +
      `<td>${fmt(q.optimal)}</td><td>${fmt(q.exact)}</td><td>${fmt(q.fast)}</td></tr>`);
    $("scenario-list").innerHTML = "<table><tr><th>line</th><th>start</th><th>goal</th><th>file</th>" +
      "<th>exact</th><th>fast</th></tr>" + rows.join("") + "</table>";
    for (const tr of $("scenario-list").querySelectorAll("tr[data-i]")) {
      tr.addEventListener("click", () => {
        const q = r.queries[Number(tr.dataset.i)];
        st.start = q.start; st.goal = q.goal;
        findPath();
      });
    }
    $("scenario-step").disabled = r.patches_left === 0;
  } catch (e) { status(e.message); }
}

async function stepScenario() {
  st.busy = st.busy.then(async () => {
    try {
      const a = await post("/api/scenario/step");
      await afterEdit(a);
      await runScenario();
    } catch (e) { status(e.message); }
  });
}

// ---- search traces -------------------------------------------------------------------

function traceQuery() {
  return `from=${st.start}&to=${st.goal}&mode=${$("layer-mode").value}`;
}

async function loadTrace() {
  if (!st.start || !st.goal) { status("click a start and a goal first"); return; }
  stopTrace();
  try {
    st.trace = await api(`/api/trace?${traceQuery()}`);
  } catch (e) { st.trace = null; status(e.message); return; }
  const n = st.trace.events.length;
  st.traceAt = 0;
  $("trace-at").max = n;
  for (const id of ["trace-step", "trace-play", "trace-posthoc", "trace-at"]) $(id).disabled = n === 0;
  showTrace();
}

function showTrace() {
  const t = st.trace;
  if (!t) return;
  const events = t.events.slice(0, st.traceAt);
  const expanded = events.filter((e) => e[0] === 2).length;
  const last = events[events.length - 1];
  $("trace-at").value = st.traceAt;
  $("trace-summary").textContent = `${t.mode}: ${expanded} of ${t.expansions} expansions, ` +
    `event ${st.traceAt} of ${t.events.length}` +
    (last ? ` (${["generated", "improved", "expanded"][last[0]]} ${last[1]},${last[2]} g ${last[5].toFixed(2)} f ${last[6].toFixed(2)})` : "");
  draw();
}

// Generated nodes in green, expanded ones in orange, the latest event ringed, and each
// node's link to its parent.
function drawTrace(px) {
  const k = st.info.size / 2;
  const events = st.trace.events;
  ctx.lineWidth = px;
  ctx.strokeStyle = "rgba(0,120,60,0.5)";
  ctx.beginPath();
  for (let i = 0; i < st.traceAt; i++) {
    const e = events[i];
    if (e[0] !== 2 && e[3] >= 0) { ctx.moveTo(e[3] + k, e[4] + k); ctx.lineTo(e[1] + k, e[2] + k); }
  }
  ctx.stroke();
  for (let i = 0; i < st.traceAt; i++) {
    const e = events[i];
    ctx.fillStyle = e[0] === 2 ? "rgba(240,120,0,0.9)" : "rgba(0,150,70,0.8)";
    const r = Math.max(0.35, 2 * px);
    ctx.fillRect(e[1] + k - r, e[2] + k - r, 2 * r, 2 * r);
  }
  const last = events[st.traceAt - 1];
  if (last) {
    ctx.strokeStyle = "#000";
    ctx.lineWidth = 2 * px;
    ctx.strokeRect(last[1] + k - 1, last[2] + k - 1, 2, 2);
  }
}

// One step: up to and including the next expansion.
function stepTrace() {
  const events = st.trace.events;
  while (st.traceAt < events.length) {
    st.traceAt++;
    if (events[st.traceAt - 1][0] === 2) break;
  }
  showTrace();
  return st.traceAt < events.length;
}

function stopTrace() {
  if (st.tracePlay) clearInterval(st.tracePlay);
  st.tracePlay = null;
  $("trace-play").textContent = "Play";
}

function playTrace() {
  if (st.tracePlay) { stopTrace(); return; }
  if (st.traceAt >= st.trace.events.length) st.traceAt = 0;
  $("trace-play").textContent = "Pause";
  st.tracePlay = setInterval(() => { if (!stepTrace()) stopTrace(); }, 60);
}

function downloadPosthoc() {
  const a = document.createElement("a");
  a.href = `/api/trace/posthoc?${traceQuery()}`;
  a.download = (st.info.name || "map") + ".trace.json";
  a.click();
}

// Rebuilds the server's layers for the class in the form, then reloads the page's view of them.
async function switchClass() {
  const body = { size: Number($("class-size").value), passable: $("class-passable").value };
  if ($("class-costs").value) body.costs = $("class-costs").value;
  try {
    await post("/api/class", body);
    location.reload();
  } catch (e) { status(e.message); }
}

function exportPng() {
  canvas.toBlob((blob) => {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = (st.info.name || "map") + ".png";
    a.click();
  });
}

// ---- start ---------------------------------------------------------------------------

async function start() {
  st.info = await api("/api/info");
  st.w = st.info.width; st.h = st.info.height; st.revision = st.info.revision;
  $("map-name").textContent = st.info.name;
  $("map-size").textContent = `${st.w}x${st.h}, class ${st.info.class}; exact: ${st.info.exact.leaves} leaves, ` +
    `${st.info.exact.gates} gates; fast: ${st.info.fast.gates} gates, ${st.info.fast.clusters} clusters`;
  const mode = new URLSearchParams(location.search).get("mode");
  if (mode === "fast" || mode === "exact") $("layer-mode").value = mode;
  $("undo").disabled = st.info.undo_depth === 0;
  await loadTerrain();
  resize();
  fit();
  for (const name of ["leaves", "gates", "clusters", "units", "components", "clearance", "mode"]) {
    $("layer-" + name).addEventListener("change", async () => { await refreshLayers(); draw(); });
  }
  for (const name of ["costs", "flow", "fastpath"]) $("layer-" + name).addEventListener("change", draw);
  $("undo").addEventListener("click", undo);
  $("units-spawn").addEventListener("click", spawnUnits);
  if (st.info.units > 0) { $("layer-units").checked = true; await refreshLayers(); draw(); }
  if (st.info.scenario) {
    $("scenario").hidden = false;
    $("scenario-step").hidden = !st.info.scenario.dynamic;
    $("scenario-run").addEventListener("click", runScenario);
    $("scenario-step").addEventListener("click", stepScenario);
  }
  $("class-size").value = st.info.size;
  $("class-switch").addEventListener("click", switchClass);
  $("trace-load").addEventListener("click", loadTrace);
  $("trace-step").addEventListener("click", () => { stopTrace(); stepTrace(); });
  $("trace-play").addEventListener("click", playTrace);
  $("trace-posthoc").addEventListener("click", downloadPosthoc);
  $("trace-at").addEventListener("input", () => { stopTrace(); st.traceAt = Number($("trace-at").value); showTrace(); });
  $("fit").addEventListener("click", fit);
  $("export").addEventListener("click", exportPng);
  window.addEventListener("keydown", (ev) => {
    if ((ev.ctrlKey || ev.metaKey) && ev.key === "z") { ev.preventDefault(); undo(); }
  });
  window.addEventListener("resize", resize);
  document.body.dataset.ready = "1";
}

// For scripts and the browser test: where a cell's centre is on the page, and the state.
window.viewer = {
  cellToClient(x, y) {
    const r = canvas.getBoundingClientRect();
    return [r.left + st.ox + (x + 0.5) * st.scale, r.top + st.oy + (y + 0.5) * st.scale];
  },
  setView(scale, ox, oy) { st.scale = scale; st.ox = ox; st.oy = oy; drawNow(); },
  idle() { return st.busy.then(() => new Promise((r) => requestAnimationFrame(() => { drawNow(); r(true); }))); },
  state: st,
  // How many times the vector overlay has been drawn (the frame-time test reports it).
  overlayDraws() { return overlayDraws; },
  // Draws the view with its overlay drawn afresh, as after the view rests; returns the ms.
  timeRestingFrame() {
    const t = performance.now();
    overlay.scale = 0;
    drawNow();
    ctx.getImageData(0, 0, 1, 1);
    return performance.now() - t;
  },
};

start().catch((e) => status("cannot load the map: " + e.message));
