//! Plain grid A\* from the `pathfinding` crate: the baseline quadpath is measured against.

use crate::geom::{octile, Cell, Direction};
use crate::grid::Grid;
use crate::hpa::Path;

/// Fixed-point scale for path costs: `pathfinding::astar` needs a totally ordered integer
/// cost, and at 2^32 per unit the rounding of √2 stays far below the 1e-3 tolerance over any
/// path that fits in a grid.
const SCALE: f64 = (1u64 << 32) as f64;
const STRAIGHT: u64 = 1 << 32;
const DIAGONAL: u64 = (std::f64::consts::SQRT_2 * SCALE) as u64;

/// The optimal path from `start` to `goal` by `pathfinding::astar` over the flat grid,
/// with octile successors and no corner cutting; `None` when the goal is unreachable or
/// either end is blocked.
pub fn astar(grid: &Grid, start: Cell, goal: Cell) -> Option<Path> {
    if !grid.is_free(start.x, start.y) || !grid.is_free(goal.x, goal.y) {
        return None;
    }
    let (cells, _) = pathfinding::prelude::astar(
        &start,
        |&c| {
            Direction::ALL
                .into_iter()
                .filter(move |&d| grid.can_step(c, d))
                .map(move |d| {
                    let n = c.step(d).expect("a legal step stays on the grid");
                    (n, if d.is_diagonal() { DIAGONAL } else { STRAIGHT })
                })
        },
        |&c| (octile(c, goal) * SCALE) as u64,
        |&c| c == goal,
    )?;
    Some(Path::from_cells(cells))
}
