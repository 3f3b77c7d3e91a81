//! [`FlowField`]: distances to one goal for every position of a map, and how to follow
//! them.

use super::solve::{self, UNREACHED};
use super::FlowError;
use crate::geom::{Cell, Direction, Rect};
use crate::hpa::{GatePolicy, HpaMap, Path, SlotId};
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Where a flow field leads: one cell, or anywhere in a rectangle ("move into this
/// area"), in which case a position's distance is to the nearest open cell of it.
///
/// ```
/// use quadpath::{Cell, FlowGoal, Grid, HpaMap, Mode, Rect};
/// let map = HpaMap::new(Grid::new_free(16, 16), Mode::Exact)?;
/// // "Move into the east third": each unit heads for the nearest cell of the area.
/// let rally = FlowGoal::Area(Rect::new(12, 0, 15, 15));
/// let field = map.flow_field(rally)?;
/// assert_eq!(field.goal(), rally);
/// assert_eq!(field.distance(&map, Cell::new(10, 5))?, Some(2.0));
/// assert_eq!(FlowGoal::from(Cell::new(1, 2)).area(), Rect::new(1, 2, 1, 2));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FlowGoal {
    /// One position.
    Cell(Cell),
    /// Any open position of a rectangle.
    Area(Rect),
}

impl FlowGoal {
    /// The goal as a rectangle (one cell for [`FlowGoal::Cell`]).
    pub fn area(self) -> Rect {
        match self {
            FlowGoal::Cell(c) => Rect::new(c.x, c.y, c.x, c.y),
            FlowGoal::Area(r) => r,
        }
    }
}

impl From<Cell> for FlowGoal {
    fn from(c: Cell) -> Self {
        FlowGoal::Cell(c)
    }
}

impl From<Rect> for FlowGoal {
    fn from(r: Rect) -> Self {
        FlowGoal::Area(r)
    }
}

impl fmt::Display for FlowGoal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FlowGoal::Cell(c) => write!(f, "cell {c}"),
            FlowGoal::Area(r) => write!(f, "area {},{}-{},{}", r.x1, r.y1, r.x2, r.y2),
        }
    }
}

/// Every open position's distance to one goal, and the next step of an optimal route from
/// it: what a group of units moving to one place shares (see the [module
/// docs](crate::flow) for why it is exact).
///
/// A field is computed from a map ([`HpaMap::flow_field`], or
/// [`World::flow_field`](crate::World::flow_field) for a movement class) and read with
/// that map: the queries take it as an argument, so a field can be kept in a game's own
/// state across frames and shared by every thread (it is `Send + Sync`).
///
/// **Laziness.** On an exact map the build is one search over the gate graph; a leaf's
/// per-position distances are worked out the first time a position in it is asked
/// about, and kept. A field that 200 units follow across a 1024² map touches only the
/// leaves they walk through ([`FlowField::computed_leaves`]).
///
/// **Edits.** A field is a snapshot: once its map changes (its
/// [`revision`](HpaMap::revision) moves on) every query answers [`FlowError::Stale`]
/// until [`FlowField::refresh`] recomputes the field from the map as it is. It is never
/// repaired in place, so it can never send a unit through a wall built after it.
///
/// ```
/// use quadpath::{Cell, FlowError, Grid, HpaMap, Mode, Rect};
/// let mut map = HpaMap::new(Grid::from_fn(16, 16, |x, y| x != 8 || y == 15), Mode::Exact)?;
/// let goal = Cell::new(15, 0);
/// let mut field = map.flow_field(goal)?;
/// let from = Cell::new(0, 0);
/// let d = field.distance(&map, from)?.expect("reachable, through the gap at the bottom");
/// let path = field.path_from(&map, from)?.expect("reachable");
/// assert_eq!(path.cells.last(), Some(&goal));
/// assert!((path.length - d).abs() < 1e-9);
/// assert_eq!(field.distance(&map, Cell::new(8, 3))?, None, "a wall cell");
/// // Close the gap: the field is stale until refreshed, and then the goal is cut off.
/// map.set_blocked(Cell::new(8, 15), true)?;
/// assert_eq!(field.next_step(&map, from), Err(FlowError::Stale));
/// field.refresh(&map)?;
/// assert_eq!(field.distance(&map, from)?, None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct FlowField {
    goal: FlowGoal,
    revision: u64,
    width: u32,
    height: u32,
    values: Values,
    /// `None` for a complete field; for a field bounded by its targets (built by the path
    /// service, never handed out), the search's per-node flags, to tell which positions it
    /// [covers](FlowField::covers).
    coverage: Option<Vec<u8>>,
    /// Cells of the leaf tables worked out so far: how a walk tells that a step paid for
    /// a leaf's sweep.
    swept: AtomicUsize,
    /// A large leaf's table under way, a slice at a time (the path service's walks, see
    /// [`FlowField::prepare`]).
    sweeping: Option<solve::LeafSweep>,
}

/// Leaves of more cells than this are worked out a slice at a time by the path service
/// ([`FlowField::prepare`]) rather than at their first read: a free 1,024² map is one leaf
/// of a million cells, whose table takes tens of milliseconds.
pub(crate) const SLICED_LEAF_CELLS: usize = 4096;

/// A read that needs a large leaf's table, not worked out yet (see [`FlowField::prepare`]).
#[derive(Clone, Copy, Debug)]
struct Unswept;

/// A flow field being built a slice of its backward Dijkstra at a time, so that a frame
/// budget can pause it after any node (the path service's builds). Optionally bounded: it
/// may stop once given positions are covered (see [the bound](crate::flow#bounded-fields)).
#[derive(Debug)]
pub(crate) struct FieldBuild {
    goal: FlowGoal,
    revision: u64,
    width: u32,
    height: u32,
    search: Search,
    /// Free-leaf slots of the map (exact maps).
    leaves: usize,
    /// The field's per-leaf table slots (exact maps), made a slice at a time once the
    /// search is over.
    tables: Vec<OnceLock<Box<[f64]>>>,
}

/// The search behind a [`FieldBuild`].
#[derive(Debug)]
enum Search {
    Gates(solve::GateDijkstra),
    Cells(solve::CellDijkstra),
}

/// The distances behind a field.
#[derive(Debug)]
enum Values {
    /// A map with every crossing as a gate: gate distances, and per leaf slot the leaf's
    /// table once asked for.
    Leaves {
        gates: Vec<f64>,
        tables: Vec<OnceLock<Box<[f64]>>>,
    },
    /// A map with sparse gates: every cell's distance, row by row.
    Cells(Vec<f64>),
}

impl HpaMap {
    /// The flow field leading to `goal` (a [`Cell`] or a [`Rect`], see [`FlowGoal`]).
    ///
    /// On a map with every crossing as a gate ([`GatePolicy::All`], exact mode) this is
    /// one Dijkstra over the gate graph, and positions are filled in leaf by leaf as they
    /// are asked about. On a map with sparse gates (fast mode) it is one Dijkstra over
    /// every open cell, done here: exact too, but it takes 8 bytes per cell of the map.
    ///
    /// **Which to use for a group.** On a layer of one terrain cost (the subgoal layer,
    /// exact mode's default there) the first field also builds the layer's gate graph,
    /// which the layer keeps up to date, and in memory, from then on; and one
    /// [`HpaMap::find_path`] per unit is far cheaper than a field and its walks (6–33× on
    /// the 1024² StarCraft maps, BENCHMARKS.md *Group moves*). A game ordering groups
    /// every frame should use the [`PathService`](crate::PathService), whose shared answers
    /// are backward searches over the subgoals. A field pays on layers with terrain costs,
    /// and wherever a unit must ask [`FlowField::next_step`] in constant time from any
    /// position it was pushed to.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, HpaMap, Mode, Rect};
    /// let map = HpaMap::new(Grid::new_free(32, 32), Mode::Exact)?;
    /// // "Anywhere along the east edge."
    /// let field = map.flow_field(Rect::new(31, 0, 31, 31))?;
    /// assert_eq!(field.distance(&map, Cell::new(1, 5))?, Some(30.0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`FlowError::GoalOutOfBounds`] for a goal reaching off the map and
    /// [`FlowError::GoalNotOpen`] for one with no free cell.
    pub fn flow_field(&self, goal: impl Into<FlowGoal>) -> Result<FlowField, FlowError> {
        let mut build = self.start_flow_field(goal.into())?;
        while !build.is_finished() {
            build.step(self, usize::MAX);
        }
        Ok(build.finish(self))
    }

    /// A build of the flow field to `goal`, nothing done yet; checks as
    /// [`HpaMap::flow_field`].
    pub(crate) fn start_flow_field(&self, goal: FlowGoal) -> Result<FieldBuild, FlowError> {
        let area = goal.area();
        let (width, height) = (self.grid().width(), self.grid().height());
        if area.x2 >= width || area.y2 >= height {
            return Err(FlowError::GoalOutOfBounds {
                goal,
                width,
                height,
            });
        }
        let goal_leaves = self.free_leaves_in(area);
        if goal_leaves.is_empty() {
            return Err(FlowError::GoalNotOpen { goal });
        }
        let search = if self.config().gates == GatePolicy::All {
            Search::Gates(solve::GateDijkstra::new(
                self.gate_graph(),
                area,
                goal_leaves,
            ))
        } else {
            Search::Cells(solve::CellDijkstra::new(self.grid(), area))
        };
        Ok(FieldBuild {
            goal,
            revision: self.revision(),
            width,
            height,
            search,
            leaves: self.gate_graph().leaf_capacity(),
            tables: Vec::new(),
        })
    }
}

impl FieldBuild {
    /// Bounds the build by `cell`: it may stop once `cell`'s distance (and every other
    /// target's) is final. Call before the first step. A closed cell is ignored.
    pub(crate) fn target(&mut self, map: &HpaMap, cell: Cell) {
        match &mut self.search {
            Search::Gates(search) => {
                if let Some(leaf) = map.free_leaf_at(cell) {
                    search.target(map.gate_graph(), leaf);
                }
            }
            Search::Cells(search) => {
                if map.grid().is_free(cell) {
                    search.target(map.grid(), cell);
                }
            }
        }
    }

    /// Whether `map` is still the map the build started on.
    pub(crate) fn is_current(&self, map: &HpaMap) -> bool {
        map.revision() == self.revision
    }

    /// Whether the search is over (then [`FieldBuild::finish`]).
    pub(crate) fn is_finished(&self) -> bool {
        match &self.search {
            Search::Gates(search) => search.is_finished() && self.tables.len() == self.leaves,
            Search::Cells(search) => search.is_finished(),
        }
    }

    /// Settles up to `max` nodes (gates, or cells on a map with sparse gates; at least one
    /// pop); returns the pops, the build's work in the units of a search's expansions.
    /// `map` must be the map the build started on ([`FieldBuild::is_current`]).
    pub(crate) fn step(&mut self, map: &HpaMap, max: usize) -> usize {
        debug_assert!(self.is_current(map), "a build on an edited map");
        match &mut self.search {
            Search::Gates(search) if search.is_finished() => {
                // The table slots, as many as the work allows.
                let add = (self.leaves - self.tables.len())
                    .min(max.max(1).saturating_mul(solve::FILL_PER_UNIT));
                self.tables
                    .extend(std::iter::repeat_with(OnceLock::new).take(add));
                add.div_ceil(solve::FILL_PER_UNIT).max(1)
            }
            Search::Gates(search) => search.step(map.gate_graph(), max),
            Search::Cells(search) => search.step(map.grid(), map.costs(), max),
        }
    }

    /// The field, once the search is over.
    pub(crate) fn finish(self, map: &HpaMap) -> FlowField {
        let (values, coverage) = match self.search {
            Search::Gates(search) => {
                debug_assert_eq!(self.tables.len(), map.gate_graph().leaf_capacity());
                let bounded = !search.open_is_empty();
                let tables = self.tables;
                let coverage = bounded.then_some(search.state);
                (
                    Values::Leaves {
                        gates: search.dist,
                        tables,
                    },
                    coverage,
                )
            }
            Search::Cells(search) => {
                let bounded = !search.open_is_empty();
                let coverage = bounded.then_some(search.state);
                (Values::Cells(search.dist), coverage)
            }
        };
        FlowField {
            goal: self.goal,
            revision: self.revision,
            width: self.width,
            height: self.height,
            values,
            coverage,
            swept: AtomicUsize::new(0),
            sweeping: None,
        }
    }
}

impl FlowField {
    /// The goal the field leads to.
    pub fn goal(&self) -> FlowGoal {
        self.goal
    }

    /// Whether the field still describes `map` (built from it, and no edit since).
    pub fn is_current(&self, map: &HpaMap) -> bool {
        map.revision() == self.revision
    }

    /// Recomputes the field from `map` as it is now if it is stale; returns whether it
    /// did. Refreshing with another map re-targets the field to that map.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, HpaMap, Mode};
    /// let mut map = HpaMap::new(Grid::new_free(8, 8), Mode::Exact)?;
    /// let mut field = map.flow_field(Cell::new(7, 7))?;
    /// assert!(!field.refresh(&map)?, "nothing changed");
    /// map.set_blocked(Cell::new(4, 4), true)?;
    /// assert!(field.refresh(&map)?);
    /// assert!(field.is_current(&map));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`HpaMap::flow_field`]: the goal may have been built over. The field stays stale
    /// then.
    pub fn refresh(&mut self, map: &HpaMap) -> Result<bool, FlowError> {
        if self.is_current(map) {
            return Ok(false);
        }
        *self = map.flow_field(self.goal)?;
        Ok(true)
    }

    /// The length of an optimal route from `cell` to the goal: `Some(0.0)` on the goal,
    /// `None` when no route exists (a blocked cell, or one walled off from the goal).
    ///
    /// ```
    /// use quadpath::{Cell, Grid, HpaMap, Mode};
    /// let map = HpaMap::new(Grid::new_free(8, 8), Mode::Exact)?;
    /// let field = map.flow_field(Cell::new(0, 0))?;
    /// assert_eq!(field.distance(&map, Cell::new(3, 0))?, Some(3.0));
    /// assert_eq!(field.distance(&map, Cell::new(0, 0))?, Some(0.0));
    /// assert!(field.distance(&map, Cell::new(8, 0)).is_err(), "off the map");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`FlowError::Stale`] when `map` changed since the field was computed, and
    /// [`FlowError::OutOfBounds`] for a cell off the map.
    pub fn distance(&self, map: &HpaMap, cell: Cell) -> Result<Option<f64>, FlowError> {
        self.check(map, cell)?;
        let d = self.value(map, cell);
        Ok((d < UNREACHED).then_some(d))
    }

    /// The neighbour to step to from `cell` on an optimal route to the goal: the legal
    /// step that minimises the neighbour's distance plus the step, the first in
    /// [`Direction::ALL`] order among equals. `None` when there is no step to take: on
    /// the goal, or when the goal cannot be reached ([`FlowField::distance`] tells the
    /// two apart).
    ///
    /// ```
    /// use quadpath::{Cell, Grid, HpaMap, Mode};
    /// let map = HpaMap::new(Grid::new_free(8, 8), Mode::Exact)?;
    /// let field = map.flow_field(Cell::new(7, 7))?;
    /// assert_eq!(field.next_step(&map, Cell::new(0, 0))?, Some(Cell::new(1, 1)));
    /// assert_eq!(field.next_step(&map, Cell::new(7, 7))?, None, "arrived");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`FlowField::distance`].
    pub fn next_step(&self, map: &HpaMap, cell: Cell) -> Result<Option<Cell>, FlowError> {
        self.check(map, cell)?;
        Ok(self.step_from(map, cell))
    }

    /// The route `next_step` leads along from `cell` to the goal (`cell` first; one cell
    /// when `cell` is on the goal), or `None` when the goal cannot be reached. Its length
    /// is the field's [`distance`](FlowField::distance) from `cell`.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, HpaMap, Mode};
    /// let map = HpaMap::new(Grid::from_fn(10, 10, |x, y| x != 5 || y == 0), Mode::Exact)?;
    /// let field = map.flow_field(Cell::new(9, 9))?;
    /// let path = field.path_from(&map, Cell::new(0, 9))?.expect("over the top");
    /// assert!(path.cells.contains(&Cell::new(5, 0)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`FlowField::distance`].
    pub fn path_from(&self, map: &HpaMap, cell: Cell) -> Result<Option<Path>, FlowError> {
        self.check(map, cell)?;
        if self.value(map, cell) == UNREACHED {
            return Ok(None);
        }
        let mut cells = vec![cell];
        let mut here = cell;
        // The leaves the walk has looked at lately: a route crosses a few leaves many times
        // along their borders, and each lookup in the tree costs several hash probes.
        let mut seen = Areas::sweeping_all();
        while let Ok(Some(next)) = self.step_with(map, here, &mut seen) {
            cells.push(next);
            here = next;
        }
        Ok(Some(Path::from_cells_with_costs(
            cells,
            map.grid(),
            map.costs(),
        )))
    }

    /// Goes on with a walk down the field: `cells` holds the walk so far (its last cell
    /// where it stands, a position the field [covers](FlowField::covers) or one reached by
    /// walking from one); adds up to `max` steps of [`FlowField::next_step`] (at least
    /// one, unless it needs a large leaf's table: see below), stopping early after a step
    /// that worked out leaves' distances (a sweep over each one's rectangle, the costly
    /// part of a walk; a step reads its cell and eight neighbours, so up to nine leaves,
    /// each of at most [`SLICED_LEAF_CELLS`] cells). Returns whether the walk is over (on the goal, or nowhere to go) and the
    /// cells swept. A step that would read a leaf of more than [`SLICED_LEAF_CELLS`] cells
    /// whose table is not worked out yet is not taken: the walk stops before it, for
    /// [`FlowField::prepare`] to work the table out a slice at a time. The field must be
    /// current for `map`. What the path service reads a slice at a time.
    pub(crate) fn walk(&self, map: &HpaMap, cells: &mut Vec<Cell>, max: usize) -> (bool, usize) {
        debug_assert!(self.is_current(map), "a walk on a stale field");
        let mut seen = Areas::leaving_large();
        let before = self.swept.load(Ordering::Relaxed);
        for _ in 0..max.max(1) {
            let here = *cells.last().expect("a walk starts somewhere");
            match self.step_with(map, here, &mut seen) {
                Ok(Some(next)) => cells.push(next),
                Ok(None) => return (true, self.swept.load(Ordering::Relaxed) - before),
                Err(Unswept) => break,
            }
            let swept = self.swept.load(Ordering::Relaxed) - before;
            if swept > 0 {
                return (false, swept);
            }
        }
        (false, 0)
    }

    /// Works out, a slice at a time, the tables of the leaves of more than
    /// [`SLICED_LEAF_CELLS`] cells that reading `cell`'s distance and stepping from it
    /// read (the leaves of `cell` and of its eight neighbours), until about `max_cells`
    /// cells were worked on (whole rows, at least one). Returns whether they are all
    /// worked out (then [`FlowField::walk`] and [`FlowField::reaches_goal`] from `cell`
    /// sweep at most small leaves) and the cells worked on. The tables are the ones a
    /// first read would have made ([`solve::LeafSweep`]).
    pub(crate) fn prepare(&mut self, map: &HpaMap, cell: Cell, max_cells: usize) -> (bool, usize) {
        let Values::Leaves { gates, tables } = &self.values else {
            return (true, 0); // every cell's distance is there from the start
        };
        let graph = map.gate_graph();
        let goal = self.goal.area();
        // At least one row is worked on, whatever the budget, so every call makes progress.
        let allowance = max_cells.max(1);
        let mut worked = 0;
        let around = Direction::ALL.iter().filter_map(|&dir| cell.step(dir));
        for c in std::iter::once(cell).chain(around) {
            if c.x >= self.width || c.y >= self.height {
                continue;
            }
            let Some(leaf) = map.free_leaf_at(c) else {
                continue;
            };
            let slot = &tables[leaf.index()];
            if slot.get().is_some() || graph.leaf_rect(leaf).area() as usize <= SLICED_LEAF_CELLS {
                continue;
            }
            if worked >= allowance {
                return (false, worked);
            }
            let sweep = match &mut self.sweeping {
                Some(sweep) if sweep.leaf() == leaf => sweep,
                other => other.insert(solve::LeafSweep::new(graph, leaf)),
            };
            worked += sweep.run(graph, gates, goal, allowance - worked);
            if !sweep.is_done() {
                return (false, worked);
            }
            let table = self
                .sweeping
                .take()
                .expect("the sweep just ran")
                .into_table();
            // Already set only if a read made it meanwhile: the same table.
            let _ = slot.set(table);
        }
        (true, worked)
    }

    /// Whether `cell` has a route to the goal on the field (a current one).
    pub(crate) fn reaches_goal(&self, map: &HpaMap, cell: Cell) -> bool {
        self.value(map, cell) < UNREACHED
    }

    /// How many leaves have their per-position distances worked out so far (0 for a field
    /// over a map with sparse gates, which holds every cell from the start).
    pub fn computed_leaves(&self) -> usize {
        match &self.values {
            Values::Leaves { tables, .. } => tables.iter().filter(|t| t.get().is_some()).count(),
            Values::Cells(_) => 0,
        }
    }

    /// How many leaves of more than [`SLICED_LEAF_CELLS`] cells have their table worked
    /// out (for tests of who works them out).
    #[cfg(test)]
    pub(crate) fn large_tables(&self, map: &HpaMap) -> usize {
        let Values::Leaves { tables, .. } = &self.values else {
            return 0;
        };
        let graph = map.gate_graph();
        graph
            .leaves()
            .filter(|&(leaf, _)| tables[leaf.index()].get().is_some())
            .filter(|&(leaf, _)| graph.leaf_rect(leaf).area() as usize > SLICED_LEAF_CELLS)
            .count()
    }

    /// Heap bytes the field holds now (it grows as leaves are worked out).
    pub fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        (match &self.values {
            Values::Leaves { gates, tables } => {
                gates.capacity() * size_of::<f64>()
                    + tables.capacity() * size_of::<OnceLock<Box<[f64]>>>()
                    + tables
                        .iter()
                        .filter_map(|t| t.get())
                        .map(|t| t.len() * size_of::<f64>())
                        .sum::<usize>()
            }
            Values::Cells(cells) => cells.capacity() * size_of::<f64>(),
        }) + self.coverage.as_ref().map_or(0, Vec::capacity)
            + self
                .sweeping
                .as_ref()
                .map_or(0, solve::LeafSweep::memory_bytes)
    }

    /// Whether the field's distance at `cell` is exact: always on a complete field; on a
    /// bounded one, when the search settled every gate of `cell`'s leaf (or `cell` itself
    /// on a map with sparse gates). A closed cell is covered (it has no distance).
    pub(crate) fn covers(&self, map: &HpaMap, cell: Cell) -> bool {
        let Some(state) = &self.coverage else {
            return true;
        };
        match &self.values {
            Values::Leaves { .. } => map.free_leaf_at(cell).map_or(true, |leaf| {
                solve::gates_settled(map.gate_graph(), leaf, state)
            }),
            Values::Cells(_) => {
                !map.grid().is_free(cell)
                    || solve::settled(
                        state,
                        cell.y as usize * self.width as usize + cell.x as usize,
                    )
            }
        }
    }

    /// Refuses a stale field and a cell off the map.
    fn check(&self, map: &HpaMap, cell: Cell) -> Result<(), FlowError> {
        if !self.is_current(map) {
            return Err(FlowError::Stale);
        }
        if cell.x >= self.width || cell.y >= self.height {
            return Err(FlowError::OutOfBounds {
                cell,
                width: self.width,
                height: self.height,
            });
        }
        Ok(())
    }

    /// The distance of a cell on the map, [`UNREACHED`] when blocked or cut off.
    fn value(&self, map: &HpaMap, cell: Cell) -> f64 {
        self.area_of(map, cell).value(cell)
    }

    /// The table `cell`'s distance is read from: its leaf's (worked out now if it was not
    /// yet), or the whole map's.
    fn area_of<'a>(&'a self, map: &HpaMap, cell: Cell) -> Area<'a> {
        self.try_area_of(map, cell, true)
            .unwrap_or_else(|Unswept| unreachable!("every leaf is swept when asked to"))
    }

    /// [`FlowField::area_of`], but with `sweep_large` false, `Err` instead of working out
    /// the table of a leaf of more than [`SLICED_LEAF_CELLS`] cells.
    fn try_area_of<'a>(
        &'a self,
        map: &HpaMap,
        cell: Cell,
        sweep_large: bool,
    ) -> Result<Area<'a>, Unswept> {
        Ok(match &self.values {
            Values::Leaves { gates, tables } => match map.free_leaf_at(cell) {
                Some(leaf) => {
                    let graph = map.gate_graph();
                    let rect = graph.leaf_rect(leaf);
                    let slot = &tables[leaf.index()];
                    if !sweep_large
                        && slot.get().is_none()
                        && rect.area() as usize > SLICED_LEAF_CELLS
                    {
                        return Err(Unswept);
                    }
                    let table = slot.get_or_init(|| {
                        let table = solve::leaf_distances(graph, leaf, gates, self.goal.area());
                        self.swept.fetch_add(table.len(), Ordering::Relaxed);
                        table
                    });
                    Area { rect, table }
                }
                None => Area {
                    rect: Rect::new(cell.x, cell.y, cell.x, cell.y),
                    table: &[UNREACHED],
                },
            },
            Values::Cells(cells) => Area {
                rect: Rect::new(0, 0, self.width - 1, self.height - 1),
                table: cells,
            },
        })
    }

    /// The best legal step out of `cell`, if it is reachable and not on the goal.
    fn step_from(&self, map: &HpaMap, cell: Cell) -> Option<Cell> {
        self.step_with(map, cell, &mut Areas::sweeping_all())
            .unwrap_or_else(|Unswept| unreachable!("every leaf is swept when asked to"))
    }

    /// [`FlowField::step_from`], reading distances through the recently used `seen`.
    /// `Err` when `seen` leaves large leaves alone and the step needs one's table.
    fn step_with<'a>(
        &'a self,
        map: &HpaMap,
        cell: Cell,
        seen: &mut Areas<'a>,
    ) -> Result<Option<Cell>, Unswept> {
        let here = seen.value(self, map, cell)?;
        if here == 0.0 || here == UNREACHED {
            return Ok(None);
        }
        let grid = map.grid();
        let mut best: Option<(f64, Cell)> = None;
        for dir in Direction::ALL {
            if !grid.can_step(cell, dir) {
                continue;
            }
            let next = cell.step(dir).expect("a legal step stays on the map");
            let via = seen.value(self, map, next)? + map.costs().cost_between(grid, cell, next);
            if best.map_or(true, |(b, _)| via < b) {
                best = Some((via, next));
            }
        }
        // The distance obeys Bellman's equation, so the best neighbour is strictly closer:
        // the walk cannot cycle.
        debug_assert!(
            best.is_some_and(|(b, _)| b < here + 1e-6),
            "no step down from {cell}"
        );
        Ok(best.map(|(_, next)| next))
    }
}

/// The last few areas a walk read, most recent first: most cells and their neighbours lie
/// in one of them.
struct Areas<'a> {
    recent: [Option<Area<'a>>; 4],
    /// Whether a read may work out a large leaf's table (see [`SLICED_LEAF_CELLS`]).
    sweep_large: bool,
}

impl<'a> Areas<'a> {
    /// Areas read by walks that work out every leaf's table when first read.
    fn sweeping_all() -> Self {
        Areas {
            recent: [None; 4],
            sweep_large: true,
        }
    }

    /// Areas read by the path service's walks, which leave large leaves' tables to
    /// [`FlowField::prepare`].
    fn leaving_large() -> Self {
        Areas {
            recent: [None; 4],
            sweep_large: false,
        }
    }

    /// The distance of free or blocked `cell`, from a recent area if one holds it; `Err`
    /// for a large leaf not worked out yet, unless this reader works them out.
    #[inline]
    fn value(&mut self, field: &'a FlowField, map: &HpaMap, cell: Cell) -> Result<f64, Unswept> {
        if let Some(i) = self
            .recent
            .iter()
            .position(|a| a.as_ref().is_some_and(|a| a.rect.contains(cell)))
        {
            // Move it to the front, so that the current leaf is found first.
            self.recent[..=i].rotate_right(1);
        } else {
            let area = field.try_area_of(map, cell, self.sweep_large)?;
            self.recent.rotate_right(1);
            self.recent[0] = Some(area);
        }
        Ok(self.recent[0].as_ref().expect("just set").value(cell))
    }
}

/// A rectangle of the map with its distances, row by row.
#[derive(Clone, Copy)]
struct Area<'a> {
    rect: Rect,
    table: &'a [f64],
}

impl Area<'_> {
    #[inline]
    fn value(&self, c: Cell) -> f64 {
        let r = self.rect;
        self.table[(c.y - r.y1) as usize * r.width() as usize + (c.x - r.x1) as usize]
    }
}
