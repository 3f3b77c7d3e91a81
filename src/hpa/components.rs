//! Connected components of free leaves, kept up to date without global relabelling.
//!
//! Freeing cells can only join components: a new leaf takes the label of its largest
//! neighbouring component and the smaller ones are relabelled, which costs the size of the
//! smaller side. Blocking cells can only split them, and a split is found with a lockstep
//! search: one breadth-first search per leaf next to the change, advanced in turns. Searches
//! that meet merge; a search that runs out of leaves while another is still going has found
//! a piece that broke off, and only that piece is relabelled. When nothing splits, the
//! searches meet within a few leaves of the edit. Before the split is looked for, a new
//! free leaf lying inside a removed one takes that leaf's label without a neighbour query
//! ([`Components::inherit`], session 36: 4–7 % of a blocking edit of the subgoal layer).
//!
//! Which leaves touch comes from a [`LeafAdjacency`] (`adjacency`): the gate graph's
//! crossings, or the quadtree's neighbours on a layer that keeps no gate graph. Both list
//! the same leaves, so the labels do not depend on which one a layer walks.
//!
//! A build labels from the grid's free cells instead (runs along rows joined by a
//! union-find, [`Components::label_all_by_cells`]): the same labels as a flood over
//! either adjacency, without a neighbour query per leaf (session 29: 65–75 → 3–6 ms on
//! Cauldron).

use super::adjacency::LeafAdjacency;
use super::graph::{slot_id, GateGraph, LeafId, SlotId};
use crate::grid::Grid;
use hashbrown::hash_map::{Entry, HashMap};
use std::collections::VecDeque;
use std::hash::BuildHasherDefault;

slot_id!(
    /// A component label.
    Label
);

/// Marks a leaf slot not (yet) labelled in [`Components::label`]: 4 bytes a leaf where an
/// `Option<Label>` takes 8.
const UNLABELLED: u32 = u32::MAX;

/// Component labels per leaf, with each label's size in leaves: 4 bytes a leaf slot (the
/// lockstep search's marks live in a table of their own, sized by the leaves a search
/// visits, not by the map, and kept between edits only while small).
#[derive(Clone, Debug, Default)]
pub(crate) struct Components {
    /// By leaf slot: a label's index, or [`UNLABELLED`].
    label: Vec<u32>,
    sizes: Vec<u32>,
    free: Vec<Label>,
    /// The lockstep search's tables between calls (see [`Components::split_off`]), boxed:
    /// the map is a handle kept small (`a_map_is_small`), and a layer that never blocks a
    /// cell never makes them.
    scratch: Option<Box<LockstepScratch>>,
}

impl Components {
    fn fresh(&mut self) -> Label {
        match self.free.pop() {
            Some(l) => l,
            None => {
                self.sizes.push(0);
                Label::from_index(self.sizes.len() - 1)
            }
        }
    }

    fn resize(&mut self, label: Label, delta: i64) {
        let s = &mut self.sizes[label.index()];
        *s = (*s as i64 + delta) as u32;
        if *s == 0 {
            self.free.push(label);
        }
    }

    /// Grows the per-leaf tables to the graph's leaf slots.
    fn fit(&mut self, g: &impl LeafAdjacency) {
        let n = g.leaf_capacity();
        if self.label.len() < n {
            self.label.resize(n, UNLABELLED);
        }
    }

    fn set(&mut self, leaf: LeafId, label: Label) {
        self.label[leaf.index()] = label.index() as u32;
    }

    /// The label of leaf slot `leaf`, if it has one.
    #[inline]
    fn label_of(&self, leaf: LeafId) -> Option<Label> {
        match self.label.get(leaf.index()).copied() {
            None | Some(UNLABELLED) => None,
            Some(l) => Some(Label::from_index(l as usize)),
        }
    }

    /// The label of a live, labelled leaf.
    #[inline]
    pub fn of(&self, leaf: LeafId) -> Label {
        self.label_of(leaf)
            .expect("every live leaf has a component")
    }

    /// Whether two live leaves are in one component.
    #[inline]
    pub fn same(&self, a: LeafId, b: LeafId) -> bool {
        self.of(a) == self.of(b)
    }

    /// Forgets a leaf that is being removed; returns the label it had.
    pub fn forget(&mut self, leaf: LeafId) -> Option<Label> {
        let label = self.label_of(leaf)?;
        self.label[leaf.index()] = UNLABELLED;
        self.resize(label, -1);
        Some(label)
    }

    /// After cells were blocked: gives each new free leaf of `pieces` the label of the
    /// removed free leaf it lies in, with no neighbour query.
    ///
    /// Blocking only takes moves away, so the cells of such a leaf were free and joined
    /// to the removed leaf's component before the edit, as were its neighbours then. What
    /// [`Components::absorb_new_leaves`] would give them is that label too, but for a
    /// group of new leaves with no labelled neighbour (walled in by the edit), which gets
    /// a fresh one. Here it keeps the old label, and [`Components::split_off`] tells it
    /// apart as it tells apart any piece a blocking edit cuts off: every piece of a split
    /// component holds a seed, a free leaf next to a new blocked leaf (on a path that
    /// joined the piece to another before the edit, the first move from the piece's end
    /// that the edit made illegal leaves a cell of the piece and steps onto, or cuts the
    /// corner of, a cell blocked now, which lies in a new blocked leaf beside that cell's
    /// leaf), and the lockstep searches give every piece but one a label of its own. So the labels are those of a flood either way
    /// (`hpa_props`: the labels against a flood fill and a fresh build; it fails when a
    /// leaf takes the label of a removed leaf it does not lie in, or when a label its
    /// removed leaves freed is not taken back from the free list).
    pub fn inherit(&mut self, g: &impl LeafAdjacency, pieces: &[(LeafId, Label)]) {
        self.fit(g);
        for &(leaf, label) in pieces {
            if self.sizes[label.index()] == 0 {
                // Its only leaves were removed (forgetting them freed the label): it
                // lives on in this piece. Freed last, it stands near the end.
                let k = self.free.iter().rposition(|&l| l == label);
                self.free.swap_remove(k.expect("an emptied label is free"));
            }
            self.set(leaf, label);
            self.resize(label, 1);
        }
    }

    /// Number of components.
    pub fn count(&self) -> usize {
        self.sizes.len() - self.free.len()
    }

    /// Of [`Components::memory_bytes`], what `live_leaves` leaves and the live labels do
    /// not use: per-leaf entries past them (vacant leaf slots and spare capacity) and
    /// vacant labels.
    pub fn slack_bytes(&self, live_leaves: usize) -> usize {
        self.label.capacity().saturating_sub(live_leaves) * 4
            + (self.sizes.capacity() - self.count()) * 4
            + self.free.capacity() * 4
            + self.scratch_bytes()
    }

    /// Heap bytes the lockstep search's tables hold between calls.
    fn scratch_bytes(&self) -> usize {
        self.scratch.as_ref().map_or(0, |s| {
            std::mem::size_of::<LockstepScratch>() + s.memory_bytes()
        })
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.label.capacity() * 4
            + self.sizes.capacity() * 4
            + self.free.capacity() * 4
            + self.scratch_bytes()
    }

    #[cfg(any(test, feature = "testing"))]
    /// Checks that every live leaf has a live label, that the stored sizes match, and that
    /// no two joined leaves are in different components. For tests.
    pub fn check(&self, g: &impl LeafAdjacency) -> Result<(), String> {
        let mut counted = vec![0u32; self.sizes.len()];
        let (mut leaves, mut next) = (Vec::new(), Vec::new());
        g.live_leaves(&mut leaves);
        for &leaf in &leaves {
            let Some(label) = self.label_of(leaf) else {
                return Err(format!("leaf slot {} has no component", leaf.index()));
            };
            if label.index() >= counted.len() || self.free.contains(&label) {
                return Err(format!(
                    "leaf slot {} has a dead label {label:?}",
                    leaf.index()
                ));
            }
            counted[label.index()] += 1;
            g.neighbours(leaf, &mut next);
            if let Some(o) = next.iter().find(|&&o| !self.same(leaf, o)) {
                return Err(format!(
                    "leaf slot {} is joined to slot {} of another component",
                    leaf.index(),
                    o.index()
                ));
            }
        }
        for (l, (&c, &s)) in counted.iter().zip(&self.sizes).enumerate() {
            if c != s && !self.free.contains(&Label::from_index(l)) {
                return Err(format!("component {l} has {c} leaves but records {s}"));
            }
        }
        Ok(())
    }

    /// Labels every free leaf of `graph` from scratch, from the free cells of `grid`
    /// rather than from leaf adjacency: the same labels, in the same order, as
    /// `Components::label_all` over either adjacency, in a few milliseconds where the
    /// leaf walk takes tens on a 1024² map.
    ///
    /// Two free cells are joined by a path exactly when they are joined by straight steps
    /// only: a legal diagonal step has both cells beside it free, and either one is a
    /// straight way round. So the components of the free cells are those of their
    /// maximal free runs along rows, joined where runs of adjacent rows share a column,
    /// found with a union-find in one sweep. A free leaf is a free rectangle, inside one
    /// component, and takes its top-left cell's. Labels are then handed out in the order
    /// of the graph's leaves, as the flood of `Components::label_all` does, so both give
    /// the same table (`cell_labels_equal_the_leaf_walks`).
    pub fn label_all_by_cells(&mut self, graph: &GateGraph, grid: &Grid) {
        *self = Components::default();
        self.fit(graph);
        let mut runs = FreeRuns::new(grid);
        // By root run: its component's label, or UNLABELLED.
        let mut label_of_root = vec![UNLABELLED; runs.len()];
        for (leaf, l) in graph.leaves() {
            let r = graph.rect_of(l);
            let root = runs.root(runs.run_at(r.x1, r.y1));
            let label = match label_of_root[root as usize] {
                UNLABELLED => {
                    let fresh = self.fresh();
                    label_of_root[root as usize] = fresh.index() as u32;
                    fresh
                }
                l => Label::from_index(l as usize),
            };
            self.set(leaf, label);
            self.resize(label, 1);
        }
    }

    /// Labels every free leaf from scratch by walking leaf adjacency: the oracle of
    /// [`Components::label_all_by_cells`] (and what labelled layers before it).
    #[cfg(test)]
    pub fn label_all(&mut self, g: &impl LeafAdjacency) {
        *self = Components::default();
        self.fit(g);
        let mut leaves = Vec::new();
        g.live_leaves(&mut leaves);
        for leaf in leaves {
            if self.label_of(leaf).is_none() {
                let label = self.fresh();
                self.flood(g, leaf, None, label);
            }
        }
    }

    /// Relabels, from `start`, every leaf reachable through leaves labelled `from`
    /// (starting leaf included), to `to`; returns how many.
    fn flood(
        &mut self,
        g: &impl LeafAdjacency,
        start: LeafId,
        from: Option<Label>,
        to: Label,
    ) -> u32 {
        let mut stack = vec![start];
        self.set(start, to);
        let mut n = 1;
        let mut next = Vec::new();
        while let Some(s) = stack.pop() {
            g.neighbours(s, &mut next);
            for &o in &next {
                if self.label_of(o) == from {
                    self.set(o, to);
                    stack.push(o);
                    n += 1;
                }
            }
        }
        self.resize(to, n as i64);
        if let Some(from) = from {
            self.resize(from, -(n as i64));
        }
        n
    }

    /// Gives labels to new free leaves, joining the components they connect.
    ///
    /// Mid-batch, one old component may lie in several pieces that only the new leaves
    /// join, so every neighbour with a foreign label floods its own piece.
    pub fn absorb_new_leaves(&mut self, g: &impl LeafAdjacency, created: &[LeafId]) {
        self.fit(g);
        let mut neighbours = Vec::new();
        for &leaf in created {
            g.neighbours(leaf, &mut neighbours);
            neighbours.retain(|&o| self.label_of(o).is_some());
            let Some(keep) = neighbours
                .iter()
                .map(|&o| self.of(o))
                .max_by_key(|&l| self.sizes[l.index()])
            else {
                let label = self.fresh();
                self.set(leaf, label);
                self.resize(label, 1);
                continue;
            };
            for &o in &neighbours {
                let label = self.of(o);
                if label != keep {
                    self.flood(g, o, Some(label), keep);
                }
            }
            self.set(leaf, keep);
            self.resize(keep, 1);
        }
    }

    /// After cells were blocked: finds the pieces that broke off the components of `seeds`
    /// (free leaves next to the change) and gives each a label of its own.
    pub fn split_off(&mut self, g: &impl LeafAdjacency, seeds: &[LeafId]) {
        self.fit(g);
        // Taken out for the call, so that the searches can relabel while they walk it.
        let mut scratch = self.scratch.take().unwrap_or_default();
        let by_label = &mut scratch.by_label;
        by_label.clear();
        by_label.extend(seeds.iter().map(|&s| (self.of(s), s)));
        by_label.sort_unstable();
        by_label.dedup();
        let mut start = 0;
        while start < scratch.by_label.len() {
            let label = scratch.by_label[start].0;
            let end = start
                + scratch.by_label[start..]
                    .iter()
                    .take_while(|&&(l, _)| l == label)
                    .count();
            if end - start > 1 {
                self.lockstep(g, label, start..end, &mut scratch);
            }
            start = end;
        }
        if scratch.mark.capacity() > MAX_KEPT_MARKS {
            // A search that walked a large piece: let its tables go rather than keep them
            // (and clear them) for every edit after.
            *scratch = LockstepScratch::default();
        }
        self.scratch = Some(scratch);
    }

    /// The lockstep search over the seeds `scratch.by_label[seeds]`, all of component
    /// `label`.
    fn lockstep(
        &mut self,
        g: &impl LeafAdjacency,
        label: Label,
        seeds: std::ops::Range<usize>,
        scratch: &mut LockstepScratch,
    ) {
        fn root(s: &mut [Search], mut i: usize) -> usize {
            while s[i].parent != i {
                s[i].parent = s[s[i].parent].parent;
                i = s[i].parent;
            }
            i
        }
        let LockstepScratch {
            mark,
            searches,
            next,
            by_label,
        } = scratch;
        // Which search reached each leaf visited so far.
        mark.clear();
        // The searches in use are `searches[..count]`; those past it are spare, their
        // lists kept for a later call.
        let mut count = 0;
        let mut active = 0;
        for &(_, seed) in &by_label[seeds] {
            let i = count;
            match mark.entry(seed) {
                Entry::Occupied(_) => continue, // a duplicate seed
                Entry::Vacant(v) => v.insert(i),
            };
            if i == searches.len() {
                searches.push(Search::default());
            }
            let search = &mut searches[i];
            search.queue.clear();
            search.queue.push_back(seed);
            search.members.clear();
            search.members.push(seed);
            search.parent = i;
            count += 1;
            active += 1;
        }
        let searches = &mut searches[..count];
        let mut turn = 0;
        while active > 1 {
            turn = (turn + 1) % count;
            if searches[turn].parent != turn || searches[turn].queue.is_empty() {
                continue;
            }
            let s = searches[turn].queue.pop_front().unwrap();
            g.neighbours(s, next);
            for &o in next.iter() {
                let reached_by = match mark.entry(o) {
                    Entry::Occupied(e) => *e.get(),
                    Entry::Vacant(v) => {
                        v.insert(turn);
                        searches[turn].queue.push_back(o);
                        searches[turn].members.push(o);
                        continue;
                    }
                };
                let other = root(searches, reached_by);
                if other != turn {
                    // Two searches met: they are in one piece. Keep `turn` as the root;
                    // the other's lists are emptied, not freed.
                    searches[other].parent = turn;
                    let (mut q, mut m) = (
                        std::mem::take(&mut searches[other].queue),
                        std::mem::take(&mut searches[other].members),
                    );
                    searches[turn].queue.extend(q.drain(..));
                    searches[turn].members.append(&mut m);
                    (searches[other].queue, searches[other].members) = (q, m);
                    active -= 1;
                }
            }
            if searches[turn].queue.is_empty() && active > 1 {
                // This piece is complete and some other search is still going: it broke off.
                let fresh = self.fresh();
                let members = &mut searches[turn].members;
                for &m in members.iter() {
                    self.set(m, fresh);
                }
                self.resize(fresh, members.len() as i64);
                self.resize(label, -(members.len() as i64));
                members.clear();
                active -= 1;
            }
        }
    }
}

/// Beyond this many slots, [`Components::split_off`] lets its mark table go after the call
/// rather than keep it: clearing it would cost every later edit, and most searches meet
/// within a few leaves.
const MAX_KEPT_MARKS: usize = 1 << 10;

/// One search of the lockstep (see [`Components::split_off`]).
#[derive(Clone, Debug, Default)]
struct Search {
    queue: VecDeque<LeafId>,
    members: Vec<LeafId>,
    /// Union-find parent: searches that met are one.
    parent: usize,
}

/// The lockstep search's tables, kept between blocking edits (emptied, not freed) so that
/// an edit allocates none of them: their allocations and the mark table's growth were
/// about a third of the search (session 44).
#[derive(Clone, Debug, Default)]
struct LockstepScratch {
    /// Which search reached each leaf visited so far.
    mark: HashMap<LeafId, usize, BuildHasherDefault<ahash::AHasher>>,
    /// The searches, one a seed; their lists are reused by later calls.
    searches: Vec<Search>,
    /// A leaf's neighbours.
    next: Vec<LeafId>,
    /// The seeds with their labels, sorted by label.
    by_label: Vec<(Label, LeafId)>,
}

impl LockstepScratch {
    /// Heap bytes held.
    fn memory_bytes(&self) -> usize {
        let id = std::mem::size_of::<LeafId>();
        // A hash map slot is its entry and a control byte.
        self.mark.capacity() * (std::mem::size_of::<(LeafId, usize)>() + 1)
            + self.searches.capacity() * std::mem::size_of::<Search>()
            + self
                .searches
                .iter()
                .map(|s| (s.queue.capacity() + s.members.capacity()) * id)
                .sum::<usize>()
            + self.next.capacity() * id
            + self.by_label.capacity() * std::mem::size_of::<(Label, LeafId)>()
    }
}

/// The maximal runs of free cells along the rows of a grid, joined into the components
/// of the free cells by a union-find (see [`Components::label_all_by_cells`]).
struct FreeRuns {
    /// Runs of row `y` are `runs[row_start[y]..row_start[y + 1]]`, left to right, each
    /// `(first x, last x)`.
    runs: Vec<(u32, u32)>,
    row_start: Vec<u32>,
    /// Union-find parent by run.
    parent: Vec<u32>,
}

impl FreeRuns {
    /// The runs of `grid`, already joined where rows touch.
    fn new(grid: &Grid) -> Self {
        let (runs, row_start) = row_runs(grid);
        let parent = (0..runs.len() as u32).collect();
        let mut free_runs = FreeRuns {
            runs,
            row_start,
            parent,
        };
        for y in 1..grid.height() as usize {
            free_runs.join_rows(y - 1, y);
        }
        free_runs
    }

    fn len(&self) -> usize {
        self.runs.len()
    }

    /// Joins each run of row `above` with every run of row `below` sharing a column.
    fn join_rows(&mut self, above: usize, below: usize) {
        let (mut i, end_i) = (self.row_start[above], self.row_start[above + 1]);
        let (mut j, end_j) = (self.row_start[below], self.row_start[below + 1]);
        while i < end_i && j < end_j {
            let (a, b) = (self.runs[i as usize], self.runs[j as usize]);
            if a.0 <= b.1 && b.0 <= a.1 {
                self.union(i, j);
            }
            // The run ending first meets no later run of the other row.
            if a.1 < b.1 {
                i += 1;
            } else {
                j += 1;
            }
        }
    }

    fn root(&mut self, mut run: u32) -> u32 {
        while self.parent[run as usize] != run {
            let grand = self.parent[self.parent[run as usize] as usize];
            self.parent[run as usize] = grand;
            run = grand;
        }
        run
    }

    fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.root(a), self.root(b));
        if ra != rb {
            // The lower index as the root keeps the trees shallow enough on a sweep that
            // joins rows top to bottom.
            let (lo, hi) = (ra.min(rb), ra.max(rb));
            self.parent[hi as usize] = lo;
        }
    }

    /// The run holding free cell `(x, y)`.
    fn run_at(&self, x: u32, y: u32) -> u32 {
        let (start, end) = (
            self.row_start[y as usize] as usize,
            self.row_start[y as usize + 1] as usize,
        );
        let row = &self.runs[start..end];
        let i = row.partition_point(|r| r.1 < x);
        debug_assert!(i < row.len() && row[i].0 <= x, "({x}, {y}) is free");
        (start + i) as u32
    }
}

/// The maximal runs of free cells of each row of `grid`, left to right, as `(first x,
/// last x)`, and where each row's begin (`row_start[y]`; `row_start[height]` is the count).
/// Read a word of a row's free bits at a time: a run is a stretch of ones, found by
/// counting trailing zeros and then trailing ones; one that reaches a word's last column
/// goes on into the next word's first. (A cell at a time, this listing was nearly all of
/// the components' build: 33M of 34M instructions on a 1024² map.)
fn row_runs(grid: &Grid) -> (Vec<(u32, u32)>, Vec<u32>) {
    let (width, height) = (grid.width(), grid.height());
    let mut runs: Vec<(u32, u32)> = Vec::new();
    let mut row_start = Vec::with_capacity(height as usize + 1);
    for y in 0..height {
        row_start.push(runs.len() as u32);
        let first_of_row = runs.len();
        for x0 in (0..width).step_by(64) {
            // Columns past the row's end read as blocked.
            let mut bits = grid.free_bits_at(i64::from(x0), i64::from(y));
            let mut at = 0u32;
            while bits != 0 {
                let skip = bits.trailing_zeros();
                bits >>= skip;
                at += skip;
                let ones = (!bits).trailing_zeros();
                let (first, last) = (x0 + at, x0 + at + ones - 1);
                let in_row = runs.len() > first_of_row;
                match runs.last_mut() {
                    Some(run) if in_row && run.1 + 1 == first => run.1 = last,
                    _ => runs.push((first, last)),
                }
                // `ones` is 64 only when the whole word was free.
                bits = bits.checked_shr(ones).unwrap_or(0);
                at += ones;
            }
        }
    }
    row_start.push(runs.len() as u32);
    (runs, row_start)
}

#[cfg(test)]
mod tests {
    use crate::hpa::adjacency::TreeAdjacency;
    use crate::{Config, Grid, HpaMap};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// The labels from the free cells' runs equal, leaf by leaf and label by label,
        /// those of the flood over the quadtree's leaf adjacency and over the gate
        /// graph's crossings. (Join runs that only touch diagonally, or skip a row pair,
        /// and this fails.)
        #[test]
        fn cell_labels_equal_the_leaf_walks(
            (w, h, blocked) in crate::grid::arb_blocked_cells(1..40, 0.4),
            side in prop_oneof![Just(None), (1u32..5).prop_map(Some)],
        ) {
            let grid = Grid::from_fn(w, h, |x, y| !blocked[(y * w + x) as usize]);
            let config = Config::exact().with_subgoals(false).with_max_leaf_side(side);
            let map = HpaMap::new(grid, config).unwrap();
            let mut by_cells = map.components.clone();
            by_cells.label_all_by_cells(&map.graph, &map.grid);
            let mut by_tree = by_cells.clone();
            by_tree.label_all(&TreeAdjacency { graph: &map.graph, tree: &map.tree, grid: &map.grid });
            let mut by_gates = by_cells.clone();
            by_gates.label_all(&*map.graph);
            prop_assert_eq!(&by_cells.label, &by_tree.label);
            prop_assert_eq!(&by_cells.sizes, &by_tree.sizes);
            prop_assert_eq!(&by_cells.label, &by_gates.label);
            prop_assert_eq!(&by_cells.sizes, &by_gates.sizes);
        }

        /// The runs read a word at a time equal those listed a free cell at a time, on
        /// widths on and off 64 with runs across words (mostly free rows too). (Start a
        /// new run at each word, or let a run go on from the row above, and this fails.)
        #[test]
        fn row_runs_equal_the_runs_of_the_free_cells(
            (w, h, blocked) in prop_oneof![
                crate::grid::arb_blocked_cells_sized(1..200, 1..6, 0.3),
                crate::grid::arb_blocked_cells_sized(1..200, 1..6, 0.02),
                crate::grid::arb_blocked_cells_sized(60..70, 1..6, 0.0),
            ],
        ) {
            let grid = Grid::from_fn(w, h, |x, y| !blocked[(y * w + x) as usize]);
            let (runs, row_start) = super::row_runs(&grid);
            // The listing the word reads replaced: free cells in row order, a run going on
            // while they are next to each other on one row.
            let mut cell_runs: Vec<(u32, u32)> = Vec::new();
            let mut cell_row_start = vec![0u32; h as usize + 1];
            let mut row = 0;
            for c in grid.free_cells() {
                while row < c.y {
                    row += 1;
                    cell_row_start[row as usize] = cell_runs.len() as u32;
                }
                let in_row = cell_row_start[row as usize] < cell_runs.len() as u32;
                match cell_runs.last_mut() {
                    Some(last) if in_row && last.1 + 1 == c.x => last.1 = c.x,
                    _ => cell_runs.push((c.x, c.x)),
                }
            }
            for y in row + 1..=h {
                cell_row_start[y as usize] = cell_runs.len() as u32;
            }
            prop_assert_eq!(runs, cell_runs);
            prop_assert_eq!(row_start, cell_row_start);
        }
    }
}
