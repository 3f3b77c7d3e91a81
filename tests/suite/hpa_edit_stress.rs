//! Deterministic stress runs: thousands of random edits on small maps, each followed by a
//! comparison with a fresh build and path checks against the Dijkstra oracle.
use crate::common;
use common::*;
use quadpath::{Cell, Config, Grid, HpaMap, Mode};

#[test]
fn random_maps_exact() {
    let mut rng = Rng(12345);
    for round in 0..200 {
        let (w, h) = (1 + rng.below(40) as u32, 1 + rng.below(40) as u32);
        let density = rng.below(40);
        let grid = Grid::from_fn(w, h, |_, _| rng.below(100) >= density);
        let map = HpaMap::new(grid.clone(), Mode::Exact).unwrap();
        let clustered = HpaMap::new(grid.clone(), tiny_clusters(2 + round % 6)).unwrap();
        map.check_consistency().unwrap();
        let free: Vec<Cell> = grid.free_cells().collect();
        if free.is_empty() {
            continue;
        }
        for _ in 0..10 {
            let s = free[rng.below(free.len() as u64) as usize];
            let d = distances(&grid, s);
            let g = free[rng.below(free.len() as u64) as usize];
            let want = d[(g.y * w + g.x) as usize];
            match (map.find_path(s, g), want) {
                (Ok(p), Some(len)) => {
                    assert_valid(&grid, s, g, &p);
                    assert!(
                        (p.length - len).abs() < 1e-6,
                        "round {round} {w}x{h}: {s}->{g} got {} want {len}",
                        p.length
                    );
                    let q = clustered.find_path(s, g).unwrap();
                    assert_valid(&grid, s, g, &q);
                    assert!(q.length >= len - 1e-9);
                }
                (Err(e), None) => assert!(matches!(e, quadpath::QueryError::Unreachable { .. })),
                (r, want) => panic!("round {round}: {s}->{g}: {r:?} vs {want:?}"),
            }
        }
    }
}

#[test]
fn random_edits_match_fresh_build() {
    const ROUNDS: u32 = 150;
    let mut rng = Rng(777);
    let mut clustered_rounds = 0;
    for round in 0..ROUNDS {
        let (w, h) = (1 + rng.below(30) as u32, 1 + rng.below(30) as u32);
        let density = rng.below(35);
        let mode: Config = match round % 3 {
            0 => Mode::Exact.into(),
            1 => Mode::Fast.into(),
            _ => tiny_clusters(2 + round % 7),
        };
        let mut grid = Grid::from_fn(w, h, |_, _| rng.below(100) >= density);
        let mut map = HpaMap::new(grid.clone(), mode).unwrap();
        clustered_rounds += (map.cluster_count() > 0) as u32;
        for step in 0..25 {
            let (x, y) = (rng.below(w as u64) as u32, rng.below(h as u64) as u32);
            let blocked = rng.below(2) == 0;
            let prev = grid.clone();
            if rng.below(4) == 0 {
                let (x2, y2) = (
                    (x + rng.below(4) as u32).min(w - 1),
                    (y + rng.below(4) as u32).min(h - 1),
                );
                let r = quadpath::Rect::new(x, y, x2, y2);
                map.set_blocked(r, blocked).unwrap();
                for c in r.cells() {
                    grid.set_blocked(c, blocked);
                }
            } else {
                map.set_blocked(Cell::new(x, y), blocked).unwrap();
                grid.set_blocked(Cell::new(x, y), blocked);
            }
            if let Err(e) = map.check_consistency() {
                for y in 0..h {
                    let row: String = (0..w)
                        .map(|x| {
                            if prev.is_free(Cell::new(x, y)) {
                                '.'
                            } else {
                                '@'
                            }
                        })
                        .collect();
                    eprintln!("{row}");
                }
                panic!(
                    "round {round} step {step} {:?} edit ({x},{y}) blocked={blocked}: {e}",
                    mode.clusters
                );
            }
            let fresh = HpaMap::new(grid.clone(), mode).unwrap();
            map.refresh();
            assert_same_structure(
                &map.snapshot(),
                &fresh.snapshot(),
                &format!("round {round} step {step} ({x},{y}) blocked={blocked}"),
            );
            // Paths after the edit: valid, never shorter than optimal, exact when exact.
            let free: Vec<Cell> = grid.free_cells().collect();
            if free.len() >= 2 {
                let s = free[rng.below(free.len() as u64) as usize];
                let d = distances(&grid, s);
                for _ in 0..3 {
                    let g = free[rng.below(free.len() as u64) as usize];
                    match (map.find_path(s, g), d[(g.y * w + g.x) as usize]) {
                        (Ok(p), Some(best)) => {
                            assert_valid(&grid, s, g, &p);
                            assert!(p.length >= best - 1e-9, "shorter than optimal");
                            if mode.clusters.is_none() {
                                assert!(
                                    (p.length - best).abs() < 1e-6,
                                    "round {round}: exact {} vs {best}",
                                    p.length
                                );
                            }
                        }
                        (Err(quadpath::QueryError::Unreachable { .. }), None) => {}
                        (r, want) => {
                            panic!("round {round} step {step}: {s}->{g}: {r:?} vs {want:?}")
                        }
                    }
                }
            }
        }
    }
    // The tiny-cluster rounds must really exercise the clustered search.
    assert!(
        clustered_rounds >= ROUNDS / 4,
        "only {clustered_rounds} rounds were clustered"
    );
}
