//! The subgoal graph: exact mode's sparse abstract level for maps of one terrain cost
//! (Uras, Koenig and Hernández, "Subgoal Graphs for Optimal Pathfinding in Eight-Neighbor
//! Grids", ICAPS 2013, in its simple form), kept up to date locally through edits.
//!
//! # The structure
//! An optimal 8-connected path only needs to turn where an obstacle forces it to: at a
//! convex corner. A *subgoal* is a free cell `s` with a blocked diagonal neighbour `s − d`
//! whose two cells beside the diagonal step, `s − (dx, 0)` and `s − (0, dy)`, are free.
//! Two cells `a`, `b` are *h-reachable* when their true distance is the octile distance
//! `h(a, b)`. Every subgoal gets an edge of weight `h(a, b)` to each subgoal its cone scan
//! (`scan.rs`) reaches: a diagonal walk, then straight runs, through free cells that are
//! not subgoals, each run no longer than the previous one along the same axis. A query
//! scans from its start and its goal in the same way and runs A\* with the octile
//! heuristic, raised by landmark distances kept at the subgoals
//! (`hpa::landmarks_sparse`, repaired after each update), over the subgoals. Each edge is
//! written as the walk from its earlier end along the route that takes its diagonal steps
//! first (legal whichever end's scan found it, Lemma 1 of `taut.rs`), so the route's
//! corner points are the waypoints and the bend of each walk (no cell is written out
//! unless the caller asks for every cell).
//!
//! # Why it is exact
//! *Every route it finds is a real path of its length*: an edge's walk (diagonal steps
//! checked against corner cutting, then straight steps over free cells) has exactly
//! `h(a, b)` as its length, so the search never reports less than the truth.
//!
//! *It finds a shortest path*: Uras, Koenig and Hernández show that between any two
//! connected cells there is a shortest path `s, g1, …, gk, t` whose inner cells are
//! subgoals and whose consecutive cells are *direct-h-reachable*: h-reachable with no
//! subgoal on any of their shortest paths but the ends. (A taut shortest path bends only
//! around obstacle corners, and a path bending around a convex corner passes its
//! subgoal.) Direct-h-reachable pairs have an obstacle-free parallelogram (the cells of all
//! their octile-length paths): an obstacle inside it, with the pair still h-reachable
//! around it, has a convex corner whose subgoal lies on one of the pair's shortest paths.
//! The cone scan from either end visits exactly such parallelograms (a run is never longer
//! than the run beside it, so the rows between stay free) and reports the subgoal at the
//! far corner, so every direct-h-reachable pair is an edge, and the start and the goal are
//! tied to every subgoal direct-h-reachable from them. A\* with the consistent octile
//! heuristic then returns a shortest route. The property tests in
//! `tests/suite/subgoal_props.rs` check exactly this against Dijkstra on random maps, after
//! random edits too, and would fail if a needed edge were missing.
//!
//! # Edits
//! An edit changes which cells are subgoals only within one cell of the changed cells. A
//! subgoal's edges change only if its cone scan reads a cell whose passability or subgoal
//! status changed: the first read that differs is such a cell, and every read before it
//! is the same. [`SubgoalGraph::readers`](scan) walks back from each such cell to the
//! subgoals that may read it, a row at a time through the stop bits and cut short where
//! no scan could have come from (see `scan.rs`), and names the parts of each reader's
//! scan (a first run, the runs along one axis of a diagonal walk, or a whole walk) that
//! may read it. Only those parts are scanned again: a subgoal a part finds lies on its
//! axis, or strictly inside its quadrant on its series' side of the diagonal, so the
//! other parts' finds are kept as they were (they read no changed cell). A series scanned
//! again alone resumes at its first changed read: the reverse walk proves the scan walks
//! to that row, and the run limit there follows from one forward stop look-up per row it
//! walked (see `scan::SeriesRead`); the finds on earlier rows are kept. After an edit
//! that only made stops (cells blocked or made subgoals, subgoals blocked) such a series
//! also *settles*: past the last row holding a touched cell, the first run that stops short
//! of its limit leaves it where the scan before the edit was, with the same limit, so it
//! ends there and keeps its finds on the later rows (the argument is at
//! `SubgoalGraph::resume_series`). An edge is kept
//! while either end's scan reports it, so the graph after any sequence of edits equals a
//! fresh build (tested). Each subgoal's blocked diagonal neighbours, kept for the search's
//! taut rule (`taut.rs`), change only when a cell diagonal to it does: the update sets them
//! anew for every subgoal within one cell of a changed cell.
//!
//! # Where the hierarchy comes in
//! The quadtree still answers first: "unreachable" from the component labels, and a
//! query inside one free leaf (an obstacle-free rectangle) as a straight line, before this
//! graph is searched.

mod edges;
mod field;
mod ids;
mod levels;
mod lines;
mod scan;
mod taut;

use super::landmarks_sparse::{LandmarkLists, SubgoalLandmarks};
use super::map::{morton, sort_by_z_key};
use super::side_by_side::{join, timed_join};
use crate::geom::{Cell, Rect};
use crate::grid::Grid;
use edges::EdgeLists;
pub(crate) use field::SubgoalField;
use ids::{CellIds, Mark};
pub(crate) use levels::Contraction;
pub(crate) use levels::{allows_hops, hop_turns, DirectLists, FlatLists, Levels, DIRECT, LEVELS};
use lines::StopLines;
pub(crate) use scan::Reached;
use scan::{Parts, SeriesRead, DIAGONALS};
use std::time::{Duration, Instant};
use taut::blocked_diagonals_at;
pub(crate) use taut::{
    allows, arrivals, reversed, sector, turns, turns_any, BlockedDiagonals, Sector, NO_HOP,
};

/// A subgoal graph as its sorted subgoal cells, each with its blocked diagonal neighbours
/// as the graph keeps them (see `taut.rs`), and its sorted edges (each a cell pair,
/// smaller cell first): what a test compares an edited graph and a fresh build by.
#[cfg(any(test, feature = "testing"))]
pub type SubgoalSnapshot = (Vec<(Cell, u8)>, Vec<(Cell, Cell)>);

/// The levels of a subgoal graph by cell: the local subgoals, sorted, and the arcs as
/// (subgoal, far end, middle of a shortcut, straight and diagonal steps), sorted: what a
/// test compares rebuilt levels and a fresh build's by.
#[cfg(any(test, feature = "testing"))]
pub type LevelsSnapshot = (Vec<Cell>, Vec<(Cell, Cell, Option<Cell>, (u16, u16))>);

/// What the set-up of [`SubgoalGraph::build_landmarks_and_levels`] made of the levels'
/// contraction: its direct edges (beside the landmark table's lists), or all of it.
enum Early {
    /// The direct edges, the contraction's order still to make.
    Lists(DirectLists),
    /// The whole contraction, not begun.
    Started(Contraction),
}

/// Subgoals a build scans from in one piece of work (see [`SubgoalGraph::finds`]):
/// small enough for two threads to share Cauldron's 16,000 evenly, large enough that
/// joining the pieces' finds costs little. The tree's thread joins the scans late (after
/// the tree and the leaf slots), so the last pieces decide the balance: with 1,024 a
/// piece (about 7M instructions on Cauldron) the graph's thread ended the first join
/// 12.9M to 28.2M after the other (callgrind per thread, session 42); with 256, within
/// 1.4M to 4.9M, for 1.2M more work in all.
const SCAN_CHUNK: usize = 256;

/// What the scans from a range of subgoals found (see [`SubgoalGraph::finds`]).
#[cfg_attr(test, derive(Debug, PartialEq))]
struct Finds {
    /// Each subgoal's finds, sorted and without repeats, one subgoal after the other.
    finds: Vec<u32>,
    /// How many finds each subgoal has.
    lengths: Vec<u32>,
}

/// A cell that is no subgoal: the place of a removed subgoal's ID until it is reused.
const VACANT: Cell = Cell::new(u32::MAX, u32::MAX);

/// A birth revision too large for 32 bits: an ID stamped with it is never trusted to have
/// held its cell since any revision.
const UNKNOWN_REVISION: u32 = u32::MAX;

/// `revision` in 32 bits, saturated at [`UNKNOWN_REVISION`].
fn short_revision(revision: u64) -> u32 {
    u32::try_from(revision).unwrap_or(UNKNOWN_REVISION)
}

/// The subgoals of a grid of one terrain cost and the edges between those that reach each
/// other directly (see the module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct SubgoalGraph {
    /// Blocked cells and subgoals, where straight runs stop.
    lines: StopLines,
    /// Which cells are subgoals, and their IDs (see `ids.rs`).
    ids: CellIds,
    /// Cell by subgoal ID ([`VACANT`] for an unused ID).
    cells: Vec<Cell>,
    /// Blocked diagonal neighbours by subgoal ID, for the taut rule (see `taut.rs`): the
    /// search reads them at every expansion, and one byte here spares it four reads of
    /// the grid. An edit changes them only within one cell of a changed cell, where
    /// [`SubgoalGraph::update`] looks anyway.
    blocked_diagonals: Vec<BlockedDiagonals>,
    /// By subgoal ID: the map revision at which it was last given its cell, saturated at
    /// [`UNKNOWN_REVISION`] (see [`SubgoalGraph::held_since`]).
    born: Vec<u32>,
    /// The map revision new IDs are stamped with: the edit under way, or the build's.
    revision: u64,
    /// IDs free for reuse.
    vacant: Vec<u32>,
    /// The edges by subgoal: `b` is in `a`'s list when either scan reached the other, among
    /// `a`'s finds (sorted, first) when `a`'s own scan reached `b` (see `edges.rs`).
    edges: EdgeLists,
    /// Landmark distances at the subgoals, for the search's bound.
    landmarks: SubgoalLandmarks,
    /// IDs given to new subgoals since the landmarks were last repaired.
    added: Vec<u32>,
    /// Edges added since the landmarks were last repaired.
    linked: Vec<(u32, u32)>,
    /// Scratch of [`SubgoalGraph::rescan`]: a rescanned subgoal's new finds.
    scratch_found: Vec<u32>,
    /// Scratch of [`SubgoalGraph::rescan`]: the previous finds of the parts scanned
    /// again, with their cells.
    scratch_redo: Vec<(Cell, u32, u32)>,
    /// Scratch of [`SubgoalGraph::rescan`]: the previous finds.
    scratch_previous: Vec<u32>,
    /// Scratch of [`SubgoalGraph::remove_subgoal`]: the subgoals joined to the one that
    /// goes.
    scratch_others: Vec<u32>,
    /// Scratch of [`SubgoalGraph::rescan`]: the subgoals its scans reported.
    scratch_reported: Vec<Cell>,
    /// Scratch of [`SubgoalGraph::update`], kept between edits so that an edit allocates
    /// nothing for its own lists (each was allocated and grown anew at every edit: about
    /// 2 % of a one-cell edit's instructions went to `malloc` and `realloc`).
    scratch_update: UpdateScratch,
    /// The two levels (see `levels/mod.rs`), until an edit drops them.
    levels: Option<Box<Levels>>,
    /// Their rebuild under way after an edit dropped them (see
    /// [`SubgoalGraph::rebuild_levels`]); an edit restarts it.
    rebuilding: Option<Box<Contraction>>,
    /// Whether an edit came since the last sliced call of
    /// [`SubgoalGraph::rebuild_levels`]: a sliced rebuild waits for a call without one.
    edited_since_slice: bool,
    /// Whether the map is small enough for levels: arcs count steps in 16 bits, so a map
    /// more than 65,536 cells a side searches the whole graph (exact, only slower).
    levels_fit: bool,
    /// Whether the last contraction could not start because the graph has more ID slots,
    /// or a direct edge counts more steps, than the levels' packed arcs hold (see
    /// `levels/arc.rs`, `PackedArc`): the graph
    /// is then searched whole (exact, only slower) until an edit, after which the levels
    /// are tried again.
    arcs_overflow: bool,
}

/// The lists of one [`SubgoalGraph::update`], kept between edits (cleared, not freed).
#[derive(Clone, Debug, Default)]
struct UpdateScratch {
    /// The cells whose passability or subgoal status changed.
    touched: Vec<Cell>,
    /// The touched cells that are no stops now.
    opened: Vec<Cell>,
    /// The cells within one cell of a changed cell, by row then column.
    around: Vec<Cell>,
    /// Marks over the bounding box of `around` (see [`cells_around`]).
    around_marks: Vec<bool>,
    /// The new subgoals' IDs.
    fresh: Vec<u32>,
    /// The IDs of the subgoals that went.
    removed: Vec<u32>,
    /// Each reader with the parts of its scan to scan again (see `update`).
    readers: Vec<(u32, Parts, Option<SeriesRead>)>,
    /// The readers' IDs and places in `readers`, as sort keys.
    order: Vec<u64>,
}

impl UpdateScratch {
    /// Heap bytes held.
    fn memory_bytes(&self) -> usize {
        (self.touched.capacity() + self.opened.capacity() + self.around.capacity())
            * std::mem::size_of::<Cell>()
            + self.around_marks.capacity()
            + (self.fresh.capacity() + self.removed.capacity()) * 4
            + self.readers.capacity() * std::mem::size_of::<(u32, Parts, Option<SeriesRead>)>()
            + self.order.capacity() * 8
    }
}

/// The smallest rectangle holding every cell of `cells`, `None` when there is none.
fn bounding_box(cells: &[Cell]) -> Option<Rect> {
    let (&first, rest) = cells.split_first()?;
    Some(
        rest.iter()
            .fold(Rect::new(first.x, first.y, first.x, first.y), |r, c| {
                Rect::new(r.x1.min(c.x), r.y1.min(c.y), r.x2.max(c.x), r.y2.max(c.y))
            }),
    )
}

/// Fills `around` with the cells of `grid` within one cell of a cell of `changed`, each
/// once, by row then column. A compact edit (a cell, a building: the cells' bounding box
/// grown by one is at most 16 times their count) marks its box in `marks` and reads it
/// row by row; a scattered one sorts.
fn cells_around(grid: &Grid, changed: &[Cell], around: &mut Vec<Cell>, marks: &mut Vec<bool>) {
    around.clear();
    let Some(b) = bounding_box(changed) else {
        return;
    };
    let (x0, y0) = (b.x1.saturating_sub(1), b.y1.saturating_sub(1));
    let (x1, y1) = (
        (b.x2 + 1).min(grid.width() - 1),
        (b.y2 + 1).min(grid.height() - 1),
    );
    let (w, h) = ((x1 - x0 + 1) as usize, (y1 - y0 + 1) as usize);
    if w * h <= 16 * changed.len() {
        marks.clear();
        marks.resize(w * h, false);
        for c in changed {
            for y in c.y.saturating_sub(1).max(y0)..=(c.y + 1).min(y1) {
                let row = (y - y0) as usize * w;
                for x in c.x.saturating_sub(1).max(x0)..=(c.x + 1).min(x1) {
                    marks[row + (x - x0) as usize] = true;
                }
            }
        }
        for (i, _) in marks.iter().enumerate().filter(|&(_, &m)| m) {
            around.push(Cell::new(x0 + (i % w) as u32, y0 + (i / w) as u32));
        }
        return;
    }
    around.extend(
        changed
            .iter()
            .flat_map(|&c| (-1..=1).flat_map(move |dy| (-1..=1).map(move |dx| (c, dx, dy))))
            .filter_map(|(c, dx, dy)| {
                let (x, y) = (c.x as i64 + dx, c.y as i64 + dy);
                grid.contains_at(x, y)
                    .then(|| Cell::new(x as u32, y as u32))
            }),
    );
    around.sort_unstable_by_key(|c| (c.y, c.x));
    around.dedup();
}

impl SubgoalGraph {
    /// Builds the graph of `grid`.
    pub fn build(grid: &Grid) -> Self {
        let (w, h) = (grid.width(), grid.height());
        let mut graph = SubgoalGraph {
            lines: StopLines::blocked(grid),
            ids: CellIds::new(w, h),
            levels_fit: w.max(h) <= u16::MAX as u32 + 1,
            ..SubgoalGraph::default()
        };
        // Z-order keeps neighbouring subgoals, which the search expands together, close
        // in memory (each cell's key worked out once: the cells are distinct, so the
        // order is that of any sort by the key).
        let mut keyed: Vec<(u64, Cell)> = subgoal_cells(grid)
            .into_iter()
            .map(|c| (morton(c.x, c.y), c))
            .collect();
        sort_by_z_key(&mut keyed, |&(key, _)| key);
        let subgoals = keyed.into_iter().map(|(_, c)| c);
        graph.cells.reserve_exact(subgoals.len());
        graph.blocked_diagonals.reserve_exact(subgoals.len());
        graph.born.reserve_exact(subgoals.len());
        for s in subgoals {
            graph.add_subgoal(grid, s);
        }
        graph.link_all(grid);
        graph.ids.shrink_to_fit();
        graph.added = Vec::new();
        graph.linked = Vec::new();
        graph
    }

    /// The graph with every ID stamped as given its cell at map revision `revision` (the
    /// revision of the map it was built for; a graph never stamped counts as built at
    /// revision 0).
    pub fn stamped(mut self, revision: u64) -> Self {
        self.revision = revision;
        self.born.fill(short_revision(revision));
        self
    }

    /// Whether subgoal `id` has held the cell it holds now since map revision `revision`
    /// at least (neither vacated nor given to another cell by an edit after it): a search
    /// started on that revision can then trust what it learnt of `id` to be about the same
    /// cell. `false` for an ID beyond the graph or vacant.
    #[inline]
    pub fn held_since(&self, id: u32, revision: u64) -> bool {
        let Some(&born) = self.born.get(id as usize) else {
            return false;
        };
        born != UNKNOWN_REVISION && u64::from(born) <= revision && self.is_live(id)
    }

    /// Scans from every subgoal and writes the edge lists in one pass (a build's: as
    /// rescanning each subgoal would, without moving lists as they grow).
    fn link_all(&mut self, grid: &Grid) {
        let n = self.cells.len();
        // Every subgoal's finds, sorted, one after the other.
        let Finds { finds, lengths } = self.finds(grid, 0..n as u32);
        let mut ends: Vec<usize> = Vec::with_capacity(n + 1);
        ends.push(0);
        for &length in &lengths {
            ends.push(ends[ends.len() - 1] + length as usize);
        }
        let of = |id: u32| &finds[ends[id as usize]..ends[id as usize + 1]];
        // Others: `a` for `b` when `a` found `b` and `b` did not find `a`, sorted. The
        // finds are turned round (who found each subgoal: counted, then written finder
        // by finder, so each subgoal's finders come sorted), and each subgoal's others
        // are its finders missing from its own sorted finds, told by one merge: a pass
        // over the finds instead of a binary search for each, and no sort (the pairs
        // come by `b`, then `a`).
        let mut finders_ends = vec![0usize; n + 1];
        for &b in &finds {
            finders_ends[b as usize + 1] += 1;
        }
        for id in 0..n {
            finders_ends[id + 1] += finders_ends[id];
        }
        let mut finders = vec![0u32; finds.len()];
        let mut next = finders_ends.clone();
        for a in 0..n as u32 {
            for &b in of(a) {
                finders[next[b as usize]] = a;
                next[b as usize] += 1;
            }
        }
        drop(next);
        let mut others: Vec<(u32, u32)> = Vec::new();
        for b in 0..n as u32 {
            let (own, mut i) = (of(b), 0);
            for &a in &finders[finders_ends[b as usize]..finders_ends[b as usize + 1]] {
                while i < own.len() && own[i] < a {
                    i += 1;
                }
                if own.get(i) != Some(&a) {
                    others.push((b, a));
                }
            }
        }
        drop(finders);
        debug_assert!(
            others.windows(2).all(|p| p[0] < p[1]),
            "others by b, then a"
        );
        self.edges = EdgeLists::new(n);
        // Room in the arena for every list's block (at least 4 entries each) up front, so
        // that no list's growth packs the arena again (70 times on Cauldron, a tenth of
        // the graph's build); the final `pack` leaves the same lists either way.
        let blocks: usize = (0..n)
            .map(|id| (ends[id + 1] - ends[id]).max(4))
            .sum::<usize>()
            + others.len();
        self.edges.pack(blocks);
        // One buffer for every subgoal's others (a vector each was a heap allocation and
        // release per subgoal, on the sequential tail of the build's first join).
        let (mut k, mut tail) = (0, Vec::new());
        for id in 0..n as u32 {
            tail.clear();
            while k < others.len() && others[k].0 == id {
                tail.push(others[k].1);
                k += 1;
            }
            self.edges.set(id, of(id), &tail);
        }
        self.edges.pack(0);
    }

    /// The subgoals each subgoal of `ids` finds by its scans, sorted and without repeats,
    /// one after the other in ID order. Scans read the graph alone, so with the `parallel`
    /// feature ranges of [`SCAN_CHUNK`] subgoals are scanned side by side and their finds
    /// joined in ID order: the same finds whatever the number of threads.
    fn finds(&self, grid: &Grid, ids: std::ops::Range<u32>) -> Finds {
        if cfg!(feature = "parallel") && ids.len() > SCAN_CHUNK {
            let middle = ids.start + (ids.end - ids.start) / 2;
            let (mut first, second) = join(
                || self.finds(grid, ids.start..middle),
                || self.finds(grid, middle..ids.end),
            );
            first.finds.extend_from_slice(&second.finds);
            first.lengths.extend_from_slice(&second.lengths);
            return first;
        }
        self.finds_in_order(grid, ids)
    }

    /// [`SubgoalGraph::finds`] on this thread, subgoal after subgoal.
    fn finds_in_order(&self, grid: &Grid, ids: std::ops::Range<u32>) -> Finds {
        let mut finds: Vec<u32> = Vec::new();
        let mut lengths: Vec<u32> = Vec::with_capacity(ids.len());
        for id in ids {
            let from = finds.len();
            // Each find's ID ranked from the mark the scan read where it stopped, not
            // looked up again by its cell (`CellIds::get`, out of line: 15.1M of
            // Cauldron's 120.9M of scans, one thread).
            self.reach_ids(
                grid,
                self.cell(id),
                #[inline(always)]
                |found, _| finds.push(found),
            );
            // A whole scan reports each subgoal once: a subgoal's place tells the one run
            // that may stop on it (an axis, a diagonal walk's own step, or the run of one
            // series from one row of its walk, see `Parts::finding`), and each run stops
            // once. So the finds are only sorted (without the pass dropping repeats the
            // scans took 105.5M on Cauldron against 113.9M); debug builds check it.
            finds[from..].sort_unstable();
            debug_assert!(
                finds[from..].windows(2).all(|p| p[0] < p[1]),
                "a scan reported a subgoal twice"
            );
            lengths.push((finds.len() - from) as u32);
        }
        Finds { finds, lengths }
    }

    /// Places landmarks on the subgoals for a layer configured with `k` per-cell ones and
    /// computes their distances (see `hpa::landmarks_sparse`); 0 drops them. Three times
    /// as many (at most 24) as configured: at the subgoals they cost a few hundred KiB
    /// (1.5 MiB on Cauldron). Measured with `--landmarks` of the subgoals bench (session 26,
    /// shared machine, same-run ratios): 24 made corner queries 4–17 % faster than 16 on
    /// all nine maps, 32 was no faster than 24; 8 was even to 1.17× slower than 16 and 4
    /// 1.23–1.35× slower on the five slowest maps; edit times stayed within noise.
    pub fn build_landmarks(&mut self, k: usize) {
        self.landmarks = SubgoalLandmarks::build(self, 3 * k);
    }

    /// Splits the subgoals into two levels (see `levels/mod.rs`), for the search.
    pub fn build_levels(&mut self) {
        let levels = self.levels_fit.then(|| Levels::build(self));
        self.set_levels(levels);
    }

    /// [`SubgoalGraph::build_landmarks`] and [`SubgoalGraph::build_levels`] side by side
    /// (see `hpa::side_by_side`): both read the graph alone, so the table and the levels
    /// are those the two calls make one after the other. On a large graph the contraction's
    /// edge lists are made first, side by side (see `levels/contraction.rs`, `direct_lists`). Returns
    /// the time each took.
    pub fn build_landmarks_and_levels(&mut self, k: usize) -> (Duration, Duration) {
        let graph = &*self;
        // A contraction whose edge lists are made side by side starts before the table:
        // beside it, they would be made on one thread. The table's first lists are made
        // with them, each arc's steps worked out once for both in the same ranges
        // (session 38 made them beside, from the cells again: 11.8M instructions on
        // Cauldron), and the rest of the contraction's set-up, its order, is left to
        // the levels' side of the join, which the table's side now matches.
        let start = Instant::now();
        let (early, lists) = if graph.levels_fit && Contraction::splits_lists(graph) {
            if k > 0 {
                match Contraction::lists_with_flat(graph, &LandmarkLists::weight) {
                    Some((direct, flat)) => (
                        Some(Some(Early::Lists(direct))),
                        Some(LandmarkLists::from_flat(flat)),
                    ),
                    // The arcs do not fit the levels: no contraction, and the table
                    // makes its own lists.
                    None => (Some(None), None),
                }
            } else {
                (Some(Contraction::new(graph).map(Early::Started)), None)
            }
        } else {
            (None, None)
        };
        let set_up = start.elapsed();
        let ((landmarks, landmarks_time), (levels, levels_time)) = timed_join(
            || match lists {
                Some(lists) => SubgoalLandmarks::build_with(graph, 3 * k, lists),
                None => SubgoalLandmarks::build(graph, 3 * k),
            },
            || {
                let contraction = match early {
                    Some(early) => Some(early.map(|early| match early {
                        Early::Lists(direct) => Contraction::over_lists(graph, direct),
                        Early::Started(contraction) => contraction,
                    })),
                    None => graph.levels_fit.then(|| Contraction::new(graph)),
                };
                contraction.map(|c| c.map(|c| Levels::contracted(c, graph)))
            },
        );
        self.landmarks = landmarks;
        self.set_levels(levels);
        (landmarks_time, set_up + levels_time)
    }

    /// Keeps `levels`, built when the graph's levels fit (`None` when they do not, `Some`
    /// of `None` when the arcs could not be packed).
    fn set_levels(&mut self, levels: Option<Option<Levels>>) {
        self.levels = None;
        if let Some(levels) = levels {
            self.levels = levels.map(Box::new);
            self.arcs_overflow = self.levels.is_none();
        }
    }

    /// Whether the graph lacks the levels it could have (an edit dropped them), so that
    /// [`SubgoalGraph::rebuild_levels`] has work to do.
    pub fn levels_pending(&self) -> bool {
        self.levels_fit && !self.arcs_overflow && self.levels.is_none()
    }

    /// Carries on rebuilding the levels an edit dropped until they are back (then `true`,
    /// as when they were never dropped or the graph cannot have them) or `deadline` passes; returns whether they are
    /// back and the subgoals visited (the work done). Queries stay exact meanwhile, over
    /// the whole graph.
    ///
    /// With a deadline, the first call after an edit does nothing (`(false, 0)`) and the
    /// rebuild starts at the next call without an edit before it. Any edit throws a
    /// rebuild under way away, so on a map edited between every two calls (a game that
    /// edits every frame, a replay with patches between its queries) each slice would be
    /// lost, with the start, which copies the whole graph past any budget (milliseconds on
    /// a 512² map, tens of them on a 1024² one), and the next edit would pay for freeing it.
    pub fn rebuild_levels(&mut self, deadline: Option<Instant>) -> (bool, usize) {
        if !self.levels_pending() {
            return (true, 0);
        }
        if std::mem::take(&mut self.edited_since_slice) && deadline.is_some() {
            return (false, 0);
        }
        let mut contraction = match self.rebuilding.take() {
            Some(c) => c,
            None => match Contraction::new(self) {
                Some(c) => Box::new(c),
                None => {
                    self.arcs_overflow = true;
                    return (true, 0);
                }
            },
        };
        let before = contraction.visited();
        let done = contraction.run(self, deadline);
        let work = contraction.visited() - before;
        if done {
            self.levels = Some(Box::new(contraction.finish()));
        } else {
            self.rebuilding = Some(contraction);
        }
        (done, work)
    }

    /// The levels by cell, or `None` while an edit has them dropped (see
    /// [`LevelsSnapshot`]).
    #[cfg(any(test, feature = "testing"))]
    pub fn levels_snapshot(&self) -> Option<LevelsSnapshot> {
        self.levels().map(|l| l.snapshot(self))
    }

    /// The two levels, unless an edit has dropped them since they were built.
    #[inline]
    pub fn levels(&self) -> Option<&Levels> {
        self.levels.as_deref()
    }

    /// The landmark distances at the subgoals.
    #[inline]
    pub fn landmarks(&self) -> &SubgoalLandmarks {
        &self.landmarks
    }

    /// Whether ID `id` holds a subgoal (rather than being vacant).
    #[inline]
    pub fn is_live(&self, id: u32) -> bool {
        self.cells[id as usize] != VACANT
    }

    /// Heap bytes held by the landmark distances (counted apart from the graph's).
    pub fn landmark_bytes(&self) -> usize {
        self.landmarks.memory_bytes()
    }

    /// Number of ID slots (live or vacant): search tables are indexed by ID.
    pub fn capacity(&self) -> usize {
        self.cells.len()
    }

    /// Number of subgoals.
    pub fn len(&self) -> usize {
        self.cells.len() - self.vacant.len()
    }

    /// Number of edges, each counted once.
    pub fn edge_count(&self) -> usize {
        self.edges.entries() / 2
    }

    /// The cell of subgoal `id`.
    #[inline]
    pub fn cell(&self, id: u32) -> Cell {
        self.cells[id as usize]
    }

    /// The blocked diagonal neighbours of subgoal `id` (see `taut.rs`), which the taut
    /// rule's tables are indexed by.
    #[inline]
    pub fn blocked_diagonals(&self, id: u32) -> BlockedDiagonals {
        self.blocked_diagonals[id as usize]
    }

    /// The subgoals joined to subgoal `id`.
    #[inline]
    pub fn neighbours(&self, id: u32) -> &[u32] {
        self.edges.all(id)
    }

    /// The ID of the subgoal at `c`, if `c` is one.
    #[inline]
    pub fn id_of(&self, c: Cell) -> Option<u32> {
        self.ids.get(c.x, c.y)
    }

    /// The ID of subgoal `c`, reported by a cone scan with the mark it read there (see
    /// [`Sighting::Subgoal`](scan::Sighting::Subgoal)): as [`SubgoalGraph::id_of`] without
    /// reading the mark again.
    #[inline]
    pub(crate) fn id_of_found(&self, c: Cell, mark: Mark) -> u32 {
        self.ids.id_of_mark(c.y, mark)
    }

    /// Whether `c`, on the map, is a subgoal.
    #[inline]
    pub fn is_subgoal(&self, c: Cell) -> bool {
        self.ids.contains(c.x, c.y)
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.lines.memory_bytes()
            + (self.added.capacity() + self.linked.capacity() * 2) * 4
            + (self.scratch_found.capacity()
                + self.scratch_previous.capacity()
                + self.scratch_others.capacity())
                * 4
            + self.scratch_redo.capacity() * std::mem::size_of::<(Cell, u32, u32)>()
            + self.scratch_reported.capacity() * std::mem::size_of::<Cell>()
            + self.scratch_update.memory_bytes()
            + self.levels.as_ref().map_or(0, |l| l.memory_bytes())
            + self.rebuilding.as_ref().map_or(0, |c| c.memory_bytes())
            + self.ids.memory_bytes()
            + self.cells.capacity() * 8
            + self.blocked_diagonals.capacity()
            + self.born.capacity() * 4
            + self.vacant.capacity() * 4
            + self.edges.memory_bytes()
    }

    /// Heap bytes no live subgoal uses: the lists' spare capacity, the vacant IDs' slots,
    /// the landmarks' spare bytes and the ID lists' spare capacity (what edits leave behind; see
    /// [`MemoryBreakdown::waste`](super::MemoryBreakdown::waste)).
    pub fn slack_bytes(&self) -> usize {
        self.edges.slack_bytes()
            + self.landmarks.slack_bytes()
            + self.vacant.len() * (8 + 1 + 4 + edges::SLOT_BYTES)
            + self.ids.slack_bytes()
            + (self.cells.capacity() - self.cells.len()) * 8
            + (self.blocked_diagonals.capacity() - self.blocked_diagonals.len())
            + (self.born.capacity() - self.born.len()) * 4
    }

    /// Brings the graph up to date with `grid`, in which the cells of `changed` were
    /// blocked or freed (see the module docs), by the edit that gave the map revision
    /// `revision` (IDs given a cell now are stamped with it).
    pub fn update(&mut self, grid: &Grid, changed: &[Cell], revision: u64) {
        self.revision = revision;
        // Only blocked cells: the landmark repair has less to do (see
        // `SubgoalLandmarks::repair`).
        let blocking = changed.iter().all(|&c| !grid.is_free(c));
        let mut scratch = std::mem::take(&mut self.scratch_update);
        // Cells whose passability or subgoal status changed: what a scan may read
        // differently now (a changed cell may only have been recosted).
        let touched = &mut scratch.touched;
        touched.clear();
        touched.extend(changed.iter().copied().filter(|&c| {
            let was_blocked = self.lines.is_stop(c.x, c.y) && !self.is_subgoal(c);
            was_blocked == grid.is_free(c)
        }));
        for &c in changed {
            self.lines
                .set(c.x, c.y, !grid.is_free(c) || self.is_subgoal(c));
        }
        cells_around(
            grid,
            changed,
            &mut scratch.around,
            &mut scratch.around_marks,
        );
        let (fresh, removed) = (&mut scratch.fresh, &mut scratch.removed);
        fresh.clear();
        removed.clear();
        // Whether every touched cell became more of a stop: a free cell blocked or made a
        // subgoal, a subgoal blocked (see `SubgoalGraph::resume_series`).
        let mut only_stops = blocking;
        for &c in &scratch.around {
            let now = is_subgoal_cell(grid, c);
            if now == self.is_subgoal(c) {
                if let Some(id) = self.id_of(c) {
                    // A subgoal still: a changed cell may be one of its diagonal neighbours.
                    self.blocked_diagonals[id as usize] = blocked_diagonals_at(grid, c);
                }
                continue;
            }
            touched.push(c);
            if now {
                fresh.push(self.add_subgoal(grid, c));
            } else {
                only_stops &= !grid.is_free(c);
                removed.push(self.remove_subgoal(c, !grid.is_free(c)));
            }
        }
        // Each reader with the parts of its scan that may read a touched cell, and where
        // a series reads one (see `SeriesRead`).
        let rescan = &mut scratch.readers;
        rescan.clear();
        rescan.extend(fresh.iter().map(|&id| (id, Parts::ALL, None)));
        // The touched cells that are no stops now: free and no subgoals.
        let opened = &mut scratch.opened;
        opened.clear();
        opened.extend(
            touched
                .iter()
                .copied()
                .filter(|c| !self.lines.is_stop(c.x, c.y)),
        );
        for &x in touched.iter() {
            self.readers(grid, x, (touched, opened), |s, parts, read| {
                rescan.push((self.id_of(s).expect("a reader is a subgoal"), parts, read))
            });
        }
        // Grouped by reader in ID order: the entries' IDs and places sorted as plain
        // integers rather than the entries themselves (about 180 an edit, 28 bytes each:
        // sorting them took ≈ 1 % of a blocking edit more).
        let order = &mut scratch.order;
        order.clear();
        order.extend(
            rescan
                .iter()
                .enumerate()
                .map(|(k, &(id, _, _))| (u64::from(id) << 32) | k as u64),
        );
        order.sort_unstable();
        // With an edit that only made stops, the touched cells' bounding box: the last
        // row of a series' walk that holds a touched cell is that of the box's corner
        // farthest along the walk (see `rescan`).
        let settled = only_stops.then(|| bounding_box(touched)).flatten();
        let mut i = 0;
        while i < order.len() {
            let id = (order[i] >> 32) as u32;
            // Each series' reads in scan order, `(row, at)`: its first changed read first.
            let (mut parts, mut first_reads) = (Parts::NONE, [None::<SeriesRead>; 8]);
            while i < order.len() && (order[i] >> 32) as u32 == id {
                let (_, entry_parts, entry_read) = rescan[order[i] as u32 as usize];
                parts = parts | entry_parts;
                if let Some(read) = entry_read {
                    let first = &mut first_reads[read.series as usize];
                    if first.map_or(true, |f| (read.row, read.at) < (f.row, f.at)) {
                        *first = Some(read);
                    }
                }
                i += 1;
            }
            // A series alone (no whole walk, no first run) resumes at its first changed
            // read (a loop in place: `map` over the array copied it twice, ≈ 1.5 % of an
            // edit).
            for (b, read) in first_reads.iter_mut().enumerate() {
                if !parts.may_resume(b) {
                    *read = None;
                }
            }
            self.rescan(grid, id, parts, &first_reads, settled);
        }
        // Freed only now, so that no ID changed meaning while the scans above ran.
        self.vacant.extend_from_slice(&scratch.removed);
        self.scratch_update = scratch;
        let mut landmarks = std::mem::take(&mut self.landmarks);
        landmarks.repair(self, &self.added, &self.linked, blocking);
        self.landmarks = landmarks;
        self.added.clear();
        self.linked.clear();
        // A witness of a local may have lost an edge (see `levels/mod.rs`); a rebuild under
        // way read the graph before this edit.
        self.levels = None;
        self.rebuilding = None;
        self.arcs_overflow = false;
        self.edited_since_slice = true;
    }

    /// Scans the `parts` of subgoal `id`'s cone again and updates its edges; what the
    /// other parts found stays. A series with a read in `resumed` is scanned again only
    /// from that read on (see `SeriesRead`): what it found on earlier rows stays too, and
    /// with `settled` (the bounding box of the touched cells of an edit that only made
    /// stops) what it found
    /// past the row where its scan settles (see [`SubgoalGraph::resume_series`]).
    fn rescan(
        &mut self,
        grid: &Grid,
        id: u32,
        parts: Parts,
        resumed: &[Option<SeriesRead>; 8],
        settled: Option<Rect>,
    ) {
        let from = self.cell(id);
        // Scratch lists, kept between rescans so that an edit allocates nothing here: the
        // previous finds, the finds new now, the previous finds of the parts scanned again
        // with their cells, and the cells the scans report.
        let mut previous = std::mem::take(&mut self.scratch_previous);
        let mut added = std::mem::take(&mut self.scratch_found);
        let mut redo = std::mem::take(&mut self.scratch_redo);
        let mut reported = std::mem::take(&mut self.scratch_reported);
        previous.clear();
        previous.extend_from_slice(self.edges.finds(id));
        added.clear();
        redo.clear();
        reported.clear();
        // The parts scanned from their start, and the rows each resumed series is scanned
        // again on: from its first changed read to where it settles.
        let (mut whole, mut resume_rows) = (parts, [(u32::MAX, u32::MAX); 8]);
        for r in resumed.iter().flatten() {
            whole = whole.without(Parts::series_at(r.series as usize));
            resume_rows[r.series as usize].0 = r.row;
        }
        let mut report = |r| {
            if let Reached::Subgoal(c) = r {
                reported.push(c);
            }
        };
        self.reach_parts(grid, from, None, whole, &mut report);
        for &read in resumed.iter().flatten() {
            let b = read.series as usize;
            // The last row of the series' walk that holds a touched cell.
            let settled_after = settled.map(|touched| {
                // A row of the walk lies farther along it with the coordinate it is told
                // by (`y` for the horizontal series, `x` for the vertical) farther along
                // the diagonal: the box's corner that way is as far as any touched cell.
                let d = DIAGONALS[b % 4];
                let far = Cell::new(
                    if d.0 > 0 { touched.x2 } else { touched.x1 },
                    if d.1 > 0 { touched.y2 } else { touched.y1 },
                );
                SeriesRead::rows_along(b, d, from, far)
            });
            if let Some(end) = self.resume_series(grid, from, read, settled_after, &mut report) {
                resume_rows[b].1 = end;
            }
        }
        for (k, &v) in previous.iter().enumerate() {
            // Removing a subgoal takes it out of every list: no find is vacant.
            let c = self.cells[v as usize];
            let part = Parts::finding(from, c);
            let again = whole.contains(part)
                || part.single_series().is_some_and(|b| {
                    let (first, last) = resume_rows[b];
                    (first..=last).contains(&SeriesRead::row_of(b, from, c))
                });
            if again {
                redo.push((c, v, k as u32));
            }
        }
        // Only what changed is written, in place: the previous finds scanned again and not
        // found now, and the finds new now. The kept finds and those found again (looked
        // up in `redo`, cheaper than the ID look-up, and marked there) stay where they
        // are. Until session 45 the whole list was rewritten (the kept finds merged with
        // the reported ones, both lists diffed in one walk and copied back): 2–5 % more
        // instructions for a typical edit.
        for &c in &reported {
            if let Some(entry) = redo.iter_mut().find(|(rc, _, _)| *rc == c) {
                entry.0 = VACANT;
                continue;
            }
            let v = self.id_of(c).expect("a scan reports subgoals");
            // A walk's own find is shared by its two series: one scanned again reports
            // it, and the other may have kept it.
            if previous.binary_search(&v).is_err() {
                added.push(v);
            }
        }
        // From the last find down, so that each one's place among the finds holds.
        for &(c, a, k) in redo.iter().rev() {
            if c == VACANT {
                continue;
            }
            self.edges.remove_find_at(id, k as usize);
            if self.edges.finds(a).binary_search(&id).is_ok() {
                // Still joined by `a`'s own scan: an other of `id` now.
                self.edges.push_other(id, a);
            } else {
                // `id` was an other of `a`.
                self.edges.remove_other(a, id);
            }
        }
        added.sort_unstable();
        added.dedup();
        for &b in &added {
            // Joined by `b`'s scan before, by both now: `id` stays an other of `b`, which
            // found it; `b` leaves the others of `id` for its finds.
            if !self.edges.remove_other(id, b) {
                self.edges.push_other(b, id);
                self.linked.push((id, b));
            }
            self.edges.insert_find(id, b);
        }
        self.scratch_previous = previous;
        self.scratch_found = added;
        self.scratch_redo = redo;
        self.scratch_reported = reported;
    }

    /// Makes `c`, a subgoal of `grid`, a subgoal without edges; returns its ID.
    fn add_subgoal(&mut self, grid: &Grid, c: Cell) -> u32 {
        let blocked = blocked_diagonals_at(grid, c);
        let id = match self.vacant.pop() {
            Some(id) => {
                self.cells[id as usize] = c;
                self.blocked_diagonals[id as usize] = blocked;
                self.born[id as usize] = short_revision(self.revision);
                id
            }
            None => {
                self.cells.push(c);
                self.blocked_diagonals.push(blocked);
                self.born.push(short_revision(self.revision));
                self.edges.push_empty();
                self.cells.len() as u32 - 1
            }
        };
        self.ids.insert(c.x, c.y, id);
        self.lines.set(c.x, c.y, true);
        self.added.push(id);
        id
    }

    /// Makes `c` no subgoal, dropping its edges; returns its ID, which the caller frees.
    fn remove_subgoal(&mut self, c: Cell, blocked: bool) -> u32 {
        let id = self.ids.remove(c.x, c.y).expect("a subgoal has an ID");
        let mut joined = std::mem::take(&mut self.scratch_others);
        joined.clear();
        joined.extend_from_slice(self.edges.all(id));
        for &v in &joined {
            let was = self.edges.remove(v, id);
            debug_assert!(was, "edges are kept at both ends");
        }
        self.scratch_others = joined;
        self.edges.clear(id);
        self.cells[id as usize] = VACANT;
        // Runs stop at blocked cells and subgoals.
        self.lines.set(c.x, c.y, blocked);
        id
    }

    /// Every subgoal's own scan finds as sorted `(subgoal, found)` cell pairs: an updated
    /// graph's must equal a fresh build's (the edges alone could hide a scan that found
    /// too little where the other end's scan found the pair).
    #[cfg(any(test, feature = "testing"))]
    pub fn scan_pairs(&self) -> Vec<(Cell, Cell)> {
        let mut pairs: Vec<(Cell, Cell)> = (0..self.cells.len() as u32)
            .filter(|&a| self.is_live(a))
            .flat_map(|a| self.edges.finds(a).iter().map(move |&b| (a, b)))
            .map(|(a, b)| (self.cell(a), self.cell(b)))
            .collect();
        pairs.sort_unstable();
        pairs
    }

    /// The subgoals as cells with their blocked diagonal neighbours and the edges as cell
    /// pairs (smaller cell first), both sorted: what a fresh build and an updated graph
    /// are compared by.
    #[cfg(any(test, feature = "testing"))]
    pub fn snapshot(&self) -> SubgoalSnapshot {
        let mut cells: Vec<(Cell, u8)> = self
            .cells
            .iter()
            .copied()
            .zip(self.blocked_diagonals.iter().copied())
            .filter(|&(c, _)| c != VACANT)
            .collect();
        cells.sort_unstable();
        let mut edges: Vec<(Cell, Cell)> = (0..self.cells.len() as u32)
            .flat_map(|a| self.neighbours(a).iter().map(move |&b| (a, b)))
            .map(|(a, b)| {
                let (ca, cb) = (self.cell(a), self.cell(b));
                (ca.min(cb), ca.max(cb))
            })
            .collect();
        edges.sort_unstable();
        edges.dedup();
        (cells, edges)
    }
}

/// Every subgoal cell of `grid` (see [`is_subgoal_cell`]), row by row, found 64 cells of
/// a row at a time: for each diagonal, a word of the row's free cells is matched with the
/// words of the blocked cells diagonal to them and of the two cells beside
/// each diagonal.
pub(super) fn subgoal_cells(grid: &Grid) -> Vec<Cell> {
    let (w, h) = (grid.width() as i64, grid.height() as i64);
    let mut cells = Vec::new();
    for y in 0..h {
        for x0 in (0..w).step_by(64) {
            let mut found = 0;
            for (dx, dy) in DIAGONALS {
                // The blocked cell `(x - dx, y - dy)` and the two cells beside the
                // diagonal, `(x - dx, y)` and `(x, y - dy)`, free. Where the blocked cell
                // lies off the grid, so does one of those two: it matches nothing.
                let (bx, by) = (x0 - dx as i64, y - dy as i64);
                let blocked = !grid.free_bits_at(bx, by);
                found |= blocked & grid.free_bits_at(bx, y) & grid.free_bits_at(x0, by);
            }
            found &= grid.free_bits_at(x0, y);
            while found != 0 {
                let j = found.trailing_zeros() as i64;
                found &= found - 1;
                cells.push(Cell::new((x0 + j) as u32, y as u32));
            }
        }
    }
    cells
}

/// Whether free cell `s` is a subgoal: diagonal to a blocked cell whose two cells beside
/// the diagonal are free (a convex obstacle corner).
pub(super) fn is_subgoal_cell(grid: &Grid, s: Cell) -> bool {
    if !grid.is_free(s) {
        return false;
    }
    let (x, y) = (s.x as i64, s.y as i64);
    DIAGONALS.iter().any(|&(dx, dy)| {
        let (bx, by) = (x - dx as i64, y - dy as i64);
        grid.contains_at(bx, by)
            && !grid.is_free_at(bx, by)
            && grid.is_free_at(bx, y)
            && grid.is_free_at(x, by)
    })
}

impl super::HpaMap {
    /// Keeps the subgoal graph up to date after the cells of `raised` and `lowered` were
    /// blocked, freed or recosted: updated locally while the map keeps one terrain cost,
    /// dropped when it gains a second, built when it comes back to one (or, on a map built
    /// without a blocked cell, when it first has one).
    pub(super) fn update_subgoals(&mut self, raised: &[Cell], lowered: &[Cell]) {
        if !self.wants_subgoals() {
            self.subgoals = None;
            return;
        }
        match &mut self.subgoals {
            Some(graph) => {
                let changed: Vec<Cell> = raised.iter().chain(lowered).copied().collect();
                graph.update(&self.grid, &changed, self.revision);
            }
            None => {
                let mut graph = SubgoalGraph::build(&self.grid).stamped(self.revision);
                graph.build_landmarks(self.config.landmarks as usize);
                graph.build_levels();
                self.subgoals = Some(Box::new(graph));
            }
        }
    }

    /// Every subgoal's own scan finds, as sorted `(subgoal, found)` cells, or `None` when
    /// the map keeps no subgoal graph: a test hook, to compare an edited map's scans with a
    /// fresh build's.
    #[cfg(any(test, feature = "testing"))]
    pub fn subgoal_scan_pairs(&self) -> Option<Vec<(Cell, Cell)>> {
        self.subgoals.as_ref().map(|graph| graph.scan_pairs())
    }

    /// The subgoal graph as sorted subgoal cells and edges (see
    /// [`Config::subgoals`](super::Config::subgoals)), or `None` when the map keeps none
    /// (empty when it wants one but has no blocked cell to build it for yet): a test hook,
    /// to compare an edited map with a fresh build.
    #[cfg(any(test, feature = "testing"))]
    pub fn subgoal_snapshot(&self) -> Option<SubgoalSnapshot> {
        match &self.subgoals {
            Some(graph) => Some(graph.snapshot()),
            None => self.wants_subgoals().then(SubgoalSnapshot::default),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{is_subgoal_cell, subgoal_cells};
    use crate::geom::Cell;
    use crate::grid::Grid;
    use proptest::prelude::*;

    /// The build's scans on rayon's pools (feature `parallel`).
    #[cfg(feature = "parallel")]
    mod pools {
        use crate::grid::Grid;
        use crate::hpa::subgoals::{SubgoalGraph, SCAN_CHUNK};

        /// The scans split into ranges and run side by side find what one pass over every
        /// subgoal finds, in the same order, on a pool of two threads (a map of several
        /// thousand subgoals: more than a few ranges).
        #[test]
        fn split_scans_find_what_one_pass_finds() {
            let grid = Grid::from_fn(300, 200, |x, y| {
                let h = (x.wrapping_mul(2_654_435_761) ^ y.wrapping_mul(40_503)).rotate_left(13);
                (x % 19 != 4 || y % 7 == 0) && h % 100 >= 8
            });
            let graph = SubgoalGraph::build(&grid);
            let n = graph.capacity() as u32;
            assert!(
                n as usize > 4 * SCAN_CHUNK,
                "{n} subgoals: too few to split"
            );
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(2)
                .build()
                .expect("a thread pool");
            let split = pool.install(|| graph.finds(&grid, 0..n));
            assert_eq!(split, graph.finds_in_order(&grid, 0..n));
        }
    }

    proptest! {
        /// A subgoal's edges are the subgoals its scans find and those whose scans find
        /// it, each once (the build's finders turned round and merged, against sets made
        /// from the scans' finds).
        #[test]
        fn edges_are_the_finds_both_ways(
            (w, h, blocked) in crate::grid::arb_blocked_cells(4..40, 0.3),
        ) {
            use std::collections::BTreeSet;
            let grid = Grid::from_fn(w, h, |x, y| !blocked[(y * w + x) as usize]);
            let graph = super::SubgoalGraph::build(&grid);
            let n = graph.capacity();
            let super::Finds { finds, lengths } = graph.finds_in_order(&grid, 0..n as u32);
            let mut want = vec![BTreeSet::new(); n];
            let mut from = 0;
            for (a, &length) in lengths.iter().enumerate() {
                for &b in &finds[from..from + length as usize] {
                    want[a].insert(b);
                    want[b as usize].insert(a as u32);
                }
                from += length as usize;
            }
            for (id, want) in want.iter().enumerate() {
                let mut got = graph.neighbours(id as u32).to_vec();
                got.sort_unstable();
                prop_assert_eq!(got, want.iter().copied().collect::<Vec<u32>>(), "subgoal {}", id);
            }
        }

        /// The subgoals found a word at a time are those the definition finds cell by
        /// cell, in row order, on widths that are and are not multiples of 64.
        #[test]
        fn subgoal_cells_equal_the_definition(
            (w, h, blocked) in crate::grid::arb_blocked_cells_sized(1..150, 1..12, 0.3),
        ) {
            let grid = Grid::from_fn(w, h, |x, y| !blocked[(y * w + x) as usize]);
            let want: Vec<Cell> = (0..h)
                .flat_map(|y| (0..w).map(move |x| Cell::new(x, y)))
                .filter(|&c| is_subgoal_cell(&grid, c))
                .collect();
            prop_assert_eq!(subgoal_cells(&grid), want);
        }
    }
}
