//! Landmark distances stored at subgoals only: the differential heuristic of the subgoal
//! search, in a table of `k` 16-bit values per subgoal instead of per cell.
//!
//! # The table
//! For each of `k` landmarks (subgoals chosen farthest-point, see
//! [`SubgoalLandmarks::build`]) and each subgoal `s`, `D(L, s)` is the distance from `L` to
//! `s` over the subgoal graph with the *lattice* weights of the layer ([`Lattice`]): a
//! straight step weighs `a` units and a diagonal one `b = ⌊a·√2⌋`, so an edge `(u, v)`
//! weighs `lat(u, v) = a·(max − min) + b·min` of its `|dx|, |dy|`. Since `b < a·√2`,
//! `lat(u, v) ≤ a·h(u, v)`, and integer units make every bound exact. The layer takes
//! `a = 29, b = 41` (the per-cell tables' lattice, 41/29 within 0.03 % of √2) when its
//! longest route fits in 16 bits, else the lattice nearest √2 among the coarser ones that
//! fit, down to `a = 3, b = 4` ([`Lattice::fitting`]; 17/24, 0.17 % short of √2, for
//! routes up to 3,400 cells): the 1024² StarCraft maps and the DAO maps keep 29/41.
//!
//! A value is kept in 16 bits, clamped: `D̂(L, s) = min(D(L, s), CAP)` with `CAP` =
//! 65,535, and a subgoal no route from `L` reaches holds `CAP` too (the clamp of an
//! infinite distance). Only a map whose routes are longer than `CAP / 3` = 21,845 cells
//! (a long maze) keeps clamped finite values: a weaker bound far from the landmarks, never
//! a wrong one. The values of one subgoal are contiguous (ID-major), padded with zeros to
//! a multiple of eight (one 128-bit register of 16-bit lanes): 24 landmarks take 48 bytes
//! per subgoal, three registers, where 32-bit values took 96 bytes and six.
//!
//! # Placement
//! Farthest-point: the first landmark is the subgoal farthest from a subgoal of the
//! largest component, each next one the subgoal whose distance to the nearest landmark
//! placed is largest (ties to the highest ID), so the build is deterministic and its `k + 1`
//! Dijkstras sequential. The bound's argument below holds for any placement; this one was
//! kept by measured expansions per exact corner query (session 39, `lmk` in BENCHMARKS.md),
//! against Goldberg and Werneck's *avoid* (a shortest-path tree from seeded random roots,
//! the next landmark at a leaf of the subtree the landmarks bound worst), a *planar* rim
//! (the subgoal farthest from the centre in each of `k` equal angles, which would let the
//! searches run in parallel), planar and farthest-point halves, *reseat* rounds (each landmark in turn moved to the subgoal
//! farthest from the others) and the best `k` of 64 or 128 farthest-point candidates for
//! the mean bound over sampled pairs: none took 10 % off the expansions of a map without
//! adding more on another (from −7 % to +26 %), and the last, though its sampled bounds
//! were tighter (mean ratio to the distance 0.955–0.991 → 0.976–0.996), expanded more on
//! six maps of seven (all seven from 128 candidates): a mean over random pairs is not what
//! an A\* near its optimum needs. Placement has little left to give: with the exact
//! distance to the goal as its bound the A\* would expand 16 % (den520d) to 66 % (Cauldron)
//! fewer subgoals than now, and with 64 farthest-point landmarks 8–33 % fewer.
//!
//! # Why the bounds hold
//! *Lipschitz is all that is needed.* If `|D̂(L, u) − D̂(L, v)| ≤ lat(u, v)` on every edge
//! of the graph, summing along the shortest route between two subgoals (which the graph
//! holds, see `hpa::subgoals`) gives `|D̂(L, u) − D̂(L, v)| ≤ a·d(u, v)`. The search's bound
//! `max_L |D̂(L, n) − D̂(L, g)| / a` (raised to the octile distance) is then admissible and
//! consistent: the difference of two nodes' bounds is at most the edge between them.
//! Distances are Lipschitz (triangle inequality), and the clamp keeps it: `x ↦ min(x, c)`
//! never widens a gap, and no edge joins a reached subgoal to an unreached one.
//!
//! *Why the weights are coarse and not the values.* Rounding 29-lattice distances down to
//! a coarser unit, `⌊D/q⌋`, is admissible but not consistent: two neighbours' values may
//! round one unit further apart than their edge allows. Coarsening the weights instead (a
//! lattice of its own per layer) keeps every edge Lipschitz as it is, and the goal's row
//! below exact, since the goal's edges are integers of the same lattice: nothing is
//! rounded anywhere. (Rounding each weight `⌊lat/q⌋` of the fine lattice would keep the
//! subgoals Lipschitz but not the goal's row, whose direct edges would then round down
//! apart from the graph's routes by up to one unit.)
//!
//! *The goal's row.* The goal `g` is rarely a subgoal, so its values are derived from the
//! subgoals its cone scan reaches directly (the same scan the search makes anyway):
//! `D̂(L, g) = min(CAP, min_s D̂(L, s) + lat(s, g))` over those `s` (its own values when `g`
//! is a subgoal). That is `g` joined to the graph as one more node with the edges the query
//! uses. It is Lipschitz towards every subgoal `u`: a shortest route from `g` to `u` leaves
//! `g` through a direct-h-reachable subgoal `s₁` (the subgoal theorem, which holds for
//! every lattice with `a < b < 2a` as for the true weights: all make the octile-length
//! paths between two cells the same set, those with `min(|dx|, |dy|)` diagonal steps), so
//! `D̂(L, g) − D̂(L, u) ≤ lat(g, s₁) + D̂(L, s₁) − D̂(L, u) ≤ M(g, u)`, the lattice distance;
//! and `D̂(L, u) − D̂(L, g) = D̂(L, u) − D̂(L, s*) − lat(s*, g) ≤ M(u, s*) − M(s*, g) ≤ M(u, g)`
//! by the triangle inequality of the lattice metric `M` (with `M(s*, g) = lat(s*, g)` for a
//! direct-h-reachable pair). The outer clamp keeps both, as above. And `M ≤ a·d`. A
//! landmark no route joins to the goal holds `CAP` at the goal and at every subgoal the
//! query can reach, so it adds nothing; a goal whose scan reaches no subgoal gets no
//! landmark bound at all (its row compares no lane).
//!
//! # Edits
//! Blocking cells only lengthens distances: the old values stay Lipschitz for every edge
//! that survives (an edge's weight is its lattice length, which does not change). Edges
//! appear where the scans found new subgoals or new direct pairs (freed cells, new
//! corners), and new subgoals have no values. [`SubgoalLandmarks::repair`] gives every new
//! subgoal `CAP` (no value), then, from the ends of every new edge, lowers values
//! Dijkstra-style, `D̂(v) ← D̂(u) + lat(u, v)`, until no edge is violated: every lowered node
//! relaxes all its edges, so on return `D̂(v) ≤ min(CAP, D̂(u) + lat(u, v))` holds on every
//! edge in both directions, which is the Lipschitz property. The values are then at least
//! 0 and at most the clamped lattice distances (they are upper bounds at every step), so a
//! landmark's column may grow loose over many edits but never wrong. The repair keeps the
//! layer's lattice (a coarser one would only be needed by routes longer than any the
//! build saw; those clamp). The property test `tests/suite/subgoal_props.rs` checks the
//! property after random edits and fails when the repair is skipped.

mod gap;

use super::subgoals::{FlatLists, SubgoalGraph};
use crate::geom::Cell;
use crate::grid::movement::{LATTICE_DIAGONAL, LATTICE_STRAIGHT};
use gap::{largest_gap, largest_outside, LANES};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The largest value kept: distances at or beyond it, and no distance at all, read as it.
const CAP: u16 = u16::MAX;
/// A subgoal the build's Dijkstra has not reached (its 32-bit columns).
const UNREACHED: u32 = u32::MAX;
/// The most landmarks kept at subgoals.
pub(crate) const MAX_SPARSE_LANDMARKS: usize = 24;

/// The integer step weights of one landmark table: `straight` units per straight step and
/// `diagonal = ⌊straight·√2⌋` per diagonal one (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Lattice {
    straight: u32,
    diagonal: u32,
}

impl Default for Lattice {
    fn default() -> Self {
        Lattice::FINEST
    }
}

impl Lattice {
    /// The per-cell tables' lattice, 29 and 41: 41/29 lies within 0.03 % below √2.
    const FINEST: Lattice = Lattice {
        straight: LATTICE_STRAIGHT,
        diagonal: LATTICE_DIAGONAL,
    };
    /// The coarsest lattice, 3 and 4: below, a diagonal step would weigh no more than a
    /// straight one and the subgoal theorem the goal's row relies on would not hold.
    const COARSEST_STRAIGHT: u32 = 3;

    /// The lattice of `straight` units per straight step (3 to 29), its diagonal the
    /// largest integer below `straight·√2` (never equal: √2 is irrational).
    fn with_straight(straight: u32) -> Self {
        let straight = straight.clamp(Self::COARSEST_STRAIGHT, LATTICE_STRAIGHT);
        // ⌊√(2·s²)⌋ in integers: the largest d with d² ≤ 2·s².
        let twice_square = 2 * straight * straight;
        let mut diagonal = (f64::from(twice_square)).sqrt() as u32;
        while diagonal * diagonal > twice_square {
            diagonal -= 1;
        }
        while (diagonal + 1) * (diagonal + 1) <= twice_square {
            diagonal += 1;
        }
        Lattice { straight, diagonal }
    }

    /// The lattice in which a route `longest` units long in [`Lattice::FINEST`] stays
    /// below [`CAP`], with an eighth to spare (the farthest-point landmarks after the first
    /// may see slightly longer routes; any longer clamp), whose diagonal is nearest √2.
    /// For every `straight` up to 29, `⌊straight·√2⌋ / straight ≤ 41/29` (41/29 is the
    /// best approximation of √2 from below with a denominator up to 29), so lengths scale
    /// by at most `straight / 29`. Below 29 the straight step is only a limit: 17/24
    /// (0.17 % short of √2) serves every map that 28/39 would (1.5 % short).
    fn fitting(longest: u32) -> Self {
        let budget = u64::from(CAP) * u64::from(LATTICE_STRAIGHT) * 8 / 9;
        let most = (budget / u64::from(longest.max(1))).min(u64::from(LATTICE_STRAIGHT)) as u32;
        (Self::COARSEST_STRAIGHT..=most.max(Self::COARSEST_STRAIGHT))
            .map(Lattice::with_straight)
            // The largest diagonal ratio, the finer lattice among equal ones.
            .max_by(|a, b| {
                (a.diagonal * b.straight)
                    .cmp(&(b.diagonal * a.straight))
                    .then(a.straight.cmp(&b.straight))
            })
            .unwrap_or(Lattice::FINEST)
    }

    /// The lattice length of the octile walk between `a` and `b`: never more than
    /// `straight` times its true length.
    #[inline]
    fn length(self, a: Cell, b: Cell) -> u32 {
        let dx = a.x.abs_diff(b.x);
        let dy = a.y.abs_diff(b.y);
        let (lo, hi) = (dx.min(dy), dx.max(dy));
        self.straight * (hi - lo) + self.diagonal * lo
    }
}

/// Landmark distances at the subgoals of a [`SubgoalGraph`] (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct SubgoalLandmarks {
    k: usize,
    /// Values per subgoal: `k` rounded up to a multiple of [`LANES`], the padding zero.
    stride: usize,
    lattice: Lattice,
    /// The largest value: [`CAP`], lower in tests that exercise the clamp on small maps.
    cap: u16,
    /// `values[id · stride + l]`: landmark `l`'s distance to subgoal `id` in lattice
    /// units, clamped to `cap` (which also stands for no distance).
    values: Vec<u16>,
    /// Scratch of the repairs.
    heap: BinaryHeap<Reverse<(u32, u32)>>,
}

impl Default for SubgoalLandmarks {
    fn default() -> Self {
        SubgoalLandmarks {
            k: 0,
            stride: 0,
            lattice: Lattice::FINEST,
            cap: CAP,
            values: Vec::new(),
            heap: BinaryHeap::new(),
        }
    }
}

/// Lowers each lane of `row` to the paired value of `vals` plus `extra`, saturating: the
/// goal's row taking one subgoal its scan reached (see [`SubgoalLandmarks::goal_row`]).
#[inline(always)]
fn lower_row(row: &mut [u16], vals: &[u16], extra: u16) {
    // Eight lanes at a time, as `gap::largest_gap`, so that each chunk is one register;
    // `min` as two saturating operations, which SSE2 has for 16-bit lanes (it has no
    // unsigned 16-bit minimum).
    for (r, v) in row.chunks_exact_mut(LANES).zip(vals.chunks_exact(LANES)) {
        let mut lanes = [0u16; LANES];
        lanes.copy_from_slice(r);
        for (r, &v) in lanes.iter_mut().zip(v) {
            *r -= (*r).saturating_sub(v.saturating_add(extra));
        }
        r.copy_from_slice(&lanes);
    }
}

/// The goal's values, ready for the bounds of one query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SparseGoalRow {
    /// The goal's values, zero in the padding lanes as the table's rows are.
    row: [u16; MAX_SPARSE_LANDMARKS],
    /// Lanes compared: the table's stride, or 0 when the goal has no values (its scan
    /// reached no subgoal), which leaves the landmarks out of the query's bound.
    lanes: usize,
}

/// A goal's landmark row being built, subgoal by subgoal (see
/// [`SubgoalLandmarks::goal_row`]): per lane the smallest `D̂(L, s) + lat(s, goal)` so
/// far, in 16 bits and saturating (`min(CAP, x)` is the same whether the sums saturate at
/// `u16::MAX = CAP` first or not, and `cap ≤ CAP`; the lanes are half as wide: three
/// vector registers for the usual 24 landmarks, and the goal's scan may reach dozens of
/// subgoals), and whether any subgoal lowered it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GoalRowLows {
    row: [u16; MAX_SPARSE_LANDMARKS],
    any: bool,
}

impl GoalRowLows {
    /// No subgoal yet.
    pub fn new() -> Self {
        GoalRowLows {
            row: [u16::MAX; MAX_SPARSE_LANDMARKS],
            any: false,
        }
    }
}

/// Per-lane intervals `[lo_L, hi_L]` of landmark values: a subgoal field aims its search
/// with `max_L max(D̂(L, s) − hi_L, lo_L − D̂(L, s), 0)` ([`SubgoalLandmarks::gap_outside`]).
/// Each term is a clamp of the Lipschitz `D̂(L, ·)` (see "Why the bounds hold"), so the
/// bound is Lipschitz over the graph whatever the intervals: divided by the lattice's
/// straight step, it is a consistent heuristic. With intervals holding the row of every
/// cell aimed at (each row built as a goal's, [`SubgoalLandmarks::goal_row`]) it is also a
/// lower bound on the distance to the nearest of them (each term is at most
/// `|D̂(L, s) − row_m[L]|` for every member `m`); the field's exactness needs only the
/// consistency.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SparseAim {
    lo: [u16; MAX_SPARSE_LANDMARKS],
    hi: [u16; MAX_SPARSE_LANDMARKS],
    /// Lanes compared: 0 when the row it was made from had no values (no bound).
    lanes: usize,
}

impl SparseAim {
    /// The intervals `row ± margin` (lattice units, saturating at 0 and at the cap): the
    /// rows of cells within `margin` of the row's cell over the graph lie in them.
    pub fn around(row: &SparseGoalRow, margin: u32) -> Self {
        let margin = margin.min(u32::from(u16::MAX)) as u16;
        let mut aim = SparseAim {
            lo: row.row,
            hi: row.row,
            lanes: row.lanes,
        };
        for (lo, hi) in aim.lo.iter_mut().zip(&mut aim.hi) {
            *lo = lo.saturating_sub(margin);
            *hi = hi.saturating_add(margin);
        }
        aim
    }
}

impl SubgoalLandmarks {
    /// Places `k` landmarks (at most [`MAX_SPARSE_LANDMARKS`]) on the subgoals of `graph`
    /// and fills in their columns. The first lies farthest from a subgoal of the largest
    /// component; each next one at the subgoal farthest from those placed (its smallest
    /// distance to them largest), all by Dijkstra over the graph. The first two searches
    /// run in the finest lattice; the first landmark's eccentricity there chooses the
    /// table's [`Lattice`].
    pub fn build(graph: &SubgoalGraph, k: usize) -> Self {
        Self::build_in(graph, k, None, CAP, None)
    }

    /// [`SubgoalLandmarks::build`] over the lists its first searches run in, made ahead
    /// ([`LandmarkLists::from_flat`]: the build makes them with the levels' set-up, which
    /// both sides of the next join wait for, rather than on the table's side of it, 11.8M
    /// instructions on Cauldron, where that side was the longer): the same table.
    pub(crate) fn build_with(graph: &SubgoalGraph, k: usize, lists: LandmarkLists) -> Self {
        Self::build_in(graph, k, None, CAP, Some(lists.0))
    }

    /// [`SubgoalLandmarks::build`] in the lattice of `straight` units per straight step
    /// when given (else the fitting one), values clamped to `cap`, over the finest
    /// lattice's lists `finest` when they were made ahead.
    fn build_in(
        graph: &SubgoalGraph,
        k: usize,
        straight: Option<u32>,
        cap: u16,
        finest: Option<FlatDijkstra>,
    ) -> Self {
        let k = k.min(MAX_SPARSE_LANDMARKS);
        let n = graph.capacity();
        let mut lm = SubgoalLandmarks {
            cap,
            ..SubgoalLandmarks::default()
        };
        let seed = match largest_component_member(graph) {
            Some(seed) if k > 0 => seed,
            _ => return lm,
        };
        lm.k = k;
        lm.stride = k.div_ceil(LANES) * LANES;
        lm.values = vec![0; n * lm.stride];
        let mut column = vec![UNREACHED; n];
        // Smallest distance to the landmarks placed so far, per subgoal.
        let mut nearest = vec![UNREACHED; n];
        let mut dijkstra = finest.unwrap_or_else(|| FlatDijkstra::new(graph, Lattice::FINEST));
        dijkstra.fill(seed, &mut column);
        let first = farthest(&column, &nearest);
        dijkstra.fill(first, &mut column);
        lm.lattice = match straight {
            Some(s) => Lattice::with_straight(s),
            None => {
                let longest = column.iter().filter(|&&d| d != UNREACHED).max();
                Lattice::fitting(longest.copied().unwrap_or(0))
            }
        };
        if lm.lattice != Lattice::FINEST {
            dijkstra = FlatDijkstra::new(graph, lm.lattice);
            dijkstra.fill(first, &mut column);
        }
        let mut here = first;
        for l in 0..k {
            if l > 0 {
                dijkstra.fill(here, &mut column);
            }
            // The landmark's values, the smallest distances to those placed, then the
            // next landmark picked as `farthest` would pick it on the column and
            // distances as they are now: a subgoal reached here has its smallest distance
            // at most its distance here, so that is its score (the same pick, the last of
            // the largest scores). Three plain loops over whole rows and columns, with no
            // index to check: the indexed pass and `farthest` took 16.2M of Cauldron's
            // table beside its fills, these 12.1M (the table is the longer side of the
            // second join there).
            for (row, &d) in lm.values.chunks_exact_mut(lm.stride).zip(&column) {
                row[l] = d.min(u32::from(cap)) as u16;
            }
            for (near, &d) in nearest.iter_mut().zip(&column) {
                *near = (*near).min(d);
            }
            let mut best = (0u32, 0u32);
            for (id, (&near, &d)) in nearest.iter().zip(&column).enumerate() {
                if d != UNREACHED && near >= best.0 {
                    best = (near, id as u32);
                }
            }
            here = best.1;
        }
        lm
    }

    /// The whole table, row by row (a test hook: builds are compared by it).
    #[cfg(all(test, feature = "parallel"))]
    pub(crate) fn values(&self) -> &[u16] {
        &self.values
    }

    /// Landmarks kept (0 when none).
    pub fn count(&self) -> usize {
        self.k
    }

    /// Lattice units per cell (the straight step): a bound of [`SubgoalLandmarks::gap`]
    /// divided by this is a lower bound in cells.
    pub fn units_per_cell(&self) -> f64 {
        f64::from(self.lattice.straight)
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.values.capacity() * 2 + self.heap.capacity() * 8
    }

    /// Heap bytes no distance uses: the repair queue kept between edits and the table's
    /// spare capacity (what edits leave behind, counted as waste).
    pub fn slack_bytes(&self) -> usize {
        (self.values.capacity() - self.values.len()) * 2 + self.heap.capacity() * 8
    }

    /// The values of subgoal `id`, padding included.
    #[inline]
    fn row(&self, id: u32) -> &[u16] {
        let start = id as usize * self.stride;
        &self.values[start..start + self.stride]
    }

    /// Lowers each lane of the goal's `row` to subgoal `id`'s value plus `extra` (its
    /// lattice length to the goal), saturating at `u16::MAX`.
    #[inline(always)]
    fn lower_row_by(&self, row: &mut [u16; MAX_SPARSE_LANDMARKS], id: u32, extra: u32) {
        let extra = extra.min(u32::from(u16::MAX)) as u16;
        let vals = self.row(id);
        // The usual table as fixed-size arrays, unrolled into three vector registers.
        match <&[u16; MAX_SPARSE_LANDMARKS]>::try_from(vals) {
            Ok(vals) => lower_row(row, vals, extra),
            Err(_) => lower_row(&mut row[..vals.len()], vals, extra),
        }
    }

    /// The goal's row: its own values when it is subgoal `own`, else the smallest
    /// `D̂(L, s) + lat(s, goal)` over the subgoals `reached` directly by its scan, clamped.
    pub fn goal_row(
        &self,
        graph: &SubgoalGraph,
        goal: Cell,
        own: Option<u32>,
        reached: impl IntoIterator<Item = u32>,
    ) -> SparseGoalRow {
        let mut low = GoalRowLows::new();
        match own {
            Some(id) => self.lower_goal_row(&mut low, id, (0, 0)),
            None => {
                for id in reached {
                    low.any = true;
                    let extra = self.lattice.length(graph.cell(id), goal);
                    self.lower_row_by(&mut low.row, id, extra);
                }
            }
        }
        self.finish_goal_row(&low)
    }

    /// Lowers the goal's row being built in `low` by subgoal `id`, whose hop to the goal
    /// takes `diagonal` diagonal and `straight` straight steps (its lattice length is
    /// then that of the octile walk between the two cells: `Lattice::length`): the
    /// goal's scan lowers the row by each subgoal as it finds it, with the hop it knows,
    /// and reads no cell back. Always inlined into the scan's callback.
    #[inline(always)]
    pub fn lower_goal_row(&self, low: &mut GoalRowLows, id: u32, (diagonal, straight): (u32, u32)) {
        low.any = true;
        let extra = self.lattice.straight * straight + self.lattice.diagonal * diagonal;
        self.lower_row_by(&mut low.row, id, extra);
    }

    /// The goal's row from the lows of its subgoals (see
    /// [`SubgoalLandmarks::lower_goal_row`]), clamped.
    pub fn finish_goal_row(&self, low: &GoalRowLows) -> SparseGoalRow {
        let mut values = [0; MAX_SPARSE_LANDMARKS];
        for (value, &r) in values[..self.k].iter_mut().zip(&low.row) {
            *value = r.min(self.cap);
        }
        SparseGoalRow {
            row: values,
            lanes: if low.any { self.stride } else { 0 },
        }
    }

    /// A lower bound on the distance from subgoal `id` to the goal of `goal`, in lattice
    /// units (see [`SubgoalLandmarks::units_per_cell`]): the largest `|D̂(L, id) − D̂(L, goal)|`.
    /// Always inlined, into the search's bound: a call per offer costs more than its reads.
    #[inline(always)]
    pub fn gap(&self, goal: &SparseGoalRow, id: u32) -> u32 {
        let start = id as usize * self.stride;
        let (vals, row) = (
            &self.values[start..start + goal.lanes],
            &goal.row[..goal.lanes],
        );
        // The usual table (three times the 8 landmarks of the presets) as fixed-size
        // arrays, so that its three registers are unrolled with no loop: a search
        // evaluates this for every subgoal it reaches.
        match <&[u16; MAX_SPARSE_LANDMARKS]>::try_from(vals) {
            Ok(vals) => largest_gap(vals, &goal.row),
            Err(_) => largest_gap(vals, row),
        }
    }

    /// The bound of `aim` at subgoal `id`, in lattice units: how far its values lie
    /// outside the aim's intervals (0 when the aim has no lanes). Always inlined, as
    /// [`SubgoalLandmarks::gap`].
    #[inline(always)]
    pub fn gap_outside(&self, aim: &SparseAim, id: u32) -> u32 {
        let start = id as usize * self.stride;
        let vals = &self.values[start..start + aim.lanes];
        match <&[u16; MAX_SPARSE_LANDMARKS]>::try_from(vals) {
            Ok(vals) => largest_outside(vals, &aim.lo, &aim.hi),
            Err(_) => largest_outside(vals, &aim.lo[..aim.lanes], &aim.hi[..aim.lanes]),
        }
    }

    /// Restores the Lipschitz property after an update of `graph` that gave the IDs of
    /// `added` to new subgoals and joined the pairs of `linked` (see the module docs).
    ///
    /// After an update that only blocked cells (`blocking`), only new subgoals can be
    /// lowered, so the seeds are looked for only at the new ends of new edges and the
    /// search relaxes only the new edges between two new subgoals. Why: the
    /// values held were Lipschitz over the graph before the update, which was exact, so
    /// `D(v) ≤ D(u) + dist(u, v)` for any two old subgoals with `dist` the lattice
    /// distance over the grid before the update. A new subgoal `n` lies on a cell that was
    /// free then (blocking frees nothing), and its edges' walks are free now, so were
    /// free then: `dist(u, v) ≤ lat(u, n) + lat(n, v)`. Lowering `n` to `D(u) + lat(u, n)`
    /// (or from another new subgoal, lowered so in turn) therefore lowers no old `v`
    /// through `n`; an edge between two old subgoals lowers neither for the same reason.
    pub fn repair(
        &mut self,
        graph: &SubgoalGraph,
        added: &[u32],
        linked: &[(u32, u32)],
        blocking: bool,
    ) {
        let (k, stride, cap) = (self.k, self.stride, u32::from(self.cap));
        if k == 0 {
            return;
        }
        let n = graph.capacity();
        if self.values.len() < n * stride {
            self.values.resize(n * stride, 0);
        }
        for &id in added {
            let start = id as usize * stride;
            self.values[start..start + k].fill(self.cap);
        }
        if linked.is_empty() {
            return;
        }
        // The ends of new edges lowered, edge by edge for every landmark at once (one
        // subgoal's values share a cache line); most new edges lower nothing. Each end
        // lowered is noted once per edge with the set of its lanes lowered, and the notes
        // of one subgoal merged: a subgoal new in this update is lowered in every lane by
        // each of its dozens of edges, so a note per lane and edge made a list 24 times
        // as long to sort and deduplicate. (A seed met twice must not be queued twice:
        // both copies would pop at one distance and relax its edges twice.)
        let mut seeds: Vec<(u32, u32)> = Vec::new();
        for &(a, b) in linked {
            let w = self.lattice.length(graph.cell(a), graph.cell(b));
            for (u, v) in [(a, b), (b, a)] {
                // After a blocking update an old subgoal is lowered by no edge (see
                // above): only the new end is looked at, most often one of the two.
                if blocking && !added.contains(&v) {
                    continue;
                }
                let mut from = [0; MAX_SPARSE_LANDMARKS];
                from[..k].copy_from_slice(&self.row(u)[..k]);
                let start = v as usize * stride;
                let to = &mut self.values[start..start + k];
                // Branch-free over the lanes (the compiler vectorises it), the lowered
                // ones marked in a bit set: a lowered value below the cap is below
                // 65,535, so the saturated sum lowers exactly what the sum did.
                let mut lowered = 0u32;
                for (l, (&du, dv)) in from[..k].iter().zip(to).enumerate() {
                    let through = (u32::from(du) + w).min(u32::from(u16::MAX)) as u16;
                    lowered |= u32::from(through < *dv) << l;
                    *dv = (*dv).min(through);
                }
                if lowered != 0 {
                    seeds.push((v, lowered));
                }
            }
        }
        seeds.sort_unstable_by_key(|&(v, _)| v);
        seeds.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1 |= later.1;
            }
            same
        });
        // The new edges between new subgoals, with their weights: all the search needs
        // to relax after a blocking update.
        let new_pairs: Vec<(u32, u32, u32)> = if blocking {
            linked
                .iter()
                .filter(|(a, b)| added.contains(a) && added.contains(b))
                .map(|&(a, b)| (a, b, self.lattice.length(graph.cell(a), graph.cell(b))))
                .collect()
        } else {
            Vec::new()
        };
        // From them, Dijkstra-style, one landmark at a time.
        for l in 0..k {
            self.heap.clear();
            self.heap.extend(
                seeds
                    .iter()
                    .filter(|&&(_, lanes)| (lanes >> l) & 1 == 1)
                    .map(|&(v, _)| Reverse((u32::from(self.values[v as usize * stride + l]), v))),
            );
            while let Some(Reverse((d, u))) = self.heap.pop() {
                if d > u32::from(self.values[u as usize * stride + l]) {
                    continue;
                }
                // Below every value held, so below the cap too.
                let mut lower = |values: &mut [u16], v: u32, dv: u32| {
                    if dv < u32::from(values[v as usize * stride + l]).min(cap) {
                        values[v as usize * stride + l] = dv as u16;
                        self.heap.push(Reverse((dv, v)));
                    }
                };
                if blocking {
                    for &(a, b, w) in &new_pairs {
                        match (a == u, b == u) {
                            (true, _) => lower(&mut self.values, b, d + w),
                            (_, true) => lower(&mut self.values, a, d + w),
                            _ => {}
                        }
                    }
                    continue;
                }
                let here = graph.cell(u);
                for &v in graph.neighbours(u) {
                    lower(
                        &mut self.values,
                        v,
                        d + self.lattice.length(here, graph.cell(v)),
                    );
                }
            }
        }
    }

    /// Checks the Lipschitz property on every edge of `graph`: a test hook.
    #[cfg(any(test, feature = "testing"))]
    pub fn check(&self, graph: &SubgoalGraph) -> Result<(), String> {
        let (k, stride) = (self.k, self.stride);
        for a in 0..graph.capacity() as u32 {
            if !graph.is_live(a) {
                continue;
            }
            for &b in graph.neighbours(a) {
                let w = self.lattice.length(graph.cell(a), graph.cell(b));
                for l in 0..k {
                    // A subgoal left without values reads as having none.
                    let value = |id: u32| {
                        self.values
                            .get(id as usize * stride + l)
                            .copied()
                            .unwrap_or(self.cap)
                    };
                    let (da, db) = (value(a), value(b));
                    if u32::from(da.abs_diff(db)) > w || da.max(db) > self.cap {
                        return Err(format!(
                            "landmark {l}: subgoals {:?} = {da} and {:?} = {db}, edge {w}",
                            graph.cell(a),
                            graph.cell(b)
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

/// The finest lattice's search lists of a graph, made ahead of its landmark table (see
/// [`LandmarkLists::from_flat`], [`SubgoalLandmarks::build_with`]).
pub(crate) struct LandmarkLists(FlatDijkstra);

impl LandmarkLists {
    /// The weight in the lists' lattice of a direct edge of `straight` straight and
    /// `diagonal` diagonal steps: what the lists give the edge between its two cells
    /// (`Lattice::length`, whose smaller coordinate difference is the diagonal steps).
    pub(crate) fn weight(straight: u32, diagonal: u32) -> u32 {
        Lattice::FINEST.straight * straight + Lattice::FINEST.diagonal * diagonal
    }

    /// The lists of a graph from its edges in flat lists weighed by
    /// [`LandmarkLists::weight`] (see `Contraction::lists_with_flat`): the same as the
    /// table makes from the graph's cells (`FlatDijkstra::new` in the finest lattice).
    pub(crate) fn from_flat(flat: FlatLists) -> Self {
        LandmarkLists(FlatDijkstra {
            shift: Lattice::FINEST.straight.ilog2(),
            start: flat.start,
            edges: flat.edges,
            buckets: Vec::new(),
        })
    }
}

/// The build's Dijkstra over a subgoal graph: the edges copied once into flat arrays
/// with their lattice weights (one contiguous run per subgoal, `edges[start[u]..start[u +
/// 1]]`), so that each of the build's `k + 1` searches reads no cell and follows no
/// pointer per edge, and a bucket queue as its open list.
///
/// Bucket `i` holds the subgoals reached at a distance in `[w·i, w·(i + 1))`, `w` the
/// largest power of two no wider than the lattice's straight step (16 for 29 units: a
/// shift, not a division, files a subgoal). Every edge weighs at least one straight step,
/// so a subgoal settled from bucket `i` only ever lowers others into later buckets: when
/// the sweep reaches a bucket, every distance in it is final, and its subgoals may be
/// settled in any order (Dial's queue with buckets no wider than the lightest edge). A
/// subgoal lowered again is listed again; its earlier entry, in a later bucket than its
/// distance now reads, is skipped (one lowered twice within one bucket is settled twice,
/// the second time lowering nothing). Distances are unique, so the columns equal those of
/// any other Dijkstra (see `sparse_landmark_columns_equal_a_plain_dijkstra`).
struct FlatDijkstra {
    /// The buckets' width as a power of two.
    shift: u32,
    start: Vec<u32>,
    /// `(neighbour, lattice weight)`.
    edges: Vec<(u32, u32)>,
    buckets: Vec<Vec<u32>>,
}

impl FlatDijkstra {
    /// The edges of `graph` weighed in `lattice`.
    fn new(graph: &SubgoalGraph, lattice: Lattice) -> Self {
        let n = graph.capacity();
        let mut start = Vec::with_capacity(n + 1);
        let mut edges = Vec::with_capacity(2 * graph.edge_count());
        for u in 0..n as u32 {
            start.push(edges.len() as u32);
            if !graph.is_live(u) {
                continue;
            }
            let here = graph.cell(u);
            edges.extend(
                graph
                    .neighbours(u)
                    .iter()
                    .map(|&v| (v, lattice.length(here, graph.cell(v)))),
            );
        }
        start.push(edges.len() as u32);
        FlatDijkstra {
            shift: lattice.straight.ilog2(),
            start,
            edges,
            buckets: Vec::new(),
        }
    }

    /// Distances from subgoal `from` into `column`.
    fn fill(&mut self, from: u32, column: &mut [u32]) {
        column.fill(UNREACHED);
        column[from as usize] = 0;
        let mut buckets = std::mem::take(&mut self.buckets);
        if buckets.is_empty() {
            buckets.push(Vec::new());
        }
        buckets[0].push(from);
        // In locals: a push may reallocate, after which fields would be read again.
        let (shift, start, edges) = (self.shift, &self.start[..], &self.edges[..]);
        let mut i = 0;
        while i < buckets.len() {
            let mut bucket = std::mem::take(&mut buckets[i]);
            for &u in &bucket {
                let d = column[u as usize];
                if (d >> shift) as usize != i {
                    continue;
                }
                let (a, b) = (start[u as usize], start[u as usize + 1]);
                let mut relax = |(v, w): (u32, u32)| {
                    let dv = d + w;
                    if dv < column[v as usize] {
                        column[v as usize] = dv;
                        let j = (dv >> shift) as usize;
                        if j >= buckets.len() {
                            buckets.resize_with(j + 1, Vec::new);
                        }
                        buckets[j].push(v);
                    }
                };
                // Four edges a turn: the loop's own step, compare and jump were a third
                // of what an edge cost (callgrind, Cauldron's 25 fills: 125.4M one edge a
                // turn, 115.8M two, 112.4M four).
                let mut fours = edges[a as usize..b as usize].chunks_exact(4);
                for four in &mut fours {
                    relax(four[0]);
                    relax(four[1]);
                    relax(four[2]);
                    relax(four[3]);
                }
                for &edge in fours.remainder() {
                    relax(edge);
                }
            }
            bucket.clear();
            buckets[i] = bucket;
            i += 1;
        }
        self.buckets = buckets;
    }
}

/// A subgoal of the graph's largest connected component, if there is any subgoal.
fn largest_component_member(graph: &SubgoalGraph) -> Option<u32> {
    let n = graph.capacity();
    let mut seen = vec![false; n];
    let mut best: Option<(usize, u32)> = None;
    let mut stack = Vec::new();
    for root in 0..n as u32 {
        if seen[root as usize] || !graph.is_live(root) {
            continue;
        }
        seen[root as usize] = true;
        stack.push(root);
        let mut size = 0;
        while let Some(u) = stack.pop() {
            size += 1;
            for &v in graph.neighbours(u) {
                if !seen[v as usize] {
                    seen[v as usize] = true;
                    stack.push(v);
                }
            }
        }
        if best.map_or(true, |(s, _)| size > s) {
            best = Some((size, root));
        }
    }
    best.map(|(_, id)| id)
}

/// The subgoal reached in `column` whose smallest distance to the landmarks placed
/// (`nearest`, [`UNREACHED`] before the first) is largest; the farthest one in `column` before
/// the first landmark.
fn farthest(column: &[u32], nearest: &[u32]) -> u32 {
    let mut best = (0u32, 0u32);
    for (id, (&d, &near)) in column.iter().zip(nearest).enumerate() {
        if d == UNREACHED {
            continue;
        }
        let score = if near == UNREACHED { d } else { near };
        if score >= best.0 {
            best = (score, id as u32);
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::{FlatDijkstra, LandmarkLists, Lattice, SubgoalLandmarks, CAP, UNREACHED};
    use crate::geom::{Cell, Direction};
    use crate::grid::movement::{legal_step, octile};
    use crate::hpa::subgoals::Contraction;
    use crate::hpa::subgoals::{Reached, SubgoalGraph};
    use crate::Grid;
    use proptest::prelude::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// Textbook Dijkstra over the graph's own lists in `lattice`, with a binary heap: the
    /// oracle of the build's columns.
    fn plain_dijkstra(graph: &SubgoalGraph, lattice: Lattice, from: u32) -> Vec<u32> {
        plain_dijkstra_without(graph, lattice, from, &[])
    }

    /// [`plain_dijkstra`] over the graph without the edges of `left_out`.
    fn plain_dijkstra_without(
        graph: &SubgoalGraph,
        lattice: Lattice,
        from: u32,
        left_out: &[(u32, u32)],
    ) -> Vec<u32> {
        let mut column = vec![UNREACHED; graph.capacity()];
        let mut heap = BinaryHeap::new();
        column[from as usize] = 0;
        heap.push(Reverse((0u32, from)));
        while let Some(Reverse((d, u))) = heap.pop() {
            if d > column[u as usize] {
                continue;
            }
            for &v in graph.neighbours(u) {
                if left_out.contains(&(u.min(v), u.max(v))) {
                    continue;
                }
                let dv = d + lattice.length(graph.cell(u), graph.cell(v));
                if dv < column[v as usize] {
                    column[v as usize] = dv;
                    heap.push(Reverse((dv, v)));
                }
            }
        }
        column
    }

    /// True shortest distances from `from` to every cell of `grid` (octile steps, no
    /// corner cutting), by Dijkstra over the cells: the oracle of the bounds.
    fn cell_distances(grid: &Grid, from: Cell) -> Vec<f64> {
        let (w, h) = (grid.width(), grid.height());
        let open = |x: i64, y: i64| {
            x >= 0
                && y >= 0
                && x < w as i64
                && y < h as i64
                && grid.is_free(Cell::new(x as u32, y as u32))
        };
        let mut dist = vec![f64::INFINITY; (w * h) as usize];
        let mut heap = BinaryHeap::new();
        dist[(from.y * w + from.x) as usize] = 0.0;
        heap.push(Reverse((0u64, from.x, from.y)));
        while let Some(Reverse((_, x, y))) = heap.pop() {
            let d = dist[(y * w + x) as usize];
            for dir in Direction::ALL {
                if !legal_step(open, x as i64, y as i64, dir) {
                    continue;
                }
                let (dx, dy) = dir.delta();
                let (nx, ny) = ((x as i64 + dx as i64) as u32, (y as i64 + dy as i64) as u32);
                let nd = d + octile(Cell::new(x, y), Cell::new(nx, ny));
                if nd < dist[(ny * w + nx) as usize] - 1e-12 {
                    dist[(ny * w + nx) as usize] = nd;
                    heap.push(Reverse(((nd * 1e9) as u64, nx, ny)));
                }
            }
        }
        dist
    }

    /// On a graph of more subgoals than one range of the contraction's lists, so that
    /// the ranges write their parts of the flat lists in place side by side, the lists
    /// made from them equal the table's own, edge by edge. (Cut a range's part one edge
    /// short and this fails.) Only with `parallel`: without it the lists are never split
    /// (`Contraction::splits_lists`), and the build makes the table's lists itself, which
    /// `a_table_over_lists_made_ahead_equals_one_built_alone` checks.
    #[cfg(feature = "parallel")]
    #[test]
    fn flat_lists_written_by_ranges_equal_the_tables_own() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let grid = Grid::from_fn(300, 300, |_, _| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % 10 >= 3
        });
        let graph = SubgoalGraph::build(&grid);
        assert!(
            Contraction::splits_lists(&graph),
            "{} subgoals",
            graph.capacity()
        );
        let (_, flat) =
            Contraction::lists_with_flat(&graph, &LandmarkLists::weight).expect("the arcs fit");
        let (made, own) = (
            LandmarkLists::from_flat(flat),
            FlatDijkstra::new(&graph, Lattice::FINEST),
        );
        assert_eq!(made.0.start, own.start);
        assert!(made.0.edges == own.edges, "the flat lists differ");
    }

    #[test]
    fn lattices_keep_their_diagonal_below_root_two() {
        for straight in Lattice::COARSEST_STRAIGHT..=29 {
            let l = Lattice::with_straight(straight);
            assert!(
                l.straight < l.diagonal && l.diagonal < 2 * l.straight,
                "{l:?}"
            );
            assert!((l.diagonal as f64) < l.straight as f64 * std::f64::consts::SQRT_2);
            assert!((l.diagonal + 1) as f64 > l.straight as f64 * std::f64::consts::SQRT_2);
            // Never a finer diagonal ratio than 41/29, so lengths scale by `straight / 29`
            // at most (what `Lattice::fitting` relies on).
            assert!(l.diagonal * 29 <= 41 * l.straight, "{l:?}");
        }
        assert_eq!(Lattice::with_straight(29), Lattice::FINEST);
        assert_eq!(Lattice::fitting(1_000), Lattice::FINEST);
        assert_eq!(
            Lattice::fitting(u32::MAX).straight,
            Lattice::COARSEST_STRAIGHT
        );
        // Routes of 3,000 cells: 17/24, the nearest √2 below 29/41.
        let middling = Lattice::fitting(3_000 * 29);
        assert_eq!((middling.straight, middling.diagonal), (17, 24));
        assert!(3_000 * middling.straight < u32::from(CAP));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// The lists made from the contraction's flat lists
        /// ([`LandmarkLists::from_flat`], as the build makes them with the levels' set-up)
        /// equal the table's own ([`FlatDijkstra::new`] in the finest lattice, from the
        /// cells), offset by offset and edge by edge, and a table built over them equals
        /// the one built alone, row by row. (Weigh the flat lists' diagonal steps as
        /// straight ones and this fails.)
        #[test]
        fn a_table_over_lists_made_ahead_equals_one_built_alone(
            (w, h, blocked) in crate::grid::arb_blocked_cells(2..40, 0.3),
            k in 0usize..30,
        ) {
            let grid = Grid::from_fn(w, h, |x, y| !blocked[(y * w + x) as usize]);
            let graph = SubgoalGraph::build(&grid);
            let own = FlatDijkstra::new(&graph, Lattice::FINEST);
            let (_, flat) = Contraction::lists_with_flat(&graph, &LandmarkLists::weight)
                .expect("a small map's arcs fit");
            let made = LandmarkLists::from_flat(flat);
            prop_assert_eq!(&made.0.start, &own.start);
            prop_assert_eq!(&made.0.edges, &own.edges);
            prop_assert_eq!(made.0.shift, own.shift);
            let alone = SubgoalLandmarks::build(&graph, k);
            let ahead = SubgoalLandmarks::build_with(&graph, k, made);
            prop_assert_eq!(ahead.count(), alone.count());
            prop_assert_eq!(ahead.lattice, alone.lattice);
            for id in 0..graph.capacity() as u32 {
                if alone.count() > 0 {
                    prop_assert_eq!(ahead.row(id), alone.row(id), "subgoal {}", id);
                }
            }
        }

        /// The farthest-point placement puts each landmark on a subgoal of the graph's
        /// largest connected component (a component of the largest size: its columns are
        /// the only ones that bound queries across most of the map), the `k` landmarks on
        /// `k` distinct subgoals when the component has that many, and two builds of one
        /// graph make the same table (no hash order, no unseeded randomness). A landmark
        /// is the subgoal its own lane reads 0 at (every edge weighs at least 3 units), and
        /// the components are found here by a search of their own. Placing each next
        /// landmark farthest from the last one only (the smallest distance to those placed
        /// not kept) puts two landmarks on one subgoal and fails this, as does seeding the
        /// first search at the first live subgoal rather than in the largest component.
        #[test]
        fn sparse_landmarks_are_distinct_subgoals_of_the_largest_component(
            (w, h, blocked) in crate::grid::arb_blocked_cells(2..40, 0.35),
            k in 1usize..=24,
        ) {
            let grid = Grid::from_fn(w, h, |x, y| !blocked[(y * w + x) as usize]);
            let graph = SubgoalGraph::build(&grid);
            let n = graph.capacity();
            // Component labels and sizes by a breadth-first search per component.
            let mut label = vec![usize::MAX; n];
            let mut sizes = Vec::new();
            for root in (0..n as u32).filter(|&u| graph.is_live(u)) {
                if label[root as usize] != usize::MAX {
                    continue;
                }
                let mut queue = std::collections::VecDeque::from([root]);
                label[root as usize] = sizes.len();
                let mut size = 0;
                while let Some(u) = queue.pop_front() {
                    size += 1;
                    for &v in graph.neighbours(u) {
                        if label[v as usize] == usize::MAX {
                            label[v as usize] = sizes.len();
                            queue.push_back(v);
                        }
                    }
                }
                sizes.push(size);
            }
            let lm = SubgoalLandmarks::build(&graph, k);
            let Some(&largest) = sizes.iter().max() else {
                prop_assert_eq!(lm.count(), 0);
                return Ok(());
            };
            prop_assert_eq!(lm.count(), k);
            let landmarks: Vec<u32> = (0..k)
                .map(|l| {
                    let at: Vec<u32> = (0..n as u32)
                        .filter(|&u| graph.is_live(u) && lm.row(u)[l] == 0)
                        .collect();
                    assert_eq!(at.len(), 1, "landmark {l} reads 0 at {at:?}");
                    at[0]
                })
                .collect();
            let component = label[landmarks[0] as usize];
            prop_assert_eq!(sizes[component], largest);
            for &m in &landmarks {
                prop_assert_eq!(label[m as usize], component, "landmarks {:?}", landmarks);
            }
            if k <= largest {
                let mut distinct = landmarks.clone();
                distinct.sort_unstable();
                distinct.dedup();
                prop_assert_eq!(distinct.len(), k, "landmarks {:?}", landmarks);
            }
            prop_assert_eq!(&SubgoalLandmarks::build(&graph, k).values, &lm.values);
        }

        /// The build's flat bucket-queue Dijkstra gives, from every subgoal and in any
        /// lattice, the columns of a binary-heap Dijkstra over the graph's lists (break
        /// the bucket width and this fails).
        #[test]
        fn sparse_landmark_columns_equal_a_plain_dijkstra(
            (w, h, blocked) in crate::grid::arb_blocked_cells(2..48, 0.3),
            straight in 3u32..=29,
        ) {
            let grid = Grid::from_fn(w, h, |x, y| !blocked[(y * w + x) as usize]);
            let graph = SubgoalGraph::build(&grid);
            let lattice = Lattice::with_straight(straight);
            let mut flat = FlatDijkstra::new(&graph, lattice);
            let mut column = vec![0; graph.capacity()];
            for from in 0..graph.capacity() as u32 {
                flat.fill(from, &mut column);
                prop_assert_eq!(&column, &plain_dijkstra(&graph, lattice, from), "from subgoal {}", from);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(150))]

        /// A repair after edges appeared gives exactly the clamped distances over the whole
        /// graph when the values held were the distances without those edges: every lane
        /// lowered at an edge's end is searched from there. Seeding a subgoal only with the
        /// lanes its first new edge lowered (the masks of its later edges dropped) makes
        /// this fail.
        #[test]
        fn repair_after_new_edges_gives_the_distances_with_them(
            (w, h, blocked) in crate::grid::arb_blocked_cells(4..40, 0.3),
            k in 1usize..=24,
            new_edges in any::<u64>(),
            picks in proptest::collection::vec(any::<u32>(), 24),
        ) {
            let grid = Grid::from_fn(w, h, |x, y| !blocked[(y * w + x) as usize]);
            let graph = SubgoalGraph::build(&grid);
            let live: Vec<u32> = (0..graph.capacity() as u32).filter(|&u| graph.is_live(u)).collect();
            prop_assume!(!live.is_empty());
            // About one edge in four taken as new (the top two bits of a hash of its rank
            // and `new_edges`), each pair once, smaller ID first.
            let mut linked: Vec<(u32, u32)> = live
                .iter()
                .flat_map(|&u| graph.neighbours(u).iter().map(move |&v| (u.min(v), u.max(v))))
                .collect();
            linked.sort_unstable();
            linked.dedup();
            let mut rank = 0u64;
            linked.retain(|_| {
                rank += 1;
                rank.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(new_edges) >> 62 == 0
            });
            let mut lm = SubgoalLandmarks::build(&graph, k);
            let landmarks: Vec<u32> = picks[..lm.k].iter().map(|&p| live[p as usize % live.len()]).collect();
            let (stride, lattice, cap) = (lm.stride, lm.lattice, u32::from(lm.cap));
            let clamped = |column: Vec<u32>| -> Vec<u16> {
                column.into_iter().map(|d| d.min(cap) as u16).collect()
            };
            let mut expected = Vec::new();
            for (l, &from) in landmarks.iter().enumerate() {
                let before = clamped(plain_dijkstra_without(&graph, lattice, from, &linked));
                for &u in &live {
                    lm.values[u as usize * stride + l] = before[u as usize];
                }
                expected.push(clamped(plain_dijkstra(&graph, lattice, from)));
            }
            lm.repair(&graph, &[], &linked, false);
            for (l, column) in expected.iter().enumerate() {
                for &u in &live {
                    prop_assert_eq!(
                        lm.values[u as usize * stride + l], column[u as usize],
                        "landmark {} at subgoal {:?}, {} new edges", l, graph.cell(u), linked.len()
                    );
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(120))]

        /// The 16-bit bound, in any lattice from 3/4 to 29/41 and with values clamped
        /// anywhere, never exceeds the true distance from a subgoal to a goal (its row
        /// derived as the search derives it, from the subgoals the goal's scan reaches) and
        /// is consistent: across every edge it changes by no more than the edge's length.
        /// Rounding the diagonal weight up instead of down (`round` for `floor`), or
        /// rounding coarse values rather than coarse weights, makes this fail. The goal's
        /// row, summed in saturating 16-bit lanes, equals its definition summed in 32 bits
        /// (leaving a subgoal's lattice length out of it fails that).
        #[test]
        fn the_sixteen_bit_bound_is_admissible_and_consistent(
            (w, h, blocked) in crate::grid::arb_blocked_cells(2..22, 0.3),
            straight in 3u32..=29,
            k in 1usize..=24,
            cap in prop_oneof![Just(CAP), 20u16..600],
            goal_step in 1usize..6,
        ) {
            let grid = Grid::from_fn(w, h, |x, y| !blocked[(y * w + x) as usize]);
            let graph = SubgoalGraph::build(&grid);
            let lm = SubgoalLandmarks::build_in(&graph, k, Some(straight), cap, None);
            prop_assert!(lm.check(&graph).is_ok(), "{:?}", lm.check(&graph));
            let units = lm.units_per_cell();
            for goal in grid.free_cells().step_by(goal_step) {
                let own = graph.id_of(goal);
                let mut reached = Vec::new();
                graph.reach(&grid, goal, None, |r| {
                    if let Reached::Subgoal(c) = r {
                        reached.extend(graph.id_of(c));
                    }
                });
                let row = lm.goal_row(&graph, goal, own, reached.iter().copied());
                // The row is `min(cap, min_s D̂(L, s) + lat(s, goal))` (its own values when
                // the goal is a subgoal), here summed in 32 bits, the padding zero.
                let expected: Vec<u16> = (0..lm.stride)
                    .map(|l| {
                        let best = match own {
                            _ if l >= k => return 0,
                            Some(id) => u32::from(lm.row(id)[l]),
                            None => reached
                                .iter()
                                .map(|&id| u32::from(lm.row(id)[l]) + lm.lattice.length(graph.cell(id), goal))
                                .min()
                                .unwrap_or(u32::MAX),
                        };
                        best.min(u32::from(lm.cap)) as u16
                    })
                    .collect();
                prop_assert_eq!(&row.row[..lm.stride], &expected[..], "goal {:?}", goal);
                let dist = cell_distances(&grid, goal);
                let bound = |id: u32| f64::from(lm.gap(&row, id)) / units;
                for u in (0..graph.capacity() as u32).filter(|&u| graph.is_live(u)) {
                    let c = graph.cell(u);
                    let d = dist[(c.y * w + c.x) as usize];
                    if d.is_finite() {
                        prop_assert!(
                            bound(u) <= d + 1e-9,
                            "goal {:?}: bound {} at {:?} beyond the distance {}", goal, bound(u), c, d
                        );
                    }
                    for &v in graph.neighbours(u) {
                        let edge = octile(c, graph.cell(v));
                        prop_assert!(
                            bound(u) <= edge + bound(v) + 1e-9,
                            "goal {:?}: bounds {} at {:?} and {} at {:?} across an edge of {}",
                            goal, bound(u), c, bound(v), graph.cell(v), edge
                        );
                    }
                }
            }
        }
    }
}
