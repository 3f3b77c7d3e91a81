//! `quadpath view`'s server over real HTTP: every endpoint with good and bad input, against
//! the library's own answers (paths and leaves of an `HpaMap` built here, plain A* from
//! `quadpath::baseline`, a fresh build after edits), and concurrent edits and queries.

mod viewer;

use quadpath::io::{load_grid, BitmapOptions};
use quadpath::{baseline, Cell, Grid, HpaMap, Mode, Rect};
use serde_json::Value;
use std::collections::BTreeSet;
use viewer::{map, Viewer};

fn arena() -> Grid {
    load_grid(map("arena.map"), &BitmapOptions::default()).unwrap()
}

fn length(v: &Value, mode: &str) -> f64 {
    v[mode]["length"]
        .as_f64()
        .unwrap_or_else(|| panic!("{mode} has no length: {v}"))
}

fn cells(v: &Value, mode: &str) -> Vec<Cell> {
    v[mode]["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Cell::new(c[0].as_u64().unwrap() as u32, c[1].as_u64().unwrap() as u32))
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

#[test]
fn info_terrain_leaves_and_gates_are_the_librarys() {
    let v = Viewer::start("arena.map", &[]);
    let grid = arena();
    let info = v.get_json("/api/info");
    assert_eq!(info["width"], grid.width());
    assert_eq!(info["height"], grid.height());
    assert_eq!(info["name"], "arena.map");
    let terrain = v.get_bytes("/api/terrain");
    let want: Vec<u8> = grid
        .bounds()
        .cells()
        .map(|c| grid.terrain(c).code())
        .collect();
    assert_eq!(terrain, want);
    for mode in [Mode::Exact, Mode::Fast] {
        let name = if mode == Mode::Exact { "exact" } else { "fast" };
        let hpa = HpaMap::new(grid.clone(), mode).unwrap();
        let got: BTreeSet<Vec<u64>> = v.get_json(&format!("/api/leaves?mode={name}"))["leaves"]
            .as_array()
            .unwrap()
            .chunks(4)
            .map(|c| c.iter().map(|n| n.as_u64().unwrap()).collect())
            .collect();
        let want: BTreeSet<Vec<u64>> = hpa
            .tree()
            .leaves()
            .filter(|l| hpa.is_free_leaf(l))
            .map(|l| {
                let r = l.rect();
                vec![r.x1, r.y1, r.width(), r.height()]
                    .into_iter()
                    .map(u64::from)
                    .collect()
            })
            .collect();
        assert_eq!(got, want, "{name} leaves");
        let crossings = v.get_json(&format!("/api/gates?mode={name}"))["crossings"]
            .as_array()
            .unwrap()
            .len();
        assert_eq!(crossings, 4 * hpa.crossings().len(), "{name} crossings");
    }
}

#[test]
fn paths_equal_the_librarys_and_plain_astar() {
    let v = Viewer::start("arena.map", &[]);
    let grid = arena();
    let exact = HpaMap::new(grid.clone(), Mode::Exact).unwrap();
    let fast = HpaMap::new(grid.clone(), Mode::Fast).unwrap();
    for (s, g) in [((3, 3), (45, 40)), ((10, 2), (40, 44)), ((1, 24), (47, 24))] {
        let (s, g) = (Cell::new(s.0, s.1), Cell::new(g.0, g.1));
        let got = v.get_json(&format!(
            "/api/path?from={},{}&to={},{}",
            s.x, s.y, g.x, g.y
        ));
        let optimal = baseline::astar(&grid, s, g).unwrap().length;
        assert!(close(length(&got, "exact"), optimal), "{got}");
        assert!(close(
            length(&got, "exact"),
            exact.find_path(s, g).unwrap().length
        ));
        assert!(close(
            length(&got, "fast"),
            fast.find_path(s, g).unwrap().length
        ));
        assert!(length(&got, "fast") >= optimal - 1e-9);
        let path = cells(&got, "exact");
        assert_eq!((path[0], *path.last().unwrap()), (s, g));
        let shown = quadpath::Path::from_cells(path);
        shown
            .validate(&grid, &quadpath::TerrainCosts::unit(), s, g)
            .unwrap();
        assert!(got["exact"]["expansions"].as_u64().is_some());
        assert!(got["exact"]["query_us"].as_f64().unwrap() >= 0.0);
    }
}

#[test]
fn a_larger_class_and_a_version_2_scenario_and_a_legend_bitmap_load() {
    let v = Viewer::start("arena.map", &["--size", "2", "--mode", "fast"]);
    assert!(v.url.ends_with("?mode=fast"), "{}", v.url);
    assert_eq!(v.get_json("/api/info")["size"], 2);
    let clearance = v.get_bytes("/api/clearance");
    let grid = arena();
    let open = quadpath::Movement::default()
        .with_size(2)
        .unwrap()
        .open_grid(&grid);
    for c in grid.bounds().cells() {
        let i = (c.y * grid.width() + c.x) as usize;
        assert_eq!(clearance[i] > 0, open.is_free(c), "clearance at {c}");
    }
    drop(v);
    let v = Viewer::start("dao_arena2.scen", &[]);
    let info = v.get_json("/api/info");
    assert_eq!(
        (info["width"].as_u64(), info["height"].as_u64()),
        (Some(281), Some(209))
    );
    drop(v);
    let v = Viewer::start("rts_valley.png", &["--legend", "rts"]);
    let terrain = v.get_bytes("/api/terrain");
    assert!(terrain.contains(&b'W') && terrain.contains(&b'@'));
}

#[test]
fn components_and_flow_fields_agree_with_astar() {
    let v = Viewer::start("arena.map", &[]);
    let grid = arena();
    let labels: Vec<u32> = v
        .get_bytes("/api/components")
        .chunks(4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    let goal = Cell::new(45, 40);
    let w = grid.width() as usize;
    let at = |c: Cell| c.y as usize * w + c.x as usize;
    let body = v.get_bytes(&format!("/api/flow?goal={},{}", goal.x, goal.y));
    let n = w * grid.height() as usize;
    assert_eq!(body.len(), 5 * n);
    let distance = |c: Cell| f32::from_le_bytes(body[4 * at(c)..4 * at(c) + 4].try_into().unwrap());
    for c in grid.bounds().cells().step_by(7) {
        let reference = grid
            .is_free(c)
            .then(|| baseline::astar(&grid, c, goal))
            .flatten();
        match reference {
            Some(p) => {
                assert!(
                    (f64::from(distance(c)) - p.length).abs() < 1e-3,
                    "flow at {c}"
                );
                assert_eq!(labels[at(c)], labels[at(goal)], "component at {c}");
            }
            None => {
                assert!(distance(c).is_nan(), "flow at {c}");
                assert_ne!(labels[at(c)], labels[at(goal)], "component at {c}");
            }
        }
    }
    let hover = v.get_json("/api/hover?cell=3,3");
    let want = baseline::astar(&grid, Cell::new(3, 3), goal)
        .unwrap()
        .length;
    assert!((hover["distance_to_goal"].as_f64().unwrap() - want).abs() < 1e-6);
    let hpa = HpaMap::new(grid.clone(), Mode::Exact).unwrap();
    let leaf = hpa.tree().find(Cell::new(3, 3)).unwrap().rect();
    assert_eq!(
        hover["leaf"],
        serde_json::json!([leaf.x1, leaf.y1, leaf.width(), leaf.height()])
    );
    assert_eq!(hover["terrain"], ".");
}

#[test]
fn edits_change_paths_as_a_fresh_build_would_and_undo_restores_them() {
    let v = Viewer::start("arena.map", &[]);
    let mut grid = arena();
    let (s, g) = (Cell::new(3, 3), Cell::new(45, 40));
    let query = "/api/path?from=3,3&to=45,40";
    let before = length(&v.get_json(query), "exact");
    let original = v.get_bytes("/api/terrain");
    // A wall across the path's middle, a building, and a strip of water.
    let path = cells(&v.get_json(query), "exact");
    let mid = path[path.len() / 2];
    let strokes = [
        (
            format!(
                r#"{{"x":{},"y":{},"size":5,"paint":"wall"}}"#,
                mid.x - 2,
                mid.y - 2
            ),
            Rect::new(mid.x - 2, mid.y - 2, mid.x + 2, mid.y + 2),
        ),
        (
            r#"{"x":20,"y":5,"size":3,"paint":"building"}"#.to_string(),
            Rect::new(20, 5, 22, 7),
        ),
        (
            r#"{"x":30,"y":30,"size":2,"paint":"terrain","code":"W"}"#.to_string(),
            Rect::new(30, 30, 31, 31),
        ),
    ];
    for (body, rect) in &strokes {
        let answer = v.post_json("/api/edit", body);
        assert!(answer["changed"].as_u64().unwrap() > 0, "{body}");
        if body.contains("building") {
            grid.set_obstructed(*rect, true);
        } else {
            let code = if body.contains("\"W\"") { b'W' } else { b'@' };
            grid.set_terrain(*rect, code);
        }
    }
    let after = v.get_json(query);
    let fresh = HpaMap::new(grid.clone(), Mode::Exact).unwrap();
    assert!(close(
        length(&after, "exact"),
        fresh.find_path(s, g).unwrap().length
    ));
    assert!(close(
        length(&after, "exact"),
        baseline::astar(&grid, s, g).unwrap().length
    ));
    assert!(
        length(&after, "exact") > before,
        "the wall lengthens the path"
    );
    quadpath::Path::from_cells(cells(&after, "exact"))
        .validate(&grid, &quadpath::TerrainCosts::unit(), s, g)
        .unwrap();
    for _ in &strokes {
        assert_eq!(v.post_json("/api/undo", "")["undone"], true);
    }
    assert_eq!(v.post_json("/api/undo", "")["undone"], false);
    assert_eq!(v.get_bytes("/api/terrain"), original);
    assert!(close(length(&v.get_json(query), "exact"), before));
}

#[test]
fn bad_requests_get_4xx_json_errors_and_the_server_keeps_serving() {
    let v = Viewer::start("arena.map", &[]);
    let big = vec![b' '; 10_000];
    let cases: Vec<(&str, &str, &[u8], u16, &str)> = vec![
        ("GET", "/api/path?from=3,3", b"", 400, "missing to"),
        ("GET", "/api/path?from=3,3&to=99,3", b"", 400, "outside"),
        ("GET", "/api/path?from=3,3&to=-1,3", b"", 400, "negative"),
        ("GET", "/api/path?from=0,0&to=3,3", b"", 400, "not open"),
        ("GET", "/api/path?from=x&to=3,3", b"", 400, "from"),
        ("GET", "/api/leaves?mode=slow", b"", 400, "mode"),
        ("GET", "/api/flow", b"", 400, "no flow field"),
        ("GET", "/api/flow?goal=0,0", b"", 400, "goal"),
        ("GET", "/api/hover?cell=49,0", b"", 400, "outside"),
        ("GET", "/api/nothing", b"", 404, "no endpoint"),
        ("GET", "/secret", b"", 404, "no page"),
        ("POST", "/api/path?from=3,3&to=4,4", b"", 405, "GET"),
        ("GET", "/api/edit", b"", 405, "POST"),
        ("POST", "/api/edit", b"{", 400, "malformed"),
        (
            "POST",
            "/api/edit",
            br#"{"x":1,"y":1,"size":0,"paint":"wall"}"#,
            400,
            "brush size",
        ),
        (
            "POST",
            "/api/edit",
            br#"{"x":1,"y":1,"size":999,"paint":"wall"}"#,
            400,
            "brush size",
        ),
        (
            "POST",
            "/api/edit",
            br#"{"x":60,"y":1,"paint":"wall"}"#,
            400,
            "outside",
        ),
        (
            "POST",
            "/api/edit",
            br#"{"x":1,"y":1,"paint":"lava"}"#,
            400,
            "lava",
        ),
        (
            "POST",
            "/api/edit",
            br#"{"x":1,"y":1,"paint":"terrain"}"#,
            400,
            "code",
        ),
        (
            "POST",
            "/api/edit",
            br#"{"x":1,"y":1,"paint":"terrain","code":"WW"}"#,
            400,
            "one printable",
        ),
        (
            "POST",
            "/api/edit",
            br#"{"x":1,"y":1,"paint":"wall","color":1}"#,
            400,
            "unknown field",
        ),
        ("POST", "/api/edit", &big, 413, "limited"),
    ];
    for (method, path, body, status, says) in cases {
        let (got, answer) = v.request(method, path, body);
        let text = String::from_utf8_lossy(&answer);
        assert_eq!(got, status, "{method} {path}: {text}");
        let error: Value = serde_json::from_slice(&answer).expect("a JSON error");
        let message = error["error"].as_str().expect("an error message");
        assert!(
            message.contains(says),
            "{method} {path}: {message:?} lacks {says:?}"
        );
    }
    // Still serving: the page and the unedited state.
    let page = v.get_bytes("/");
    assert!(String::from_utf8_lossy(&page).contains("<canvas"));
    assert_eq!(v.get_json("/api/info")["revision"], 0);
}

#[test]
fn concurrent_edits_and_queries_are_serialised() {
    let v = Viewer::start("arena.map", &[]);
    let grid = arena();
    let (s, g) = (Cell::new(3, 3), Cell::new(45, 40));
    let optimal = baseline::astar(&grid, s, g).unwrap().length;
    let original = v.get_bytes("/api/terrain");
    std::thread::scope(|scope| {
        for t in 0..2u32 {
            let v = &v;
            scope.spawn(move || {
                for i in 0..15u32 {
                    let body = format!(
                        r#"{{"x":{},"y":{},"size":2,"paint":"wall"}}"#,
                        12 + 3 * t,
                        20 + i
                    );
                    v.post_json("/api/edit", &body);
                }
            });
        }
        for _ in 0..2 {
            let v = &v;
            scope.spawn(move || {
                for _ in 0..15 {
                    let got = v.get_json("/api/path?from=3,3&to=45,40");
                    // Whatever edits came first, a path never beats the unedited optimum.
                    assert!(length(&got, "exact") >= optimal - 1e-9, "{got}");
                }
            });
        }
    });
    let info = v.get_json("/api/info");
    assert!(info["revision"].as_u64().unwrap() > 0);
    assert_eq!(
        info["revision"], info["undo_depth"],
        "every changing stroke is recorded"
    );
    while v.post_json("/api/undo", "")["undone"] == true {}
    assert_eq!(v.get_bytes("/api/terrain"), original);
    assert!(close(
        length(&v.get_json("/api/path?from=3,3&to=45,40"), "exact"),
        optimal
    ));
}

#[test]
fn a_static_scenarios_queries_are_judged_against_the_file() {
    let v = Viewer::start("arena.map.scen", &[]);
    assert_eq!(v.get_json("/api/info")["scenario"]["dynamic"], false);
    let file = match quadpath::io::read_any_scen(map("arena.map.scen")).unwrap() {
        quadpath::io::AnyScenarioFile::Static(f) => f,
        _ => panic!("arena.map.scen is a version 1 file"),
    };
    let got = v.get_json("/api/scenario");
    let queries = got["queries"].as_array().unwrap();
    assert_eq!(queries.len(), file.entries.len());
    for (q, s) in queries.iter().zip(&file.entries) {
        assert_eq!(q["line"].as_u64(), Some(s.line as u64));
        let exact = q["exact"].as_f64().unwrap();
        assert!(
            (exact - s.optimal).abs() <= s.tolerance(),
            "line {}: {q}",
            s.line
        );
        let fast = q["fast"].as_f64().unwrap();
        let want = if fast > s.optimal + s.tolerance() {
            "suboptimal"
        } else {
            "ok"
        };
        assert_eq!(q["verdict"], want, "line {}", s.line);
    }
    let (status, _) = v.request("POST", "/api/scenario/step", b"");
    assert_eq!(status, 200, "a static file has no patches: nothing is laid");
    let plain = Viewer::start("arena.map", &[]);
    let (status, body) = plain.request("GET", "/api/scenario", b"");
    assert_eq!(status, 400, "{}", String::from_utf8_lossy(&body));
}

#[test]
fn a_version_2_scenarios_patches_are_laid_step_by_step() {
    let v = Viewer::start("dao_arena2.scen", &[]);
    let file = quadpath::io::read_dynamic_scen(map("dao_arena2.scen")).unwrap();
    // The file's queries in order, grouped by the patches before them.
    let mut groups: Vec<Vec<&quadpath::io::DynamicQuery>> = vec![Vec::new()];
    for c in &file.commands {
        match c {
            quadpath::io::DynamicCommand::Patch(_) => {
                if !groups.last().unwrap().is_empty() {
                    groups.push(Vec::new());
                }
            }
            quadpath::io::DynamicCommand::Query(q) => groups.last_mut().unwrap().push(q),
        }
    }
    let mut before = v.get_bytes("/api/terrain");
    for (i, group) in groups.iter().enumerate().take(4) {
        let got = v.get_json("/api/scenario");
        let queries = got["queries"].as_array().unwrap();
        assert_eq!(queries.len(), group.len(), "group {i}");
        for (q, want) in queries.iter().zip(group) {
            assert_eq!(q["line"].as_u64(), Some(want.line as u64));
            assert_ne!(q["verdict"], "failed", "line {}: {q}", want.line);
            match want.optimal {
                Some(o) => assert!((q["exact"].as_f64().unwrap() - o).abs() <= want.tolerance()),
                None => assert!(q["exact"].is_null()),
            }
        }
        let laid = v.post_json("/api/scenario/step", "")["laid"]
            .as_u64()
            .unwrap();
        let after = v.get_bytes("/api/terrain");
        if laid > 0 {
            assert_ne!(after, before, "the patches changed the map");
        }
        before = after;
    }
}

/// Checks a trace against Posthoc's documented search-trace format, version 1.4.0
/// (<https://posthoc.pathfinding.ai/docs/search-trace>): `version` "1.4.0" (required by the
/// visualiser), a `views` section whose `main` view is a list of components each naming
/// its primitive in `$`, and `events`, each with a string `type` (here the generic search
/// events source, generate, expand, close and our destination, update, end) and an `id`;
/// `pId` when present is `null` or the id of a node that appeared earlier (a node is
/// reached from one already seen), `g` and `f` are numbers with `g ≤ f` up to rounding,
/// and the `x`, `y` the view draws at are on the map with `id = y · width + x`. Every
/// expanded node is closed once, after its expansion.
fn check_posthoc_schema(doc: &Value, (width, height): (u32, u32)) {
    let keys: BTreeSet<&str> = doc
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    assert_eq!(
        keys,
        BTreeSet::from(["version", "views", "events"]),
        "top-level keys"
    );
    assert_eq!(doc["version"], "1.4.0");
    let main = doc["views"]["main"]
        .as_array()
        .expect("views.main is a list");
    assert!(
        !main.is_empty() && main.iter().all(|c| c["$"].is_string()),
        "{main:?}"
    );
    let known = [
        "source",
        "destination",
        "generate",
        "update",
        "expand",
        "close",
        "end",
    ];
    let mut seen = BTreeSet::new();
    let mut expanded = Vec::new();
    let mut closed = Vec::new();
    for e in doc["events"].as_array().expect("events is a list") {
        let kind = e["type"].as_str().unwrap_or_else(|| panic!("no type: {e}"));
        assert!(known.contains(&kind), "unknown event type {kind:?}");
        let id = e["id"]
            .as_u64()
            .unwrap_or_else(|| panic!("no integer id: {e}"));
        let (x, y) = (e["x"].as_u64().unwrap(), e["y"].as_u64().unwrap());
        assert!(x < width.into() && y < height.into(), "{e} is off the map");
        assert_eq!(id, y * u64::from(width) + x, "{e}: id is not y * width + x");
        if let Some(parent) = e.get("pId") {
            assert!(
                parent.is_null() || seen.contains(&parent.as_u64().unwrap()),
                "{e}: its parent was not seen before"
            );
        }
        if let (Some(g), Some(f)) = (e["g"].as_f64(), e["f"].as_f64()) {
            assert!(g >= 0.0 && f >= g - 1e-9, "{e}: g and f");
        } else {
            assert!(
                e.get("g").is_none() && e.get("f").is_none(),
                "{e}: g, f numbers"
            );
        }
        match kind {
            "expand" => expanded.push(id),
            "close" => {
                assert_eq!(
                    expanded.len(),
                    closed.len() + 1,
                    "{e}: a close follows its expand"
                );
                assert_eq!(expanded.last(), Some(&id), "{e}: closes the last expanded");
                closed.push(id);
            }
            _ => {}
        }
        seen.insert(id);
    }
    assert_eq!(expanded, closed, "every expanded node is closed once");
}

#[test]
fn a_posthoc_trace_in_the_old_schema_fails_the_schema_check() {
    // The check can fail: the 1.0 schema this export used before (a `render` section,
    // `expanding` events) is refused.
    let old = serde_json::json!({
        "version": "1.0.5",
        "render": {},
        "events": [{ "type": "expanding", "id": 0, "x": 0, "y": 0 }],
    });
    let refused = std::panic::catch_unwind(|| check_posthoc_schema(&old, (4, 4)));
    assert!(refused.is_err());
}

#[test]
fn traces_and_their_posthoc_export_count_the_librarys_expansions() {
    let v = Viewer::start("arena.map", &[]);
    let grid = arena();
    for (mode, name) in [(Mode::Exact, "exact"), (Mode::Fast, "fast")] {
        let hpa = HpaMap::new(grid.clone(), mode).unwrap();
        for (s, g) in [((3, 3), (45, 40)), ((1, 24), (47, 24))] {
            let (s, g) = (Cell::new(s.0, s.1), Cell::new(g.0, g.1));
            let mut ctx = quadpath::SearchContext::new();
            let want = hpa.find_path_with(&mut ctx, s, g).unwrap();
            let expansions = ctx.last_expansions();
            assert!(expansions > 0, "{name}: the query searches");
            let ends = format!("from={},{}&to={},{}&mode={name}", s.x, s.y, g.x, g.y);
            let got = v.get_json(&format!("/api/trace?{ends}"));
            assert!(close(got["length"].as_f64().unwrap(), want.length), "{got}");
            assert_eq!(got["expansions"], expansions);
            let events = got["events"].as_array().unwrap();
            let expanded = events.iter().filter(|e| e[0] == 2).count();
            assert_eq!(expanded, expansions, "{name}: one event per expansion");
            assert_eq!(
                (events[0][1].as_u64(), events[0][2].as_u64()),
                (Some(s.x.into()), Some(s.y.into()))
            );
            // The export is JSON (and so YAML) in Posthoc's documented search-trace schema.
            let (status, body) = v.request("GET", &format!("/api/trace/posthoc?{ends}"), b"");
            assert_eq!(status, 200);
            let doc: Value = serde_json::from_slice(&body).expect("the export parses as JSON");
            check_posthoc_schema(&doc, (grid.width(), grid.height()));
            let events = doc["events"].as_array().unwrap();
            let of = |kind: &str| events.iter().filter(|e| e["type"] == kind).count();
            assert_eq!(of("expand"), expansions, "{name}: expand events");
            assert_eq!(of("close"), expansions, "{name}: close events");
            assert_eq!((of("source"), of("destination"), of("end")), (1, 1, 1));
            let width = u64::from(grid.width());
            assert_eq!(events[0]["id"], u64::from(s.y) * width + u64::from(s.x));
            assert_eq!(
                events.last().unwrap()["g"]
                    .as_f64()
                    .map(|c| close(c, want.cost)),
                Some(true)
            );
        }
    }
    let (status, body) = v.request("GET", "/api/trace?from=3,3", b"");
    assert_eq!(status, 400, "{}", String::from_utf8_lossy(&body));
    let (status, _) = v.request("GET", "/api/trace/posthoc?from=3,3&to=999,3", b"");
    assert_eq!(status, 400);
}

#[test]
fn switching_the_class_rebuilds_the_layers_as_the_world_would() {
    let v = Viewer::start("arena.map", &[]);
    let grid = arena();
    let movement = quadpath::Movement::default().with_size(2).unwrap();
    let mut world = quadpath::World::new(grid.clone());
    let class = world.add_class(movement, Mode::Exact).unwrap();
    let switched = v.post_json("/api/class", r#"{"size":2,"passable":".GS"}"#);
    assert_eq!(switched["size"], 2, "{switched}");
    assert_eq!(v.get_json("/api/info")["size"], 2);
    for (s, g) in [((3, 3), (44, 40)), ((10, 2), (40, 43))] {
        let (s, g) = (Cell::new(s.0, s.1), Cell::new(g.0, g.1));
        let got = v.get_json(&format!(
            "/api/path?from={},{}&to={},{}",
            s.x, s.y, g.x, g.y
        ));
        let want = world.find_path(class, s, g).unwrap();
        assert!(close(length(&got, "exact"), want.length), "{got}");
    }
    // A 2x2 agent cannot stand where a 1x1 one next to a wall can: the class's open cells.
    let open = world.layer(class).unwrap().grid();
    let clearance = v.get_bytes("/api/clearance");
    let closed = grid.bounds().cells().filter(|&c| !open.is_free(c));
    for c in closed {
        assert_eq!(clearance[(c.y * grid.width() + c.x) as usize], 0, "{c}");
    }
    // Back to 1x1, with water passable at cost 3.
    let switched = v.post_json(
        "/api/class",
        r#"{"size":1,"passable":".GSW","costs":"W=3"}"#,
    );
    assert_eq!(switched["size"], 1, "{switched}");
    for bad in [
        r#"{"size":0,"passable":".GS"}"#,
        r#"{"size":1,"passable":".GS","costs":"W=3"}"#,
        r#"{"size":1,"passable":".GS","costs":"nonsense"}"#,
        r#"{"size":1}"#,
        r#"{"size":1,"passable":".","colour":"red"}"#,
    ] {
        let (status, body) = v.request("POST", "/api/class", bad.as_bytes());
        assert_eq!(status, 400, "{bad}: {}", String::from_utf8_lossy(&body));
    }
    assert_eq!(
        v.get_json("/api/info")["size"],
        1,
        "a refused switch keeps the class"
    );
}

#[test]
fn clusters_and_entrances_are_the_fast_layers() {
    // Fast mode keeps clusters under terrain costs (on a map of one cost it searches the
    // subgoal graph instead): the RTS valley with its roads and swamps.
    let costs = "G=0.5,S=3";
    let v = Viewer::start(
        "rts_valley.png",
        &["--legend", "rts", "--mode", "fast", "--costs", costs],
    );
    let options = BitmapOptions {
        legend: Some(quadpath::io::ColorLegend::rts_default()),
        ..Default::default()
    };
    let grid = load_grid(map("rts_valley.png"), &options).unwrap();
    let costs: quadpath::TerrainCosts = costs.parse().unwrap();
    let fast = HpaMap::with_costs(grid.clone(), costs, Mode::Fast).unwrap();
    assert!(fast.cluster_count() > 1, "rts_valley is clustered");
    let got: BTreeSet<(Vec<u64>, Vec<u64>, bool)> = v.get_json("/api/clusters")["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let nums = |k: &str| -> Vec<u64> {
                let mut v: Vec<u64> = c[k]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|n| n.as_u64().unwrap())
                    .collect();
                if k == "entrances" {
                    let mut pairs: Vec<[u64; 2]> = v.chunks(2).map(|p| [p[0], p[1]]).collect();
                    pairs.sort_unstable();
                    v = pairs.concat();
                }
                v
            };
            (
                nums("area"),
                nums("entrances"),
                c["fresh"].as_bool().unwrap(),
            )
        })
        .collect();
    let want: BTreeSet<(Vec<u64>, Vec<u64>, bool)> = fast
        .cluster_outlines()
        .iter()
        .map(|c| {
            let a = c.area;
            let mut e: Vec<[u64; 2]> = c
                .entrances
                .iter()
                .map(|e| [e.x.into(), e.y.into()])
                .collect();
            e.sort_unstable();
            let area = [a.x1, a.y1, a.width(), a.height()].map(u64::from).to_vec();
            (area, e.concat(), c.fresh)
        })
        .collect();
    assert_eq!(got.len(), fast.cluster_count());
    assert_eq!(got, want);
    // Independently of the library's listing: the areas tile the map's clustered part
    // without overlap, and every entrance is an open cell inside its cluster.
    let mut covered = vec![0u8; (grid.width() * grid.height()) as usize];
    for (area, entrances, _) in &got {
        let r = Rect::new(
            area[0] as u32,
            area[1] as u32,
            (area[0] + area[2] - 1) as u32,
            (area[1] + area[3] - 1) as u32,
        );
        for c in r.cells() {
            covered[(c.y * grid.width() + c.x) as usize] += 1;
        }
        for e in entrances.chunks(2) {
            let cell = Cell::new(e[0] as u32, e[1] as u32);
            assert!(
                r.contains(cell) && grid.is_free(cell),
                "entrance {cell} of {r:?}"
            );
        }
    }
    assert!(covered.iter().all(|&n| n <= 1), "cluster areas overlap");
    // The exact layer is not clustered, and an empty army answers empty lists.
    assert_eq!(v.get_json("/api/units")["count"], 0);
}

#[test]
fn units_are_filed_as_the_librarys_unit_index_files_them() {
    use quadpath::units::{Aabb, LooseQuadtree, UnitIndex};
    let v = Viewer::start("arena.map", &["--units", "300", "--units-seed", "5"]);
    let grid = arena();
    let got = v.get_json("/api/units");
    assert_eq!(got["count"], 300);
    assert_eq!(v.get_json("/api/info")["units"], 300);
    let nums = |k: &str| -> Vec<f32> {
        got[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_f64().unwrap() as f32)
            .collect()
    };
    let units = nums("units");
    assert_eq!(units.len(), 4 * 300);
    // Every unit stands on an open cell, one cell wide, and the index the test files them
    // in (a loose quadtree with finest cells twice a unit) has the same occupied cells.
    let mut index = UnitIndex::new(
        LooseQuadtree::new(grid.width() as f32, grid.height() as f32).with_finest_cell(2.0),
    )
    .unwrap();
    for u in units.chunks(4) {
        let cell = Cell::new(u[0] as u32, u[1] as u32);
        assert!(grid.is_free(cell), "a unit on blocked {cell}");
        assert_eq!((u[2] - u[0], u[3] - u[1]), (1.0, 1.0));
        index.insert(Aabb::new(u[0], u[1], u[2], u[3])).unwrap();
    }
    let want: Vec<f32> = index
        .occupied_cells()
        .iter()
        .flat_map(|c| {
            [
                c.area.min_x,
                c.area.min_y,
                c.area.max_x,
                c.area.max_y,
                c.units as f32,
            ]
        })
        .collect();
    let sorted = |v: Vec<f32>| -> Vec<Vec<u32>> {
        let mut rows: Vec<Vec<u32>> = v
            .chunks(5)
            .map(|r| r.iter().map(|x| x.to_bits()).collect())
            .collect();
        rows.sort_unstable();
        rows
    };
    assert_eq!(sorted(nums("cells")), sorted(want));
    let counted: f32 = nums("cells").chunks(5).map(|c| c[4]).sum();
    assert_eq!(counted, 300.0);
    // The same seed gives the same army; another count and seed from the page; bad ones
    // are refused and keep the army.
    let again = v.post_json("/api/units", r#"{"count":300,"seed":5}"#);
    assert_eq!(again["units"], got["units"]);
    assert_eq!(
        v.post_json("/api/units", r#"{"count":50,"seed":2}"#)["count"],
        50
    );
    for body in [
        r#"{"count":100001}"#,
        r#"{"count":-1}"#,
        r#"{"count":3,"size":2}"#,
        "{",
    ] {
        let (status, reply) = v.request("POST", "/api/units", body.as_bytes());
        assert_eq!(status, 400, "{body}: {}", String::from_utf8_lossy(&reply));
    }
    assert_eq!(v.get_json("/api/units")["count"], 50);
    // A larger class gets the army drawn again at its size.
    v.post_json("/api/class", r#"{"size":2,"passable":".G"}"#);
    let big = v.get_json("/api/units");
    let u = big["units"].as_array().unwrap();
    assert_eq!(big["count"], 50);
    assert_eq!(u[2].as_f64().unwrap() - u[0].as_f64().unwrap(), 2.0);
    assert_eq!(v.post_json("/api/units", r#"{"count":0}"#)["count"], 0);
}

/// Every map shipped in `maps/` opens, and the viewer's leaves and a path across it are
/// the library's (the path's length also plain A*'s).
#[test]
fn every_shipped_map_opens_and_answers_as_the_library() {
    let mut files: Vec<String> = std::fs::read_dir(map(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| [".map", ".png"].iter().any(|ext| n.ends_with(ext)))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "{files:?}");
    for name in &files {
        let args: &[&str] = if name.ends_with(".png") {
            &["--legend", "rts"]
        } else {
            &[]
        };
        let v = Viewer::start(name, args);
        let options = if name.ends_with(".png") {
            BitmapOptions {
                legend: Some(quadpath::io::ColorLegend::rts_default()),
                ..Default::default()
            }
        } else {
            BitmapOptions::default()
        };
        let grid = load_grid(map(name), &options).unwrap();
        let info = v.get_json("/api/info");
        assert_eq!(
            (info["width"].as_u64(), info["height"].as_u64()),
            (Some(grid.width().into()), Some(grid.height().into())),
            "{name}"
        );
        let hpa = HpaMap::new(grid.clone(), Mode::Exact).unwrap();
        let leaves = v.get_json("/api/leaves")["leaves"]
            .as_array()
            .unwrap()
            .len();
        assert_eq!(leaves, 4 * hpa.free_leaf_count(), "{name} leaves");
        // The first and the last open cell of the largest component.
        let open: Vec<Cell> = grid.bounds().cells().filter(|&c| grid.is_free(c)).collect();
        let (s, g) = (
            open[0],
            *open
                .iter()
                .rev()
                .find(|&&c| hpa.find_path(open[0], c).is_ok())
                .unwrap(),
        );
        let got = v.get_json(&format!(
            "/api/path?from={},{}&to={},{}",
            s.x, s.y, g.x, g.y
        ));
        let optimal = baseline::astar(&grid, s, g).unwrap().length;
        assert!(
            close(length(&got, "exact"), optimal),
            "{name}: {got} against A* {optimal}"
        );
        assert!(length(&got, "fast") >= optimal - 1e-6, "{name}");
    }
}
