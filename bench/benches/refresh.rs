//! The worst refresh budget case of issue 26, §2: `Aftershock` painted with roads and
//! swamps (`../shared/repro/aftershock_gs.map` beside the repository) at extreme costs (`G=0.015625,S=1e6`),
//! against the same map at mild costs (`G=0.5,S=3`) and without costs, measured in the same
//! run, in exact and fast mode: build time, then 60 edits of 40×40 cells (blocked, then freed, spread
//! over the map), `refresh()` after them, and the longest single `refresh_within(1 ms)`
//! call of a refresh spread over frames, with how many calls it took.
//!
//! Then the worst case for landmark builds: the same map built with one free cell (so
//! without landmarks) and laid row by row as patches, after which the refresh builds the
//! whole landmark table (8 columns over the map); the longest `refresh_within(1 ms)` call
//! of that refresh, against one whole `refresh()` (compaction off in both, so that it
//! times the landmarks only).
//!
//! Usage: `cargo bench --bench refresh`. The figures are wall times on whatever machine
//! runs it: compare the rows with each other, not with another run.

#[path = "common/mod.rs"]
mod common;

use common::thread_cpu;
use quadpath::{Cell, Config, Grid, HpaMap, Mode, Rect, TerrainCosts, TerrainPatch, TerrainSet};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn load() -> Grid {
    // `../shared` beside the crate, or wherever `QUADPATH_SHARED` says (a worktree).
    let shared = std::env::var_os("QUADPATH_SHARED").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
        PathBuf::from,
    );
    let path = shared.join("repro/aftershock_gs.map");
    quadpath::io::read_map(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// 60 squares of 40×40 spread over the map on a fixed lattice.
fn edits(grid: &Grid) -> Vec<Rect> {
    let (w, h) = (grid.width(), grid.height());
    (0..60u32)
        .map(|i| {
            let (x, y) = ((i * 97 + 13) % (w - 40), (i * 61 + 29) % (h - 40));
            Rect::new(x, y, x + 39, y + 39)
        })
        .collect()
}

fn main() {
    let grid = load();
    println!("| mode | costs | build | refresh after 60 edits | longest refresh_within(1 ms), wall | longest, thread CPU | calls | most work in a call |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    let runs = [Mode::Exact, Mode::Fast]
        .into_iter()
        .flat_map(|mode| ["none", "G=0.5,S=3", "G=0.015625,S=1e6"].map(|label| (mode, label)));
    for (mode, label) in runs {
        let costs: TerrainCosts = if label == "none" {
            TerrainCosts::unit()
        } else {
            label.parse().unwrap()
        };
        let mut timed = Vec::new();
        let mut build = Duration::ZERO;
        for budget in [None, Some(Duration::from_millis(1))] {
            let t = Instant::now();
            let mut map = HpaMap::with_costs(grid.clone(), costs.clone(), mode).unwrap();
            build = build.max(t.elapsed());
            for (i, r) in edits(&grid).into_iter().enumerate() {
                map.set_blocked(r, i % 2 == 0).unwrap();
            }
            let _ = map.find_path(Cell::new(0, 0), Cell::new(0, 0));
            let (mut longest, mut calls) = (Duration::ZERO, 0);
            let (mut times, mut most_work) = (Vec::new(), 0);
            let t = Instant::now();
            match budget {
                None => {
                    map.refresh();
                }
                Some(b) => {
                    while map.needs_refresh() {
                        let (c, cpu) = (Instant::now(), thread_cpu());
                        let report = map.refresh_within(b);
                        longest = longest.max(c.elapsed());
                        times.push(thread_cpu() - cpu);
                        most_work = most_work.max(report.work);
                        calls += 1;
                    }
                }
            }
            times.sort();
            let cpu_max = times.last().copied().unwrap_or_default();
            timed.push((t.elapsed(), longest, calls, cpu_max, most_work));
        }
        println!(
            "| {mode:?} | {label} | {:.3} s | {:.3} s | {:.2} ms | {:.2} ms | {} | {} |",
            build.as_secs_f64(),
            timed[0].0.as_secs_f64(),
            timed[1].1.as_secs_f64() * 1e3,
            timed[1].3.as_secs_f64() * 1e3,
            timed[1].2,
            timed[1].4
        );
    }
    landmarks_after_edits(&grid);
}

/// The landmark table a map gets after edits (see the module docs).
fn landmarks_after_edits(grid: &Grid) {
    let (w, h) = (grid.width(), grid.height());
    let first = grid.free_cells().next().expect("the map has free cells");
    let codes: Vec<u8> = grid
        .bounds()
        .cells()
        .map(|c| {
            if c == first {
                grid.terrain(c).code()
            } else {
                b'@'
            }
        })
        .collect();
    let empty = Grid::from_terrain(w, h, codes, TerrainSet::moving_ai());
    println!();
    println!("| costs | refresh() building the landmarks | longest refresh_within(1 ms) | calls |");
    println!("|---|---:|---:|---:|");
    for label in ["none", "G=0.015625,S=1e6"] {
        let costs: TerrainCosts = if label == "none" {
            TerrainCosts::unit()
        } else {
            label.parse().unwrap()
        };
        let config = Config::exact().with_compact_above_percent(None);
        let laid = || {
            let mut map = HpaMap::with_costs(empty.clone(), costs.clone(), config).unwrap();
            for y in 0..h {
                let row: Vec<u8> = (0..w)
                    .map(|x| grid.terrain(Cell::new(x, y)).code())
                    .collect();
                map.apply_patch(Cell::new(0, y), &TerrainPatch::new(w, 1, row))
                    .unwrap();
            }
            map
        };
        let mut whole = laid();
        let t = Instant::now();
        whole.refresh();
        let whole_time = t.elapsed();
        let mut sliced = laid();
        let (mut longest, mut calls) = (Duration::ZERO, 0);
        while sliced.needs_refresh() {
            let c = Instant::now();
            sliced.refresh_within(Duration::from_millis(1));
            longest = longest.max(c.elapsed());
            calls += 1;
        }
        assert!(sliced.landmark_count() > 0 && whole.landmark_count() > 0);
        println!(
            "| {label} | {:.1} ms | {:.2} ms | {calls} |",
            whole_time.as_secs_f64() * 1e3,
            longest.as_secs_f64() * 1e3
        );
    }
}
