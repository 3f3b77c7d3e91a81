//! Property tests of the subgoal search's taut-path pruning (`hpa::subgoals::taut`): a
//! subgoal relaxes only the hops after which the route may still be shortest, judged
//! from the hop it was entered by and its blocked diagonal neighbours.
//!
//! On maps built to stress the rule, every query's length equals Dijkstra's
//! (`common::distances`), its corner points give the same route, and `Unreachable` comes
//! exactly when Dijkstra finds no path. Queries start on subgoals (found here from the
//! definition, not from the library) as well as on plain cells, and run to every free
//! cell (subgoals among them), over the levels and again without them (an edit drops
//! them):
//! - *corridors*: rooms in a lattice of walls one cell thick with doors one to three cells
//!   wide, where routes turn at the jambs;
//! - *pillar fields*: single blocked cells on a lattice of step 2–5, some missing, where
//!   many routes of equal length turn at many corners;
//! - *staircases*: diagonal walls with gaps, where hops meet at 45° and 90°;
//! - random bars, as in `subgoal_props.rs`.
//!
//! A rule that prunes one hop too many fails them: dropping the corner exception of the
//! 90° straight turn, or allowing only straight routes through a subgoal, makes paths
//! longer than Dijkstra's. Weighted searches (fast mode at 1, 5 and 100 %) prune too and
//! must keep their bound on the same maps; a closed subgoal that is not taken again for the
//! hops a new sector allows makes them fail.

use crate::common::*;
use proptest::prelude::*;
use quadpath::{Cell, Config, Grid, HpaMap, QueryError};

/// A structured grid of one of four kinds (see the module docs).
fn structured_grid() -> impl Strategy<Value = Grid> {
    (0u32..4, 6u32..=40, 6u32..=40, any::<u64>()).prop_map(|(kind, w, h, seed)| {
        let mut rng = Rng(seed | 1);
        let mut blocked = vec![false; (w * h) as usize];
        let mut block = |x: u32, y: u32| {
            if x < w && y < h {
                blocked[(y * w + x) as usize] = true;
            }
        };
        match kind {
            0 => {
                // Rooms: walls every `step` cells, each wall segment with a door.
                let step = 3 + rng.below(6) as u32;
                for y in 0..h {
                    for x in 0..w {
                        if x % step == step - 1 || y % step == step - 1 {
                            block(x, y);
                        }
                    }
                }
                let doors = (w / step + 1) * (h / step + 1) * 2;
                for _ in 0..doors {
                    let (rx, ry) = (rng.below(w as u64) as u32, rng.below(h as u64) as u32);
                    let wide = 1 + rng.below(3) as u32;
                    let across = rng.below(2) == 0;
                    for k in 0..wide {
                        let (x, y) = if across {
                            (rx + k, (ry / step) * step + step - 1)
                        } else {
                            ((rx / step) * step + step - 1, ry + k)
                        };
                        if x < w && y < h {
                            blocked[(y * w + x) as usize] = false;
                        }
                    }
                }
            }
            1 => {
                // Pillars on a lattice, a fifth of them missing.
                let (sx, sy) = (2 + rng.below(4) as u32, 2 + rng.below(4) as u32);
                let (ox, oy) = (rng.below(sx as u64) as u32, rng.below(sy as u64) as u32);
                for y in (oy..h).step_by(sy as usize) {
                    for x in (ox..w).step_by(sx as usize) {
                        if rng.below(5) != 0 {
                            block(x, y);
                        }
                    }
                }
            }
            2 => {
                // Staircases: diagonal walls, either way, with gaps.
                let step = 4 + rng.below(6) as u32;
                let rising = rng.below(2) == 0;
                for y in 0..h {
                    for x in 0..w {
                        let along = if rising { x + y } else { x + h - y };
                        if along % step == 0 && rng.below(6) != 0 {
                            block(x, y);
                        }
                    }
                }
            }
            _ => {
                // Bars of one to four cells at up to 30 % density.
                let density = rng.below(31);
                for i in 0..(w * h) {
                    if rng.below(100) < density / 2 {
                        let len = 1 + rng.below(4) as u32;
                        let across = rng.below(2) == 0;
                        for k in 0..len {
                            let (x, y) = (i % w, i / w);
                            if across {
                                block(x + k, y)
                            } else {
                                block(x, y + k)
                            }
                        }
                    }
                }
            }
        }
        Grid::from_fn(w, h, |x, y| !blocked[(y * w + x) as usize])
    })
}

/// The subgoals of `grid` by their definition: free cells diagonal to a blocked cell whose
/// two cells beside the diagonal are free.
fn subgoal_cells(grid: &Grid) -> Vec<Cell> {
    let free = |x: i64, y: i64| free_at(grid, x, y);
    grid.free_cells()
        .filter(|c| {
            let (x, y) = (c.x as i64, c.y as i64);
            [(1, 1), (1, -1), (-1, 1), (-1, -1)]
                .iter()
                .any(|&(dx, dy)| {
                    inside(grid, x + dx, y + dy)
                        && !free(x + dx, y + dy)
                        && free(x + dx, y)
                        && free(x, y + dy)
                })
        })
        .collect()
}

/// Checks the queries from `starts` to every free cell of `map` against Dijkstra: each
/// path valid, at least Dijkstra's length and at most `weight` times it (1: exact), and
/// `Unreachable` exactly when Dijkstra finds no path; an exact layer's corner points give
/// the same route as its cells.
fn check_from(
    map: &HpaMap,
    starts: &[Cell],
    weight: f64,
    context: &str,
) -> Result<(), TestCaseError> {
    let grid = map.grid();
    let free: Vec<Cell> = grid.free_cells().collect();
    for &start in starts {
        let dist = distances(grid, start);
        for &goal in &free {
            let want = dist[(goal.y * grid.width() + goal.x) as usize];
            match (map.find_path(start, goal), want) {
                (Ok(path), Some(d)) => {
                    assert_valid(grid, start, goal, &path);
                    prop_assert!(
                        path.length >= d - 1e-6 && path.length <= weight * d + 1e-6,
                        "{}: {} -> {}: length {} but Dijkstra says {} (weight {})",
                        context,
                        start,
                        goal,
                        path.length,
                        d,
                        weight
                    );
                    if weight == 1.0 {
                        let corners = map.find_corners(start, goal).expect("a path exists");
                        prop_assert_eq!(corners.cells(), path.cells, "{}: corners", context);
                    }
                }
                (Err(QueryError::Unreachable { .. }), None) => {}
                (got, want) => prop_assert!(
                    false,
                    "{}: {} -> {}: {:?}, Dijkstra {:?}",
                    context,
                    start,
                    goal,
                    got,
                    want
                ),
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(250))]

    /// Weighted searches prune too (fast mode; a subgoal closed through a poor parent is
    /// taken again for the hops each new sector it is entered by allows): on the same
    /// structured maps their paths keep the weight's bound, with and without levels.
    #[test]
    fn pruned_weighted_searches_keep_their_bound(
        grid in structured_grid(), seed in any::<u64>(), percent in prop::sample::select(vec![1u32, 5, 100]),
    ) {
        let free: Vec<Cell> = grid.free_cells().collect();
        prop_assume!(!free.is_empty());
        let mut rng = Rng(seed | 1);
        let starts: Vec<Cell> = (0..4)
            .map(|_| free[rng.below(free.len() as u64) as usize])
            .collect();
        let config = Config::fast().with_subgoal_excess_percent(percent);
        let weight = 1.0 + percent as f64 / 100.0;
        let mut map = HpaMap::new(grid, config).unwrap();
        check_from(&map, &starts, weight, "with levels")?;
        let c = free[rng.below(free.len() as u64) as usize];
        map.set_blocked(c, true).unwrap();
        map.set_blocked(c, false).unwrap();
        check_from(&map, &starts, weight, "without levels")?;
    }

    /// Pruned subgoal searches are as short as Dijkstra's paths on structured maps, from
    /// subgoals and plain cells, over the levels and without them.
    #[test]
    fn pruned_searches_are_optimal(grid in structured_grid(), seed in any::<u64>()) {
        let free: Vec<Cell> = grid.free_cells().collect();
        prop_assume!(!free.is_empty());
        let subgoals = subgoal_cells(&grid);
        let mut rng = Rng(seed | 1);
        let mut starts: Vec<Cell> = (0..2)
            .map(|_| free[rng.below(free.len() as u64) as usize])
            .collect();
        if !subgoals.is_empty() {
            starts.extend((0..4).map(|_| subgoals[rng.below(subgoals.len() as u64) as usize]));
        }
        let mut map = HpaMap::new(grid, Config::exact()).unwrap();
        prop_assert!(map.subgoal_count() == subgoals.len(), "the definition's subgoals");
        check_from(&map, &starts, 1.0, "with levels")?;
        // Blocking a cell and freeing it again leaves the same grid without levels.
        let c = free[rng.below(free.len() as u64) as usize];
        map.set_blocked(c, true).unwrap();
        map.set_blocked(c, false).unwrap();
        prop_assert!(map.subgoal_count() == 0 || map.subgoal_levels_size().is_none());
        check_from(&map, &starts, 1.0, "without levels")?;
    }
}

/// A closed subgoal entered by a sector it had not been entered by is taken again for the
/// hops that sector allows (fast mode's retakes, see `SearchContext::pop_weighted`). On
/// this staircase map (61×70, found by the weighted property test above run on maps up to
/// 90 cells a side) a search at 100 % that left the retakes out closed a subgoal through a
/// poor route whose sector pruned the one hop onward, and answered `Unreachable` from
/// (8, 13) to (43, 0), which Dijkstra reaches in 68.3. Every free cell from that start and
/// two others must be reached within the bound, over the levels and without them.
#[test]
fn closed_subgoals_are_taken_again_for_new_sectors() {
    let grid = read_movingai(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/fast_retake_staircase.map"),
    );
    let starts = [Cell::new(8, 13), Cell::new(30, 35), Cell::new(55, 60)];
    for &start in &starts {
        assert!(grid.is_free(start), "{start} is free on the map");
    }
    let mut map = HpaMap::new(grid, Config::fast().with_subgoal_excess_percent(100)).unwrap();
    assert!(
        map.subgoal_levels_size().is_some(),
        "the failing search ran over the levels"
    );
    check_from(&map, &starts, 2.0, "with levels").unwrap();
    let c = Cell::new(0, 1);
    map.set_blocked(c, true).unwrap();
    map.set_blocked(c, false).unwrap();
    check_from(&map, &starts, 2.0, "without levels").unwrap();
}
