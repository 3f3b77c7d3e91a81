//! Cell paths and corner points: refinement of waypoints into cells, corner points written
//! as a route unwinds, smoothing, and validation.

use crate::geom::{Cell, Direction, Rect};
use crate::grid::movement::step_cost;
use crate::grid::{Grid, TerrainCosts};
use hashbrown::HashMap;

/// A path of cells from start to goal, 8-connected, without corner cuts.
///
/// ```
/// use quadpath::{Cell, Grid, HpaMap, Mode};
/// let map = HpaMap::new(Grid::new_free(10, 10), Mode::Exact)?;
/// let (start, goal) = (Cell::new(0, 0), Cell::new(9, 3));
/// let path = map.find_path(start, goal)?;
/// assert_eq!((path.start(), path.goal(), path.steps()), (Some(start), Some(goal), 9));
/// assert!((path.length - (6.0 + 3.0 * std::f64::consts::SQRT_2)).abs() < 1e-9);
/// assert_eq!(path.cost, path.length, "no terrain costs on this map");
/// assert_eq!(path.validate(map.grid(), map.costs(), start, goal), Ok(()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Path {
    /// Every cell from the start to the goal, both included.
    pub cells: Vec<Cell>,
    /// The geometric length: 1 per straight step, √2 per diagonal one.
    pub length: f64,
    /// What the path costs under the map's terrain costs (see
    /// [the model](crate::Movement#the-model)): each step's length times the mean cost of
    /// its two cells. Equal to `length` on a map without terrain costs.
    pub cost: f64,
}

impl Path {
    /// The path with its length computed from its steps, at unit terrain costs (its cost is
    /// its length); `0.0` (not `-0.0`) for a path of one cell.
    ///
    /// ```
    /// use quadpath::{Cell, Path};
    /// let p = Path::from_cells(vec![Cell::new(0, 0), Cell::new(1, 1), Cell::new(2, 1)]);
    /// assert_eq!(p.length, 1.0 + std::f64::consts::SQRT_2);
    /// assert_eq!(p.cost, p.length);
    /// ```
    pub fn from_cells(cells: Vec<Cell>) -> Path {
        let length = octile_length(&cells);
        Path {
            cells,
            length,
            cost: length,
        }
    }

    /// The path with its length and its cost under `costs` on `grid` computed from its
    /// steps, which must be single 8-neighbour steps.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, Path, TerrainCosts};
    /// let mut grid = Grid::new_free(3, 1);
    /// grid.set_terrain(Cell::new(2, 0), b'S');
    /// let costs: TerrainCosts = "S=3".parse()?;
    /// let p = Path::from_cells_with_costs((0..3).map(|x| Cell::new(x, 0)).collect(), &grid, &costs);
    /// assert_eq!((p.length, p.cost), (2.0, 1.0 + 2.0));
    /// # Ok::<(), quadpath::CostError>(())
    /// ```
    pub fn from_cells_with_costs(cells: Vec<Cell>, grid: &Grid, costs: &TerrainCosts) -> Path {
        let mut path = Path::from_cells(cells);
        if !costs.is_unit() {
            path.cost = path
                .cells
                .windows(2)
                .map(|w| costs.cost_between(grid, w[0], w[1]))
                .fold(0.0, |sum, step| sum + step);
        }
        path
    }

    /// The path of `walk` on `grid` ([`walk_hops`]), its length counted over its hops:
    /// equal to the bit to [`Path::from_cells_with_costs`] over its cells (a hop of
    /// `(dx, dy)` is `max − min` straight steps and `min` diagonal ones, counted in integers
    /// either way), without a pass over every cell at unit costs.
    pub(crate) fn from_walk(walk: Walk, grid: &Grid, costs: &TerrainCosts) -> Path {
        if !costs.is_unit() {
            return Path::from_cells_with_costs(walk.cells, grid, costs);
        }
        Path {
            cells: walk.cells,
            length: walk.length,
            cost: walk.length,
        }
    }

    /// First cell; `None` for a path without cells (its fields are public, so one can be
    /// built; the searches never return one).
    ///
    /// ```
    /// use quadpath::{Cell, Path};
    /// let p = Path::from_cells(vec![Cell::new(0, 0), Cell::new(1, 1)]);
    /// assert_eq!((p.start(), p.goal(), p.steps()), (Some(Cell::new(0, 0)), Some(Cell::new(1, 1)), 1));
    /// let empty = Path::from_cells(vec![]);
    /// assert_eq!((empty.start(), empty.goal(), empty.steps()), (None, None, 0));
    /// ```
    pub fn start(&self) -> Option<Cell> {
        self.cells.first().copied()
    }

    /// Last cell; `None` for a path without cells.
    pub fn goal(&self) -> Option<Cell> {
        self.cells.last().copied()
    }

    /// Number of steps: one less than the cells, and 0 for a path without cells.
    pub fn steps(&self) -> usize {
        self.cells.len().saturating_sub(1)
    }
}

/// A path as the points a unit steers along: its start, every cell where it turns, and its
/// goal, joined by straight lines (the straightest 8-connected line between two points, see
/// [`Corners::cells`]). What [`HpaMap::find_corners`](crate::HpaMap::find_corners) returns:
/// the same route as the cell path, without writing down every cell.
///
/// ```
/// use quadpath::{Cell, Grid, HpaMap, Mode};
/// let map = HpaMap::new(Grid::from_fn(16, 16, |x, y| x != 8 || y == 15), Mode::Exact)?;
/// let (a, b) = (Cell::new(0, 0), Cell::new(15, 0));
/// let corners = map.find_corners(a, b)?;
/// let path = map.find_path(a, b)?;
/// assert_eq!(corners.cells(), path.cells, "in exact mode, the same route");
/// assert!((corners.length - path.length).abs() < 1e-9);
/// assert!(corners.points.len() < path.cells.len());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Corners {
    /// Start, turning points and goal; one point when start and goal coincide.
    pub points: Vec<Cell>,
    /// The geometric length of the route: the octile distance of each straight piece.
    pub length: f64,
    /// What the route costs under the map's terrain costs; equal to `length` on a map
    /// without terrain costs.
    pub cost: f64,
}

impl Corners {
    /// The route through `waypoints` (consecutive ones mutually visible), with repeated
    /// points and points in the middle of one straight or diagonal run left out, its length
    /// and its cost under `costs` on `grid` computed piece by piece.
    pub(crate) fn from_waypoints(waypoints: &[Cell], grid: &Grid, costs: &TerrainCosts) -> Self {
        let Some((&first, rest)) = waypoints.split_first() else {
            return Corners::from_points(Vec::new(), grid, costs);
        };
        let mut points = CornerPoints::new(first, waypoints.len());
        for &c in rest {
            points.push(c);
        }
        Corners::from_points(points.finish(), grid, costs)
    }

    /// The route through `points`, already as [`Corners::points`] holds them (what
    /// [`CornerPoints`] writes), with its length and its cost under `costs` on `grid`
    /// computed piece by piece.
    pub(crate) fn from_points(points: Vec<Cell>, grid: &Grid, costs: &TerrainCosts) -> Self {
        let pieces = || points.windows(2).map(|w| (w[0], w[1]));
        let length = octile_length(&points);
        let cost = if costs.is_unit() {
            length
        } else {
            pieces().fold(0.0, |sum, (a, b)| sum + line_cost(grid, costs, a, b))
        };
        Corners {
            points,
            length,
            cost,
        }
    }

    /// Every cell of the route, start and goal included: the straight lines between the
    /// points written out, as [`Path::cells`] holds them.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, HpaMap, Mode};
    /// let map = HpaMap::new(Grid::from_fn(16, 16, |x, y| x != 8 || y == 15), Mode::Exact)?;
    /// let (s, g) = (Cell::new(0, 0), Cell::new(15, 0));
    /// let corners = map.find_corners(s, g)?;
    /// assert_eq!(corners.cells(), map.find_path(s, g)?.cells);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn cells(&self) -> Vec<Cell> {
        refine(&self.points)
    }
}

/// Corner points written one at a time as a route is walked, as [`Corners::points`]
/// holds them: a repeated point is left out, and a point that carries the last straight or
/// diagonal run on moves the run's end instead of being added. Written straight from a
/// subgoal route's hops, this spares a list of waypoints and a second pass over it (on
/// w_woundedcoast, ~100 hops a query, the second pass was 6 % of a corner query).
#[derive(Debug)]
pub(crate) struct CornerPoints {
    points: Vec<Cell>,
    /// The unit step of the last piece when it is a straight or diagonal run; [`NO_RUN`]
    /// before there is a piece, or when the last piece is no run.
    heading: (i8, i8),
}

/// The heading of no run: no run's unit step is zero in both axes.
const NO_RUN: (i8, i8) = (0, 0);

impl CornerPoints {
    /// The points of a route from `first`, room for `capacity` of them.
    pub(crate) fn new(first: Cell, capacity: usize) -> Self {
        let mut points = Vec::with_capacity(capacity.max(1));
        points.push(first);
        CornerPoints {
            points,
            heading: NO_RUN,
        }
    }

    /// The route goes on to `c`, in sight of the last point.
    #[inline]
    pub(crate) fn push(&mut self, c: Cell) {
        let last = self.last();
        let heading = match on_one_run(last, c) {
            true => unit_step(last, c),
            false => NO_RUN,
        };
        self.extend(c, heading);
    }

    /// The route goes on to `c` along one straight or diagonal run (or stays at the last
    /// point): [`CornerPoints::push`] without asking whether the piece is a run. Every
    /// piece of a subgoal route is: each hop is a cone scan's walk, diagonal steps then
    /// straight ones, written as its two runs.
    #[inline]
    pub(crate) fn push_run(&mut self, c: Cell) {
        let last = self.last();
        debug_assert!(
            on_one_run(last, c) || last == c,
            "{last:?} to {c:?} is no straight or diagonal run"
        );
        self.extend(c, unit_step(last, c));
    }

    /// The last point.
    #[inline]
    fn last(&self) -> Cell {
        *self.points.last().expect("the route holds its first point")
    }

    /// Adds `c`, the end of a piece of unit step `heading` ([`NO_RUN`] for no run), or
    /// moves the last run's end to it when the piece carries that run on.
    #[inline]
    fn extend(&mut self, c: Cell, heading: (i8, i8)) {
        if heading == NO_RUN && self.last() == c {
            return; // a repeated point
        }
        if heading != NO_RUN && heading == self.heading {
            *self.points.last_mut().expect("a run has its end") = c; // the run goes on
        } else {
            self.points.push(c);
            self.heading = heading;
        }
    }

    /// The points written.
    pub(crate) fn finish(self) -> Vec<Cell> {
        self.points
    }
}

/// The signs of the step from `a` to `b` along each axis: the unit step of a straight or
/// diagonal run from `a` to `b`, and [`NO_RUN`] when they are the same cell.
#[inline]
fn unit_step(a: Cell, b: Cell) -> (i8, i8) {
    let sign = |from: u32, to: u32| (to > from) as i8 - (to < from) as i8;
    (sign(a.x, b.x), sign(a.y, b.y))
}

/// Whether `a` and `b` lie on one straight or diagonal run (not when they are the same
/// cell).
#[inline]
fn on_one_run(a: Cell, b: Cell) -> bool {
    let (dx, dy) = (b.x as i64 - a.x as i64, b.y as i64 - a.y as i64);
    (dx == 0) != (dy == 0) || (dx != 0 && dx.abs() == dy.abs())
}

/// Calls `f` on each cell after `a` of the straightest 8-connected line from `a` to `b`:
/// `max(dx, dy)` steps with the `min(dx, dy)` diagonal ones spread evenly, so its cost is
/// exactly the octile distance.
pub(crate) fn line_cells(a: Cell, b: Cell, mut f: impl FnMut(Cell)) {
    line_cells_while(a, b, |c| {
        f(c);
        true
    });
}

/// [`line_cells`] that stops as soon as `f` returns `false`; returns whether it went to
/// the end.
#[inline]
fn line_cells_while(a: Cell, b: Cell, mut f: impl FnMut(Cell) -> bool) -> bool {
    let (dx, dy) = (b.x as i64 - a.x as i64, b.y as i64 - a.y as i64);
    let n = dx.abs().max(dy.abs());
    if dx == 0 || dy == 0 || dx.abs() == dy.abs() {
        // A row, a column or a diagonal (every hop of a subgoal path, and most of a gate
        // path's lines): the rounding below gives `i` steps of the signs, without its two
        // divisions a cell; taken one step of the signs at a time.
        let (sx, sy) = (dx.signum() as i32, dy.signum() as i32);
        let mut c = a;
        for _ in 0..n {
            c = Cell::new(c.x.wrapping_add_signed(sx), c.y.wrapping_add_signed(sy));
            if !f(c) {
                return false;
            }
        }
        return true;
    }
    for i in 1..=n {
        // Rounded `i·d/n`, symmetric about zero so the line does not drift.
        let along = |d: i64| (2 * i * d + d.signum() * n) / (2 * n);
        let c = Cell::new(
            (a.x as i64 + along(dx)) as u32,
            (a.y as i64 + along(dy)) as u32,
        );
        if !f(c) {
            return false;
        }
    }
    true
}

/// Whether the straight line from `a` to `b` (see [`line_cells`]) is walkable: every cell
/// free and no diagonal step cutting a corner. Stops at the first illegal step: a
/// subgoal field tries up to 64 such lines for each member (its direct line to the goal's
/// outline), and most of them are blocked near their start.
pub(crate) fn line_is_clear(grid: &Grid, a: Cell, b: Cell) -> bool {
    let mut prev = a;
    line_cells_while(a, b, |c| {
        let legal = Direction::between(prev, c).is_some_and(|d| grid.can_step(prev, d));
        prev = c;
        legal
    })
}

/// The sum of the octile distances between consecutive `points`: each piece's `max − min`
/// straight and `min` diagonal steps, summed in integers and rounded once, so a path and
/// its corner points get the very same length (a float sum piece by piece would not), and
/// a path of ~1,000 cells (every member of a field writes one out) does not wait on a
/// floating-point addition per step. `0.0`, not `-0.0`, for fewer than two points.
fn octile_length(points: &[Cell]) -> f64 {
    let (straight, diagonal) = points.windows(2).fold((0u64, 0u64), |(s, d), w| {
        let (dx, dy) = (w[0].x.abs_diff(w[1].x), w[0].y.abs_diff(w[1].y));
        (
            s + u64::from(dx.max(dy) - dx.min(dy)),
            d + u64::from(dx.min(dy)),
        )
    });
    straight as f64 + diagonal as f64 * std::f64::consts::SQRT_2
}

/// Joins consecutive waypoints with straight lines. Each pair must be mutually visible
/// (inside one free leaf, or one legal step apart), which the gate search guarantees.
pub(crate) fn refine(waypoints: &[Cell]) -> Vec<Cell> {
    // A straight line of Chebyshev length n writes n cells: one allocation of the exact
    // size instead of a vector doubled a dozen times on a path across a 1,024² map (a
    // subgoal field's members each write one out).
    let length: usize = waypoints
        .windows(2)
        .map(|w| w[0].x.abs_diff(w[1].x).max(w[0].y.abs_diff(w[1].y)) as usize)
        .sum();
    let mut cells = Vec::with_capacity(length + 1);
    cells.push(waypoints[0]);
    for w in waypoints.windows(2) {
        let (a, b) = (w[0], w[1]);
        let (dx, dy) = (b.x.abs_diff(a.x), b.y.abs_diff(a.y));
        if dx == 0 || dy == 0 || dx == dy {
            // A row, a column or a diagonal (every hop of a subgoal route): the cells of
            // [`line_cells`], written by an iterator of known length, so that the pushes'
            // capacity checks go (session 41: 24 instructions a cell, half of a subgoal
            // field member's read-out, through `line_cells`' closure).
            let (sx, sy) = (step_sign(a.x, b.x), step_sign(a.y, b.y));
            let n = dx.max(dy);
            cells.extend((1..n + 1).map(|i| {
                Cell::new(
                    a.x.wrapping_add_signed(sx * i as i32),
                    a.y.wrapping_add_signed(sy * i as i32),
                )
            }));
        } else {
            line_cells(a, b, |c| cells.push(c));
        }
    }
    debug_assert_eq!(
        cells.len(),
        length + 1,
        "a line writes its Chebyshev length"
    );
    cells
}

/// Pushes the `n` cells after `at` along the step `(sx, sy)` (a straight or diagonal run)
/// onto `cells`; returns the last (`at` for an empty run). A plain loop: a hop of a subgoal
/// route is a few cells, where the setup of an unrolled or vectorised loop cost more than
/// its cells.
#[inline(always)]
fn run(cells: &mut Vec<Cell>, mut at: Cell, (sx, sy): (i32, i32), n: u32) -> Cell {
    for _ in 0..n {
        at = Cell::new(at.x.wrapping_add_signed(sx), at.y.wrapping_add_signed(sy));
        cells.push(at);
    }
    at
}

/// A walk through waypoints ([`walk_hops`]).
pub(crate) struct Walk {
    /// Every cell, the first waypoint's included.
    pub cells: Vec<Cell>,
    /// Its length: its straight and diagonal steps counted in integers, the bits
    /// [`Path::from_cells`] gives.
    pub length: f64,
    /// The smallest rectangle holding its cells: a hop's walk stays within the box of its
    /// two ends, and every waypoint is a cell of the walk, so the walk's box is the
    /// waypoints' (a few dozen waypoints rather than hundreds of cells).
    pub bounds: Rect,
    /// Its hops: the waypoints less one.
    pub hops: usize,
}

/// The walk through `waypoints` that takes each hop (two consecutive waypoints) from its
/// earlier end, its diagonal steps first, then its straight ones, in one pass over the
/// waypoints; `None` without any. `capacity` is the cells expected (a route's length plus
/// one is at least its cells: a step is at least 1 long), so that the vector is allocated
/// once; what is left over is given back.
///
/// A subgoal route's hops are the walks of cone scans, and every ordering of a hop's moves
/// is legal and as long (Lemma 1 of `hpa::subgoals::taut`), whichever end's scan found
/// it; [`HpaMap::find_corners`](crate::HpaMap::find_corners) bends its hops the same way.
pub(crate) fn walk_hops(
    mut waypoints: impl Iterator<Item = Cell>,
    capacity: usize,
) -> Option<Walk> {
    let mut at = waypoints.next()?;
    let mut cells = Vec::with_capacity(capacity.max(1));
    cells.push(at);
    let (mut x1, mut y1, mut x2, mut y2) = (at.x, at.y, at.x, at.y);
    let (mut straight, mut diagonal, mut hops) = (0u64, 0u64, 0);
    for to in waypoints {
        hops += 1;
        let (dx, dy) = (at.x.abs_diff(to.x), at.y.abs_diff(to.y));
        let (sx, sy) = (step_sign(at.x, to.x), step_sign(at.y, to.y));
        let (k, n) = (dx.min(dy), dx.max(dy));
        let corner = run(&mut cells, at, (sx, sy), k);
        // The straight steps go along the axis with more to go.
        at = run(
            &mut cells,
            corner,
            if dx > dy { (sx, 0) } else { (0, sy) },
            n - k,
        );
        debug_assert_eq!(at, to, "a hop ends at its waypoint");
        (straight, diagonal) = (straight + u64::from(n - k), diagonal + u64::from(k));
        (x1, y1) = (x1.min(to.x), y1.min(to.y));
        (x2, y2) = (x2.max(to.x), y2.max(to.y));
    }
    cells.shrink_to_fit();
    Some(Walk {
        cells,
        length: straight as f64 + diagonal as f64 * std::f64::consts::SQRT_2,
        bounds: Rect::new(x1, y1, x2, y2),
        hops,
    })
}

/// The sign of the step from coordinate `from` toward `to`: -1, 0 or 1.
fn step_sign(from: u32, to: u32) -> i32 {
    i32::from(to > from) - i32::from(to < from)
}

/// What the straight line from `a` to `b` (see [`line_cells`]) costs under `costs`.
fn line_cost(grid: &Grid, costs: &TerrainCosts, a: Cell, b: Cell) -> f64 {
    let (mut prev, mut sum) = (a, 0.0);
    line_cells(a, b, |c| {
        sum += costs.cost_between(grid, prev, c);
        prev = c;
    });
    sum
}

/// String pulling: from each kept waypoint, skips ahead to the farthest later waypoint
/// that a clear straight line reaches without costing more than the route it replaces.
/// At unit costs a straight line costs the octile distance, never more than any route, so
/// only clearance is checked; with terrain costs a line across a swamp may cost more than
/// the way round it, and is then kept out. Either way the path only gets cheaper.
pub(crate) fn smooth(grid: &Grid, costs: &TerrainCosts, waypoints: &[Cell]) -> Vec<Cell> {
    let unit = costs.is_unit();
    let mut out = vec![waypoints[0]];
    let mut i = 0;
    while i + 1 < waypoints.len() {
        let mut k = i + 1;
        // The cost of the route from waypoint `i` to `k` as refined (weighted maps only).
        let mut route = if unit {
            0.0
        } else {
            line_cost(grid, costs, waypoints[i], waypoints[k])
        };
        while k + 1 < waypoints.len() && line_is_clear(grid, waypoints[i], waypoints[k + 1]) {
            if !unit {
                route += line_cost(grid, costs, waypoints[k], waypoints[k + 1]);
                if line_cost(grid, costs, waypoints[i], waypoints[k + 1]) > route {
                    break;
                }
            }
            k += 1;
        }
        out.push(waypoints[k]);
        i = k;
    }
    out
}

/// Cuts every loop out of a cell path: wherever a cell comes back, everything from its
/// first visit to its last goes, so no cell is visited twice.
///
/// Sound: the cell kept before a cut is the cell the original path left from after it, so
/// every remaining step is a step of the original path (legal), the ends stay, and the
/// length only drops. `last_seen` is scratch (where each cell was last seen), kept by the
/// caller so that a warm query allocates nothing here.
pub(crate) fn cut_loops(
    cells: &mut Vec<Cell>,
    last_seen: &mut HashMap<Cell, u32, ahash::RandomState>,
) {
    last_seen.clear();
    for (i, &c) in cells.iter().enumerate() {
        last_seen.insert(c, i as u32);
    }
    if last_seen.len() == cells.len() {
        return; // no cell repeats
    }
    let (mut kept, mut i) = (0, 0);
    while i < cells.len() {
        let c = cells[i];
        cells[kept] = c;
        kept += 1;
        // Resume after the last visit: no later cell is `c` again.
        i = last_seen[&c] as usize + 1;
    }
    cells.truncate(kept);
}

/// What is wrong with a path, as found by [`Path::validate`].
///
/// ```
/// use quadpath::{Cell, Grid, Path, PathDefect, TerrainCosts};
/// // .@.
/// // ...
/// let grid = Grid::from_fn(3, 2, |x, y| (x, y) != (1, 0));
/// let (a, b) = (Cell::new(0, 0), Cell::new(1, 1));
/// let corner_cut = Path::from_cells(vec![a, b]);
/// let defect = corner_cut.validate(&grid, &TerrainCosts::unit(), a, b);
/// assert_eq!(defect, Err(PathDefect::IllegalStep { index: 1, from: a, to: b }));
/// let mut boasting = Path::from_cells(vec![a, Cell::new(0, 1), b]);
/// boasting.length = 1.0;
/// let defect = boasting.validate(&grid, &TerrainCosts::unit(), a, b);
/// assert!(matches!(defect, Err(PathDefect::WrongLength { actual: 2.0, .. })));
/// ```
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PathDefect {
    /// The path has no cells.
    #[error("the path is empty")]
    Empty,
    /// It does not begin at the start or end at the goal.
    #[error("the path runs from {from} to {to}, not from {start} to {goal}")]
    WrongEnds {
        /// First cell.
        from: Cell,
        /// Last cell.
        to: Cell,
        /// Expected first cell.
        start: Cell,
        /// Expected last cell.
        goal: Cell,
    },
    /// A cell is blocked or outside the map.
    #[error("step {index} is on blocked cell {cell}")]
    Blocked {
        /// Position in the path.
        index: usize,
        /// The cell.
        cell: Cell,
    },
    /// Two consecutive cells are not 8-neighbours, or a diagonal step cuts a corner.
    #[error("step {index} from {from} to {to} is not a legal move")]
    IllegalStep {
        /// Position of `to` in the path.
        index: usize,
        /// Cell before.
        from: Cell,
        /// Cell after.
        to: Cell,
    },
    /// The claimed length is not the sum of the step lengths.
    #[error("claimed length {claimed} but the steps add up to {actual}")]
    WrongLength {
        /// Claimed.
        claimed: f64,
        /// Summed.
        actual: f64,
    },
    /// The claimed cost is not the sum of the weighted step costs.
    #[error("claimed cost {claimed} but the steps cost {actual}")]
    WrongCost {
        /// Claimed.
        claimed: f64,
        /// Summed.
        actual: f64,
    },
}

impl Path {
    /// Checks that this path is a legal route from `start` to `goal` on `grid` under the
    /// crate's movement rules (every cell free, every step a single 8-neighbour step
    /// without corner cutting), that its claimed [`length`](Path::length) is the sum of its
    /// steps (within 1e-6), and that its claimed [`cost`](Path::cost) is what its steps cost
    /// under `costs` (within 1e-6 relative). Pass [`TerrainCosts::unit()`] for a map
    /// without terrain costs, where a path's cost is its length.
    ///
    /// For a [`World`](crate::World) class, check against the class's layer: its grid holds
    /// the class's open positions and its costs are the class's
    /// (`path.validate(layer.grid(), layer.costs(), a, b)` with
    /// `layer = world.layer(class)`), so the footprint rule is checked too.
    ///
    /// This is the independent oracle the tests hold every search to: it reads only the
    /// grid, never the search structure.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, Path, PathDefect, TerrainCosts};
    /// let mut grid = Grid::new_free(2, 1);
    /// grid.set_terrain(Cell::new(1, 0), b'G');
    /// let (a, b) = (Cell::new(0, 0), Cell::new(1, 0));
    /// let unit = Path::from_cells(vec![a, b]);
    /// assert_eq!(unit.validate(&grid, &TerrainCosts::unit(), a, b), Ok(()));
    /// // Under costs where a road is cheaper, the unit path claims the wrong cost.
    /// let costs: TerrainCosts = "G=0.5".parse()?;
    /// assert!(matches!(unit.validate(&grid, &costs, a, b), Err(PathDefect::WrongCost { .. })));
    /// let weighted = Path::from_cells_with_costs(unit.cells.clone(), &grid, &costs);
    /// assert_eq!(weighted.validate(&grid, &costs, a, b), Ok(()));
    /// // A step onto a blocked cell is caught whatever the costs.
    /// grid.set_blocked(b, true);
    /// assert!(matches!(weighted.validate(&grid, &costs, a, b), Err(PathDefect::Blocked { .. })));
    /// # Ok::<(), quadpath::CostError>(())
    /// ```
    ///
    /// # Errors
    /// The first [`PathDefect`] found, in path order, then [`PathDefect::WrongLength`], then
    /// [`PathDefect::WrongCost`].
    pub fn validate(
        &self,
        grid: &Grid,
        costs: &TerrainCosts,
        start: Cell,
        goal: Cell,
    ) -> Result<(), PathDefect> {
        validate_length(grid, start, goal, self)?;
        let actual = self
            .cells
            .windows(2)
            .map(|w| costs.cost_between(grid, w[0], w[1]))
            .fold(0.0, |sum, step| sum + step);
        if !agrees(self.cost, actual, 1e-6 * actual.max(1.0)) {
            return Err(PathDefect::WrongCost {
                claimed: self.cost,
                actual,
            });
        }
        Ok(())
    }
}

/// Whether a claimed figure is within `tolerance` of the actual one. Written so that a NaN
/// claim disagrees (every comparison with NaN is false).
fn agrees(claimed: f64, actual: f64, tolerance: f64) -> bool {
    (claimed - actual).abs() <= tolerance
}

fn validate_length(grid: &Grid, start: Cell, goal: Cell, path: &Path) -> Result<(), PathDefect> {
    let (Some(&from), Some(&to)) = (path.cells.first(), path.cells.last()) else {
        return Err(PathDefect::Empty);
    };
    if from != start || to != goal {
        return Err(PathDefect::WrongEnds {
            from,
            to,
            start,
            goal,
        });
    }
    let mut actual = 0.0;
    for (index, &cell) in path.cells.iter().enumerate() {
        if !grid.is_free(cell) {
            return Err(PathDefect::Blocked { index, cell });
        }
        if index > 0 {
            let prev = path.cells[index - 1];
            match Direction::between(prev, cell) {
                Some(d) if grid.can_step(prev, d) => actual += step_cost(d),
                _ => {
                    return Err(PathDefect::IllegalStep {
                        index,
                        from: prev,
                        to: cell,
                    })
                }
            }
        }
    }
    if !agrees(path.length, actual, 1e-6) {
        return Err(PathDefect::WrongLength {
            claimed: path.length,
            actual,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::movement::octile;
    use crate::hpa::search::bend;

    /// A walk's length counted over its hops is its cells' length to the bit (what lets a
    /// field's answer skip the pass over its cells), and both are the sum of the hops'
    /// octile distances; its cells are the straight lines through the waypoints with each
    /// hop bent after its diagonal steps, from its earlier end ([`bend`]), and its box is
    /// theirs, whatever the capacity it was given.
    #[test]
    fn a_walks_length_over_its_hops_is_its_cells_length() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |below: u32| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % u64::from(below)) as u32
        };
        let grid = Grid::new_free(600, 600);
        let costs = TerrainCosts::default();
        for _ in 0..500 {
            let waypoints: Vec<Cell> = (0..1 + next(12))
                .map(|_| Cell::new(next(600), next(600)))
                .collect();
            let walk =
                walk_hops(waypoints.iter().copied(), next(2000) as usize).expect("not empty");
            let bounds = walk.bounds;
            let route = Path::from_walk(walk, &grid, &costs);
            let mut points = vec![waypoints[0]];
            for w in waypoints.windows(2) {
                points.extend([bend(w[0], w[1]), w[1]]);
            }
            let cells = Path::from_cells_with_costs(refine(&points), &grid, &costs);
            assert_eq!(route.cells, cells.cells);
            assert_eq!(
                route.length.to_bits(),
                cells.length.to_bits(),
                "{waypoints:?}"
            );
            assert_eq!(route.cost.to_bits(), route.length.to_bits());
            let summed: f64 = waypoints.windows(2).map(|w| octile(w[0], w[1])).sum();
            assert!(
                (route.length - summed).abs() <= 1e-9 * summed.max(1.0),
                "{waypoints:?}"
            );
            assert_eq!(bounds, Rect::around(&cells.cells));
        }
    }

    #[test]
    fn lines_cost_the_octile_distance() {
        for (a, b) in [
            ((0, 0), (7, 3)),
            ((9, 2), (1, 5)),
            ((4, 4), (4, 0)),
            ((3, 8), (0, 0)),
        ] {
            let (a, b) = (Cell::from(a), Cell::from(b));
            let mut cells = vec![a];
            line_cells(a, b, |c| cells.push(c));
            assert_eq!(*cells.last().unwrap(), b);
            let p = Path::from_cells(cells);
            assert!((p.length - octile(a, b)).abs() < 1e-9, "{a} -> {b}");
            assert!(p
                .validate(&Grid::new_free(10, 10), &TerrainCosts::unit(), a, b)
                .is_ok());
        }
    }

    #[test]
    fn loops_are_cut_and_steps_kept() {
        let c = |x, y| Cell::new(x, y);
        let mut seen = HashMap::default();
        // Out to (3,3) and back, then a second loop through (1,0).
        let mut cells = vec![
            c(0, 0),
            c(1, 0),
            c(2, 1),
            c(3, 2),
            c(3, 3),
            c(3, 2),
            c(2, 1),
            c(2, 0),
            c(1, 0),
            c(1, 1),
            c(2, 2),
        ];
        cut_loops(&mut cells, &mut seen);
        assert_eq!(cells, vec![c(0, 0), c(1, 0), c(1, 1), c(2, 2)]);
        let p = Path::from_cells(cells.clone());
        assert!(p
            .validate(
                &Grid::new_free(4, 4),
                &TerrainCosts::unit(),
                c(0, 0),
                c(2, 2)
            )
            .is_ok());
        // A path without repeats is left alone, and so is a single cell.
        cut_loops(&mut cells, &mut seen);
        assert_eq!(cells.len(), 4);
        let mut one = vec![c(5, 5)];
        cut_loops(&mut one, &mut seen);
        assert_eq!(one, vec![c(5, 5)]);
    }

    #[test]
    fn a_zero_step_path_has_positive_zero_length() {
        let p = Path::from_cells(vec![Cell::new(3, 3)]);
        assert!(
            p.length == 0.0 && p.length.is_sign_positive(),
            "{}",
            p.length
        );
        assert_eq!(format!("{:.3}", p.length), "0.000");
    }

    #[test]
    fn validation_catches_corner_cuts() {
        let mut g = Grid::new_free(3, 3);
        g.set_blocked(Cell::new(1, 0), true);
        let p = Path::from_cells(vec![Cell::new(0, 0), Cell::new(1, 1)]);
        assert!(matches!(
            p.validate(&g, &TerrainCosts::unit(), Cell::new(0, 0), Cell::new(1, 1)),
            Err(PathDefect::IllegalStep { .. })
        ));
        assert!(!line_is_clear(&g, Cell::new(0, 0), Cell::new(2, 2)));
        assert!(line_is_clear(&g, Cell::new(0, 1), Cell::new(2, 2)));
    }

    /// Rows, columns and diagonals take the short way: the same cells as the rounding
    /// `i·d/n` of every other line, for every offset up to 7 each way.
    #[test]
    fn straight_and_diagonal_lines_round_like_the_rest() {
        let a = Cell::new(10, 10);
        for dx in -7i64..=7 {
            for dy in -7i64..=7 {
                let b = Cell::new((10 + dx) as u32, (10 + dy) as u32);
                let n = dx.abs().max(dy.abs());
                let rounded: Vec<Cell> = (1..=n)
                    .map(|i| {
                        let along = |d: i64| (2 * i * d + d.signum() * n) / (2 * n);
                        Cell::new((10 + along(dx)) as u32, (10 + along(dy)) as u32)
                    })
                    .collect();
                let mut cells = Vec::new();
                line_cells(a, b, |c| cells.push(c));
                assert_eq!(cells, rounded, "from {a} to {b}");
            }
        }
    }

    proptest::proptest! {
        /// `line_is_clear` (which stops at the first illegal step) says what every step of
        /// the line's full cell list says, on random grids with random walls: it fails
        /// when the walk stops early on a legal step or goes on past an illegal one.
        #[test]
        fn a_clear_line_has_every_step_legal(
            walls in proptest::collection::vec((0u32..12, 0u32..12), 0..30),
            a in (0u32..12, 0u32..12),
            b in (0u32..12, 0u32..12),
        ) {
            let mut g = Grid::new_free(12, 12);
            for w in walls {
                g.set_blocked(Cell::from(w), true);
            }
            let (a, b) = (Cell::from(a), Cell::from(b));
            let mut cells = vec![a];
            line_cells(a, b, |c| cells.push(c));
            let every_step = cells.windows(2).all(|s| {
                Direction::between(s[0], s[1]).is_some_and(|d| g.can_step(s[0], d))
            });
            proptest::prop_assert_eq!(line_is_clear(&g, a, b), every_step);
        }
    }
}
