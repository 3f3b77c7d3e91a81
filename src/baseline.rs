//! Plain grid A\* from the `pathfinding` crate: the baseline quadpath is measured against.

use crate::geom::{Cell, Direction};
use crate::grid::movement::{fixed_point_step_cost, octile, FIXED_POINT_SCALE};
use crate::grid::Grid;
use crate::hpa::Path;

/// The optimal path from `start` to `goal` by `pathfinding::astar` over the flat grid,
/// with octile successors and no corner cutting (costs in fixed point, since `astar` needs
/// a totally ordered integer cost); `None` when the goal is unreachable or
/// either end is blocked.
pub fn astar(grid: &Grid, start: Cell, goal: Cell) -> Option<Path> {
    if !grid.is_free(start) || !grid.is_free(goal) {
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
                    (n, fixed_point_step_cost(d))
                })
        },
        |&c| (octile(c, goal) * FIXED_POINT_SCALE) as u64,
        |&c| c == goal,
    )?;
    Some(Path::from_cells(cells))
}
