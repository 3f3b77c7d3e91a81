//! HPA* benchmarks.
//!
//! Per map (`maps/arena.map` always; den520d, brc202d, w_woundedcoast, orz900d and
//! 64room_000 when `../shared/maps` exists):
//! - `build/<map>`: building an exact and a fast `HpaMap`;
//! - `query/<map>`: one query per iteration, cycling through 50 evenly spaced scenario
//!   lines, for the exact mode, the fast mode and the flat-grid `baseline::astar`, side by
//!   side; and the fast mode right after one 4×4 building went up, before any refresh
//!   (`fast_stale_after_1_edit`), to show what staleness costs.
//!
//! On a 1024×1024 map (`maze512-32-9` tiled 2×2 when present, else a generated map with
//! ~25% of its cells blocked in blobs), both modes:
//! - `build/1024x1024`: building the whole structure (the 300 ms target);
//! - `edit/toggle`: block a random free cell and free it again (one iteration = both);
//! - `edit/building_4x4`: place a 4×4 building on free ground and remove it again;
//! - fast mode only, `edit/toggle+refresh` and `edit/building_4x4+refresh`: the same with
//!   `refresh()` after each edit, since fast-mode edits defer recomputing the clusters they
//!   touch until the caller refreshes.
//!
//! Run: `cargo bench -p quadpath-bench --bench hpa -- --warm-up-time 1 --measurement-time 3`

mod common;

use common::Rng;
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use quadpath::{baseline, io, Cell, Grid, HpaMap, Mode, Rect};
use std::path::{Path, PathBuf};
use std::time::Duration;

const QUERIES: usize = 50;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// (name, map file, scenario file) of every benchmark map that exists here.
fn maps() -> Vec<(String, PathBuf, PathBuf)> {
    let mut out = vec![(
        "arena".to_string(),
        root().join("maps/arena.map"),
        root().join("maps/arena.map.scen"),
    )];
    let shared = common::shared_maps();
    for (name, dir, scen) in [
        ("den520d", "mapf", "den520d-even-1.scen"),
        ("brc202d", "mapf", "brc202d-even-1.scen"),
        ("w_woundedcoast", "mapf", "w_woundedcoast-even-1.scen"),
        ("orz900d", "mapf", "orz900d-even-1.scen"),
        ("64room_000", "classic", "64room_000.map.scen"),
    ] {
        let (map, scen) = (
            shared.join(dir).join(format!("{name}.map")),
            shared.join(dir).join(scen),
        );
        if map.is_file() && scen.is_file() {
            out.push((name.to_string(), map, scen));
        } else {
            eprintln!("hpa bench: {} not found, skipped", map.display());
        }
    }
    out
}

/// `QUERIES` evenly spaced scenario lines.
fn sample_queries(scen: &Path) -> Vec<(Cell, Cell)> {
    let entries = io::read_scen(scen).expect("scenario file").entries;
    let k = QUERIES.min(entries.len());
    (0..k)
        .map(|i| &entries[i * entries.len() / k])
        .map(|e| (e.start, e.goal))
        .collect()
}

/// `build/{name}`: the whole structure in both modes, from a grid to a map ready to search.
fn bench_builds(c: &mut Criterion, name: &str, grid: &Grid) {
    let mut g = c.benchmark_group(format!("build/{name}"));
    g.sample_size(10);
    for mode in [Mode::Exact, Mode::Fast] {
        g.bench_function(
            BenchmarkId::from_parameter(format!("{mode:?}").to_lowercase()),
            |b| b.iter(|| HpaMap::new(black_box(grid.clone()), mode).unwrap()),
        );
    }
    g.finish();
}

fn bench_maps(c: &mut Criterion) {
    for (name, map_path, scen_path) in maps() {
        let grid = io::read_map(&map_path).expect("map file");
        let queries = sample_queries(&scen_path);
        let big = grid.width() as u64 * grid.height() as u64 > 200_000;

        bench_builds(c, &name, &grid);

        let mut g = c.benchmark_group(format!("query/{name}"));
        g.sample_size(if big { 20 } else { 50 });
        for mode in [Mode::Exact, Mode::Fast] {
            let map = HpaMap::new(grid.clone(), mode).unwrap();
            let mut i = 0;
            g.bench_function(
                BenchmarkId::from_parameter(format!("{mode:?}").to_lowercase()),
                |b| {
                    b.iter(|| {
                        let (s, t) = queries[i % queries.len()];
                        i += 1;
                        map.find_path(s, t).unwrap()
                    })
                },
            );
        }
        // Fast mode right after one edit, before any refresh: the stale clusters around the
        // building are crossed over their gates, so only searches near it should slow down.
        let mut stale = HpaMap::new(grid.clone(), Mode::Fast).unwrap();
        let site = building_site(&grid);
        stale.set_blocked(site, true).unwrap();
        if stale.needs_refresh() {
            let mut i = 0;
            g.bench_function(
                BenchmarkId::from_parameter("fast_stale_after_1_edit"),
                |b| {
                    b.iter(|| {
                        let (s, t) = queries[i % queries.len()];
                        i += 1;
                        stale.find_path(s, t).ok()
                    })
                },
            );
        }
        let mut i = 0;
        g.bench_function(BenchmarkId::from_parameter("astar"), |b| {
            b.iter(|| {
                let (s, t) = queries[i % queries.len()];
                i += 1;
                baseline::astar(&grid, s, t).unwrap()
            })
        });
        g.finish();
    }
}

/// The first 4×4 square of free cells in row-major order from the map's centre.
fn building_site(grid: &Grid) -> Rect {
    let (w, h) = (grid.width(), grid.height());
    let fits = |c: &Cell| {
        c.x + 3 < w
            && c.y + 3 < h
            && Rect::from_size(c.x, c.y, 4, 4)
                .expect("a 4x4 building")
                .cells()
                .all(|c| grid.is_free(c))
    };
    let centre = Rect::new(0, h / 2, w - 1, h - 1);
    let c = centre
        .cells()
        .chain(Rect::new(0, 0, w - 1, h - 1).cells())
        .find(fits)
        .expect("the map has room for a 4x4 building");
    Rect::from_size(c.x, c.y, 4, 4).expect("a 4x4 building")
}

fn bench_edits(c: &mut Criterion) {
    let (name, grid) = common::map_1024();
    eprintln!("hpa bench: edit map is {name}");
    // The 1024×1024 build target: the whole structure, from a grid to a map ready to search.
    bench_builds(c, "1024x1024", &grid);
    let free: Vec<Cell> = grid.free_cells().collect();
    let mut rng = Rng(42);
    let cells: Vec<Cell> = (0..4096).map(|_| free[rng.below(free.len())]).collect();
    // Sites where a 4×4 building fits on free ground.
    let mut sites = Vec::new();
    while sites.len() < 1024 {
        let c = free[rng.below(free.len())];
        if c.x + 3 < grid.width() && c.y + 3 < grid.height() {
            let r = Rect::new(c.x, c.y, c.x + 3, c.y + 3);
            if r.cells().all(|c| grid.is_free(c)) {
                sites.push(r);
            }
        }
    }
    for mode in [Mode::Exact, Mode::Fast] {
        let mut map = HpaMap::new(grid.clone(), mode).unwrap();
        let mode_name = format!("{mode:?}").to_lowercase();
        let toggle = |map: &mut HpaMap, i: usize, blocked: bool| {
            let c = cells[i % cells.len()];
            map.set_blocked(Cell::new(c.x, c.y), blocked).unwrap();
        };
        let building = |map: &mut HpaMap, i: usize, blocked: bool| {
            map.set_blocked(sites[i % sites.len()], blocked).unwrap();
        };
        bench_edit_pairs(c, "edit/toggle", &mode_name, &mut map, toggle, false);
        bench_edit_pairs(
            c,
            "edit/building_4x4",
            &mode_name,
            &mut map,
            building,
            false,
        );
        if mode == Mode::Fast {
            // Fast-mode edits only mark the clusters they touch; `refresh()` recomputes them.
            // This is the cost of a game that refreshes right after each edit.
            bench_edit_pairs(c, "edit/toggle+refresh", &mode_name, &mut map, toggle, true);
            let group = "edit/building_4x4+refresh";
            bench_edit_pairs(c, group, &mode_name, &mut map, building, true);
        }
        map.refresh();
        assert_eq!(map.grid(), &grid, "every edit was undone");
    }
}

/// One iteration = the `i`-th edit made (`blocked`) and undone, each followed by
/// `refresh()` when `refresh` is set.
fn bench_edit_pairs(
    c: &mut Criterion,
    group: &str,
    mode_name: &str,
    map: &mut HpaMap,
    edit: impl Fn(&mut HpaMap, usize, bool),
    refresh: bool,
) {
    let mut g = c.benchmark_group(group);
    let mut i = 0;
    g.bench_function(BenchmarkId::from_parameter(mode_name), |b| {
        b.iter(|| {
            for blocked in [true, false] {
                edit(map, i, blocked);
                if refresh {
                    map.refresh();
                }
            }
            i += 1;
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    targets = bench_maps, bench_edits
}
criterion_main!(benches);
