//! The two walks over the grid that the subgoal graph is made of: the *cone scan* from a
//! cell, which finds the subgoals it reaches directly (its edges), and the *reverse walk*
//! from a changed cell, which finds the subgoals whose cone scan read it (the edges an
//! edit may have changed).

use super::ids::Mark;
use super::taut::{sector_of, Sector};
use super::SubgoalGraph;
use crate::geom::Cell;
use crate::grid::movement::{DIAGONAL_COST, STRAIGHT_COST};
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

/// The hop from a cone scan's origin to a subgoal it reached, as the scan walked it:
/// `diagonal` diagonal steps, then `straight` straight ones, and the hop's sector (see
/// `taut.rs`). The scan knows all three where it finds the subgoal (its sector is a
/// constant of the walk and the run that found it), so a query reads them instead of
/// working them out again from the two cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hop {
    pub sector: Sector,
    pub diagonal: u32,
    pub straight: u32,
}

impl Hop {
    /// The hop's octile length: bit for bit `octile` of its two ends, whose larger
    /// coordinate difference is `diagonal + straight` and smaller one `diagonal`.
    #[inline]
    pub fn length(self) -> f64 {
        let hi = f64::from(self.diagonal + self.straight);
        let lo = f64::from(self.diagonal);
        hi * STRAIGHT_COST + (DIAGONAL_COST - STRAIGHT_COST) * lo
    }
}

/// What a query's cone scan reports ([`SubgoalGraph::reach_hops`]): [`Reached`] with, for
/// a subgoal, the hop to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sighting {
    /// A subgoal, reached directly by this hop, with its mark as the scan read it.
    Subgoal(Cell, Hop, Mark),
    /// The scan's target cell, reached directly.
    Target,
}

impl Sighting {
    /// What [`SubgoalGraph::reach`] reports of it.
    #[inline(always)]
    fn reached(self) -> Reached {
        match self {
            Sighting::Subgoal(c, ..) => Reached::Subgoal(c),
            Sighting::Target => Reached::Target,
        }
    }
}

/// A set of the parts of a cone scan that may each be scanned again alone: the first
/// straight run along each axis, and along each diagonal the runs of its walk along either
/// axis (a *series*; the walk itself is made with either). A subgoal a part finds lies on
/// that part's axis, or strictly inside its diagonal's quadrant, nearer that series' axis
/// than the diagonal (on the diagonal itself for the walk's own find, which both series
/// share), so where it lies tells which part found it ([`Parts::finding`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Parts(u16);

impl Parts {
    /// The whole scan.
    pub const ALL: Parts = Parts(0xfff);
    /// No part.
    pub const NONE: Parts = Parts(0);

    /// The walk along `DIAGONALS[q]` with both its series.
    fn diagonal(q: usize) -> Parts {
        Parts(0x11 << q)
    }

    /// The runs along `axis` of the walk along `DIAGONALS[q]` (with the walk).
    fn series(q: usize, axis: (i32, i32)) -> Parts {
        Parts(1 << (q + if axis.1 == 0 { 0 } else { 4 }))
    }

    /// The series with index `b` (see [`SeriesRead`]): the runs along the horizontal axis
    /// of the walk along `DIAGONALS[b]` for `b < 4`, along the vertical one of
    /// `DIAGONALS[b − 4]` for `b ≥ 4`.
    pub fn series_at(b: usize) -> Parts {
        Parts(1 << b)
    }

    /// Whether the series with index `b` may be rescanned from a later row of its walk
    /// (see [`SeriesRead`]): it is in `self` alone, without the other series of its walk
    /// (which would make it the whole walk) and without the first run along its axis
    /// (which limits it from its start).
    pub fn may_resume(self, b: usize) -> bool {
        let (q, horizontal) = (b % 4, b < 4);
        let d = DIAGONALS[q];
        let axis = if horizontal { (d.0, 0) } else { (0, d.1) };
        self.contains(Parts::series_at(b))
            && !self.contains(Parts::diagonal(q))
            && !self.has_axis(axis_index(axis))
    }

    /// The index of the one series `self` is, if it is one (see [`Parts::series_at`]).
    #[inline]
    pub fn single_series(self) -> Option<usize> {
        // One bit set, told without `count_ones` (no `popcnt` on baseline x86-64: a
        // dozen instructions for every previous find of every rescan).
        (self.0 != 0 && self.0 & (self.0 - 1) == 0 && self.0 < 0x100)
            .then(|| self.0.trailing_zeros() as usize)
    }

    /// Without the parts of `other`.
    pub fn without(self, other: Parts) -> Parts {
        Parts(self.0 & !other.0)
    }

    /// The first run along `AXES[i]`.
    fn axis(i: usize) -> Parts {
        Parts(1 << (8 + i))
    }

    /// The first run along `axis` with the series (`walks` false) or the whole walks
    /// (`walks` true) of the two diagonals whose runs along `axis` it limits.
    fn axis_and_walks(axis: (i32, i32), walks: bool) -> Parts {
        let mut parts = Parts::axis(axis_index(axis));
        for (q, d) in DIAGONALS.into_iter().enumerate() {
            if d.0 == axis.0 || d.1 == axis.1 {
                parts = parts
                    | if walks {
                        Parts::diagonal(q)
                    } else {
                        Parts::series(q, axis)
                    };
            }
        }
        parts
    }

    /// The part of a scan from `from` that reports a subgoal at `to`.
    #[inline]
    pub fn finding(from: Cell, to: Cell) -> Parts {
        let (dx, dy) = (to.x as i64 - from.x as i64, to.y as i64 - from.y as i64);
        // Indices in `DIAGONALS` and `AXES`, from the signs.
        let q = 2 * usize::from(dx < 0) + usize::from(dy < 0);
        match (dx == 0, dy == 0) {
            (false, false) if dx.abs() > dy.abs() => Parts::series(q, (1, 0)),
            (false, false) if dy.abs() > dx.abs() => Parts::series(q, (0, 1)),
            (false, false) => Parts::diagonal(q),
            (false, true) => Parts::axis(usize::from(dx < 0)),
            _ => Parts::axis(2 + usize::from(dy < 0)),
        }
    }

    /// Whether every part of `other` is in `self`.
    pub fn contains(self, other: Parts) -> bool {
        self.0 & other.0 == other.0
    }

    fn has_axis(self, i: usize) -> bool {
        self.contains(Parts::axis(i))
    }

    /// Whether `self` holds the series along `axis` of either diagonal beside it.
    fn has_series_along(self, axis: (i32, i32)) -> bool {
        DIAGONALS
            .into_iter()
            .enumerate()
            .any(|(q, d)| (d.0 == axis.0 || d.1 == axis.1) && self.has_series(q, axis))
    }

    /// Whether `self` holds the series of diagonal `q` along `axis`.
    fn has_series(self, q: usize, axis: (i32, i32)) -> bool {
        self.contains(Parts::series(q, axis))
    }
}

impl std::ops::BitOr for Parts {
    type Output = Parts;
    fn bitor(self, other: Parts) -> Parts {
        Parts(self.0 | other.0)
    }
}

/// Where a reader's series reads a changed cell `x`: on the run from the `row`-th cell
/// of its diagonal walk (`row ≥ 1`), `at` steps along it (`at ≥ 2`), the series having
/// index `series` (see [`Parts::series_at`]); `limit` is that run's limit.
///
/// [`SubgoalGraph::readers`] reports a series read only where the scan from the reader,
/// on the grid as it is now, provably walks to that row and reads the cell there: every
/// row before it has its first stop beyond `at` (the bounds of the reverse walk), so
/// every earlier run reached `at` at least, and the walk's steps are legal. The runs
/// before row `row` pass the cells `x − m·d` (`1 ≤ m ≤ row`, `d` the diagonal) at
/// `at` steps, so each one's reach is `at` plus how far a run from that cell along the
/// axis would reach (0 when the cell is a subgoal: the run stops on it); a run's limit is
/// the smallest reach of the runs before it, so `limit` is `at` plus the smallest of
/// those, all read from the stop bits as the grid is now. When `x` is the series'
/// first changed read, the rows before it read what they read before the edit and found
/// what they found, and the rescan resumes on row `row` with `limit`
/// (`SubgoalGraph::resume_series`). Reports of one series in the order of `(row, at)`
/// put its first changed read first: every report is a read, and the first changed read
/// is always reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct SeriesRead {
    pub row: u32,
    pub at: u32,
    pub limit: u32,
    pub series: u8,
}

impl SeriesRead {
    /// The row of the walk, counted from the reader `from`, on which the series with
    /// index `b` finds `found`.
    pub fn row_of(b: usize, from: Cell, found: Cell) -> u32 {
        if b < 4 {
            found.y.abs_diff(from.y)
        } else {
            found.x.abs_diff(from.x)
        }
    }

    /// How many rows along the walk of the series with index `b` (along diagonal `d`)
    /// cell `c` lies from `from`: its row when the series may read it, 0 when it lies
    /// behind `from` (no row of the walk reads it).
    pub fn rows_along(b: usize, d: (i32, i32), from: Cell, c: Cell) -> u32 {
        let ahead = if b < 4 {
            (i64::from(c.y) - i64::from(from.y)) * i64::from(d.1)
        } else {
            (i64::from(c.x) - i64::from(from.x)) * i64::from(d.0)
        };
        ahead.clamp(0, i64::from(u32::MAX)) as u32
    }
}

/// How many steps behind `x` against `dir` (an axis or a diagonal direction) the nearest
/// of `cells` lies on `x`'s line along `dir`, if any lies there.
fn nearest_behind(x: Cell, dir: (i32, i32), cells: &[Cell]) -> Option<u32> {
    cells
        .iter()
        .filter_map(|c| {
            let (dx, dy) = (
                i64::from(x.x) - i64::from(c.x),
                i64::from(x.y) - i64::from(c.y),
            );
            let m = if dir.0 != 0 {
                dx * i64::from(dir.0)
            } else {
                dy * i64::from(dir.1)
            };
            let on_line = dx == m * i64::from(dir.0) && dy == m * i64::from(dir.1);
            (on_line && m >= 1).then(|| u32::try_from(m).unwrap_or(u32::MAX))
        })
        .min()
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
/// Cell by cell, for the tests' scan from the definition (the scans themselves ask
/// [`Grid::diagonal_step_free`]).
#[cfg(test)]
fn diagonal_step_ok(grid: &Grid, c: Cell, (dx, dy): (i32, i32)) -> bool {
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
    #[inline]
    pub(crate) fn reach(
        &self,
        grid: &Grid,
        from: Cell,
        target: Option<Cell>,
        found: impl FnMut(Reached),
    ) {
        self.reach_parts(grid, from, target, Parts::ALL, found);
    }

    /// The IDs of the subgoals the cone scan from free cell `goal` reaches, in the scan's
    /// order: the ties from which a query derives the goal's landmark row, as the unit
    /// tests of the bounds derive it (see `SubgoalLandmarks::goal_row`).
    #[cfg(test)]
    pub(crate) fn reached_ids(&self, grid: &Grid, goal: Cell) -> Vec<u32> {
        let mut reached = Vec::new();
        self.reach(grid, goal, None, |r| {
            if let Reached::Subgoal(c) = r {
                reached.extend(self.id_of(c));
            }
        });
        reached
    }

    /// [`SubgoalGraph::reach`] reporting with each subgoal the hop to it (its sector and
    /// steps), which the scan knows where it finds it: the tests' reading of what
    /// [`SubgoalGraph::reach_ids`] reports.
    #[cfg(test)]
    pub(crate) fn reach_hops(
        &self,
        grid: &Grid,
        from: Cell,
        target: Option<Cell>,
        found: impl FnMut(Sighting),
    ) {
        self.scan_parts(grid, from, target, Parts::ALL, found);
    }

    /// [`SubgoalGraph::reach`] reporting only what the scan's `parts` find: its straight
    /// runs along the axes of `parts`, its diagonal walks (with their runs) along the
    /// diagonals of `parts`. The four first runs are made whatever `parts` holds, since
    /// they limit the walks' runs.
    ///
    /// Inlined into its callers, so that [`SubgoalGraph::reach`]'s copy, which every
    /// query's two scans run, has its `parts` tests folded away.
    #[inline(always)]
    pub(super) fn reach_parts(
        &self,
        grid: &Grid,
        from: Cell,
        target: Option<Cell>,
        parts: Parts,
        mut found: impl FnMut(Reached),
    ) {
        // The hops fold away: nothing reads them.
        self.scan_parts(grid, from, target, parts, |s| found(s.reached()));
    }

    /// The cone scan from free cell `from` reporting each subgoal it reaches by its ID,
    /// with the hop to it: the scans of a query's two ends and of a field's members. The
    /// scan has read each one's mark, so its ID is ranked without testing it again
    /// ([`SubgoalGraph::id_of_found`]). Callers inline their callback
    /// (`#[inline(always)]` on the closure): it is called from a dozen places of the scan,
    /// and as a call it cost a query about 3 % more (den520d).
    #[inline(always)]
    pub(crate) fn reach_ids(&self, grid: &Grid, from: Cell, mut found: impl FnMut(u32, Hop)) {
        self.scan_parts(
            grid,
            from,
            None,
            Parts::ALL,
            #[inline(always)]
            |s| {
                if let Sighting::Subgoal(c, hop, mark) = s {
                    found(self.id_of_found(c, mark), hop)
                }
            },
        );
    }

    /// [`SubgoalGraph::reach_parts`] reporting each subgoal with its hop.
    #[inline(always)]
    fn scan_parts(
        &self,
        grid: &Grid,
        from: Cell,
        target: Option<Cell>,
        parts: Parts,
        mut found: impl FnMut(Sighting),
    ) {
        let mut first = [0u32; 4];
        for (i, &axis) in AXES.iter().enumerate() {
            let on = parts.has_axis(i);
            // A first run limits the series along its axis of the two walks beside it; it
            // is made when it reports, or when it limits a series that is scanned.
            if !on && !parts.has_series_along(axis) {
                continue;
            }
            let hop = (sector_of(axis.0.into(), axis.1.into()), 0);
            first[i] = self.run(grid, from, (axis, hop), u32::MAX, target, &mut |r| {
                if on {
                    found(r)
                }
            });
        }
        // One call per diagonal, each inlined with its direction a constant, so that
        // its runs' axis tests fold away.
        self.walk(grid, (from, target), parts, &first, 0, &mut found);
        self.walk(grid, (from, target), parts, &first, 1, &mut found);
        self.walk(grid, (from, target), parts, &first, 2, &mut found);
        self.walk(grid, (from, target), parts, &first, 3, &mut found);
    }

    /// The diagonal walk along `DIAGONALS[q]` of [`SubgoalGraph::reach_parts`], with the
    /// runs of its series in `parts`, limited first by the first runs `first`.
    #[inline(always)]
    fn walk(
        &self,
        grid: &Grid,
        (from, target): (Cell, Option<Cell>),
        parts: Parts,
        first: &[u32; 4],
        q: usize,
        found: &mut impl FnMut(Sighting),
    ) {
        let d = DIAGONALS[q];
        let (h, v) = ((d.0, 0), (0, d.1));
        // The sectors of the walk's own find and of its runs' finds (diagonal steps, then
        // straight ones along `h` or `v`): constants of the direction.
        let walked = sector_of(d.0.into(), d.1.into());
        let (along_h, along_v) = (
            sector_of((2 * d.0).into(), d.1.into()),
            sector_of(d.0.into(), (2 * d.1).into()),
        );
        let (on_h, on_v) = (parts.has_series(q, h), parts.has_series(q, v));
        if !on_h && !on_v {
            return;
        }
        // With one series only, the walk's own find (at its end, shared by both
        // series) is not asked for: once that series' runs are cut to nothing (limits
        // never grow), the rest of the walk finds nothing for it.
        let whole = on_h && on_v;
        // Only the walk into the target's quadrant can meet it (every cell it reaches
        // lies strictly inside that quadrant), so the others look for no target.
        let target = target.filter(|t| {
            (t.x as i64 - from.x as i64) * d.0 as i64 > 0
                && (t.y as i64 - from.y as i64) * d.1 as i64 > 0
        });
        let (mut lh, mut lv) = (first[axis_index(h)], first[axis_index(v)]);
        let mut p = from;
        loop {
            let stop = if whole {
                // The limits tell the two cells beside the step: the last run along each
                // axis started at `p` (the first run, at `from`), and a run's reach is at
                // least 1 exactly when the cell after its start is free (blocked or past
                // the map's edge, it ends with reach 0; a subgoal there ends it with
                // reach 1). A limit at 0 is never raised, and no run is made with it.
                if lh == 0 || lv == 0 {
                    break;
                }
                // Then the step's target, in the column of one free cell and the row of
                // the other, is on the map; its stop bit says free and no subgoal (0),
                // or blocked or a subgoal (1), which the ID marks tell apart.
                let q = Cell::new(p.x.wrapping_add_signed(d.0), p.y.wrapping_add_signed(d.1));
                let mark = match self.lines.is_stop(q.x, q.y) {
                    true => match self.ids.mark(q.x, q.y) {
                        None => break,
                        mark => mark,
                    },
                    false => None,
                };
                p = q;
                mark
            } else {
                if !grid.diagonal_step_free(p.x, p.y, d.0, d.1) {
                    break;
                }
                p = Cell::new(p.x.wrapping_add_signed(d.0), p.y.wrapping_add_signed(d.1));
                self.ids.mark(p.x, p.y)
            };
            if target == Some(p) {
                found(Sighting::Target);
            }
            // The diagonal steps taken so far.
            let i = p.x.abs_diff(from.x);
            if let Some(mark) = stop {
                let hop = Hop {
                    sector: walked,
                    diagonal: i,
                    straight: 0,
                };
                found(Sighting::Subgoal(p, hop, mark));
                break;
            }
            // A run with no steps left finds nothing (and leaves its limit at 0).
            if on_h && lh > 0 {
                lh = self.run(grid, p, (h, (along_h, i)), lh, target, found);
            }
            if on_v && lv > 0 {
                lv = self.run(grid, p, (v, (along_v, i)), lv, target, found);
            }
            if !whole && (if on_h { lh } else { lv }) == 0 {
                break;
            }
        }
    }

    /// One straight run of [`SubgoalGraph::reach`] from `p` along `axis`, at most `limit`
    /// steps. Reports a subgoal where it stops and the target when it passes it; returns
    /// the limit for the next run along this axis: the run's free length, or its length to
    /// a subgoal it stopped on. `p` lies `diagonal` diagonal steps from the scan's origin,
    /// and a hop from there with straight steps along `axis` has sector `sector`.
    #[inline(always)]
    fn run(
        &self,
        grid: &Grid,
        p: Cell,
        (axis, (sector, diagonal)): ((i32, i32), (Sector, u32)),
        limit: u32,
        target: Option<Cell>,
        found: &mut impl FnMut(Sighting),
    ) -> u32 {
        let stop = self.lines.first_stop(p.x, p.y, axis, limit);
        let reach = match stop {
            Some(k) => {
                // The stop's cell in wrapping arithmetic: past the map's edge exactly when
                // its coordinate along the axis is not below the map's size (a step back
                // from 0 wraps to `u32::MAX`). One test of a constant axis, where
                // `offset` tested both coordinates in 64 bits.
                let q = Cell::new(
                    p.x.wrapping_add((axis.0 as u32).wrapping_mul(k)),
                    p.y.wrapping_add((axis.1 as u32).wrapping_mul(k)),
                );
                let on_map = if axis.0 != 0 {
                    q.x < grid.width()
                } else {
                    q.y < grid.height()
                };
                let mark = match on_map {
                    true => self.ids.mark(q.x, q.y),
                    false => None,
                };
                match mark {
                    Some(mark) => {
                        let hop = Hop {
                            sector,
                            diagonal,
                            straight: k,
                        };
                        found(Sighting::Subgoal(q, hop, mark));
                        k
                    }
                    None => k - 1,
                }
            }
            None => limit,
        };
        // The target lies on this run's line only if it shares the run's row (column).
        if let Some(t) = target.filter(|t| if axis.0 == 0 { t.x == p.x } else { t.y == p.y }) {
            let free_len = stop.map_or(limit, |k| k - 1);
            let (dx, dy) = (t.x as i64 - p.x as i64, t.y as i64 - p.y as i64);
            let along = dx * axis.0 as i64 + dy * axis.1 as i64;
            if along >= 1 && along <= free_len as i64 {
                found(Sighting::Target);
            }
        }
        reach
    }

    /// The subgoals whose cone scan may read cell `x` (a superset of them): those from
    /// which `x` is the target of a diagonal step, or lies on a straight run or where a run
    /// stops (the cells beside a diagonal step are the first cells of the runs from its
    /// origin, so they are covered by the runs).
    ///
    /// # Diagonal targets
    /// Walking back from `x` against each diagonal over free cells that are not subgoals,
    /// the first subgoal met is reported.
    ///
    /// # Runs: one row at a time
    /// Take a reader `s` whose diagonal walk along `d` reaches `p_i = s + i·d` and whose run
    /// from `p_i` along the axis `a` (a component of `d`) reads `x = p_i + j·a`, `j ≥ 1`
    /// (`i = 0` is the first straight run). Call *row `m`* the cells `c_m − k·a`, `k ≥ 1`,
    /// behind `c_m = x − m·d`; it holds `p_(i−m)` at `k = j`. Every run along `a` is
    /// limited by the previous run's reach, so the run from `p_i` reading `x` at distance
    /// `j` means every earlier run, from `p_(i−m)` for `1 ≤ m ≤ i`, reached at least `j`:
    /// `c_m` is free (a subgoal at most, where that run ended), and the cells of row `m`
    /// at `k < j` are no stops (blocked cells or subgoals). For `m < i` the cell at `k = j`
    /// is the diagonal cell `p_(i−m)`, free and no subgoal, so row `m`'s first stop lies
    /// beyond `j`. On row `i` itself the first stop is `s`, at `k = j`.
    ///
    /// Moreover the diagonal step from `p_(i−m−1)` onto `p_(i−m)` (for `m < i`) checks
    /// the cell `p_(i−m) − a` beside it against corner cutting: row `m`'s cell at
    /// `k = j + 1` is free. So a blocked cell (or the map's edge) as row `m`'s first stop
    /// lies beyond `j + 1`, a subgoal beyond `j`.
    ///
    /// So the walk steps back along `d` from `x` over free cells (`c_1, c_2, …`), and on
    /// each row asks the stop bits for the first stop behind `c_m` no farther than the
    /// *limit* `L_m`: a subgoal there is reported. Row `m`'s first stop at `k_m` bounds
    /// every deeper reader's `j` by `k_m − 1` if it is a subgoal, `k_m − 2` otherwise,
    /// and `L_(m+1)` is the smaller of that bound and `L_m` (`L_0` unbounded); the walk
    /// ends when the limit is 0 or `c_(m+1)` is blocked or off the map. A reader's row has
    /// `j ≤ L_i` by the bounds above and its first stop at `j`, so it is reported: no
    /// reader is missed. Every cell these rules read (rows at `k ≤ j + 1`, the cells
    /// `c_m`), a reader's scan reads before `x`; where `x` is the first cell it reads
    /// differently after an edit, they read the same as before, so the current grid
    /// decides. Each row costs one word-at-a-time look-up, where a walk cell by cell cost
    /// the row's length. The property tests fail when either bound is one step tighter.
    ///
    /// # Which parts, and which directions
    /// Each reader comes with the [`Parts`] of its scan that may read `x`: for a row
    /// `m ≥ 1`, the series of runs along `a` of its walk along `d`; for row 0 (the first
    /// run along `a`), that run and the series along `a` of the two walks whose runs it
    /// limits. The runs along one axis neither limit nor read for the runs along the
    /// other, so the other series keeps its finds. Where `x` lies one step from the run's
    /// start (`j = 1`) it is also the corner cell of the walk's next diagonal step, so the
    /// walk may now end elsewhere: the whole walk (both series) goes, as it does for a
    /// diagonal target. Only those parts are scanned again. (The property tests fail when
    /// the corner rule is dropped.)
    ///
    /// Every read of `x` comes right after a read of the cell before it on the way: `x − a`
    /// for a run (the run's previous cell, or the diagonal cell it starts from), `x − d`
    /// for a diagonal target. When that cell is `touched` too (its passability or subgoal
    /// status changed), a scan reading `x` there read a changed cell first, so `x` is not
    /// its first changed read and the direction is skipped: the inside of a building and
    /// the runs along its own sides cost nothing. (A reader that is itself touched is a
    /// new subgoal, scanned whole.) Likewise a run reading `x` at distance `j` read every
    /// cell `x − m·a`, `1 ≤ m ≤ j`, before it (the cell at `m = j` is the diagonal cell it
    /// starts from, read by the walk's step onto it): with a touched cell at `x − m·a`, only
    /// readers at `j < m` may read `x` first, so the first run's look-up and the rows
    /// behind start with that limit. Only the touched cells that are no stops now (`opened`)
    /// are looked for: a stop at `x − m·a` bounds the look-ups to `m − 1` at most already.
    /// Around a cell freed in the open, each of the four subgoals that go has another one
    /// two cells behind it along two of the axes, so half of their row walks end at once.
    /// (The property tests fail with a limit one step tighter, `j < m − 1`.)
    ///
    /// The same holds along the diagonal: a reader on row `i` read `c_m` for every
    /// `1 ≤ m ≤ i` before `x` (its run from `p_(i−m)` reached `j`, see above), and a walk
    /// stepping onto `x` stepped onto every `x − m·d` before. So with a touched cell at
    /// `x − m·d` the rows behind `x` along `d` and its diagonal target walk stop before
    /// row `m`: that cell's own walks report the readers beyond. Around a cell blocked in
    /// the open each diagonal neighbour is a new subgoal, and the cell's eight row walks,
    /// which went over the same rows as theirs one row later, end at once; around a cell
    /// freed in the open, so do its own walks and those of each removed subgoal towards it.
    /// (`scattered_patches_equal_a_fresh_build` fails when the walks stop a row earlier.)
    pub(super) fn readers(
        &self,
        grid: &Grid,
        x: Cell,
        (touched, opened): (&[Cell], &[Cell]),
        mut found: impl FnMut(Cell, Parts, Option<SeriesRead>),
    ) {
        // The cell a scan reads just before `x` on the way there, when touched too.
        let behind = |d: (i32, i32)| offset(grid, x, d, -1).is_some_and(|c| touched.contains(&c));
        // Along each diagonal, how far back the walks go: to just before the nearest
        // touched cell behind `x`, which a reader farther back reads first.
        let steps_back =
            DIAGONALS.map(|d| nearest_behind(x, d, touched).map_or(u32::MAX, |m| m - 1));
        for (q, d) in DIAGONALS.into_iter().enumerate() {
            let back = (d, steps_back[q]);
            self.diagonal_back(grid, x, back, &mut |s| found(s, Parts::diagonal(q), None));
        }
        for axis in AXES {
            if behind(axis) {
                continue;
            }
            // How far a reader may read `x` along `axis` before a touched cell behind it.
            let reach = match nearest_behind(x, axis, opened) {
                Some(m) => m - 1,
                None => u32::MAX,
            };
            // A cell one step along a run is the corner of its diagonal step: the walk
            // may end elsewhere, so it is scanned whole.
            let deeper = self.stop_behind(grid, x, axis, reach, &mut |s, k| {
                found(s, Parts::axis_and_walks(axis, k == 1), None)
            });
            for (q, d) in DIAGONALS.into_iter().enumerate() {
                if d.0 == axis.0 || d.1 == axis.1 {
                    let (walk, series) = (Parts::diagonal(q), Parts::series(q, axis));
                    let index = q + if axis.1 == 0 { 0 } else { 4 };
                    let back = (d, steps_back[q]);
                    self.rows_back(grid, x, back, axis, deeper, &mut |s, k, row, ahead| {
                        if k == 1 {
                            found(s, walk, None)
                        } else {
                            let read = SeriesRead {
                                row,
                                at: k,
                                limit: k.saturating_add(ahead),
                                series: index as u8,
                            };
                            found(s, series, Some(read))
                        }
                    });
                }
            }
        }
    }

    /// Scans the series with index `read.series` of the cone of `from` again from its
    /// first changed read (see [`SeriesRead`]) on: the run on row `read.row` with limit
    /// `read.limit`, then the walk on along the diagonal with its runs along the series'
    /// axis, as [`SubgoalGraph::reach_parts`] scans one series.
    ///
    /// With `settled_after`, the edit only made stops (every touched cell went from free
    /// to blocked or to a subgoal, or from a subgoal to blocked) and no touched cell lies
    /// on a row of the walk after that one: the scan ends after the first later row whose
    /// run stops short of its limit, and returns that row; what the series found before
    /// the edit on the rows after it stays. `None` when it scanned to the series' end.
    ///
    /// # Why the finds after a settled row stay
    /// Write `L(r)` for the limit of the run on row `r` and compare the scan now with the
    /// scan before the edit. Both enter row `read.row` with the same limit at the same
    /// cell (the rows before it read what they read before, see [`SeriesRead`]). An edit
    /// that only made stops leaves every stop of before a stop (a subgoal that is no more
    /// is blocked now), so on any row from the same cell, with `L(r)` now at most what it
    /// was, the run's first stop now is no farther and its reach no longer (a subgoal
    /// blocked now is reached one step shorter), and a diagonal step legal now was legal
    /// before onto a cell that was no subgoal: by induction the walk of before is alive
    /// wherever this one is, with limits at least as large. A row `r` of the walk reads
    /// cells of rows `r` (its run, and the corner of the next diagonal step, which is
    /// the first cell of that run) and `r + 1` (the step's other corner and target)
    /// only, so past the last row holding a touched cell both scans read the same cells.
    /// There, a run that stops short of its limit now met a stop within both limits:
    /// before, it met the same stop and reached as far, so both scans leave the row with
    /// the same limit at the same cell and read the same cells from there on, finding the
    /// same subgoals. (Without the first condition the limits may differ: blocking a
    /// cell beside a subgoal may leave it free and no subgoal, and runs pass it now.)
    pub(super) fn resume_series(
        &self,
        grid: &Grid,
        from: Cell,
        read: SeriesRead,
        settled_after: Option<u32>,
        found: &mut impl FnMut(Reached),
    ) -> Option<u32> {
        let b = read.series as usize;
        let d = DIAGONALS[b % 4];
        let axis = if b < 4 { (d.0, 0) } else { (0, d.1) };
        let mut p = offset(grid, from, d, read.row as i64).expect("a read row is on the map");
        let (mut limit, mut row) = (read.limit, read.row);
        let settled_after = settled_after.unwrap_or(u32::MAX);
        loop {
            // An edit's rescan reads no hops (they fold away): any sector will do.
            let report = &mut |s: Sighting| found(s.reached());
            let before = limit;
            limit = self.run(grid, p, (axis, (0, 0)), limit, None, report);
            if row > settled_after && limit < before {
                return Some(row);
            }
            if limit == 0 || !grid.diagonal_step_free(p.x, p.y, d.0, d.1) {
                return None;
            }
            p = Cell::new(
                (p.x as i64 + d.0 as i64) as u32,
                (p.y as i64 + d.1 as i64) as u32,
            );
            row += 1;
            if self.is_subgoal(p) {
                found(Reached::Subgoal(p));
                return None;
            }
        }
    }

    /// Walks back from `x` against diagonal `d` over free cells that are not subgoals and
    /// reports the first subgoal met: the scans whose diagonal walk steps onto `x`.
    fn diagonal_back(
        &self,
        grid: &Grid,
        x: Cell,
        (d, steps): ((i32, i32), u32),
        found: &mut impl FnMut(Cell),
    ) {
        let mut k = 1;
        // Free cells that are no subgoals are exactly those that are no stops: one bit
        // a step.
        while k <= i64::from(steps) {
            let Some(z) = offset(grid, x, d, -k) else {
                return;
            };
            if self.lines.is_stop(z.x, z.y) {
                if self.is_subgoal(z) {
                    found(z);
                }
                return;
            }
            k += 1;
        }
    }

    /// The rows behind `x − m·d`, `1 ≤ m ≤ rows`, against `axis`, starting with `limit`
    /// (see [`SubgoalGraph::readers`]); a reader is reported with its distance, its row `m`
    /// and the smallest reach ahead of the cells `x − m'·d`, `1 ≤ m' ≤ m` (see `SeriesRead`).
    fn rows_back(
        &self,
        grid: &Grid,
        x: Cell,
        (d, rows): ((i32, i32), u32),
        axis: (i32, i32),
        mut limit: u32,
        found: &mut impl FnMut(Cell, u32, u32, u32),
    ) {
        let (mut c, mut row) = (x, 0);
        // The smallest reach ahead of the cells `x − m·d` for `m ≤ ahead_rows` (see
        // `SeriesRead`), taken only up to the row of a reader (most walks find none).
        let (mut ahead, mut ahead_rows) = (u32::MAX, 0);
        while limit > 0 && row < rows {
            match offset(grid, c, d, -1) {
                Some(next) if grid.is_free(next) => c = next,
                _ => return,
            }
            row += 1;
            let bound = self.stop_behind(grid, c, axis, limit, &mut |s, k| {
                while ahead_rows < row {
                    ahead_rows += 1;
                    let cell = offset(grid, x, d, -(ahead_rows as i64)).expect("a row walked");
                    ahead = ahead.min(self.reach_ahead(grid, cell, axis, ahead));
                }
                found(s, k, row, ahead)
            });
            limit = limit.min(bound);
        }
    }

    /// How far a run from free cell `c` along `axis` reaches, at most `limit`: 0 when `c`
    /// is a subgoal (a run stops on it), else as [`SubgoalGraph::run`] counts.
    fn reach_ahead(&self, grid: &Grid, c: Cell, axis: (i32, i32), limit: u32) -> u32 {
        if self.is_subgoal(c) {
            return 0;
        }
        match self.lines.first_stop(c.x, c.y, axis, limit) {
            Some(k) if offset(grid, c, axis, k as i64).is_some_and(|q| self.is_subgoal(q)) => k,
            Some(k) => k - 1,
            None => limit,
        }
    }

    /// Looks for the first stop behind `c` against `axis`, at most `limit` away, and
    /// reports it with its distance when it is a subgoal. Returns the bound it sets on a deeper row's
    /// reader: one less than the stop's distance when it is a subgoal, two less when it is
    /// blocked or the map's edge (the cell beside the reader's diagonal step, just past
    /// its diagonal cell on this row, must be free), `limit` when there is none.
    #[inline]
    fn stop_behind(
        &self,
        grid: &Grid,
        c: Cell,
        axis: (i32, i32),
        limit: u32,
        found: &mut impl FnMut(Cell, u32),
    ) -> u32 {
        let back = (-axis.0, -axis.1);
        match self.lines.first_stop(c.x, c.y, back, limit) {
            Some(k) => match offset(grid, c, back, k as i64) {
                Some(s) if self.is_subgoal(s) => {
                    found(s, k);
                    k - 1
                }
                _ => k.saturating_sub(2),
            },
            None => limit,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::sector;
    use super::*;
    use crate::grid::movement::octile;
    use proptest::prelude::*;

    /// The cone scan from its definition, one cell at a time and with no stop bits: the
    /// subgoals it reports (sorted) and whether `target` lies on a cell it visits.
    fn naive_reach(
        graph: &SubgoalGraph,
        grid: &Grid,
        from: Cell,
        target: Cell,
    ) -> (Vec<Cell>, bool) {
        let (mut found, mut hit) = (Vec::new(), false);
        // A straight run of at most `limit` steps: its reach, as `SubgoalGraph::run`'s.
        let run = |p: Cell, axis: (i32, i32), limit: u32, found: &mut Vec<Cell>, hit: &mut bool| {
            let mut k = 0;
            while k < limit {
                let Some(q) = offset(grid, p, axis, k as i64 + 1) else {
                    return k;
                };
                if !grid.is_free(q) {
                    return k;
                }
                if graph.is_subgoal(q) {
                    found.push(q);
                    return k + 1;
                }
                *hit |= q == target;
                k += 1;
            }
            limit
        };
        let first: Vec<u32> = AXES
            .iter()
            .map(|&a| run(from, a, u32::MAX, &mut found, &mut hit))
            .collect();
        for d in DIAGONALS {
            let (h, v) = ((d.0, 0), (0, d.1));
            let (mut lh, mut lv) = (first[axis_index(h)], first[axis_index(v)]);
            let mut p = from;
            while diagonal_step_ok(grid, p, d) {
                p = offset(grid, p, d, 1).expect("a legal step stays on the map");
                hit |= p == target;
                if graph.is_subgoal(p) {
                    found.push(p);
                    break;
                }
                lh = run(p, h, lh, &mut found, &mut hit);
                lv = run(p, v, lv, &mut found, &mut hit);
            }
        }
        found.sort_unstable();
        (found, hit)
    }

    proptest! {
        /// The scan reports the subgoals and the target the definition does: a walk that
        /// looked for the target only outside its quadrant, or a run that did not look on
        /// the target's line, would miss a goal in the start's cone.
        #[test]
        fn scans_match_the_definition(
            w in 1u32..24, h in 1u32..24, density in 0u64..45, seed in any::<u64>(),
        ) {
            let mut state = seed | 1;
            let mut next = move || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            };
            let blocked: Vec<bool> = (0..w * h).map(|_| next() % 100 < density).collect();
            let grid = Grid::from_fn(w, h, |x, y| !blocked[(y * w + x) as usize]);
            let graph = SubgoalGraph::build(&grid);
            let free: Vec<Cell> = grid.free_cells().collect();
            for _ in 0..free.len().min(40) {
                let from = free[(next() % free.len() as u64) as usize];
                let target = free[(next() % free.len() as u64) as usize];
                let (mut found, mut hit) = (Vec::new(), false);
                graph.reach(&grid, from, Some(target), |r| match r {
                    Reached::Subgoal(c) => found.push(c),
                    Reached::Target => hit = true,
                });
                found.sort_unstable();
                let (expected, expected_hit) = naive_reach(&graph, &grid, from, target);
                prop_assert_eq!(&found, &expected, "subgoals from {}", from);
                prop_assert_eq!(hit, expected_hit, "target {} from {}", target, from);
                // The query's scan reports the same, each subgoal with its hop: the
                // sector and the octile length of the two cells, to the bit, and the
                // steps the scan walked (diagonal ones first).
                let (mut sighted, mut sighted_hit) = (Vec::new(), false);
                graph.reach_hops(&grid, from, Some(target), |r| match r {
                    Sighting::Subgoal(c, hop, _) => sighted.push((c, hop)),
                    Sighting::Target => sighted_hit = true,
                });
                sighted.sort_unstable_by_key(|&(c, _)| c);
                let cells: Vec<Cell> = sighted.iter().map(|&(c, _)| c).collect();
                prop_assert_eq!(&cells, &expected, "subgoals with hops from {}", from);
                prop_assert_eq!(sighted_hit, expected_hit, "target {} from {} with hops", target, from);
                for &(c, hop) in &sighted {
                    let (dx, dy) = (c.x.abs_diff(from.x), c.y.abs_diff(from.y));
                    prop_assert_eq!(hop.sector, sector(from, c), "sector of {} from {}", c, from);
                    prop_assert_eq!((hop.diagonal, hop.straight), (dx.min(dy), dx.max(dy) - dx.min(dy)), "steps to {} from {}", c, from);
                    prop_assert_eq!(hop.length().to_bits(), octile(from, c).to_bits(), "length to {} from {}", c, from);
                }
            }
        }
    }
}
