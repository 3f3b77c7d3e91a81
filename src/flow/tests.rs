//! Sliced and bounded builds against an independent Dijkstra over the grid's legal steps.

use super::FlowGoal;
use crate::geom::{Cell, Direction, Rect};
use crate::grid::movement::octile;
use crate::grid::Grid;
use crate::hpa::{HpaMap, Mode};
use proptest::prelude::*;
use std::collections::BinaryHeap;

/// Every cell's distance to the free cells of `goal` (unit costs), by a plain Dijkstra.
pub(crate) fn oracle(grid: &Grid, goal: Rect) -> Vec<Option<f64>> {
    let w = grid.width();
    let mut dist: Vec<Option<f64>> = vec![None; (w * grid.height()) as usize];
    // Keys negated and scaled for a max-heap of integers.
    let mut heap = BinaryHeap::new();
    for c in goal.cells().filter(|&c| grid.is_free(c)) {
        heap.push((0i64, c.x, c.y));
    }
    while let Some((key, x, y)) = heap.pop() {
        let c = Cell::new(x, y);
        let i = (y * w + x) as usize;
        if dist[i].is_some() {
            continue;
        }
        let d = -key as f64 / 1e9;
        dist[i] = Some(d);
        for dir in Direction::ALL {
            if grid.can_step(c, dir) {
                let n = c.step(dir).expect("a legal step stays on the map");
                if dist[(n.y * w + n.x) as usize].is_none() {
                    let nd = d + octile(c, n);
                    heap.push((-(nd * 1e9).round() as i64, n.x, n.y));
                }
            }
        }
    }
    dist
}

/// A small deterministic generator of the test maps (xorshift from `seed`).
fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut rng = seed | 1;
    move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    }
}

/// A `w × h` map with rocks and a wall with one gap, from `seed`.
pub(crate) fn grid(seed: u64, w: u32, h: u32) -> Grid {
    let mut next = xorshift(seed);
    let mut grid = Grid::new_free(w, h);
    for _ in 0..(w * h / 5) {
        let c = Cell::new((next() % w as u64) as u32, (next() % h as u64) as u32);
        grid.set_blocked(c, true);
    }
    let gap = (next() % h as u64) as u32;
    for y in (0..h).filter(|&y| y != gap) {
        grid.set_blocked(Cell::new(w / 2, y), true);
    }
    grid
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A build paused every `slice` nodes gives the distances of Dijkstra everywhere; a
    /// bounded one gives them on every position it covers and along every walk from a
    /// target, and its walks are optimal routes.
    #[test]
    fn sliced_and_bounded_builds_match_dijkstra(
        seed in any::<u64>(),
        fast in any::<bool>(),
        slice in 1usize..40,
        targets in proptest::collection::vec((0u32..28, 0u32..20), 1..5),
    ) {
        let (w, h) = (28, 20);
        let g = grid(seed, w, h);
        let mode = if fast { Mode::Fast } else { Mode::Exact };
        let map = HpaMap::new(g.clone(), mode).unwrap();
        let goal_cell = Cell::new((seed % w as u64) as u32, (seed / 7 % h as u64) as u32);
        let goal = Rect::new(goal_cell.x, goal_cell.y, (goal_cell.x + 1).min(w - 1), goal_cell.y);
        let truth = oracle(&g, goal);
        let Ok(mut whole) = map.start_flow_field(FlowGoal::Area(goal)) else {
            prop_assert!(goal.cells().all(|c| !g.is_free(c)), "an open goal refused");
            return Ok(());
        };
        let mut bounded = map.start_flow_field(FlowGoal::Area(goal)).unwrap();
        let targets: Vec<Cell> = targets.into_iter().map(|(x, y)| Cell::new(x, y)).collect();
        for &t in &targets {
            let reaches = g.is_free(t) && truth[(t.y * w + t.x) as usize].is_some();
            if reaches {
                bounded.target(&map, t);
            }
        }
        for build in [&mut whole, &mut bounded] {
            while !build.is_finished() {
                prop_assert!(build.step(&map, slice) <= slice);
            }
        }
        let (whole, bounded) = (whole.finish(&map), bounded.finish(&map));
        for c in g.free_cells() {
            let want = truth[(c.y * w + c.x) as usize];
            let got = whole.distance(&map, c).unwrap();
            prop_assert!(whole.covers(&map, c));
            match (got, want) {
                (Some(a), Some(b)) => prop_assert!((a - b).abs() < 1e-6, "{c}: {a} vs {b}"),
                (a, b) => prop_assert_eq!(a, b, "{}", c),
            }
            if bounded.covers(&map, c) {
                if let (Some(a), Some(b)) = (bounded.distance(&map, c).unwrap(), want) {
                    prop_assert!((a - b).abs() < 1e-6, "bounded, {c}: {a} vs {b}");
                }
            }
        }
        for &t in &targets {
            let Some(d) = truth.get((t.y * w + t.x) as usize).copied().flatten() else {
                continue;
            };
            if !g.is_free(t) {
                continue;
            }
            prop_assert!(bounded.covers(&map, t), "target {t} not covered");
            let mut cells = vec![t];
            while !bounded.walk(&map, &mut cells, slice).0 {}
            let end = *cells.last().unwrap();
            prop_assert!(goal.contains(end), "the walk from {t} ends at {end}");
            let length: f64 = cells.windows(2).map(|s| octile(s[0], s[1])).sum();
            prop_assert!((length - d).abs() < 1e-6, "walk from {t}: {length}, optimum {d}");
            for s in cells.windows(2) {
                let dir = Direction::between(s[0], s[1]);
                prop_assert!(dir.is_some_and(|dir| g.can_step(s[0], dir)), "{} -> {}", s[0], s[1]);
            }
        }
    }
}

/// A map with leaves of more than [`SLICED_LEAF_CELLS`](super::field::SLICED_LEAF_CELLS)
/// cells: open ground with a wall down column `wall` (one gap at row `gap`) and a few
/// blocked cells in a band along the bottom; with the wall right of column 127, the
/// square of 128² cells at the top left is one free leaf.
fn open_ground(seed: u64, w: u32, h: u32, wall: u32, gap: u32) -> Grid {
    let mut next = xorshift(seed);
    let mut grid = Grid::new_free(w, h);
    for _ in 0..w {
        let c = Cell::new((next() % w as u64) as u32, h - 1 - (next() % 12) as u32);
        grid.set_blocked(c, true);
    }
    for y in (0..h).filter(|&y| y != gap) {
        grid.set_blocked(Cell::new(wall, y), true);
    }
    grid
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Walks that leave large leaves' tables to `prepare`, a few rows at a time, follow
    /// routes as long as Dijkstra's: `prepare` works on about `slice` cells a call (whole
    /// rows), a walk never sweeps a large leaf itself, and the tables it left agree with
    /// Dijkstra everywhere.
    #[test]
    fn large_leaves_prepared_in_slices_walk_as_dijkstra(
        seed in any::<u64>(),
        slice in 1usize..3000,
        wall in 128u32..168,
        gap in 0u32..140,
        starts in proptest::collection::vec((0u32..170, 0u32..140), 1..4),
        goal in (0u32..170, 0u32..140),
    ) {
        use super::field::SLICED_LEAF_CELLS;
        let (w, h) = (170, 140);
        let g = open_ground(seed, w, h, wall, gap);
        let map = HpaMap::new(g.clone(), Mode::Exact).unwrap();
        let goal = Rect::new(goal.0, goal.1, goal.0, goal.1);
        let truth = oracle(&g, goal);
        let Ok(mut field) = map.flow_field(FlowGoal::Area(goal)) else {
            prop_assert!(!g.is_free(Cell::new(goal.x1, goal.y1)), "an open goal refused");
            return Ok(());
        };
        // The top-left leaf is over the threshold: its table takes three passes over each
        // cell, worked out over several calls of a small slice.
        let inside = Cell::new(64, 64);
        let leaf = map.gate_graph().leaf_rect(map.free_leaf_at(inside).unwrap());
        prop_assert!(leaf.area() as usize > SLICED_LEAF_CELLS, "{leaf:?}");
        let mut fresh = map.flow_field(FlowGoal::Area(goal)).unwrap();
        let (mut calls, mut total) = (0, 0);
        loop {
            let (ready, worked) = fresh.prepare(&map, inside, slice);
            prop_assert!(worked < slice + 4 * w as usize, "{worked} cells for {slice}");
            calls += 1;
            total += worked;
            if ready {
                break;
            }
        }
        prop_assert!(total >= 3 * leaf.area() as usize, "{total} cells worked on for {leaf:?}");
        prop_assert!(calls >= total / (slice + 4 * w as usize), "{calls} calls of {slice} cells");
        for (x, y) in starts {
            let start = Cell::new(x, y);
            let Some(d) = g.is_free(start).then(|| truth[(y * w + x) as usize]).flatten() else {
                continue;
            };
            let mut cells = vec![start];
            loop {
                let here = *cells.last().unwrap();
                let (ready, worked) = field.prepare(&map, here, slice);
                // Whole rows (at most `w` cells) or a leaf's gates (at most its outline).
                prop_assert!(worked < slice + 4 * w as usize, "{worked} cells for {slice}");
                if !ready {
                    prop_assert!(worked > 0, "no progress");
                    continue;
                }
                let large_before = field.large_tables(&map);
                let (done, swept) = field.walk(&map, &mut cells, 50);
                // The walk works out no large leaf itself; it may work out small ones, as
                // many as the step that stopped it read (its cell and up to eight
                // neighbours, each maybe in another leaf: seed 10860 found a step that
                // swept two leaves of 4,480 cells in all).
                prop_assert_eq!(field.large_tables(&map), large_before, "a walk swept a large leaf");
                prop_assert!(swept <= 9 * SLICED_LEAF_CELLS, "a walk swept {swept} cells itself");
                if done {
                    break;
                }
            }
            prop_assert!(goal.contains(*cells.last().unwrap()));
            let length: f64 = cells.windows(2).map(|s| octile(s[0], s[1])).sum();
            prop_assert!((length - d).abs() < 1e-6, "walk from {start}: {length}, optimum {d}");
            for s in cells.windows(2) {
                let dir = Direction::between(s[0], s[1]);
                prop_assert!(dir.is_some_and(|dir| g.can_step(s[0], dir)), "{} -> {}", s[0], s[1]);
            }
        }
        for c in g.free_cells() {
            let want = truth[(c.y * w + c.x) as usize];
            match (field.distance(&map, c).unwrap(), want) {
                (Some(a), Some(b)) => prop_assert!((a - b).abs() < 1e-6, "{c}: {a} vs {b}"),
                (a, b) => prop_assert_eq!(a, b, "{}", c),
            }
        }
    }
}
