//! The viewer's HTTP API: one function from a parsed request to a response, with no
//! networking in it (the server in [`super::server`] feeds it). Every bad request gets a 4xx
//! status and `{"error": "..."}` naming what was wrong; nothing here panics on input.
//!
//! Endpoints (cells are `x,y`; the binary layers are one value per cell, row by row):
//! - `GET /api/info`: the map's size, name, class, terrain costs per code, counts.
//! - `GET /api/terrain`: bytes, the terrain code per cell (1 under a building).
//! - `GET /api/leaves?mode=exact|fast`: `{"leaves": [x, y, w, h, ...]}`, the free leaves.
//! - `GET /api/gates?mode=exact|fast`: `{"crossings": [x1, y1, x2, y2, ...]}`.
//! - `GET /api/components`: little-endian `u32` per cell, 0 closed, else a label.
//! - `GET /api/clearance`: bytes, the class's clearance per cell (0 closed).
//! - `GET /api/path?from=x,y&to=x,y`: both layers' paths with length, cost, time, work.
//! - `GET /api/trace?from=x,y&to=x,y&mode=exact|fast`: the layer's search, event by event.
//! - `GET /api/trace/posthoc?from=x,y&to=x,y&mode=exact|fast`: the same as a Posthoc
//!   search trace (JSON, which YAML readers also read).
//! - `GET /api/flow?goal=x,y`: `f32` distance per cell (NaN unreachable) then a byte per
//!   cell, the next step's direction (0 east, clockwise; 255 none).
//! - `GET /api/hover?cell=x,y`: a cell's terrain, leaf, component and distance to goal.
//! - `POST /api/edit` `{"x":..,"y":..,"size":..,"paint":"wall"|"ground"|"building"|"clear"|
//!   "terrain","code":"W"}`: a square brush stroke with its top-left cell at x,y.
//! - `POST /api/undo`: takes the last stroke back.
//! - `POST /api/class` `{"size":2,"passable":".GS","costs":"W=3"}`: rebuilds both layers
//!   for another movement class (costs optional).
//! - `GET /api/clusters`: the fast layer's clusters, each with its area and entrances.
//! - `GET /api/units`: the units' boxes and the unit index's occupied cells.
//! - `POST /api/units` `{"count":N,"seed":S}`: spawns a seeded random army (0 removes it).
//! - `GET /api/scenario`: the open scenario's current queries, run and judged.
//! - `POST /api/scenario/step`: lays a version 2 scenario's next group of patches.

use super::posthoc;
use super::scenario::judge;
use super::state::{Answer, Paint, State, Which, MAX_BRUSH, WALL};
use quadpath::{Cell, Movement, Rect, Terrain, TerrainCosts, TerrainSet, TraceKind};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::Mutex;

/// The largest request body accepted, in bytes: an edit is a few dozen.
pub const MAX_BODY: usize = 4096;

/// A request as the server read it.
pub struct Request<'a> {
    /// `GET` or `POST` (others are refused).
    pub method: &'a str,
    /// The path and query string.
    pub url: &'a str,
    /// The body (at most [`MAX_BODY`] bytes; the server refuses longer ones).
    pub body: &'a [u8],
}

/// A response to send.
#[derive(Debug)]
pub struct Response {
    /// HTTP status.
    pub status: u16,
    /// `Content-Type`.
    pub content_type: &'static str,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    fn json(value: &impl Serialize) -> Self {
        Response {
            status: 200,
            content_type: "application/json",
            body: serde_json::to_vec(value).unwrap_or_default(),
        }
    }

    fn bytes(body: Vec<u8>) -> Self {
        Response {
            status: 200,
            content_type: "application/octet-stream",
            body,
        }
    }

    /// An error response: `status` with `{"error": message}`.
    pub fn error(status: u16, message: impl Into<String>) -> Self {
        Response {
            status,
            content_type: "application/json",
            body: serde_json::to_vec(&json!({ "error": message.into() })).unwrap_or_default(),
        }
    }
}

/// The page's static files, embedded in the binary.
const PAGE: [(&str, &str, &str); 3] = [
    (
        "/",
        "text/html; charset=utf-8",
        include_str!("page/index.html"),
    ),
    (
        "/viewer.js",
        "text/javascript; charset=utf-8",
        include_str!("page/viewer.js"),
    ),
    (
        "/viewer.css",
        "text/css; charset=utf-8",
        include_str!("page/viewer.css"),
    ),
];

/// A request's failure: its status and message.
type Refusal = (u16, String);

fn bad(message: impl Into<String>) -> Refusal {
    (400, message.into())
}

/// Answers one request. The state is locked for the request's whole work, so edits and
/// queries are serialised.
pub fn handle(state: &Mutex<State>, name: &str, req: &Request<'_>) -> Response {
    let (path, query) = req.url.split_once('?').unwrap_or((req.url, ""));
    if let Some((_, content_type, text)) = PAGE.iter().find(|(p, _, _)| *p == path) {
        if req.method != "GET" {
            return Response::error(405, format!("{path} is read with GET"));
        }
        return Response {
            status: 200,
            content_type,
            body: text.as_bytes().to_vec(),
        };
    }
    let Some(endpoint) = path.strip_prefix("/api/") else {
        return Response::error(404, format!("no page {path:?}"));
    };
    let wanted = if matches!(endpoint, "edit" | "undo" | "scenario/step" | "class")
        || (endpoint == "units" && req.method == "POST")
    {
        "POST"
    } else {
        "GET"
    };
    if req.method != wanted {
        return Response::error(405, format!("/api/{endpoint} takes {wanted}"));
    }
    // A panic in the library while the lock is held poisons it; the state may then be
    // half-edited, but reading it stays memory-safe, and serving on beats refusing forever.
    let mut state = state.lock().unwrap_or_else(|p| p.into_inner());
    let params = Params(query);
    let answer = match endpoint {
        "info" => Ok(info(&state, name)),
        "terrain" => Ok(Response::bytes(state.terrain_bytes())),
        "leaves" => params.which().map(|w| leaves(&state, w)),
        "gates" => params.which().map(|w| gates(&state, w)),
        "components" => Ok(Response::bytes(
            state
                .components()
                .iter()
                .flat_map(|l| l.to_le_bytes())
                .collect(),
        )),
        "clearance" => Ok(Response::bytes(state.clearance_bytes())),
        "path" => path_query(&state, &params),
        "trace" => trace(&state, &params),
        "trace/posthoc" => trace_posthoc(&state, &params),
        "flow" => flow(&mut state, &params),
        "hover" => hover(&mut state, &params),
        "edit" => edit(&mut state, req.body),
        "class" => switch_class(&mut state, req.body),
        "clusters" => Ok(clusters(&state)),
        "units" if req.method == "POST" => spawn_units(&mut state, req.body),
        "units" => Ok(units(&state)),
        "scenario" => scenario(&state),
        "scenario/step" => match state.step_scenario() {
            Ok(Some(laid)) => Ok(Response::json(&json!({
                "laid": laid,
                "revision": state.revision(),
                "undo_depth": state.undo_depth(),
            }))),
            Ok(None) => Err(no_scenario()),
            Err(e) => Err((500, e)),
        },
        "undo" => {
            let undone = state.undo();
            Ok(Response::json(&json!({
                "undone": undone,
                "revision": state.revision(),
                "undo_depth": state.undo_depth(),
            })))
        }
        _ => Err((404, format!("no endpoint /api/{endpoint}"))),
    };
    answer.unwrap_or_else(|(status, message)| Response::error(status, message))
}

/// A query string's parameters.
struct Params<'a>(&'a str);

impl Params<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0
            .split('&')
            .filter_map(|kv| kv.split_once('='))
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v)
    }

    /// `mode`: `exact` (the default) or `fast`.
    fn which(&self) -> Result<Which, Refusal> {
        match self.get("mode") {
            None => Ok(Which::Exact),
            Some(m) => {
                Which::parse(m).ok_or_else(|| bad(format!("mode {m:?}: write exact or fast")))
            }
        }
    }

    /// A cell parameter, which must be on the map.
    fn cell(&self, key: &str, state: &State) -> Result<Cell, Refusal> {
        let text = self
            .get(key)
            .ok_or_else(|| bad(format!("missing {key}=x,y")))?;
        let text = text.replace("%2C", ",").replace("%2c", ",");
        let cell = crate::load::parse_cell(key, &text).map_err(|e| bad(e.message))?;
        check_on_map(state, key, cell)?;
        Ok(cell)
    }
}

fn check_on_map(state: &State, what: &str, cell: Cell) -> Result<(), Refusal> {
    let (w, h) = state.size();
    if state.contains(cell) {
        Ok(())
    } else {
        Err(bad(format!("{what} {cell} is outside the {w}x{h} map")))
    }
}

fn info(state: &State, name: &str) -> Response {
    let (width, height) = state.size();
    let movement = state.movement();
    let costs: Vec<Option<f32>> = (0..=255u8)
        .map(|code| {
            movement
                .passable()
                .contains(code)
                .then(|| movement.terrain_costs().get(code))
        })
        .collect();
    let exact = state.layer(Which::Exact);
    let fast = state.layer(Which::Fast);
    Response::json(&json!({
        "name": name,
        "width": width,
        "height": height,
        "class": movement.to_string(),
        "size": movement.size(),
        "costs": costs,
        "revision": state.revision(),
        "undo_depth": state.undo_depth(),
        "scenario": state.scenario().map(|s| json!({ "dynamic": s.is_dynamic() })),
        "units": state.army().map_or(0, |a| a.index.len()),
        "exact": { "leaves": exact.free_leaf_count(), "gates": exact.gate_count(),
                   "components": exact.component_count() },
        "fast": { "leaves": fast.free_leaf_count(), "gates": fast.gate_count(),
                  "clusters": fast.cluster_count(), "entrances": fast.entrance_count() },
    }))
}

fn leaves(state: &State, which: Which) -> Response {
    let layer = state.layer(which);
    let mut flat = Vec::new();
    for leaf in layer.tree().leaves().filter(|l| layer.is_free_leaf(l)) {
        let r = leaf.rect();
        flat.extend([r.x1, r.y1, r.width(), r.height()]);
    }
    Response::json(&json!({ "mode": which.name(), "leaves": flat }))
}

fn gates(state: &State, which: Which) -> Response {
    let flat: Vec<u32> = state
        .layer(which)
        .crossings()
        .into_iter()
        .flat_map(|(a, b)| [a.x, a.y, b.x, b.y])
        .collect();
    Response::json(&json!({ "mode": which.name(), "crossings": flat }))
}

#[derive(Serialize)]
struct PathJson {
    mode: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    length: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cost: Option<f64>,
    cells: Vec<[u32; 2]>,
    query_us: f64,
    expansions: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

fn path_json(which: Which, answer: &Answer) -> PathJson {
    let found = answer.path.as_ref().ok();
    PathJson {
        mode: which.name(),
        length: found.map(|p| p.length),
        cost: found.map(|p| p.cost),
        cells: found.map_or_else(Vec::new, |p| crate::output::cells_json(&p.cells)),
        query_us: crate::output::round(answer.query_us, 2),
        expansions: answer.expansions,
        error: answer.path.as_ref().err().cloned(),
    }
}

/// A query's ends, `from` and `to`: on the map and open for the class.
fn query_ends(state: &State, params: &Params<'_>) -> Result<(Cell, Cell), Refusal> {
    let from = params.cell("from", state)?;
    let to = params.cell("to", state)?;
    let open = state.layer(Which::Exact).grid();
    for (what, cell) in [("from", from), ("to", to)] {
        if !open.is_free(cell) {
            return Err(bad(format!(
                "{what} {cell} is not open for a {} agent",
                state.movement()
            )));
        }
    }
    Ok((from, to))
}

fn path_query(state: &State, params: &Params<'_>) -> Result<Response, Refusal> {
    let (from, to) = query_ends(state, params)?;
    let answers = state.find_paths(from, to);
    let [exact, fast] = [0, 1].map(|i| path_json(Which::BOTH[i], &answers[i]));
    Ok(Response::json(&json!({
        "from": [from.x, from.y],
        "to": [to.x, to.y],
        "revision": state.revision(),
        "exact": exact,
        "fast": fast,
    })))
}

/// The layer's search from `from` to `to`, event by event: `[kind, x, y, parent x,
/// parent y, g, f]` with kind 0 generated, 1 improved, 2 expanded, and -1 for no parent.
fn trace(state: &State, params: &Params<'_>) -> Result<Response, Refusal> {
    let (from, to) = query_ends(state, params)?;
    let which = params.which()?;
    let (path, trace) = state.trace(which, from, to);
    let events: Vec<Value> = trace
        .events
        .iter()
        .map(|e| {
            let kind = match e.kind {
                TraceKind::Generated => 0,
                TraceKind::Updated => 1,
                _ => 2,
            };
            let (px, py) = e.parent.map_or((-1, -1), |p| (p.x as i64, p.y as i64));
            json!([kind, e.cell.x, e.cell.y, px, py, e.g, e.f])
        })
        .collect();
    Ok(Response::json(&json!({
        "mode": which.name(),
        "from": [from.x, from.y],
        "to": [to.x, to.y],
        "length": path.as_ref().ok().map(|p| p.length),
        "error": path.as_ref().err(),
        "expansions": trace.expansions,
        "events": events,
    })))
}

/// The same search as a Posthoc search trace (see [`super::posthoc`]).
fn trace_posthoc(state: &State, params: &Params<'_>) -> Result<Response, Refusal> {
    let (from, to) = query_ends(state, params)?;
    let (path, trace) = state.trace(params.which()?, from, to);
    let cost = path.ok().map(|p| p.cost);
    Ok(Response::json(&posthoc::search_trace(
        state.size(),
        (from, to),
        &trace,
        cost,
    )))
}

/// The fast layer's clusters: `area` `[x, y, w, h]`, `entrances` `[x, y, ...]` and
/// whether its routes are `fresh` (an edited cluster waits for a refresh and is crossed
/// over its gates meanwhile).
fn clusters(state: &State) -> Response {
    let clusters: Vec<Value> = state
        .layer(Which::Fast)
        .cluster_outlines()
        .iter()
        .map(|c| {
            let a = c.area;
            let entrances: Vec<u32> = c.entrances.iter().flat_map(|e| [e.x, e.y]).collect();
            json!({
                "area": [a.x1, a.y1, a.width(), a.height()],
                "entrances": entrances,
                "fresh": c.fresh,
            })
        })
        .collect();
    Response::json(&json!({ "clusters": clusters }))
}

/// The units (`[min x, min y, max x, max y, ...]` in cells) and the unit index's
/// occupied cells (`[min x, min y, max x, max y, units, ...]`).
fn units(state: &State) -> Response {
    let Some(army) = state.army() else {
        return Response::json(&json!({ "count": 0, "units": [], "cells": [] }));
    };
    let units: Vec<f32> = army
        .index
        .iter()
        .flat_map(|(_, b)| [b.min_x, b.min_y, b.max_x, b.max_y])
        .collect();
    let cells: Vec<f32> = army
        .index
        .occupied_cells()
        .iter()
        .flat_map(|c| {
            let a = c.area;
            [a.min_x, a.min_y, a.max_x, a.max_y, c.units as f32]
        })
        .collect();
    Response::json(&json!({
        "count": army.index.len(),
        "seed": army.seed,
        "units": units,
        "cells": cells,
    }))
}

/// The body of `POST /api/units`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UnitsRequest {
    count: usize,
    #[serde(default)]
    seed: u64,
}

fn spawn_units(state: &mut State, body: &[u8]) -> Result<Response, Refusal> {
    let req: UnitsRequest =
        serde_json::from_slice(body).map_err(|e| bad(format!("units request: {e}")))?;
    state.spawn_units(req.count, req.seed).map_err(bad)?;
    Ok(units(state))
}

/// The body of `POST /api/class`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClassRequest {
    size: u32,
    passable: String,
    #[serde(default)]
    costs: Option<String>,
}

/// Rebuilds both layers for the class the body describes.
fn switch_class(state: &mut State, body: &[u8]) -> Result<Response, Refusal> {
    let req: ClassRequest =
        serde_json::from_slice(body).map_err(|e| bad(format!("class request: {e}")))?;
    let passable = TerrainSet::from_codes(req.passable.as_bytes());
    let mut movement = Movement::default()
        .with_size(req.size)
        .map_err(|e| bad(format!("size {}: {e}", req.size)))?
        .with_passable(passable);
    if let Some(text) = req.costs.as_deref().filter(|t| !t.is_empty()) {
        let costs = TerrainCosts::parse_for(text, &passable)
            .map_err(|e| bad(format!("costs {text:?}: {e}")))?;
        movement = movement
            .with_terrain_costs(costs)
            .map_err(|e| bad(format!("costs {text:?}: {e}")))?;
    }
    state.switch_class(movement).map_err(bad)?;
    Ok(Response::json(&json!({
        "class": state.movement().to_string(),
        "size": state.movement().size(),
        "revision": state.revision(),
    })))
}

fn flow(state: &mut State, params: &Params<'_>) -> Result<Response, Refusal> {
    if params.get("goal").is_some() {
        let goal = params.cell("goal", state)?;
        state.set_flow(goal).map_err(bad)?;
    }
    let (_, distance, step) = state
        .flow_grid()
        .ok_or_else(|| bad("no flow field yet: give goal=x,y"))?;
    let mut body: Vec<u8> = distance.iter().flat_map(|d| d.to_le_bytes()).collect();
    body.extend(step);
    Ok(Response::bytes(body))
}

fn hover(state: &mut State, params: &Params<'_>) -> Result<Response, Refusal> {
    let cell = params.cell("cell", state)?;
    let grid = state.world().grid();
    let terrain = grid.terrain(cell);
    let building = grid.is_obstructed(cell);
    let open = state.layer(Which::Exact).grid().is_free(cell);
    let leaf = |w| {
        state
            .leaf_of(w, cell)
            .map(|r| [r.x1, r.y1, r.width(), r.height()])
    };
    let (exact_leaf, fast_leaf) = (leaf(Which::Exact), leaf(Which::Fast));
    let goal = state.flow_goal();
    let distance = state.flow_distance(cell);
    let width = state.size().0 as usize;
    let component = state.components()[cell.y as usize * width + cell.x as usize];
    Ok(Response::json(&json!({
        "cell": [cell.x, cell.y],
        "terrain": char::from(terrain).to_string(),
        "building": building,
        "open": open,
        "leaf": exact_leaf,
        "fast_leaf": fast_leaf,
        "component": (component > 0).then_some(component),
        "goal": goal.map(|g| [g.x, g.y]),
        "distance_to_goal": distance,
    })))
}

/// The body of `POST /api/edit`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EditBody {
    x: u32,
    y: u32,
    #[serde(default = "one")]
    size: u32,
    paint: String,
    #[serde(default)]
    code: Option<String>,
}

fn one() -> u32 {
    1
}

fn edit(state: &mut State, body: &[u8]) -> Result<Response, Refusal> {
    let e: EditBody =
        serde_json::from_slice(body).map_err(|err| bad(format!("malformed edit: {err}")))?;
    if e.size == 0 || e.size > MAX_BRUSH {
        return Err(bad(format!(
            "brush size {} is not between 1 and {MAX_BRUSH}",
            e.size
        )));
    }
    let paint = match (e.paint.as_str(), e.code.as_deref()) {
        ("wall", None) => Paint::Terrain(WALL),
        ("ground", None) => Paint::Terrain(Terrain::GROUND.code()),
        ("building", None) => Paint::Building,
        ("clear", None) => Paint::Clear,
        ("terrain", Some(code)) => match code.as_bytes() {
            [c] if c.is_ascii_graphic() => Paint::Terrain(*c),
            _ => {
                return Err(bad(format!(
                    "terrain code {code:?} is not one printable character"
                )))
            }
        },
        ("terrain", None) => return Err(bad("paint terrain needs a code, e.g. \"code\":\"W\"")),
        (p, Some(_)) if p != "terrain" => return Err(bad(format!("paint {p:?} takes no code"))),
        (p, _) => {
            return Err(bad(format!(
                "paint {p:?}: write wall, ground, terrain, building or clear"
            )))
        }
    };
    let top_left = Cell::new(e.x, e.y);
    check_on_map(state, "brush", top_left)?;
    // The brush is clipped to the map, so that painting along an edge works.
    let (w, h) = state.size();
    let x2 = e.x.saturating_add(e.size - 1).min(w - 1);
    let y2 = e.y.saturating_add(e.size - 1).min(h - 1);
    let changed = state
        .paint(Rect::new(e.x, e.y, x2, y2), paint)
        .map_err(bad)?;
    Ok(Response::json(&json!({
        "changed": changed,
        "revision": state.revision(),
        "undo_depth": state.undo_depth(),
    })))
}

fn no_scenario() -> Refusal {
    bad("no scenario file is open: start the viewer with a .scen file")
}

/// The queries on the map as it stands, each run in both layers and judged against the
/// file's lengths when the class is the one the file was made for (1x1 on .GS, unit costs).
fn scenario(state: &State) -> Result<Response, Refusal> {
    let scen = state.scenario().ok_or_else(no_scenario)?;
    let movement = state.movement();
    let judged = *movement == quadpath::Movement::default() && movement.has_unit_costs();
    let open = state.layer(Which::Exact).grid();
    let queries: Vec<Value> = scen
        .current_queries()
        .iter()
        .map(|q| {
            let ends_open = open.is_free(q.start) && open.is_free(q.goal);
            let [exact, fast] = if ends_open {
                state
                    .find_paths(q.start, q.goal)
                    .map(|a| a.path.ok().map(|p| p.length))
            } else {
                [None, None]
            };
            json!({
                "line": q.line,
                "start": [q.start.x, q.start.y],
                "goal": [q.goal.x, q.goal.y],
                "optimal": q.optimal,
                "exact": exact,
                "fast": fast,
                "verdict": judged.then(|| judge(q, exact, fast)),
            })
        })
        .collect();
    Ok(Response::json(&json!({
        "dynamic": scen.is_dynamic(),
        "judged": judged,
        "patches_left": scen.patches_left(),
        "revision": state.revision(),
        "queries": queries,
    })))
}
