//! Property tests of `HpaMap::find_corners` on random maps, against Dijkstra
//! (`common::distances`) and the cell paths of `HpaMap::find_path`:
//! - it fails exactly when `find_path` fails, with the same error;
//! - written out (`Corners::cells`), its route is a legal path from start to goal whose length
//!   is the corners' claimed length, and at unit costs the claimed cost is that length;
//! - no point repeats the one before it, and no point lies inside one straight or diagonal
//!   run of its neighbours (they are corners);
//! - with every crossing a gate and no clusters (exact mode) its cells are exactly
//!   `find_path`'s and its length is Dijkstra's; with clusters (fast mode) it is never shorter
//!   than `find_path`'s path, which may also cut loops out;
//! - over the subgoal graph (exact mode on these maps of one cost), every piece of a route
//!   with a bend is one straight or diagonal run: each hop's bend is written out (only the
//!   one-leaf straight line, two points, may be neither). Leaving out a hop's bend fails
//!   this and nothing else (the straightest line between two subgoals that reach each
//!   other is free and as long).

use super::hpa_props::grid_strategy;
use crate::common::*;
use proptest::prelude::*;
use quadpath::{Cell, Config, HpaMap, Path};

/// The heading of the straight or diagonal run from `p` to `q`, if they are on one.
fn heading(p: Cell, q: Cell) -> Option<(i64, i64)> {
    let (dx, dy) = (q.x as i64 - p.x as i64, q.y as i64 - p.y as i64);
    let on_run = (dx == 0) != (dy == 0) || (dx != 0 && dx.abs() == dy.abs());
    on_run.then(|| (dx.signum(), dy.signum()))
}

/// Whether `b` lies inside one straight or diagonal run from `a` to `c`.
fn inside_run(a: Cell, b: Cell, c: Cell) -> bool {
    heading(a, b).is_some() && heading(a, b) == heading(b, c)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn corners_follow_the_cell_path(
        grid in grid_strategy(40),
        which in 0usize..3,
        seed in any::<u64>(),
    ) {
        let (exact, config) = match which {
            0 => (true, Config::exact()),
            1 => (false, Config::fast()),
            _ => (false, tiny_clusters(3)),
        };
        let map = HpaMap::new(grid.clone(), config).unwrap();
        let (w, h) = (grid.width() as u64, grid.height() as u64);
        let mut rng = Rng(seed | 1);
        for _ in 0..12 {
            let s = Cell::new(rng.below(w) as u32, rng.below(h) as u32);
            let g = Cell::new(rng.below(w) as u32, rng.below(h) as u32);
            let cells = map.find_path(s, g);
            let corners = map.find_corners(s, g);
            let (path, corners) = match (cells, corners) {
                (Err(a), Err(b)) => {
                    prop_assert_eq!(a, b);
                    continue;
                }
                (Ok(path), Ok(corners)) => (path, corners),
                (a, b) => {
                    prop_assert!(false, "{s} -> {g}: find_path {a:?}, find_corners {b:?}");
                    unreachable!()
                }
            };
            let route = Path::from_cells(corners.cells());
            assert_valid(&grid, s, g, &route);
            // One summation for both (`octile_length`): the very same bits.
            prop_assert_eq!(route.length.to_bits(), corners.length.to_bits());
            prop_assert_eq!(corners.cost, corners.length);
            for p in corners.points.windows(2) {
                prop_assert!(p[0] != p[1], "repeated point {}", p[0]);
            }
            for p in corners.points.windows(3) {
                prop_assert!(!inside_run(p[0], p[1], p[2]), "{} is no corner", p[1]);
            }
            if exact {
                if corners.points.len() > 2 {
                    for p in corners.points.windows(2) {
                        prop_assert!(heading(p[0], p[1]).is_some(), "{s} -> {g}: {} to {} is no run", p[0], p[1]);
                    }
                }
                prop_assert_eq!(&route.cells, &path.cells);
                let optimal = distances(&grid, s)[(g.y * grid.width() + g.x) as usize];
                prop_assert!(optimal.is_some_and(|d| (d - corners.length).abs() < 1e-6),
                    "{s} -> {g}: corners {} vs Dijkstra {optimal:?}", corners.length);
            } else {
                prop_assert!(corners.length >= path.length - 1e-9);
            }
        }
    }
}
