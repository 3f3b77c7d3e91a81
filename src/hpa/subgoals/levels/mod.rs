//! Levels of the subgoal graph: most subgoals are *contracted* (made local), in order,
//! each replaced by shortcuts between its neighbours where no other path is as short; the
//! rest, the *globals*, keep the graph the search crosses. The search enters locals only
//! upwards, from the start and (backwards) from the goal (after Uras and Koenig's
//! two-level and N-level subgoal graphs, built here as contraction in a single pass).
//!
//! # The structure
//! Subgoals are visited by growing degree. Subgoal `v` is contracted when for every pair
//! `a, b` of its current neighbours (the subgoals not contracted yet joined to it) either a
//! *witness* joins them without `v` (a direct edge or a path of two edges in the graph left
//! so far, no longer than `w(a, v) + w(v, b)`), or one of at most `MAX_SHORTCUTS` (`contraction.rs`)
//! *shortcuts* `a — b` of that weight, remembering `v` as its middle, is added, and when
//! its level (one more than the highest level of the contracted subgoals it was joined
//! to) stays at most [`MAX_LEVEL`]. A contracted subgoal keeps its edges of that moment
//! as its *upward* edges: all to subgoals contracted later, or globals.
//!
//! # Why it is exact
//! Contracting `v` keeps every distance between the subgoals left: a shortest path
//! through `v` enters and leaves it by two neighbours `a, b`, and the witness or the
//! shortcut is as short. So (as in contraction hierarchies) between any two subgoals there
//! is a shortest path that climbs from the first over upward edges, crosses globals over
//! their edges, and descends over upward edges taken backwards: take a shortest path and
//! replace, again and again, its first-contracted inner subgoal by that subgoal's witness
//! or shortcut; every step removes an inner subgoal contracted before all the others,
//! until none lies below both its path neighbours. A query's shortest route over the
//! subgoal graph, `s, g₁, …, g_k, t`, ties `g₁` to the start and `g_k` to the goal, so the
//! search from the start ties over upward and global edges meets the marks that a small
//! search from the goal ties over upward edges leaves (see `search_subgoals`). Landmark
//! bounds stay admissible and consistent: a shortcut weighs the path it stands for, at
//! least the lattice distance between its ends. `tests/suite/subgoal_props.rs` checks paths
//! against Dijkstra with the levels on, and fails when shortcuts are left out.
//!
//! Arcs are stored in CSR arrays, 6 bytes an arc and a little more (see [`PackedArc`]):
//! the hop byte (the sector of the first subgoal-graph hop the arc stands for, for the
//! search's taut-path pruning, see `taut.rs`, and whether it is a shortcut), the far end,
//! and the weight as counts of straight and diagonal steps (which add exactly), at fixed
//! places: 19 bits of ID (524,288 ID slots) and 12 bits a count (4,095 steps). A subgoal
//! whose shortcut would need more steps of either kind than a count holds stays global; a
//! graph with a direct edge that long (a map more than 4,096 cells a side) or with more ID
//! slots gets no levels, and is searched whole (exact, only slower). A direct edge's last
//! hop is its first;
//! a shortcut's last hop and its middle are listed apart (see [`Shortcuts`]: 2–4 % of the
//! arcs are shortcuts). Each subgoal also keeps the set of its arcs' first-hop sectors
//! (2 bytes an ID slot), so that the search skips at once a subgoal none of whose arcs
//! the taut rule lets it take ([`Levels::arcs_allowed`]): the arcs it would have tested
//! one by one and left all the same, so expansions and answers do not change.
//!
//! # Edits
//! An edit drops the levels (the search goes on over the whole subgoal graph, exact as
//! before): a witness may have lost an edge. [`Contraction`] builds them again in
//! bounded slices (see `HpaMap::refresh_within`), restarted by any edit during the
//! rebuild; a sliced rebuild starts only at a call with no edit since the previous one, so
//! that a map edited between every two calls wastes no slices on it. Subgoals are visited
//! by degree and then by cell, and whether one is contracted depends only on the graph
//! left (not on the order of its edge lists), so the levels rebuilt after edits equal a
//! fresh build's (tested by cell in `tests/suite/subgoal_props.rs`).
//!
//! # Files
//! - `arc.rs`: the arcs as the contraction handles them ([`Arc`]) and as the levels store
//!   them, 6 bytes each ([`PackedArc`], its hop byte and [`ArcEnd`](arc::ArcEnd)): the encoding.
//! - `contraction.rs`: the contraction ([`Contraction`]), whole or in the slices of a
//!   rebuild after edits, and its witness tests.
//! - `shortcuts.rs`: the shortcuts' middles and last hops listed apart ([`Shortcuts`]).
//! - this file: the finished levels ([`Levels`]) as the search reads them: levels, local
//!   marks, upward arcs, unpacking a shortcut.

mod arc;
mod contraction;
mod shortcuts;

use super::taut::Sector;
use super::SubgoalGraph;
#[cfg(any(test, feature = "testing"))]
use crate::geom::Cell;
#[cfg(any(test, feature = "testing", debug_assertions))]
pub(crate) use arc::Arc;
use arc::SHORTCUT;
pub(crate) use arc::{allows_hops, hop_turns, PackedArc};
pub(crate) use contraction::{Contraction, DirectLists, FlatLists};
use shortcuts::Shortcuts;

/// The highest level a contracted subgoal may have: it bounds the upward searches.
const MAX_LEVEL: u8 = 6;
/// Levels a local may have: 0 to [`MAX_LEVEL`] − 1 (a subgoal at [`MAX_LEVEL`] stays
/// global).
pub(crate) const LEVELS: usize = MAX_LEVEL as usize;
/// The middle of an edge that is no shortcut.
pub(crate) const DIRECT: u32 = u32::MAX;

/// The levels of a subgoal graph (see the module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct Levels {
    /// One bit per subgoal ID: whether it is contracted (local).
    local: Vec<u64>,
    /// Per subgoal ID: its level (a local's, fixed when it was contracted, is below that
    /// of every subgoal its upward edges lead to).
    level: Vec<u8>,
    /// Arcs `offsets[id]..offsets[id + 1]`: the upward edges of local `id`, the edges of
    /// global `id` to other globals (see [`Arc`]): packed with the hop bytes, the far ends
    /// and the weights (see [`PackedArc`]: read for every arc, by the pruning), and apart
    /// the shortcuts' middles and last hops (read for the arcs a relaxation takes).
    offsets: Vec<u32>,
    arcs: Vec<PackedArc>,
    shortcuts: Shortcuts,
    /// Per subgoal ID: the sectors of the first hops of its arcs, as a bit set (see
    /// [`allows`](crate::hpa::subgoals::allows)), so that the search skips the arcs of a
    /// subgoal none of which the taut rule lets it take (see [`Levels::arcs_allowed`]).
    first_hops: Vec<u16>,
}

impl Levels {
    /// Contracts `graph`'s subgoals (see the module docs), or `None` when its arcs cannot
    /// be packed (see [`PackedArc`]).
    pub fn build(graph: &SubgoalGraph) -> Option<Self> {
        Some(Self::contracted(Contraction::new(graph)?, graph))
    }

    /// The levels `contraction`, not begun, of `graph` makes.
    pub fn contracted(mut contraction: Contraction, graph: &SubgoalGraph) -> Self {
        let done = contraction.run(graph, None);
        debug_assert!(done, "an unlimited contraction finishes");
        contraction.finish()
    }

    /// The local subgoals and the edges of the levels by cell (local or not, far end,
    /// middle, weight), sorted: what a rebuilt hierarchy and a fresh one are compared by.
    #[cfg(any(test, feature = "testing"))]
    pub fn snapshot(&self, graph: &SubgoalGraph) -> super::LevelsSnapshot {
        let n = self.offsets.len() - 1;
        let mut local: Vec<Cell> = (0..n as u32)
            .filter(|&id| graph.is_live(id) && self.is_local(id))
            .map(|id| graph.cell(id))
            .collect();
        local.sort_unstable();
        let mut arcs: Vec<_> = (0..n as u32)
            .flat_map(|id| self.arcs(id).map(move |arc| (id, arc)))
            .map(|(id, arc)| {
                let via = (arc.via != DIRECT).then(|| graph.cell(arc.via));
                (
                    graph.cell(id),
                    graph.cell(arc.to),
                    via,
                    (arc.straight, arc.diagonal),
                )
            })
            .collect();
        arcs.sort_unstable();
        (local, arcs)
    }

    /// The level of subgoal `id`: below [`LEVELS`] for a local, and below that of every
    /// subgoal its upward edges lead to.
    #[inline]
    pub fn level(&self, id: u32) -> u8 {
        self.level[id as usize]
    }

    /// Whether subgoal `id` is local (contracted).
    #[inline]
    pub fn is_local(&self, id: u32) -> bool {
        self.local[id as usize / 64] >> (id % 64) & 1 == 1
    }

    /// The indices of the upward edges of local `id`, or of the edges of global `id` to
    /// other globals, in the arc arrays.
    #[inline]
    fn range(&self, id: u32) -> std::ops::Range<usize> {
        self.offsets[id as usize] as usize..self.offsets[id as usize + 1] as usize
    }

    /// The upward edges of local `id`, or the edges of global `id` to other globals, decoded
    /// one by one: the snapshot's and the debug checks' view (the search reads the packed
    /// arcs directly).
    #[cfg(any(test, feature = "testing", debug_assertions))]
    #[inline]
    pub fn arcs(&self, id: u32) -> impl Iterator<Item = Arc> + '_ {
        self.range(id).map(|i| {
            let end = self.arcs[i].end();
            let (via, last) = self.taken(i);
            // The packed counts are at most 12 bits.
            let counts = (end.straight as u16, end.diagonal as u16);
            Arc::new(
                end.to,
                via,
                counts,
                arc::first_hop(self.arcs[i].hops()),
                last,
            )
        })
    }

    /// The arcs of [`Levels::arcs`] as the search reads them: packed (the hop byte by
    /// [`PackedArc::hops`], the far end and the weight by [`PackedArc::end`]), and the
    /// index of the first arc for [`Levels::taken`].
    #[inline]
    pub fn arc_ends(&self, id: u32) -> (&[PackedArc], usize) {
        let r = self.range(id);
        (&self.arcs[r.clone()], r.start)
    }

    /// [`Levels::arc_ends`] of `id`, or no arcs when the set of sectors `turns` (see
    /// [`allows`](crate::hpa::subgoals::allows)) allows the first hop of none of them: one
    /// test of a subgoal's summary then spares the test of each of its arcs (6 % of
    /// the expansions of a corner query on den520d, 15 % on Aftershock, 19 % on
    /// Expedition, whose arcs are 5 %, 12 % and 19 % of those the search looks at).
    #[inline]
    pub fn arcs_allowed(&self, id: u32, turns: u16) -> (&[PackedArc], usize) {
        match self.first_hops[id as usize] & turns {
            0 => (&[], 0),
            _ => self.arc_ends(id),
        }
    }

    /// Whether the set of sectors `turns` (see [`allows`](crate::hpa::subgoals::allows))
    /// allows the first hop of one of subgoal `id`'s arcs: whether [`Levels::arcs_allowed`]
    /// would give any. The exact search files a subgoal it reaches only when it does, or
    /// when the goal's side marked it (see `SearchContext::relax_exact`).
    #[inline(always)]
    pub fn leads_on(&self, id: u32, turns: u16) -> bool {
        self.first_hops[id as usize] & turns != 0
    }

    /// The middle (or [`DIRECT`]) and the last hop's sector of arc `i`.
    // Always inlined: the search calls it for every relaxation that improves a subgoal,
    // and a direct edge (most of them) needs only the byte just read.
    #[inline(always)]
    pub fn taken(&self, i: usize) -> (u32, Sector) {
        let hops = self.arcs[i].hops();
        if hops & SHORTCUT == 0 {
            // A direct edge is one hop: its last is its first.
            (DIRECT, hops)
        } else {
            self.shortcuts.get(i)
        }
    }

    /// The subgoal-graph hops that the edge of the levels between `a` and `b` with middle
    /// `via` ([`DIRECT`] for no shortcut) stands for, handed to `hop` in order after `a`:
    /// the inner subgoals, then `b`. The search knows the middle of the edges it took; the
    /// middle subgoal was contracted before both ends, so its edges to them are among its
    /// own upward arcs, a short list read once for both, and no other list is searched.
    /// Unpacked in a loop, the second halves waiting on `stack` (cleared first; at most
    /// [`LEVELS`] deep, as each middle's level is below its ends'), so a caller that keeps
    /// the stack allocates nothing.
    #[inline]
    pub fn unpack(
        &self,
        (a, via, b): (u32, u32, u32),
        stack: &mut Vec<(u32, u32, u32)>,
        mut hop: impl FnMut(u32),
    ) {
        if via == DIRECT {
            // Most edges: one hop, the stack untouched.
            hop(b);
            return;
        }
        stack.clear();
        let mut edge = (a, via, b);
        loop {
            let (a, via, b) = edge;
            #[cfg(debug_assertions)]
            assert_eq!(via, self.middle(a, b), "the middle of the edge {a} — {b}");
            if via != DIRECT {
                let (to_a, to_b) = self.middles_to(via, a, b);
                stack.push((via, to_b, b));
                edge = (a, to_a, via);
                continue;
            }
            hop(b);
            match stack.pop() {
                Some(next) => edge = next,
                None => return,
            }
        }
    }

    /// The middles (or [`DIRECT`]) of the upward arcs of `via` to `a` and to `b`, found in
    /// one pass over its list by their far ends alone: only the two found have their
    /// middles read (decoding every arc's middle and hops cost a corner query on
    /// w_woundedcoast 4 %).
    #[inline]
    fn middles_to(&self, via: u32, a: u32, b: u32) -> (u32, u32) {
        let r = self.range(via);
        let (mut at_a, mut at_b) = (None, None);
        for (i, arc) in self.arcs[r.clone()].iter().enumerate() {
            let to = arc.to();
            if to == a {
                at_a = Some(r.start + i);
                if at_b.is_some() {
                    break;
                }
            } else if to == b {
                at_b = Some(r.start + i);
                if at_a.is_some() {
                    break;
                }
            }
        }
        let middle = |at: Option<usize>| at.map_or(DIRECT, |i| self.taken(i).0);
        (middle(at_a), middle(at_b))
    }

    /// The middle of the edge of the levels between `a` and `b`, looked up in both ends'
    /// lists: what [`Levels::unpack`] is checked against in debug builds.
    #[cfg(debug_assertions)]
    fn middle(&self, a: u32, b: u32) -> u32 {
        self.arcs(a)
            .find(|arc| arc.to == b)
            .or_else(|| self.arcs(b).find(|arc| arc.to == a))
            .map_or(DIRECT, |arc| arc.via)
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.local.capacity() * 8
            + self.level.capacity()
            + self.offsets.capacity() * 4
            + self.arcs.capacity() * std::mem::size_of::<PackedArc>()
            + self.shortcuts.memory_bytes()
            + self.first_hops.capacity() * 2
    }

    /// Number of arcs.
    pub fn arc_count(&self) -> usize {
        self.arcs.len()
    }

    /// Number of global (uncontracted) subgoal slots.
    pub fn global_count(&self, graph: &SubgoalGraph) -> usize {
        (0..self.offsets.len() as u32 - 1)
            .filter(|&id| graph.is_live(id) && !self.is_local(id))
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::arc::{allows_hops, hop_turns};
    use super::{Levels, PackedArc};
    use crate::grid::Grid;
    use crate::hpa::subgoals::SubgoalGraph;
    use proptest::prelude::*;

    proptest! {
        /// Every subgoal's arcs that a set of sectors lets the search take are the same
        /// through [`Levels::arcs_allowed`] (which skips a subgoal none of whose first
        /// hops the set holds) as through [`Levels::arc_ends`], in the same order at the
        /// same indices, on a random map's levels, for the empty and the full set, each
        /// single sector and random sets.
        #[test]
        fn allowed_arcs_are_the_arcs_the_test_takes(
            (w, h, blocked) in crate::grid::arb_blocked_cells(4..40, 0.3),
            random in prop::collection::vec(any::<u16>(), 8),
        ) {
            let grid = Grid::from_fn(w, h, |x, y| !blocked[(y * w + x) as usize]);
            let graph = SubgoalGraph::build(&grid);
            let levels = Levels::build(&graph).expect("a small map's arcs fit");
            let sets = [0, u16::MAX].into_iter().chain((0..16).map(|s| 1 << s)).chain(random);
            let taken = |(arcs, base): (&[PackedArc], usize), turns: u16| -> Vec<(usize, PackedArc)> {
                let turns = hop_turns(turns);
                let kept = arcs.iter().enumerate().filter(|(_, a)| allows_hops(turns, a.hops()));
                kept.map(|(k, &a)| (base + k, a)).collect()
            };
            for turns in sets {
                for id in 0..graph.capacity() as u32 {
                    let want = taken(levels.arc_ends(id), turns);
                    prop_assert_eq!(taken(levels.arcs_allowed(id, turns), turns), want);
                }
            }
        }
    }
}
