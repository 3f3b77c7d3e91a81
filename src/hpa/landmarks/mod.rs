//! Differential heuristics: exact grid distances from a few landmark cells, which bound the
//! distance between any two cells from below far better than the octile distance does
//! behind walls.
//!
//! For a landmark `L`, `|D(L, goal) − D(L, n)| ≤ d(n, goal)` by the triangle inequality.
//! What the search needs is weaker and survives edits: the table `D` only has to be
//! *1-Lipschitz*, `|D(u) − D(v)| ≤ cost(u, v)` for every legal step, for the bound to be
//! admissible and consistent (sum the inequality along any path). So:
//!
//! - **blocking** cells only removes steps, and the old table stays valid as it is (it just
//!   underestimates more);
//! - **freeing** cells adds steps around them, and a Dijkstra-style pass that only lowers
//!   values, seeded with the cells around the change, restores the property. It touches only
//!   cells whose value drops: little after a building comes down where the table was built
//!   around it, a region when a new passage opens a real shortcut. So that no edit stalls
//!   on that, the repair has a budget; a landmark whose repair runs over it is set aside
//!   (the bound simply ignores it) until [`Landmarks::refresh`] recomputes its column.
//!
//! Distances are stored as integers on the movement model's lattice
//! ([`crate::grid::movement::LATTICE_DIAGONAL`]): units of 1/29 cell, with a diagonal step
//! of 41 units. 41/29 is just below √2, so the stored steps never exceed the true ones and
//! every bound holds exactly, without floating-point doubt.
//!
//! With terrain costs the columns hold weighted distances. Each cell's cost is rounded
//! *down* to a multiple of `1/Q` (`Q` = 8 / the cheapest cost, so the cheapest terrain
//! counts 8 units and dyadic costs stay exact), capped at 512 units, and a step weighs
//! `⌊lattice length × (q(a) + q(b)) / 2⌋`: never more than its true cost in units of
//! `1/(29·Q)`, so the columns stay Lipschitz in the true costs and the bounds admissible.
//! A cell made dearer only lengthens distances (kept as blocking is), and one made cheaper
//! is repaired as a freed one is.
//!
//! # Files
//! - this file: the [`Landmarks`] (build, bounds, edits and their repair, the sliced
//!   refresh) and the choice of their places;
//! - `steps.rs`: the legal steps out of every cell and their weights in table units
//!   ([`Steps`]), which every search over the grid here reads;
//! - `flood.rs`: the search for the first landmark's place ([`Flood`]), resumable in
//!   slices.
//!
//! The column search ([`ColumnSearch`]) stays in this file: moved out, its loop compiled to
//! 1.8 % more instructions (callgrind of the build on den520d with terrain costs).

use super::costs::CostBands;
use super::landmark_table::DistanceTable;
use crate::geom::Cell;
// Only the Lipschitz check (tests and the `testing` feature) walks the directions here.
#[cfg(any(test, feature = "testing"))]
use crate::geom::Direction;
use crate::grid::Grid;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

mod flood;
mod steps;

use flood::{largest_region_far_cell, Flood};
use steps::Steps;

/// The value of cells that no landmark distance has reached (another component, or walls).
pub(crate) const UNREACHED: u32 = u32::MAX;
/// The most landmarks a map may have.
pub(crate) const MAX_LANDMARKS: usize = 16;
/// Cells one edit's repair may settle, over all landmarks, before the landmarks still
/// unrepaired are set aside: about 400 µs of work at most. Each landmark set aside costs a
/// search over the whole map at the next refresh (20 ms on a 1024² map); with a quarter of
/// this budget, a replay of 2,700 buildings going up and down on a 1024² StarCraft map spent
/// 1.4 s on such searches, with this one none.
const REPAIR_BUDGET: usize = 4096;

/// Landmark cells and their distance table. The table ([`DistanceTable`]) is kept in 8×8
/// blocks, allocated only where some cell is free, so a map that is mostly rock or void pays
/// for its open part only; a block's `64·k` values are contiguous 16-bit offsets, which
/// keeps nearby cells in the same cache lines.
#[derive(Clone, Debug, Default)]
pub(crate) struct Landmarks {
    k: usize,
    cells: Vec<Cell>,
    /// Landmarks whose column is out of date and must not be used until recomputed.
    stale: LandmarkSet,
    /// Landmarks of a table set up after edits (see [`Landmarks::unbuilt`]) that have no
    /// place yet: each is placed, in turn, where the columns already computed say is
    /// farthest from the others, as [`Landmarks::build`] places them.
    unplaced: LandmarkSet,
    /// Landmarks whose column is still valid but has grown loose: cells blocked since it
    /// was computed lengthen real distances the column does not know of, so the bound
    /// drifts towards the octile one. Used, and recomputed by the next refresh.
    loose: LandmarkSet,
    /// Cells blocked since the columns were last all tightened.
    blocked_since: usize,
    /// Blocked cells past which every column counts as loose: a sixteenth of the free
    /// cells at build time. A map laid patch by patch over empty ground (the GPPC dynamic
    /// scenarios) otherwise keeps the columns of the empty map, and exact searches there
    /// ran at octile speed (`dao_arena2`: median query 1.7 ms, about 1.2 ms tightened; a
    /// sixty-fourth reaches 0.8 ms there but made a generated 1024² StarCraft replay 2.5×
    /// slower overall).
    /// Whether tightening is worth its cost is the map's call (see
    /// `HpaMap::tightening_pays`): each column is a search over the whole map.
    loose_after: usize,
    /// Free cells at build time: what recomputing one column costs, in cells settled.
    column_cost: usize,
    /// Boxed: read by builds and repairs only, not by the bounds the searches ask for.
    steps: Box<Steps>,
    /// Cells per table unit: what turns a column's difference into a bound.
    per_unit: f64,
    /// Map width in cells.
    width: u32,
    table: DistanceTable,
    scratch: Vec<Reverse<(u32, Cell)>>,
    /// The column recomputation under way, if any (see [`Landmarks::refresh_step`]).
    /// Boxed: rarely under way, and the map handle stays small.
    job: Option<Box<ColumnJob>>,
}

/// A column recomputation under way, in one of its three phases, or the setup of a table
/// built after edits (see [`Landmarks::unbuilt`]) before its first column.
#[derive(Clone, Debug)]
enum ColumnJob {
    /// Filling the step masks and allocating the table's blocks for the cells from index
    /// `next_cell` on.
    Preparing { next_cell: usize },
    /// Looking for the first landmark's place (see [`Flood`]).
    Flooding(Box<Flood>),
    /// Scanning the table's blocks from `next_block` for a better place for `landmark`.
    Placing {
        landmark: usize,
        next_block: usize,
        best: Farthest,
    },
    /// Searching the column.
    Searching(ColumnSearch),
    /// Writing the finished column into the table's blocks from `next_block`.
    Storing {
        search: ColumnSearch,
        next_block: usize,
    },
}

/// The best place found so far by a scan for the cell farthest from the other landmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Farthest {
    /// No cell yet.
    #[default]
    None,
    /// This cell, at this smallest distance from the others.
    Found(u32, Cell),
    /// Some free cell is reached by no other landmark: the scan keeps the landmark where
    /// it is.
    GaveUp,
}

/// Cells per block of the table: what one block of a sliced scan or write counts as work.
const PER_BLOCK_CELLS: usize = 64;

/// Cells a refresh with a time budget handles per unit of landmark work (see
/// [`Landmarks::refresh_step`]): a few hundred microseconds at most.
pub(crate) const COLUMN_SLICE: usize = 1024;

/// Empty buckets a column search passes over in the time it settles a cell, roughly: what
/// one unit of its work counts.
const EMPTY_BUCKETS_PER_UNIT: usize = 64;

/// A set of landmark indexes (below [`MAX_LANDMARKS`]) as bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct LandmarkSet(u16);

const _: () = assert!(MAX_LANDMARKS <= 16, "a landmark set holds 16 indexes");

impl LandmarkSet {
    /// The set of `0..k`.
    fn first(k: usize) -> Self {
        LandmarkSet(((1u32 << k) - 1) as u16)
    }

    fn contains(self, l: usize) -> bool {
        self.0 >> l & 1 == 1
    }

    fn insert(&mut self, l: usize) {
        self.0 |= 1 << l;
    }

    fn remove(&mut self, l: usize) {
        self.0 &= !(1 << l);
    }

    fn is_empty(self) -> bool {
        self.0 == 0
    }

    fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// The smallest index in the set.
    fn lowest(self) -> Option<usize> {
        (!self.is_empty()).then(|| self.0.trailing_zeros() as usize)
    }
}

/// The goal's row of the table, ready to bound distances to it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GoalRow {
    row: [u32; MAX_LANDMARKS],
    /// All ones for landmarks that reach the goal, zero for the others.
    mask: [u32; MAX_LANDMARKS],
}

impl Landmarks {
    /// Places `k` landmarks (at most [`MAX_LANDMARKS`]) on `grid` by farthest-point
    /// selection in its largest connected region, and fills in their distances.
    pub fn build(grid: &Grid, costs: &CostBands, k: usize) -> Self {
        // Unsliced: a build is not budgeted (see `Landmarks::unbuilt` for the sliced form).
        let k = k.min(MAX_LANDMARKS);
        let (w, h) = (grid.width(), grid.height());
        let n = w as usize * h as usize;
        let mut lm = Landmarks {
            k,
            width: w,
            table: DistanceTable::new(w, h, k),
            ..Landmarks::default()
        };
        let steps = Steps::new(grid, costs);
        // The cell of the largest region farthest (in steps) from where its flood began is
        // a good first landmark; each next one is the cell farthest from all so far.
        let Some(first) = largest_region_far_cell(grid, &steps) else {
            lm.k = 0;
            return lm;
        };
        for c in grid.free_cells() {
            lm.table.slot_or_alloc(c);
        }
        let mut search = ColumnSearch::default();
        let mut nearest = vec![UNREACHED; n];
        let mut next = first.y as usize * w as usize + first.x as usize;
        lm.column_cost = grid.free_count() as usize;
        lm.loose_after = (lm.column_cost / 16).max(64);
        lm.per_unit = steps.per_unit;
        lm.steps = Box::new(steps);
        for l in 0..k {
            let cell = lm.steps.cell(next);
            lm.cells.push(cell);
            search.start(&lm.steps, l, cell);
            search.advance(&lm.steps, usize::MAX);
            lm.table.store_column(l, &search.dist, w);
            for (m, &d) in nearest.iter_mut().zip(&search.dist) {
                *m = (*m).min(d);
            }
            next = farthest(&nearest);
        }
        lm
    }

    /// An upper bound on the heap bytes [`Landmarks::build`] takes for `k` landmarks on
    /// `grid`, counting the building scratch too (two distance columns and a flood's marks
    /// and queue over every cell), without allocating more than one byte per block.
    pub fn estimate_bytes(grid: &Grid, k: usize) -> usize {
        let (w, h) = (grid.width(), grid.height());
        let mut used = DistanceTable::new(w, h, 0);
        let stored = grid
            .free_cells()
            .filter(|&c| {
                let fresh = used.slot(c).is_none();
                used.slot_or_alloc(c);
                fresh
            })
            .count();
        Self::bytes_with_blocks(grid, k, stored)
    }

    /// [`Landmarks::estimate_bytes`] without walking the free cells, as if every block of
    /// the table held one: higher, and constant time, for a refresh with a budget.
    pub fn most_bytes(grid: &Grid, k: usize) -> usize {
        let blocks = DistanceTable::estimate(grid.width(), grid.height(), k).0;
        Self::bytes_with_blocks(grid, k, blocks)
    }

    /// The heap bytes of `k` landmarks on `grid` with `stored` blocks of the table held.
    fn bytes_with_blocks(grid: &Grid, k: usize, stored: usize) -> usize {
        let k = k.min(MAX_LANDMARKS);
        let (w, h) = (grid.width(), grid.height());
        let n = w as usize * h as usize;
        let (block_count, block_bytes) = DistanceTable::estimate(w, h, k);
        // Kept: the block index, the step masks, the table, the landmark cells and flags.
        // (Values too far from their block's base for 16 bits are rare enough to ignore.)
        // Weighted maps keep a 4-byte cost per cell too (counted for every map: an
        // estimate may be high).
        let kept = block_count * 4 + n * 5 + stored * block_bytes + k * 9;
        // Scratch while building: two u32 columns, the flood's marks and its queue.
        let scratch = n * (4 + 4 + 1 + 8);
        kept.saturating_add(scratch)
    }

    /// `k` landmarks for `grid` with nothing computed yet: every column set aside, and
    /// the work of [`Landmarks::build`] left to [`Landmarks::refresh_step`], in slices of
    /// counted cells. It fills the step masks and allocates the table's blocks, floods the
    /// map's regions for the first landmark's place (the largest region's cell farthest
    /// from where its flood began), then computes the columns one by one, placing each next
    /// landmark at the cell farthest from those before it. Until a column is written the
    /// bound ignores it, so the table is safe to use at every step.
    ///
    /// This is how a map that had no landmarks gets them after edits: a budgeted refresh
    /// never builds a whole table at once (issue 26: 1.45 s in one `refresh_within(1 ms)`).
    pub fn unbuilt(grid: &Grid, costs: &CostBands, k: usize) -> Self {
        let k = k.min(MAX_LANDMARKS);
        let (w, h) = (grid.width(), grid.height());
        let steps = Steps::unfilled(grid, costs);
        let column_cost = grid.free_count() as usize;
        Landmarks {
            k,
            width: w,
            table: DistanceTable::new(w, h, k),
            cells: vec![Cell::new(0, 0); k],
            stale: LandmarkSet::first(k),
            unplaced: LandmarkSet::first(k),
            column_cost,
            loose_after: (column_cost / 16).max(64),
            per_unit: steps.per_unit,
            steps: Box::new(steps),
            job: Some(Box::new(ColumnJob::Preparing { next_cell: 0 })),
            ..Landmarks::default()
        }
    }

    /// Keeps the step masks in line after `blocked` cells became walls. The distances need
    /// nothing: losing steps keeps them 1-Lipschitz. Enough of them make the columns loose
    /// (see `loose_after`).
    pub fn on_blocked(&mut self, grid: &Grid, costs: &CostBands, blocked: &[Cell]) {
        if self.k > 0 && !blocked.is_empty() {
            for &c in blocked {
                self.steps.update(grid, costs, c);
            }
            self.blocked_since += blocked.len();
            if self.blocked_since >= self.loose_after {
                self.loose = LandmarkSet::first(self.k);
                self.blocked_since = 0;
            }
        }
    }

    /// Number of landmarks.
    pub fn count(&self) -> usize {
        self.k
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.table.memory_bytes()
            + self.cells.capacity() * 8
            + self.steps.masks.capacity()
            + self.steps.weights.capacity() * 4
    }

    /// `c`'s distances, all [`UNREACHED`] for a cell without storage.
    fn row(&self, c: Cell) -> [u32; MAX_LANDMARKS] {
        self.table.row(c)
    }

    /// Prepares lower bounds on the distance to `goal`.
    pub fn goal_row(&self, goal: Cell) -> GoalRow {
        let mut g = GoalRow {
            row: [0; MAX_LANDMARKS],
            mask: [0; MAX_LANDMARKS],
        };
        if self.k > 0 {
            for (l, &d) in self.row(goal)[..self.k].iter().enumerate() {
                if d != UNREACHED && !self.stale.contains(l) {
                    g.row[l] = d;
                    g.mask[l] = u32::MAX;
                }
            }
        }
        g
    }

    /// A lower bound on the distance from `c` to the goal of `goal`, in cells.
    #[inline]
    pub fn bound(&self, goal: &GoalRow, c: Cell) -> f64 {
        let Some(s) = self.table.slot(c) else {
            return 0.0;
        };
        // A cell of the goal's region always has a value where the goal has one; the
        // masks keep the bound honest even if it did not.
        let best = self
            .table
            .largest_gap(s, &goal.row[..self.k], &goal.mask[..self.k]);
        best as f64 * self.per_unit
    }

    /// Restores the Lipschitz property after `freed` cells became free (they already are
    /// in `grid`): lowers values outwards from the cells around each freed one.
    pub fn on_freed(&mut self, grid: &Grid, costs: &CostBands, freed: &[Cell]) {
        if self.k == 0 || freed.is_empty() {
            return;
        }
        // A column search under way never offered the new steps from the cells it has
        // settled (see `ColumnSearch`): start it again. The setup reads the masks and the
        // table as the edits keep them, and goes on.
        if !matches!(
            self.job.as_deref(),
            Some(ColumnJob::Preparing { .. } | ColumnJob::Flooding(_))
        ) {
            self.job = None;
        }
        let mut seeds: Vec<Cell> = Vec::new();
        for &c in freed {
            self.table.slot_or_alloc(c);
            self.steps.update(grid, costs, c);
            for dy in -1..=1i64 {
                for dx in -1..=1i64 {
                    let (x, y) = (c.x as i64 + dx, c.y as i64 + dy);
                    if grid.is_free_at(x, y) {
                        seeds.push(Cell::new(x as u32, y as u32));
                    }
                }
            }
        }
        seeds.sort_unstable_by_key(|c| (c.y, c.x));
        seeds.dedup();
        let mut heap = BinaryHeap::from(std::mem::take(&mut self.scratch));
        let mut budget = REPAIR_BUDGET;
        for l in 0..self.k {
            if self.stale.contains(l) {
                continue;
            }
            heap.clear();
            let slot = |c: Cell| self.table.slot(c).expect("free cells have storage");
            for &s in &seeds {
                heap.push(Reverse((self.table.get(slot(s), l), s)));
            }
            while let Some(Reverse((d, c))) = heap.pop() {
                let slot = |c: Cell| self.table.slot(c).expect("free cells have storage");
                if d == UNREACHED || d != self.table.get(slot(c), l) {
                    continue;
                }
                if budget == 0 {
                    self.stale.insert(l);
                    break;
                }
                budget -= 1;
                let ci = c.y as usize * self.steps.width + c.x as usize;
                for (j, w) in self.steps.from(ci) {
                    let n = self.steps.cell(j);
                    let nd = d + w;
                    let at = self.table.slot(n).expect("free cells have storage");
                    if nd < self.table.get(at, l) {
                        self.table.set(at, l, nd);
                        heap.push(Reverse((nd, n)));
                    }
                }
            }
        }
        heap.clear();
        self.scratch = heap.into_vec();
    }

    /// Whether some landmark is set aside until a refresh recomputes it.
    pub fn has_set_aside(&self) -> bool {
        !self.stale.is_empty()
    }

    /// Whether some landmark's column has grown loose (valid, but weaker than a fresh one).
    pub fn has_loose(&self) -> bool {
        !self.loose.is_empty()
    }

    /// Cells settled by recomputing every loose column.
    pub fn tightening_cost(&self) -> usize {
        self.loose.len() * self.column_cost
    }

    /// Does at most about `most` cells' worth of the recomputation of one column: of a
    /// landmark set aside by a repair over budget, else, when `loose_too`, of one grown
    /// loose. Returns `None` when there is nothing to recompute, else the cells handled
    /// (scanned, settled or written: at most `most`, plus one block of the table, 64 cells)
    /// and whether a column was finished.
    ///
    /// A column takes three phases, each sliced, each resumed by the next call: for a
    /// loose landmark, a scan of the table for a better place (see
    /// [`Landmarks::farthest_in`]); the grid search ([`ColumnSearch`]); and writing the
    /// column into the table, during which the landmark is set aside (a half-written column
    /// is no bound). So a refresh with a time budget never runs a search over the whole map
    /// in one go.
    pub fn refresh_step(
        &mut self,
        (grid, costs): (&Grid, &CostBands),
        loose_too: bool,
        most: usize,
    ) -> Option<(usize, bool)> {
        let job = match self.job.take() {
            Some(job) => *job,
            None => {
                let l = self
                    .stale
                    .lowest()
                    .or_else(|| loose_too.then(|| self.loose.lowest()).flatten())?;
                if self.stale.contains(l) && !self.unplaced.contains(l) {
                    self.start_search(grid, l)
                } else {
                    // Grown loose: the map has changed enough that where the landmark
                    // stands may no longer be a good place either (on a map laid over
                    // empty ground, the first landmarks sit in the corners of the empty
                    // map). It moves to the free cell farthest from the others, as the
                    // build would place it.
                    ColumnJob::Placing {
                        landmark: l,
                        next_block: 0,
                        best: Farthest::default(),
                    }
                }
            }
        };
        let blocks_per_slice = most.div_ceil(PER_BLOCK_CELLS).max(1);
        let block_count = self.table.block_count();
        let (work, next, finished) = match job {
            ColumnJob::Preparing { next_cell } => {
                let end = next_cell
                    .saturating_add(most.max(1))
                    .min(self.steps.masks.len());
                self.steps.fill(grid, costs, next_cell..end);
                for i in next_cell..end {
                    let c = self.steps.cell(i);
                    if grid.is_free(c) {
                        self.table.slot_or_alloc(c);
                    }
                }
                let next = if end < self.steps.masks.len() {
                    ColumnJob::Preparing { next_cell: end }
                } else {
                    ColumnJob::Flooding(Box::new(Flood::new(self.steps.masks.len())))
                };
                (end - next_cell, Some(next), false)
            }
            ColumnJob::Flooding(mut flood) => match flood.advance(grid, &self.steps, most) {
                (work, None) => (work, Some(ColumnJob::Flooding(flood)), false),
                (work, Some(Some(first))) => {
                    self.cells.fill(first);
                    self.unplaced.remove(0);
                    (work, Some(self.start_search(grid, 0)), false)
                }
                (work, Some(None)) => {
                    // Nothing free: no landmarks, as a build would have none.
                    *self = Landmarks::default();
                    return Some((work, false));
                }
            },
            ColumnJob::Placing {
                landmark,
                next_block,
                best,
            } => {
                let end = (next_block + blocks_per_slice).min(block_count);
                let best = self.farthest_in(grid, landmark, next_block..end, best);
                // The landmark stands where it stood, or where the scan found; either way
                // it now has a place.
                let placed = end >= block_count;
                let work = (end - next_block) * PER_BLOCK_CELLS;
                if end < block_count {
                    let next = ColumnJob::Placing {
                        landmark,
                        next_block: end,
                        best,
                    };
                    (work, Some(next), false)
                } else {
                    if let Farthest::Found(_, c) = best {
                        self.cells[landmark] = c;
                    }
                    if placed {
                        self.unplaced.remove(landmark);
                    }
                    (work, Some(self.start_search(grid, landmark)), false)
                }
            }
            ColumnJob::Searching(mut search) => {
                let (settled, done) = search.advance(&self.steps, most);
                if done {
                    // Set aside while it is written: a half-written column is no bound.
                    self.stale.insert(search.landmark);
                    let next = ColumnJob::Storing {
                        search,
                        next_block: 0,
                    };
                    (settled, Some(next), false)
                } else {
                    (settled, Some(ColumnJob::Searching(search)), false)
                }
            }
            ColumnJob::Storing { search, next_block } => {
                let end = (next_block + blocks_per_slice).min(block_count);
                let l = search.landmark;
                self.table
                    .store_column_blocks(l, &search.dist, self.width, next_block..end);
                let work = (end - next_block) * PER_BLOCK_CELLS;
                if end < block_count {
                    let next = ColumnJob::Storing {
                        search,
                        next_block: end,
                    };
                    (work, Some(next), false)
                } else {
                    self.stale.remove(l);
                    self.loose.remove(l);
                    (work, None, true)
                }
            }
        };
        self.job = next.map(Box::new);
        Some((work, finished))
    }

    /// The search for landmark `l`'s column, from where it stands, or from the nearest
    /// free cell if it has been built over since (from a cell still blocked nothing is
    /// reached: the column comes out empty and the landmark unused, which is safe).
    fn start_search(&mut self, grid: &Grid, l: usize) -> ColumnJob {
        if !grid.is_free(self.cells[l]) {
            if let Some(c) = nearest_free(grid, self.cells[l], 16) {
                self.cells[l] = c;
            }
        }
        let mut search = ColumnSearch::default();
        search.start(&self.steps, l, self.cells[l]);
        ColumnJob::Searching(search)
    }

    /// `best` updated with the free cells of the table's blocks `blocks` whose smallest
    /// distance from the landmarks other than `l` is the largest (by their current
    /// columns). Gives up (a cell no other landmark reaches, or no other landmark) as the
    /// whole-table scan it is a slice of would, except for a landmark not placed yet,
    /// which passes over such cells as [`Landmarks::build`] does (it places landmarks in
    /// the largest region only).
    fn farthest_in(
        &self,
        grid: &Grid,
        l: usize,
        blocks: std::ops::Range<usize>,
        mut best: Farthest,
    ) -> Farthest {
        for (c, slot) in self.table.cells_of_blocks(blocks) {
            if best == Farthest::GaveUp {
                break;
            }
            if !grid.is_free(c) {
                continue;
            }
            let nearest = (0..self.k)
                .filter(|&m| m != l && !self.stale.contains(m))
                .map(|m| self.table.get(slot, m))
                .min()
                .filter(|&d| d != UNREACHED);
            best = match (nearest, best) {
                (None, _) if self.unplaced.contains(l) => best,
                (None, _) => Farthest::GaveUp,
                (Some(d), Farthest::Found(b, _)) if d <= b => best,
                (Some(d), _) => Farthest::Found(d, c),
            };
        }
        best
    }

    /// Recomputes the columns of every landmark set aside by a repair over budget.
    #[cfg(test)]
    pub fn refresh(&mut self, grid: &Grid, costs: &CostBands) {
        while self.refresh_step((grid, costs), true, usize::MAX).is_some() {}
    }

    #[cfg(any(test, feature = "testing"))]
    /// Checks the Lipschitz property over every legal step of `grid`. For tests.
    pub fn check(&self, grid: &Grid) -> Result<(), String> {
        if self.k == 0 {
            return Ok(());
        }
        for y in 0..grid.height() {
            for x in 0..grid.width() {
                let c = Cell::new(x, y);
                if !grid.is_free(c) {
                    continue;
                }
                for dir in Direction::ALL {
                    if !grid.can_step(c, dir) {
                        continue;
                    }
                    let n = c.step(dir).expect("a legal step stays on the grid");
                    let w = self.steps.weight(
                        c.y as usize * self.steps.width + c.x as usize,
                        n.y as usize * self.steps.width + n.x as usize,
                        dir,
                    );
                    for (l, (&a, &b)) in self.row(c)[..self.k].iter().zip(&self.row(n)).enumerate()
                    {
                        let ok = self.stale.contains(l)
                            || if a == UNREACHED || b == UNREACHED {
                                a == b
                            } else {
                                a.abs_diff(b) <= w
                            };
                        if !ok {
                            return Err(format!(
                                "landmark {l} at {}: {c} has {a}, its neighbour {n} has {b}",
                                self.cells[l]
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// The index of the largest value below [`UNREACHED`] (`0` if there is none). A landmark
/// already chosen is at distance 0 from the set, so it is never picked again unless the
/// region has no other cell.
fn farthest(values: &[u32]) -> usize {
    let mut best = (0, 0usize);
    for (i, &d) in values.iter().enumerate() {
        if d != UNREACHED && d >= best.0 {
            best = (d, i);
        }
    }
    best.1
}

/// The free cell nearest `c` within `radius` (in rings of growing Chebyshev distance).
fn nearest_free(grid: &Grid, c: Cell, radius: i64) -> Option<Cell> {
    let (x, y) = (c.x as i64, c.y as i64);
    (1..=radius).find_map(|r| {
        (-r..=r)
            .flat_map(|d| {
                [
                    (x + d, y - r),
                    (x + d, y + r),
                    (x - r, y + d),
                    (x + r, y + d),
                ]
            })
            .find(|&(cx, cy)| grid.is_free_at(cx, cy))
            .map(|(cx, cy)| Cell::new(cx as u32, cy as u32))
    })
}

/// A grid Dijkstra from one landmark, over the step weights, with a bucket queue (Dial's
/// algorithm: weights are small integers), that can stop after a given number of settled
/// cells and resume later: a refresh with a time budget recomputes a column in slices of
/// [`COLUMN_SLICE`] cells rather than in one search over the whole map.
///
/// Between slices the map may change. Cells blocked or made dearer only remove or raise
/// steps: a step still there at the end was there, no cheaper, when its first end was
/// settled, which then offered the other end at most its weight, so the finished column
/// is still 1-Lipschitz over the steps of the map it ends on. Cells freed or made cheaper
/// add steps the settled cells never offered; the landmarks restart the search then (see
/// `Landmarks::on_freed`).
#[derive(Clone, Debug, Default)]
struct ColumnSearch {
    /// The landmark whose column this is.
    landmark: usize,
    /// Distances so far, by cell index; final for settled cells.
    dist: Vec<u32>,
    /// The queue's ring of buckets, one per distance modulo the largest step weight + 1.
    buckets: Vec<Vec<u32>>,
    /// Cells queued and not yet taken out.
    pending: usize,
    /// The distance of the bucket being drained.
    d: u32,
}

impl ColumnSearch {
    /// Starts the search for `landmark`'s column from `source` (no cell settled yet).
    fn start(&mut self, steps: &Steps, landmark: usize, source: Cell) {
        let ring = steps.max_weight() as usize + 1;
        if self.buckets.len() != ring {
            self.buckets = vec![Vec::new(); ring];
        }
        self.buckets.iter_mut().for_each(Vec::clear);
        self.dist.clear();
        self.dist.resize(steps.masks.len(), UNREACHED);
        self.landmark = landmark;
        let s = source.y as usize * steps.width + source.x as usize;
        self.dist[s] = 0;
        self.buckets[0].push(s as u32);
        self.pending = 1;
        self.d = 0;
    }

    /// Works until `most` units are done: a cell settled counts one, and so do
    /// [`EMPTY_BUCKETS_PER_UNIT`] empty buckets passed over (under terrain costs a step
    /// weighs up to thousands of units, so most buckets are empty). Returns the units
    /// done, and whether the search is finished.
    fn advance(&mut self, steps: &Steps, most: usize) -> (usize, bool) {
        let ring = self.buckets.len();
        let (mut settled, mut empty) = (0, 0);
        while self.pending > 0 && settled + empty / EMPTY_BUCKETS_PER_UNIT < most {
            let Some(i) = self.buckets[self.d as usize % ring].pop() else {
                // Steps weigh at least 1 (every cell counts 8 units or more) and at most
                // `ring − 1`, so nothing lands in the bucket being drained, and every
                // queued cell is less than a ring ahead.
                self.d += 1;
                empty += 1;
                continue;
            };
            self.pending -= 1;
            if self.dist[i as usize] != self.d {
                continue; // reached more cheaply since
            }
            settled += 1;
            for (j, w) in steps.from(i as usize) {
                // Capped below `UNREACHED`: a capped column is still Lipschitz.
                let nd = self.d.saturating_add(w).min(UNREACHED - 1);
                if nd < self.dist[j] {
                    self.dist[j] = nd;
                    self.buckets[nd as usize % ring].push(j as u32);
                    self.pending += 1;
                }
            }
        }
        (settled + empty / EMPTY_BUCKETS_PER_UNIT, self.pending == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::movement::lattice_step_cost;

    /// The bands of a map without terrain costs.
    fn unit(grid: &Grid) -> CostBands {
        CostBands::new(crate::grid::TerrainCosts::unit(), grid.passable())
    }

    /// A maze-like test grid: walls on every third column with gaps that move down.
    fn combs(w: u32, h: u32) -> Grid {
        Grid::from_fn(w, h, |x, y| x % 3 != 2 || y % 7 == (x / 3) % 7)
    }

    /// Plain Dijkstra with the table's integer step costs, by the book.
    fn oracle(grid: &Grid, from: Cell) -> Vec<u32> {
        let w = grid.width() as usize;
        let mut dist = vec![UNREACHED; w * grid.height() as usize];
        let mut heap = BinaryHeap::new();
        dist[from.y as usize * w + from.x as usize] = 0;
        heap.push(Reverse((0u32, from)));
        while let Some(Reverse((d, c))) = heap.pop() {
            if d > dist[c.y as usize * w + c.x as usize] {
                continue;
            }
            for dir in Direction::ALL {
                if grid.can_step(c, dir) {
                    let n = c.step(dir).unwrap();
                    let nd = d + lattice_step_cost(dir);
                    let slot = &mut dist[n.y as usize * w + n.x as usize];
                    if nd < *slot {
                        *slot = nd;
                        heap.push(Reverse((nd, n)));
                    }
                }
            }
        }
        dist
    }

    /// Shortest path lengths in cells (Bellman–Ford sweeps until nothing changes).
    fn true_distances(grid: &Grid, from: Cell) -> Vec<f64> {
        let w = grid.width() as usize;
        let mut dist = vec![f64::INFINITY; w * grid.height() as usize];
        dist[from.y as usize * w + from.x as usize] = 0.0;
        let mut changed = true;
        while changed {
            changed = false;
            for c in grid.free_cells() {
                for (n, cost) in grid.successors(c) {
                    let nd = dist[c.y as usize * w + c.x as usize] + cost;
                    let slot = &mut dist[n.y as usize * w + n.x as usize];
                    if nd < *slot - 1e-12 {
                        *slot = nd;
                        changed = true;
                    }
                }
            }
        }
        dist
    }

    #[test]
    fn table_holds_exact_distances_from_each_landmark() {
        let grid = combs(37, 29);
        let lm = Landmarks::build(&grid, &unit(&grid), 5);
        assert_eq!(lm.count(), 5);
        for (l, &cell) in lm.cells.iter().enumerate() {
            let want = oracle(&grid, cell);
            for c in grid.free_cells() {
                let got = lm.row(c)[l];
                assert_eq!(
                    got,
                    want[(c.y * grid.width() + c.x) as usize],
                    "landmark {cell} at {c}"
                );
            }
        }
        lm.check(&grid).unwrap();
    }

    #[test]
    fn landmarks_are_spread_out() {
        // On an open square, farthest-point selection takes the four corners first.
        let grid = Grid::new_free(10, 10);
        let lm = Landmarks::build(&grid, &unit(&grid), 4);
        let mut cells = lm.cells.clone();
        cells.sort_unstable();
        let corners = [(0, 0), (0, 9), (9, 0), (9, 9)].map(|(x, y)| Cell::new(x, y));
        assert_eq!(cells, corners);
    }

    #[test]
    fn bounds_never_exceed_true_distances() {
        let grid = combs(30, 30);
        let lm = Landmarks::build(&grid, &unit(&grid), 6);
        let free: Vec<Cell> = grid.free_cells().collect();
        for &goal in free.iter().step_by(17) {
            let row = lm.goal_row(goal);
            let truth = true_distances(&grid, goal);
            for &c in &free {
                let d = truth[(c.y * grid.width() + c.x) as usize];
                assert!(lm.bound(&row, c) <= d + 1e-9, "{c} -> {goal}");
            }
        }
    }

    #[test]
    fn freeing_without_repair_is_caught_and_repair_fixes_it() {
        // A wall across the map with one gap at the bottom: opening a hole at the top
        // shortens many routes, so the stale table is no longer 1-Lipschitz there.
        let mut grid = Grid::from_fn(21, 21, |x, y| x != 10 || y == 20);
        let mut lm = Landmarks::build(&grid, &unit(&grid), 3);
        lm.check(&grid).unwrap();
        grid.set_blocked(Cell::new(10, 0), false);
        assert!(
            lm.check(&grid).is_err(),
            "the checker must see the stale table"
        );
        lm.on_freed(&grid, &unit(&grid), &[Cell::new(10, 0)]);
        lm.check(&grid).unwrap();
        // Blocking needs no repair at all.
        grid.set_blocked(Cell::new(10, 20), true);
        grid.set_blocked(Cell::new(3, 3), true);
        lm.check(&grid).unwrap();
    }

    #[test]
    fn cells_freed_in_walled_off_blocks_get_storage() {
        // The right half is solid rock at build time, so its blocks have no storage.
        let mut grid = Grid::from_fn(32, 16, |x, _| x < 8);
        let mut lm = Landmarks::build(&grid, &unit(&grid), 2);
        let before = lm.memory_bytes();
        let carved: Vec<Cell> = (8..30).map(|x| Cell::new(x, 5)).collect();
        for c in &carved {
            grid.set_blocked(*c, false);
        }
        lm.on_freed(&grid, &unit(&grid), &carved);
        lm.check(&grid).unwrap();
        assert!(lm.memory_bytes() > before);
        for l in 0..2 {
            let want = oracle(&grid, lm.cells[l]);
            for c in &carved {
                assert_eq!(lm.row(*c)[l], want[(c.y * 32 + c.x) as usize]);
            }
        }
    }

    #[test]
    fn repair_over_budget_sets_landmarks_aside_until_refresh() {
        // A wall down the middle of a 120×120 field with its gap at the bottom; knocking
        // a hole at the top shortens the routes to a whole half of the map.
        let mut grid = Grid::from_fn(120, 120, |x, y| x != 60 || y == 119);
        let mut lm = Landmarks::build(&grid, &unit(&grid), 4);
        grid.set_blocked(Cell::new(60, 0), false);
        lm.on_freed(&grid, &unit(&grid), &[Cell::new(60, 0)]);
        assert!(
            lm.has_set_aside(),
            "the repair should have run over its budget"
        );
        // What is left in use is still a valid bound.
        lm.check(&grid).unwrap();
        let goal = Cell::new(70, 2);
        let truth = true_distances(&grid, goal);
        let row = lm.goal_row(goal);
        for c in grid.free_cells().step_by(7) {
            assert!(lm.bound(&row, c) <= truth[(c.y * 120 + c.x) as usize] + 1e-9);
        }
        lm.refresh(&grid, &unit(&grid));
        assert!(!lm.has_set_aside());
        lm.check(&grid).unwrap();
        // Every column, repaired or recomputed, now holds exact distances again.
        for (l, &cell) in lm.cells.iter().enumerate() {
            let want = oracle(&grid, cell);
            for c in grid.free_cells().step_by(5) {
                assert_eq!(lm.row(c)[l], want[(c.y * 120 + c.x) as usize]);
            }
        }
    }

    /// A table set up after edits and computed in slices of 100 cells holds exact
    /// distances from distinct landmarks in the largest region, by the oracle, and each
    /// slice does at most its cells plus one block of work.
    #[test]
    fn an_unbuilt_table_computed_in_slices_is_exact() {
        // Two rooms joined by a door, and a small closed cell apart.
        let grid = Grid::from_fn(90, 40, |x, y| {
            (x != 40 || y == 20) && !(x >= 80 && y == 10) && !(x == 80 && y < 10)
        });
        let mut lm = Landmarks::unbuilt(&grid, &unit(&grid), 4);
        assert_eq!(lm.count(), 4);
        assert!(lm.has_set_aside(), "nothing is computed yet");
        let mut slices = 0;
        while let Some((work, _)) = lm.refresh_step((&grid, &unit(&grid)), false, 100) {
            assert!(
                work <= 100 + PER_BLOCK_CELLS,
                "slice {slices}: {work} cells"
            );
            slices += 1;
        }
        assert!(slices > 4 * 3600 / 100, "{slices} slices");
        assert!(!lm.has_set_aside());
        lm.check(&grid).unwrap();
        let mut cells = lm.cells.clone();
        cells.sort_unstable_by_key(|c| (c.y, c.x));
        cells.dedup();
        assert_eq!(cells.len(), 4, "distinct landmarks: {:?}", lm.cells);
        for (l, &cell) in lm.cells.iter().enumerate() {
            assert!(cell.x < 80 || cell.y > 10, "{cell} is in the closed cell");
            let want = oracle(&grid, cell);
            for c in grid.free_cells() {
                assert_eq!(lm.row(c)[l], want[(c.y * 90 + c.x) as usize], "{l} at {c}");
            }
        }
    }

    #[test]
    fn a_landmark_built_over_moves_to_a_free_cell_on_refresh() {
        let mut grid = Grid::new_free(30, 30);
        let mut lm = Landmarks::build(&grid, &unit(&grid), 2);
        let old = lm.cells[0];
        grid.set_blocked(old, true);
        lm.stale.insert(0);
        lm.refresh(&grid, &unit(&grid));
        let new = lm.cells[0];
        assert!(grid.is_free(new));
        assert_eq!(old.x.abs_diff(new.x).max(old.y.abs_diff(new.y)), 1);
        lm.check(&grid).unwrap();
        assert_eq!(lm.row(new)[0], 0);
    }

    #[test]
    fn nothing_free_means_no_landmarks() {
        let grid = Grid::from_fn(9, 9, |_, _| false);
        let lm = Landmarks::build(&grid, &unit(&grid), 8);
        assert_eq!(lm.count(), 0);
        lm.check(&grid).unwrap();
    }
}
