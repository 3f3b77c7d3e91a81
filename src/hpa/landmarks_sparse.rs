//! Landmark distances stored at subgoals only: the differential heuristic of the subgoal
//! search, in a table of `k` values per subgoal instead of per cell.
//!
//! # The table
//! For each of `k` landmarks (subgoals chosen farthest-point, see
//! [`SubgoalLandmarks::build`]) and each subgoal `s`, `D(L, s)` is the distance from `L` to
//! `s` over the subgoal graph with *lattice* weights: a straight step weighs 29 units and a
//! diagonal one 41 ([`crate::grid::movement::LATTICE_DIAGONAL`]), so an edge `(a, b)`
//! weighs `lat(a, b) = 29·(max − min) + 41·min` of its `|dx|, |dy|`. Since 41/29 is just below
//! √2, `lat(a, b) ≤ 29·h(a, b)`, and integer units make every bound exact. The values of one
//! subgoal are contiguous (ID-major), so a bound reads one cache line.
//!
//! # Why the bounds hold
//! *Lipschitz is all that is needed.* If `|D(L, a) − D(L, b)| ≤ lat(a, b)` on every edge of
//! the graph, summing along the shortest route between two subgoals (which the graph holds,
//! see `hpa::subgoals`) gives `|D(L, u) − D(L, v)| ≤ 29·d(u, v)`. The search's bound
//! `max_L |D(L, n) − D(L, g)| / 29` (raised to the octile distance) is then admissible and
//! consistent: the difference of two nodes' bounds is at most the edge between them.
//!
//! *The goal's row.* The goal `g` is rarely a subgoal, so its values are derived from the
//! subgoals its cone scan reaches directly (the same scan the search makes anyway):
//! `D(L, g) = min_s D(L, s) + lat(s, g)` over those `s` (its own values when `g` is a
//! subgoal). That is `g` joined to the graph as one more node with the edges the query
//! uses. It is Lipschitz towards every subgoal `u`: a shortest route from `g` to `u` leaves
//! `g` through a direct-h-reachable subgoal `s₁` (the subgoal theorem, which holds for the
//! lattice weights as for the true ones: both make the octile-length paths between two
//! cells the same set, those with `min(|dx|, |dy|)` diagonal steps), so
//! `D(L, g) − D(L, u) ≤ lat(g, s₁) + D(L, s₁) − D(L, u) ≤ M(g, u)`, the lattice distance;
//! and `D(L, u) − D(L, g) = D(L, u) − D(L, s*) − lat(s*, g) ≤ M(u, s*) − M(s*, g) ≤ M(u, g)`
//! by the triangle inequality of the lattice metric `M` (with `M(s*, g) = lat(s*, g)` for a
//! direct-h-reachable pair). And `M ≤ 29·d`. A landmark with no value at the goal (another
//! component) is left out for the whole query, so the bound stays consistent.
//!
//! # Edits
//! Blocking cells only lengthens distances: the old values stay Lipschitz for every edge
//! that survives (an edge's weight is its octile length, which does not change). Edges
//! appear where the scans found new subgoals or new direct pairs (freed cells, new
//! corners), and new subgoals have no values. [`SubgoalLandmarks::repair`] gives every new
//! subgoal no value (infinity), then, from the ends of every new edge, lowers values
//! Dijkstra-style, `D(v) ← D(u) + lat(u, v)`, until no edge is violated: every lowered node
//! relaxes all its edges, so on return `D(v) ≤ D(u) + lat(u, v)` holds on every edge in
//! both directions, which is the Lipschitz property. The values are then at least 0 and
//! at most the lattice distances (they are upper bounds at every step), so a landmark's
//! column may grow loose over many edits but never wrong. The property test
//! `tests/suite/subgoal_props.rs` checks the property after random edits and fails when
//! the repair is skipped.

use super::subgoals::SubgoalGraph;
use crate::geom::Cell;
use crate::grid::movement::{LATTICE_DIAGONAL, LATTICE_STRAIGHT};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A subgoal (or goal) no landmark distance has reached.
const UNSET: u32 = u32::MAX;
/// The most landmarks kept at subgoals.
pub(crate) const MAX_SPARSE_LANDMARKS: usize = 24;

/// The lattice length of the octile walk between `a` and `b`: never more than 29 times
/// its true length.
#[inline]
pub(crate) fn lattice_octile(a: Cell, b: Cell) -> u32 {
    let dx = a.x.abs_diff(b.x);
    let dy = a.y.abs_diff(b.y);
    let (lo, hi) = (dx.min(dy), dx.max(dy));
    LATTICE_STRAIGHT * (hi - lo) + LATTICE_DIAGONAL * lo
}

/// Landmark distances at the subgoals of a [`SubgoalGraph`] (see the module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct SubgoalLandmarks {
    k: usize,
    /// `values[id · k + l]`: landmark `l`'s distance to subgoal `id` in lattice units, or
    /// [`UNSET`].
    values: Vec<u32>,
    /// Scratch of the repairs.
    heap: BinaryHeap<Reverse<(u32, u32)>>,
}

/// The goal's values, ready for the bounds of one query.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SparseGoalRow {
    row: [u32; MAX_SPARSE_LANDMARKS],
    /// All ones for landmarks with a value at the goal, zero for the others.
    mask: [u32; MAX_SPARSE_LANDMARKS],
}

impl SparseGoalRow {
    /// The row of the goal's values `row` ([`UNSET`] for none), with its mask.
    fn new(mut row: [u32; MAX_SPARSE_LANDMARKS]) -> Self {
        let mut mask = [0; MAX_SPARSE_LANDMARKS];
        for (m, r) in mask.iter_mut().zip(&mut row) {
            // Unset, or too far to read as a non-negative `i32` in the bound's signed
            // lanes (see `largest_gap`): left out, which only loosens the bound.
            if *r > i32::MAX as u32 {
                *r = 0;
            } else {
                *m = u32::MAX;
            }
        }
        SparseGoalRow { row, mask }
    }
}

impl SubgoalLandmarks {
    /// Places `k` landmarks (at most [`MAX_SPARSE_LANDMARKS`]) on the subgoals of `graph`
    /// and fills in their columns. The first lies farthest from a subgoal of the largest
    /// component; each next one at the subgoal farthest from those placed (its smallest
    /// distance to them largest), all by Dijkstra over the graph.
    pub fn build(graph: &SubgoalGraph, k: usize) -> Self {
        let k = k.min(MAX_SPARSE_LANDMARKS);
        let n = graph.capacity();
        let mut lm = SubgoalLandmarks {
            k,
            values: vec![UNSET; n * k],
            heap: BinaryHeap::new(),
        };
        if k == 0 || graph.len() == 0 {
            lm.k = 0;
            lm.values = Vec::new();
            return lm;
        }
        let mut column = vec![UNSET; n];
        let Some(seed) = largest_component_member(graph) else {
            lm.k = 0;
            lm.values = Vec::new();
            return lm;
        };
        let mut dijkstra = FlatDijkstra::new(graph);
        dijkstra.fill(seed, &mut column);
        // Smallest distance to the landmarks placed so far, per subgoal.
        let mut nearest = vec![UNSET; n];
        for l in 0..k {
            let here = farthest(&column, &nearest);
            dijkstra.fill(here, &mut column);
            for (id, &d) in column.iter().enumerate() {
                lm.values[id * k + l] = d;
                nearest[id] = nearest[id].min(d);
            }
        }
        lm
    }

    /// Landmarks kept (0 when none).
    pub fn count(&self) -> usize {
        self.k
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.values.capacity() * 4 + self.heap.capacity() * 8
    }

    /// Heap bytes no distance uses: the repair queue kept between edits and the table's
    /// spare capacity (what edits leave behind, counted as waste).
    pub fn slack_bytes(&self) -> usize {
        (self.values.capacity() - self.values.len()) * 4 + self.heap.capacity() * 8
    }

    /// The goal's row: its own values when it is subgoal `own`, else the smallest
    /// `D(L, s) + lat(s, goal)` over the subgoals `reached` directly by its scan.
    pub fn goal_row(
        &self,
        graph: &SubgoalGraph,
        goal: Cell,
        own: Option<u32>,
        reached: impl IntoIterator<Item = u32>,
    ) -> SparseGoalRow {
        let mut row = [UNSET; MAX_SPARSE_LANDMARKS];
        let k = self.k;
        let mut take = |id: u32, extra: u32| {
            let vals = &self.values[id as usize * k..id as usize * k + k];
            // Unset stays unset: no branch, so that the loop runs on vector lanes.
            for (r, &v) in row.iter_mut().zip(vals) {
                *r = (*r).min(v.saturating_add(extra));
            }
        };
        match own {
            Some(id) => take(id, 0),
            None => {
                for id in reached {
                    take(id, lattice_octile(graph.cell(id), goal));
                }
            }
        }
        SparseGoalRow::new(row)
    }

    /// A lower bound on the distance from subgoal `id` to the goal of `goal`, in lattice
    /// units: the largest `|D(L, id) − D(L, goal)|` over the landmarks with values at both.
    #[inline]
    pub fn gap(&self, goal: &SparseGoalRow, id: u32) -> u32 {
        let k = self.k;
        let vals = &self.values[id as usize * k..id as usize * k + k];
        // The usual table (three times the 8 landmarks of the presets) as fixed-size
        // arrays, so that the loop is unrolled onto vector lanes: a search evaluates this
        // for every subgoal it reaches.
        match <&[u32; MAX_SPARSE_LANDMARKS]>::try_from(vals) {
            Ok(vals) => largest_gap(vals, &goal.row, &goal.mask),
            Err(_) => largest_gap(vals, &goal.row[..k], &goal.mask[..k]),
        }
    }

    /// Restores the Lipschitz property after an update of `graph` that gave the IDs of
    /// `added` to new subgoals and joined the pairs of `linked` (see the module docs).
    pub fn repair(&mut self, graph: &SubgoalGraph, added: &[u32], linked: &[(u32, u32)]) {
        let k = self.k;
        if k == 0 {
            return;
        }
        let n = graph.capacity();
        if self.values.len() < n * k {
            self.values.resize(n * k, UNSET);
        }
        for &id in added {
            self.values[id as usize * k..id as usize * k + k].fill(UNSET);
        }
        if linked.is_empty() {
            return;
        }
        // The ends of new edges lowered, edge by edge for every landmark at once (one
        // subgoal's values share a cache line); most new edges lower nothing.
        let mut seeds: Vec<(u8, u32)> = Vec::new();
        for &(a, b) in linked {
            let w = lattice_octile(graph.cell(a), graph.cell(b));
            for (u, v) in [(a, b), (b, a)] {
                let mut from = [UNSET; MAX_SPARSE_LANDMARKS];
                from[..k].copy_from_slice(&self.values[u as usize * k..u as usize * k + k]);
                let to = &mut self.values[v as usize * k..v as usize * k + k];
                for (l, (&du, dv)) in from[..k].iter().zip(to).enumerate() {
                    if du != UNSET && du + w < *dv {
                        *dv = du + w;
                        seeds.push((l as u8, v));
                    }
                }
            }
        }
        seeds.sort_unstable();
        seeds.dedup();
        // From them, Dijkstra-style, one landmark at a time.
        for group in seeds.chunk_by(|x, y| x.0 == y.0) {
            let l = group[0].0 as usize;
            self.heap.clear();
            self.heap.extend(
                group
                    .iter()
                    .map(|&(_, v)| Reverse((self.values[v as usize * k + l], v))),
            );
            while let Some(Reverse((d, u))) = self.heap.pop() {
                if d > self.values[u as usize * k + l] {
                    continue;
                }
                let here = graph.cell(u);
                for &v in graph.neighbours(u) {
                    let dv = d + lattice_octile(here, graph.cell(v));
                    if dv < self.values[v as usize * k + l] {
                        self.values[v as usize * k + l] = dv;
                        self.heap.push(Reverse((dv, v)));
                    }
                }
            }
        }
    }

    /// Checks the Lipschitz property on every edge of `graph`: a test hook.
    #[cfg(any(test, feature = "testing"))]
    pub fn check(&self, graph: &SubgoalGraph) -> Result<(), String> {
        let k = self.k;
        for a in 0..graph.capacity() as u32 {
            if !graph.is_live(a) {
                continue;
            }
            for &b in graph.neighbours(a) {
                let w = lattice_octile(graph.cell(a), graph.cell(b));
                for l in 0..k {
                    // A subgoal left without values reads as unset.
                    let value = |id: u32| {
                        self.values
                            .get(id as usize * k + l)
                            .copied()
                            .unwrap_or(UNSET)
                    };
                    let (da, db) = (value(a), value(b));
                    if (da == UNSET) != (db == UNSET) || (da != UNSET && da.abs_diff(db) > w) {
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

/// The build's Dijkstra over a subgoal graph: the edges copied once into flat arrays
/// with their lattice weights (one contiguous run per subgoal, `edges[start[u]..start[u +
/// 1]]`), so that each of the build's `k + 1` searches reads no cell and follows no
/// pointer per edge, and a bucket queue as its open list.
///
/// Bucket `i` holds the subgoals reached at a distance in `[29·i, 29·(i + 1))`. Every
/// edge weighs at least one straight step, 29 units, so a subgoal settled from bucket `i`
/// only ever lowers others into later buckets: when the sweep reaches a bucket, every
/// distance in it is final, and its subgoals may be settled in any order (Dial's queue
/// with buckets as wide as the lightest edge). A subgoal lowered again is listed again;
/// the stale entry is skipped. Distances are unique, so the columns equal those of any
/// other Dijkstra (the table is the one a binary-heap Dijkstra built before, see
/// `sparse_landmark_columns_equal_a_plain_dijkstra`).
struct FlatDijkstra {
    start: Vec<u32>,
    /// `(neighbour, lattice weight)`.
    edges: Vec<(u32, u32)>,
    buckets: Vec<Vec<u32>>,
    settled: Vec<bool>,
}

impl FlatDijkstra {
    fn new(graph: &SubgoalGraph) -> Self {
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
                    .map(|&v| (v, lattice_octile(here, graph.cell(v)))),
            );
        }
        start.push(edges.len() as u32);
        FlatDijkstra {
            start,
            edges,
            buckets: Vec::new(),
            settled: vec![false; n],
        }
    }

    /// Distances from subgoal `from` into `column`.
    fn fill(&mut self, from: u32, column: &mut [u32]) {
        const WIDTH: u32 = LATTICE_STRAIGHT;
        column.fill(UNSET);
        self.settled.fill(false);
        column[from as usize] = 0;
        let mut buckets = std::mem::take(&mut self.buckets);
        if buckets.is_empty() {
            buckets.push(Vec::new());
        }
        buckets[0].push(from);
        let mut i = 0;
        while i < buckets.len() {
            let mut bucket = std::mem::take(&mut buckets[i]);
            for &u in &bucket {
                if std::mem::replace(&mut self.settled[u as usize], true) {
                    continue;
                }
                let d = column[u as usize];
                let (a, b) = (self.start[u as usize], self.start[u as usize + 1]);
                for &(v, w) in &self.edges[a as usize..b as usize] {
                    let dv = d + w;
                    if dv < column[v as usize] {
                        column[v as usize] = dv;
                        let j = (dv / WIDTH) as usize;
                        if j >= buckets.len() {
                            buckets.resize_with(j + 1, Vec::new);
                        }
                        buckets[j].push(v);
                    }
                }
            }
            bucket.clear();
            buckets[i] = bucket;
            i += 1;
        }
        self.buckets = buckets;
    }
}

/// The largest `|v − g|` over the lanes where `mask` is all ones and `v` is set: the
/// bound of [`SubgoalLandmarks::gap`]. Generic over fixed-size arrays and slices alike.
#[inline(always)]
fn largest_gap<V: AsRef<[u32]> + ?Sized>(vals: &V, row: &V, mask: &V) -> u32 {
    let (vals, row, mask) = (vals.as_ref(), row.as_ref(), mask.as_ref());
    // In signed lanes: x86-64's baseline vector set (SSE2) compares signed 32-bit lanes
    // but not unsigned ones, which the `u32` form had to emulate. The goal row's lanes
    // hold values below 2³¹ only (others are masked out there), and a value of 2³¹ or more
    // here (`UNSET` among them) reads as negative and is masked out too: both operands are
    // then non-negative `i32`s, whose difference cannot overflow. Leaving a landmark out
    // only loosens the bound (a largest gap over fewer landmarks), so it stays a lower
    // bound; on maps below about 2²⁵ cells no distance comes near 2³¹.
    let mut best = 0i32;
    for i in 0..vals.len().min(row.len()).min(mask.len()) {
        let v = vals[i] as i32;
        let m = mask[i] as i32 & -((v >= 0) as i32);
        best = best.max(v.wrapping_sub(row[i] as i32).wrapping_abs() & m);
    }
    best as u32
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
/// (`nearest`, [`UNSET`] before the first) is largest; the farthest one in `column` before
/// the first landmark.
fn farthest(column: &[u32], nearest: &[u32]) -> u32 {
    let mut best = (0u32, 0u32);
    for (id, (&d, &near)) in column.iter().zip(nearest).enumerate() {
        if d == UNSET {
            continue;
        }
        let score = if near == UNSET { d } else { near };
        if score >= best.0 {
            best = (score, id as u32);
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::{largest_gap, lattice_octile, FlatDijkstra, SparseGoalRow, UNSET};
    use crate::hpa::subgoals::SubgoalGraph;
    use crate::Grid;
    use proptest::prelude::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// Textbook Dijkstra over the graph's own lists, with a binary heap: the oracle.
    fn plain_dijkstra(graph: &SubgoalGraph, from: u32) -> Vec<u32> {
        let mut column = vec![UNSET; graph.capacity()];
        let mut heap = BinaryHeap::new();
        column[from as usize] = 0;
        heap.push(Reverse((0u32, from)));
        while let Some(Reverse((d, u))) = heap.pop() {
            if d > column[u as usize] {
                continue;
            }
            for &v in graph.neighbours(u) {
                let dv = d + lattice_octile(graph.cell(u), graph.cell(v));
                if dv < column[v as usize] {
                    column[v as usize] = dv;
                    heap.push(Reverse((dv, v)));
                }
            }
        }
        column
    }

    /// A value drawn near the edges that matter: small distances, values around 2³¹ (which
    /// the signed lanes must leave out) and unset ones.
    fn landmark_value() -> impl Strategy<Value = u32> {
        prop_oneof![
            0u32..5_000,
            (i32::MAX as u32 - 3)..(i32::MAX as u32 + 3),
            Just(u32::MAX - 1),
            Just(UNSET),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// The bound in signed lanes is the largest `|v − g|` over the landmarks whose
        /// values at both ends are set and below 2³¹ (worked out here in `i64`): never
        /// more (it must stay a lower bound), and no landmark in range left out.
        #[test]
        fn the_signed_bound_is_the_largest_gap_in_range(
            vals in prop::array::uniform24(landmark_value()),
            goal in prop::array::uniform24(landmark_value()),
        ) {
            let row = SparseGoalRow::new(goal);
            let want = vals
                .iter()
                .zip(&goal)
                .filter(|&(&v, &g)| v <= i32::MAX as u32 && g <= i32::MAX as u32)
                .map(|(&v, &g)| (v as i64 - g as i64).unsigned_abs())
                .max()
                .unwrap_or(0);
            prop_assert_eq!(largest_gap(&vals, &row.row, &row.mask) as u64, want);
            let k = 7;
            let want_k = vals[..k]
                .iter()
                .zip(&goal[..k])
                .filter(|&(&v, &g)| v <= i32::MAX as u32 && g <= i32::MAX as u32)
                .map(|(&v, &g)| (v as i64 - g as i64).unsigned_abs())
                .max()
                .unwrap_or(0);
            prop_assert_eq!(largest_gap(&vals[..k], &row.row[..k], &row.mask[..k]) as u64, want_k);
        }

        /// The build's flat bucket-queue Dijkstra gives, from every subgoal, the columns
        /// of a binary-heap Dijkstra over the graph's lists (break the bucket width or the
        /// settled check and this fails).
        #[test]
        fn sparse_landmark_columns_equal_a_plain_dijkstra(
            (w, h, blocked) in crate::grid::arb_blocked_cells(2..48, 0.3),
        ) {
            let grid = Grid::from_fn(w, h, |x, y| !blocked[(y * w + x) as usize]);
            let graph = SubgoalGraph::build(&grid);
            let mut flat = FlatDijkstra::new(&graph);
            let mut column = vec![0; graph.capacity()];
            for from in 0..graph.capacity() as u32 {
                flat.fill(from, &mut column);
                prop_assert_eq!(&column, &plain_dijkstra(&graph, from), "from subgoal {}", from);
            }
        }
    }
}
