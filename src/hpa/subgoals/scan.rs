//! The two walks over the grid that the subgoal graph is made of: the *cone scan* from a
//! cell, which finds the subgoals it reaches directly (its edges), and the *reverse walk*
//! from a changed cell, which finds the subgoals whose cone scan read it (the edges an
//! edit may have changed).

use super::SubgoalGraph;
use crate::geom::Cell;
use crate::grid::Grid;

/// The four axis directions.
pub(super) const AXES: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
/// The four diagonal directions.
pub(super) const DIAGONALS: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// What a cone scan reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reached {
    /// A subgoal, reached directly.
    Subgoal(Cell),
    /// The scan's target cell, reached directly (a query's goal, seen from its start).
    Target,
}

/// The index in [`AXES`] of an axis direction.
fn axis_index(d: (i32, i32)) -> usize {
    AXES.iter()
        .position(|&a| a == d)
        .expect("an axis direction")
}

/// `c` moved `k` steps along `d`, if that stays on the grid.
#[inline]
pub(super) fn offset(grid: &Grid, c: Cell, d: (i32, i32), k: i64) -> Option<Cell> {
    let (x, y) = (c.x as i64 + d.0 as i64 * k, c.y as i64 + d.1 as i64 * k);
    grid.contains_at(x, y)
        .then(|| Cell::new(x as u32, y as u32))
}

/// Whether the diagonal step from `c` along `d` is legal: target free, no corner cut.
#[inline]
pub(super) fn diagonal_step_ok(grid: &Grid, c: Cell, (dx, dy): (i32, i32)) -> bool {
    let (x, y) = (c.x as i64, c.y as i64);
    grid.is_free_at(x + dx as i64, y + dy as i64)
        && grid.is_free_at(x + dx as i64, y)
        && grid.is_free_at(x, y + dy as i64)
}

impl SubgoalGraph {
    /// The cone scan from free cell `from`: reports every subgoal it reaches directly, and
    /// [`Reached::Target`] when `target` lies in the cone.
    ///
    /// The scan first runs straight along the four axes to the first stop (blocked cell,
    /// subgoal or the map's edge). Then for each diagonal it steps along the diagonal while
    /// the steps are legal and the cells not subgoals, and from each diagonal cell runs
    /// straight along the diagonal's two axis components, each no farther than the same
    /// axis's run from the previous diagonal cell reached. A cell reached at `i` diagonal
    /// steps and `j` straight ones therefore has every cell `i' ≤ i` diagonal and `j' ≤ j`
    /// straight steps away free and no subgoal (the *parallelogram* between the two
    /// cells), except that a run may end on a subgoal at the previous run's length.
    /// Subgoals where runs stop are reported; the scan never passes through one.
    pub(crate) fn reach(
        &self,
        grid: &Grid,
        from: Cell,
        target: Option<Cell>,
        mut found: impl FnMut(Reached),
    ) {
        let mut first = [0u32; 4];
        for (i, &axis) in AXES.iter().enumerate() {
            first[i] = self.run(grid, from, axis, u32::MAX, target, &mut found);
        }
        for d in DIAGONALS {
            let (h, v) = ((d.0, 0), (0, d.1));
            let (mut lh, mut lv) = (first[axis_index(h)], first[axis_index(v)]);
            let mut p = from;
            while diagonal_step_ok(grid, p, d) {
                p = Cell::new(
                    (p.x as i64 + d.0 as i64) as u32,
                    (p.y as i64 + d.1 as i64) as u32,
                );
                if target == Some(p) {
                    found(Reached::Target);
                }
                if self.is_subgoal(p) {
                    found(Reached::Subgoal(p));
                    break;
                }
                lh = self.run(grid, p, h, lh, target, &mut found);
                lv = self.run(grid, p, v, lv, target, &mut found);
            }
        }
    }

    /// One straight run of [`SubgoalGraph::reach`] from `p` along `axis`, at most `limit`
    /// steps. Reports a subgoal where it stops and the target when it passes it; returns
    /// the limit for the next run along this axis: the run's free length, or its length to
    /// a subgoal it stopped on.
    #[inline]
    fn run(
        &self,
        grid: &Grid,
        p: Cell,
        axis: (i32, i32),
        limit: u32,
        target: Option<Cell>,
        found: &mut impl FnMut(Reached),
    ) -> u32 {
        let stop = self.lines.first_stop(p.x, p.y, axis, limit);
        let reach = match stop {
            Some(k) => {
                let q = offset(grid, p, axis, k as i64);
                if q.is_some_and(|q| self.is_subgoal(q)) {
                    found(Reached::Subgoal(q.expect("on the map")));
                    k
                } else {
                    k - 1
                }
            }
            None => limit,
        };
        if let Some(t) = target {
            let free_len = stop.map_or(limit, |k| k - 1);
            let (dx, dy) = (t.x as i64 - p.x as i64, t.y as i64 - p.y as i64);
            let along = dx * axis.0 as i64 + dy * axis.1 as i64;
            let aligned = if axis.0 == 0 { dx == 0 } else { dy == 0 };
            if aligned && along >= 1 && along <= free_len as i64 {
                found(Reached::Target);
            }
        }
        reach
    }

    /// The subgoals whose cone scan may read cell `x`: those from which `x` lies on a
    /// diagonal walk (as a step's target or beside a step), on a straight run, or where a
    /// run stops. Walks back from `x` along each axis over free cells that are not
    /// subgoals, and from each such cell `y_k`, `k` steps before `x` (and from `x`
    /// itself), back along the diagonals over the same: a subgoal met on the way is
    /// reported and ends that walk.
    ///
    /// The diagonal walks form a staircase: the walk from `y_(k+1)` goes no deeper than
    /// the walk from `y_k` did. A scan's runs along one axis never grow, so a scan whose
    /// run from `y_(k+1)` reaches `x` ran at least `k + 1` steps from every diagonal cell
    /// `z` before `y_(k+1)`, over `z + axis`: the cell the walk from `y_k` passes at the
    /// same depth. Where that walk stopped (a blocked cell, a subgoal, a diagonal step
    /// that would cut a corner, which means `z + 2·axis` is blocked, or its own staircase)
    /// no such run from `z` exists. The diagonal steps of these walks are checked against
    /// corner cutting too. Every cell these rules read, a reader's scan reads before `x`;
    /// where `x` is the first cell it reads differently after an edit, they read the same
    /// as before, so the current grid decides. The result is still a superset of the true
    /// readers.
    pub(super) fn readers(&self, grid: &Grid, x: Cell, mut found: impl FnMut(Cell)) {
        for d in DIAGONALS {
            // The step into `x` reads `x` itself: no corner check there.
            self.walk_back(grid, x, d, (u32::MAX, false), &mut found);
        }
        for axis in AXES {
            let diagonals = DIAGONALS.map(|d| (d.0 == axis.0 || d.1 == axis.1).then_some(d));
            // How deep the last walk along each diagonal went: the next one's limit.
            let mut depth = [u32::MAX; 4];
            let mut k = 1;
            while let Some(y) = offset(grid, x, axis, -k) {
                if !grid.is_free(y) {
                    break;
                }
                if self.is_subgoal(y) {
                    found(y);
                    break;
                }
                for (limit, d) in depth.iter_mut().zip(diagonals) {
                    if let Some(d) = d {
                        *limit = self.walk_back(grid, y, d, (*limit, true), &mut found);
                    }
                }
                k += 1;
            }
        }
    }

    /// Walks back from `y` against diagonal `d` over free cells, fewer than `limit` steps,
    /// checking each step against corner cutting when `checked`; reports the first subgoal
    /// met. Returns the depth at which the walk stopped.
    fn walk_back(
        &self,
        grid: &Grid,
        y: Cell,
        d: (i32, i32),
        (limit, checked): (u32, bool),
        found: &mut impl FnMut(Cell),
    ) -> u32 {
        let mut k = 1;
        while k < limit {
            let Some(z) = offset(grid, y, d, -(k as i64)) else {
                return k;
            };
            if !grid.is_free(z) || (checked && !diagonal_step_ok(grid, z, d)) {
                return k;
            }
            if self.is_subgoal(z) {
                found(z);
                return k;
            }
            k += 1;
        }
        k
    }
}
