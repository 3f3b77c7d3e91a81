//! Fast mode on short moves (issue 11, item 2): units in a game make one- and two-cell
//! moves all the time, and near cluster borders sparse entrances used to send them around
//! the block, sometimes back over their own cells.
//!
//! - The sweep: every free cell against every cell within Chebyshev distance 3, in fast
//!   mode, on several maps, against a Dijkstra oracle bounded at 16.5 (exact for every goal
//!   whose optimal length is at most that; see `common::NearDistances`). Every path is
//!   valid, never shorter than optimal, within 10% of optimal when the optimal length is at
//!   most 16, and visits no cell twice.
//! - The same sweep with the short-move search turned off checks the loop cutting alone:
//!   whatever the entrances do, no path repeats a cell.
//! - The moves the issue reports, each optimal now.
//!
//! Run with `--nocapture` to see the counts per map.

use crate::common;
use common::*;
use quadpath::{Cell, Config, Grid, HpaMap, Mode, Path, SearchContext};
use std::path::PathBuf;

/// The oracle's bound, and the optimal length up to which fast mode must be within 10%.
const BOUND: f64 = 16.5;
const NEAR: f64 = 16.0;
const TOL: f64 = 1e-6;

fn crate_file(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// A map shipped in `maps/`.
fn shipped_map(name: &str) -> Grid {
    read_movingai(&crate_file("maps").join(name))
}

/// A 128×128 town: scattered buildings of random sizes, a few walls with gaps and 8%
/// loose rocks, so that short moves meet corners and cluster borders everywhere.
fn generated(seed: u64) -> Grid {
    let (w, h) = (128u32, 128u32);
    let mut rng = Rng(seed);
    let mut blocked = vec![false; (w * h) as usize];
    for _ in 0..140 {
        let (bw, bh) = (1 + rng.below(7) as u32, 1 + rng.below(7) as u32);
        let (x0, y0) = (rng.below(w as u64) as u32, rng.below(h as u64) as u32);
        for y in y0..(y0 + bh).min(h) {
            for x in x0..(x0 + bw).min(w) {
                blocked[(y * w + x) as usize] = true;
            }
        }
    }
    for i in 0..6u32 {
        let at = 10 + 20 * i;
        for t in 0..w {
            if t % 23 > 2 {
                let (x, y) = if i % 2 == 0 { (at, t) } else { (t, at) };
                blocked[(y * w + x) as usize] = true;
            }
        }
    }
    for b in blocked.iter_mut() {
        *b |= rng.below(100) < 8;
    }
    Grid::from_fn(w, h, |x, y| !blocked[(y * w + x) as usize])
}

/// What one sweep found.
#[derive(Default)]
struct Tally {
    queries: u64,
    /// Queries with optimal length at most [`NEAR`] answered more than 10% too long.
    over: u64,
    revisits: u64,
    examples: Vec<String>,
}

impl Tally {
    fn note(&mut self, what: String) {
        if self.examples.len() < 8 {
            self.examples.push(what);
        }
    }
}

/// Whether `path` visits a cell twice; `seen` holds a stamp per cell of the map.
fn revisits(path: &Path, width: u32, seen: &mut [u32], stamp: u32) -> bool {
    path.cells.iter().any(|c| {
        let s = &mut seen[(c.y * width + c.x) as usize];
        std::mem::replace(s, stamp) == stamp
    })
}

/// Every free cell against every free cell within Chebyshev distance 3, on `map`. Panics
/// on an invalid path, a path shorter than optimal, or a wrong answer about reachability
/// of a near goal; counts the paths more than 10% too long (when `quality` is set) and
/// those that repeat a cell.
fn sweep(map: &HpaMap, quality: bool) -> Tally {
    let grid = map.grid();
    let (w, h) = (grid.width(), grid.height());
    let mut oracle = NearDistances::new(BOUND);
    let mut ctx = SearchContext::new();
    let mut seen = vec![0u32; (w * h) as usize];
    let mut tally = Tally::default();
    for s in grid.free_cells() {
        oracle.from(grid, s);
        for gy in s.y.saturating_sub(3)..=(s.y + 3).min(h - 1) {
            for gx in s.x.saturating_sub(3)..=(s.x + 3).min(w - 1) {
                let g = Cell::new(gx, gy);
                if g == s || !grid.is_free(g) {
                    continue;
                }
                tally.queries += 1;
                let opt = oracle.get(g);
                let p = match (map.find_path_with(&mut ctx, s, g), opt) {
                    (Ok(p), _) => p,
                    (Err(quadpath::QueryError::Unreachable { .. }), None) => continue,
                    (r, opt) => panic!("{s} -> {g}: {r:?}, optimal {opt:?}"),
                };
                assert_valid(grid, s, g, &p);
                // Beyond the oracle's bound the optimum is unknown but above the bound.
                let floor = opt.unwrap_or(BOUND);
                assert!(
                    p.length >= floor - TOL,
                    "{s} -> {g}: {} shorter than optimal {floor}",
                    p.length
                );
                if revisits(&p, w, &mut seen, tally.queries as u32) {
                    tally.revisits += 1;
                    tally.note(format!("{s} -> {g}: revisits ({:?})", p.cells));
                }
                if let Some(opt) = opt.filter(|&o| quality && o <= NEAR) {
                    if p.length > 1.1 * opt + TOL {
                        tally.over += 1;
                        tally.note(format!("{s} -> {g}: {:.3} vs optimal {opt:.3}", p.length));
                    }
                }
            }
        }
    }
    tally
}

/// Sweeps `grid` in fast mode (and, with `loops_only`, also with the short-move search
/// off, checking repeats only) and asserts the targets.
fn check(name: &str, grid: Grid, loops_only: bool) {
    let t = std::time::Instant::now();
    let map = HpaMap::new(grid.clone(), Mode::Fast).unwrap();
    let tally = sweep(&map, true);
    println!(
        "{name} ({}x{}, {} clusters): {} queries, {} over 10%, {} revisits, {:.2}s",
        grid.width(),
        grid.height(),
        map.cluster_count(),
        tally.queries,
        tally.over,
        tally.revisits,
        t.elapsed().as_secs_f64()
    );
    assert!(tally.queries > 0);
    assert!(
        tally.over == 0 && tally.revisits == 0,
        "{name}: {} of {} short moves more than 10% too long, {} revisit a cell:\n  {}",
        tally.over,
        tally.queries,
        tally.revisits,
        tally.examples.join("\n  ")
    );
    if loops_only {
        let t = std::time::Instant::now();
        let map = HpaMap::new(grid, Config::fast().with_local_radius(0)).unwrap();
        let tally = sweep(&map, false);
        println!(
            "{name} without the short-move search: {} revisits, {:.2}s",
            tally.revisits,
            t.elapsed().as_secs_f64()
        );
        assert!(
            tally.revisits == 0,
            "{name} without the short-move search: {} paths revisit a cell:\n  {}",
            tally.revisits,
            tally.examples.join("\n  ")
        );
    }
}

#[test]
fn sweep_arena() {
    check("arena", read_movingai(&crate_file("maps/arena.map")), true);
}

#[test]
fn sweep_repro_map() {
    check(
        "fast_detour_128x64",
        read_movingai(&crate_file("tests/data/fast_detour_128x64.map")),
        true,
    );
}

#[test]
fn sweep_generated_128() {
    check("generated 128x128", generated(0x9e37_79b9_7f4a_7c15), true);
}

#[test]
fn sweep_berlin() {
    check("Berlin_1_256", shipped_map("Berlin_1_256.map"), false);
}

/// The moves issue 11 reports, in both directions: each is optimal in fast mode now, and
/// visits no cell twice.
#[test]
fn reported_short_moves_are_optimal() {
    // (map, start, goal)
    type Move = (&'static str, (u32, u32), (u32, u32));
    let cases: [Move; 5] = [
        ("Berlin_1_256.map", (62, 135), (64, 136)),
        ("repro", (65, 4), (63, 4)),
        ("arena", (14, 2), (15, 4)),
        ("den520d.map", (126, 35), (128, 36)),
        ("ht_chantry.map", (82, 128), (80, 128)),
    ];
    for (name, a, b) in cases {
        let grid = match name {
            "repro" => read_movingai(&crate_file("tests/data/fast_detour_128x64.map")),
            "arena" => read_movingai(&crate_file("maps/arena.map")),
            _ => shipped_map(name),
        };
        let map = HpaMap::new(grid.clone(), Mode::Fast).unwrap();
        for (s, g) in [
            (Cell::from(a), Cell::from(b)),
            (Cell::from(b), Cell::from(a)),
        ] {
            let opt = distances(&grid, s)[(g.y * grid.width() + g.x) as usize].unwrap();
            let p = map.find_path(s, g).unwrap();
            assert_valid(&grid, s, g, &p);
            assert!(
                (p.length - opt).abs() < TOL,
                "{name} {s} -> {g}: {} vs optimal {opt} ({:?})",
                p.length,
                p.cells
            );
            let mut seen = vec![0; (grid.width() * grid.height()) as usize];
            assert!(
                !revisits(&p, grid.width(), &mut seen, 1),
                "{name} {s} -> {g}"
            );
        }
    }
}
