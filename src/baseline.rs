//! Plain grid A\* from the `pathfinding` crate: the baseline quadpath is measured against.

use crate::geom::{Cell, Direction};
use crate::grid::movement::{fixed_point_step_cost, octile, FIXED_POINT_SCALE};
use crate::grid::{Grid, TerrainCosts};
use crate::hpa::Path;

/// The optimal path from `start` to `goal` by `pathfinding::astar` over the flat grid,
/// with octile successors and no corner cutting (costs in fixed point, since `astar` needs
/// a totally ordered integer cost); `None` when the goal is unreachable or
/// either end is blocked.
///
/// ```
/// use quadpath::{baseline, Cell, Grid};
/// let grid = Grid::from_fn(8, 8, |x, y| x != 4 || y == 7);
/// let path = baseline::astar(&grid, Cell::new(0, 0), Cell::new(7, 0)).unwrap();
/// assert!(path.length > 7.0);
/// ```
pub fn astar(grid: &Grid, start: Cell, goal: Cell) -> Option<Path> {
    let cells = grid_astar(
        grid,
        (start, goal),
        |_, _, d| fixed_point_step_cost(d),
        |c| (octile(c, goal) * FIXED_POINT_SCALE) as u64,
    )?;
    Some(Path::from_cells(cells))
}

/// `pathfinding::astar` over the legal steps of `grid` from `start` to `goal`, a step from
/// `a` to `b` in direction `d` costing `step(a, b, d)` and `h` bounding the rest; `None`
/// when an end is blocked or the goal unreachable.
fn grid_astar<C>(
    grid: &Grid,
    (start, goal): (Cell, Cell),
    step: impl Fn(Cell, Cell, Direction) -> C,
    h: impl Fn(Cell) -> C,
) -> Option<Vec<Cell>>
where
    C: pathfinding::num_traits::Zero + Ord + Copy,
{
    if !grid.is_free(start) || !grid.is_free(goal) {
        return None;
    }
    let step = &step;
    let successors = |&c: &Cell| {
        Direction::ALL
            .into_iter()
            .filter(move |&d| grid.can_step(c, d))
            .map(move |d| {
                let n = c.step(d).expect("a legal step stays on the grid");
                (n, step(c, n, d))
            })
    };
    let (cells, _) = pathfinding::prelude::astar(&start, successors, |c| h(*c), |&c| c == goal)?;
    Some(cells)
}

/// Fixed-point units per unit of cost for [`astar_with_costs`]: fine enough that rounding
/// stays far below 1e-3 over any path, coarse enough that a path of millions of steps at
/// the largest terrain cost fits in a `u128`.
const WEIGHTED_SCALE: f64 = (1u64 << 40) as f64;

/// [`astar`] under terrain costs: each step costs its length times the mean of its two
/// cells' costs ([the model](crate::Movement#the-model)), and the heuristic is the octile
/// distance times the smallest cost of a passable code, rounded down so that it stays a
/// lower bound in fixed point. The reference the command line's `scen` and `bench` measure
/// weighted searches against.
///
/// ```
/// use quadpath::{baseline, Cell, Grid, TerrainCosts};
/// // A road along the bottom row: the way round it is cheaper than the straight line.
/// let mut grid = Grid::new_free(9, 3);
/// for x in 0..9 {
///     grid.set_terrain(Cell::new(x, 2), b'G');
/// }
/// let costs: TerrainCosts = "G=0.25".parse()?;
/// let path = baseline::astar_with_costs(&grid, &costs, Cell::new(0, 0), Cell::new(8, 0)).unwrap();
/// assert!(path.cells.contains(&Cell::new(4, 2)) && path.cost < 8.0);
/// # Ok::<(), quadpath::CostError>(())
/// ```
pub fn astar_with_costs(
    grid: &Grid,
    costs: &TerrainCosts,
    start: Cell,
    goal: Cell,
) -> Option<Path> {
    let floor = costs.min_over(grid.passable()) as f64;
    let cells = grid_astar(
        grid,
        (start, goal),
        |a, b, _| (costs.cost_between(grid, a, b) * WEIGHTED_SCALE).round() as u128,
        // Rounded down, and a few units under: each step's rounding moves a path's total
        // by at most half a unit (2^-41 of a cell), so the search stays optimal far below
        // any tolerance a caller compares with.
        |c| ((octile(c, goal) * floor * WEIGHTED_SCALE) as u128).saturating_sub(64),
    )?;
    Some(Path::from_cells_with_costs(cells, grid, costs))
}
