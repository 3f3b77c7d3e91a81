//! Group moves: many units spread over a StarCraft map, all sent to one goal.
//!
//! Contenders, each timed as a whole (every unit's full path, cells and all):
//! - a flow field on an exact layer (one gate-graph search, per-leaf distances worked out
//!   as units walk), then `path_from` for every unit;
//! - a flow field on a fast layer (one Dijkstra over every cell), then `path_from`;
//! - one `find_path` per unit, exact mode and fast mode;
//! - one `pathfinding::astar` per unit (on the first 200 units; for larger groups its total
//!   is that time scaled by the group size, marked "est.").
//!
//! Every flow path is checked against exact mode's length for the same unit (the bench
//! aborts on a mismatch), so the speed-ups compare equal answers.
//!
//! Usage: `cargo bench -p quadpath-bench --bench group -- [--units 200,1000] [--maps a,b,...] [--markdown OUT]`.

mod common;
use common::report::*;
use common::{find_map, positive_list, MapBenchArgs, Rng, STARCRAFT_MAPS};
use quadpath::baseline::astar;
use quadpath::{Cell, Grid, HpaMap, Mode};
use std::time::Instant;

/// How many units A* is timed on; larger groups scale its time.
const ASTAR_UNITS: usize = 200;

const USAGE: &str =
    "cargo bench -p quadpath-bench --bench group -- [--units N,...] [--maps a,b,...] [--markdown OUT]";

/// The free cell nearest the map's centre: the group's goal.
fn central_goal(grid: &Grid) -> Cell {
    let (cx, cy) = (grid.width() as i64 / 2, grid.height() as i64 / 2);
    grid.free_cells()
        .min_by_key(|c| (c.x as i64 - cx).pow(2) + (c.y as i64 - cy).pow(2))
        .expect("the map has a free cell")
}

/// `n` random free cells from which `goal` can be reached.
fn spread_units(map: &HpaMap, goal: Cell, n: usize, rng: &mut Rng) -> Vec<Cell> {
    let grid = map.grid();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let c = Cell::new(
            rng.below(grid.width() as usize) as u32,
            rng.below(grid.height() as usize) as u32,
        );
        if grid.is_free(c) && map.connected(c, goal).unwrap_or(false) {
            out.push(c);
        }
    }
    out
}

/// Milliseconds `f` takes.
fn time_ms<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let t = Instant::now();
    let out = f();
    (t.elapsed().as_secs_f64() * 1e3, out)
}

fn main() {
    let mut units = vec![200usize, 1000];
    let args = MapBenchArgs::parse(USAGE, STARCRAFT_MAPS, |flag, value| match flag {
        "--units" => positive_list(&value()).map(|v| units = v).is_some(),
        _ => false,
    });
    let mut rows = Vec::new();
    let mut field_rows = Vec::new();
    for name in &args.maps {
        let Some(grid) = find_map(name) else {
            eprintln!("group: {name}: not found, skipped");
            continue;
        };
        let exact = HpaMap::new(grid.clone(), Mode::Exact).expect("builds");
        let fast = HpaMap::new(grid.clone(), Mode::Fast).expect("builds");
        let goal = central_goal(&grid);
        let all = spread_units(
            &exact,
            goal,
            units.iter().copied().max().unwrap_or(0),
            &mut Rng(7),
        );
        let (astar_ms, _) = time_ms(|| {
            for &s in all.iter().take(ASTAR_UNITS) {
                astar(&grid, s, goal).expect("connected");
            }
        });
        let astar_units = ASTAR_UNITS.min(all.len());
        for &n in &units {
            eprintln!("group: {name}, {n} units");
            let starts = &all[..n];
            let (exact_ms, optimal) = time_ms(|| {
                starts
                    .iter()
                    .map(|&s| exact.find_path(s, goal).expect("connected").length)
                    .collect::<Vec<f64>>()
            });
            let (fast_ms, _) = time_ms(|| {
                for &s in starts {
                    fast.find_path(s, goal).expect("connected");
                }
            });
            let mut flow = Vec::new();
            for (layer, map) in [("exact", &exact), ("fast", &fast)] {
                let (build_ms, field) = time_ms(|| map.flow_field(goal).expect("a free goal"));
                let (walk_ms, lengths) = time_ms(|| {
                    starts
                        .iter()
                        .map(|&s| field.path_from(map, s).unwrap().expect("connected").length)
                        .collect::<Vec<f64>>()
                });
                for ((s, got), want) in starts.iter().zip(&lengths).zip(&optimal) {
                    assert!(
                        (got - want).abs() < 1e-6,
                        "{name} {layer} {s}: {got} != {want}"
                    );
                }
                field_rows.push(vec![
                    name.clone(),
                    n.to_string(),
                    layer.to_string(),
                    fmt_ms(build_ms),
                    fmt_ms(walk_ms),
                    fmt_bytes(field.memory_bytes()),
                    match field.computed_leaves() {
                        0 => "all cells".to_string(),
                        k => format!("{k} of {}", map.free_leaf_count()),
                    },
                ]);
                flow.push(build_ms + walk_ms);
            }
            let astar_total = astar_ms * n as f64 / astar_units as f64;
            let astar_cell = match n <= astar_units {
                true => fmt_ms(astar_total),
                false => format!("{} (est.)", fmt_ms(astar_total)),
            };
            rows.push(vec![
                name.clone(),
                n.to_string(),
                fmt_ms(flow[0]),
                fmt_ms(flow[1]),
                fmt_ms(exact_ms),
                fmt_ms(fast_ms),
                astar_cell,
                fmt_ratio(exact_ms / flow[0]),
                fmt_ratio(fast_ms / flow[1]),
                fmt_ratio(astar_total / flow[0]),
            ]);
        }
    }
    let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let mut out = String::new();
    out += "Every unit's full path to one goal near the map's centre; units are random free \
            cells connected to it. Flow: building the field plus every unit's `path_from`.\n\n";
    table(
        &mut out,
        &strings(&[
            "map",
            "units",
            "flow (exact layer)",
            "flow (fast layer)",
            "find_path exact",
            "find_path fast",
            "A*",
            "exact / flow",
            "fast / flow (fast layer)",
            "A* / flow",
        ]),
        &rows,
    );
    out += "The fields themselves: build, the units' walks, memory after the walks, and the \
            leaves worked out (a fast layer's field holds every cell from the start).\n\n";
    table(
        &mut out,
        &strings(&[
            "map",
            "units",
            "layer",
            "build",
            "walks",
            "memory",
            "leaves worked out",
        ]),
        &field_rows,
    );
    args.publish(&out);
}
