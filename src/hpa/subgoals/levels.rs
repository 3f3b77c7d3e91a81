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
//! so far, no longer than `w(a, v) + w(v, b)`), or one of at most [`MAX_SHORTCUTS`]
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
//! arcs are shortcuts).
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

use super::ids::count_sparse;
use super::taut::{reversed, sector, Sector};
use super::SubgoalGraph;
use crate::geom::Cell;
use crate::hpa::side_by_side::join;
use std::f64::consts::SQRT_2;
use std::time::Instant;

/// Shortcuts one contraction may add: more would trade few expansions for many edges.
/// Measured with [`MAX_LEVEL`] (subgoals bench, shared machine): 2–8 with levels 3–6 give
/// the same times within noise; 32 with 12 and 100 with 30 contract 64–76 % of the
/// subgoals but the upward edges double and queries slow down 10–50 %.
const MAX_SHORTCUTS: usize = 4;
/// The highest level a contracted subgoal may have: it bounds the upward searches.
const MAX_LEVEL: u8 = 6;
/// Levels a local may have: 0 to [`MAX_LEVEL`] − 1 (a subgoal at [`MAX_LEVEL`] stays
/// global).
pub(crate) const LEVELS: usize = MAX_LEVEL as usize;
/// The middle of an edge that is no shortcut.
pub(crate) const DIRECT: u32 = u32::MAX;
/// What two path lengths may differ by and still count as equal: distinct octile sums
/// on maps below 2^16 cells a side differ by far more.
const TIE: f64 = 1e-7;

/// Neighbours from which a contraction tests the pairs most likely to need its subgoal
/// first (see [`Contraction::likely_pairs_refuse`]): subgoals of fewer are mostly
/// contracted, after a test of every pair.
const LIKELY_FIRST_DEGREE: usize = 12;

/// IDs whose edge lists [`direct_lists`] makes on one thread.
const LISTS_CHUNK: usize = 4096;

/// Subgoals contracted between two looks at the clock in a sliced build.
const CLOCK_EVERY: usize = 8;

/// An edge of the levels: its far end, for a shortcut its middle subgoal, its weight as
/// counts of straight and diagonal steps (and as their length, worked out once: the
/// contraction's witness tests read it millions of times), and the sectors (see
/// `taut.rs`) of the first hop of the subgoal-graph path it stands for and of the last,
/// which the search's taut-path pruning reads (24 bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Arc {
    pub to: u32,
    pub via: u32,
    straight: u16,
    diagonal: u16,
    /// The sector of the first hop, out of the arc's source.
    pub first: Sector,
    /// The sector of the last hop, into [`Arc::to`].
    pub last: Sector,
    /// `straight + diagonal × √2`.
    length: f64,
}

impl Arc {
    /// The arc to `to` through `via` of those step counts and hops' sectors.
    fn new(
        to: u32,
        via: u32,
        (straight, diagonal): (u16, u16),
        first: Sector,
        last: Sector,
    ) -> Self {
        Arc {
            to,
            via,
            straight,
            diagonal,
            first,
            last,
            length: straight as f64 + diagonal as f64 * SQRT_2,
        }
    }

    /// The edge between subgoals at `a` and `b`, direct: their octile distance.
    fn direct(to: u32, a: Cell, b: Cell) -> Self {
        let (dx, dy) = (a.x.abs_diff(b.x), a.y.abs_diff(b.y));
        // Levels are built only on maps at most 2^16 cells a side (`levels_fit`).
        debug_assert!(dx.max(dy) <= u16::MAX as u32, "a direct edge fits");
        let hop = sector(a, b);
        let counts = ((dx.max(dy) - dx.min(dy)) as u16, dx.min(dy) as u16);
        Arc::new(to, DIRECT, counts, hop, hop)
    }

    /// The same edge walked from its far end back to `to`.
    fn reversed(self, to: u32) -> Self {
        Arc {
            to,
            first: reversed(self.last),
            last: reversed(self.first),
            ..self
        }
    }

    /// The shortcut from the far end of `first` to that of `second` through `via`, unless
    /// either of its step counts would exceed `limit`.
    fn joined(first: Arc, second: Arc, via: u32, limit: u16) -> Option<Self> {
        let add = |a: u16, b: u16| {
            u16::try_from(a as u32 + b as u32)
                .ok()
                .filter(|&n| n <= limit)
        };
        let counts = (
            add(first.straight, second.straight)?,
            add(first.diagonal, second.diagonal)?,
        );
        Some(Arc::new(second.to, via, counts, first.first, second.last))
    }

    /// Whether both step counts are at most `limit`.
    fn fits(self, limit: u16) -> bool {
        self.straight.max(self.diagonal) <= limit
    }

    /// The edge's weight in cells.
    #[inline]
    pub fn weight(self) -> f64 {
        self.length
    }
}

/// The bit of an arc's hop byte (see [`first_hop`]) that marks a shortcut.
const SHORTCUT: u8 = 16;

/// The first hop's sector of an arc from its hop byte (see [`Levels::arc_ends`]): arcs'
/// sectors are below 16 (only a query's start has [`NO_HOP`](super::NO_HOP)), so the
/// byte has room for the [`SHORTCUT`] bit.
#[inline]
fn first_hop(hops: u8) -> Sector {
    hops & (SHORTCUT - 1)
}

/// A set of sectors (see [`allows`](super::allows)) as [`allows_hops`] reads it: twice
/// over, so that an arc's hop byte indexes it with or without its [`SHORTCUT`] bit. Made
/// once per expansion, it spares the search a mask for every arc it looks at.
#[inline]
pub(crate) fn hop_turns(turns: u16) -> u32 {
    turns as u32 | (turns as u32) << SHORTCUT
}

/// Whether the set `hop_turns` (see [`hop_turns`]) allows the first hop of the arc with
/// hop byte `hops`.
#[inline]
pub(crate) fn allows_hops(hop_turns: u32, hops: u8) -> bool {
    hop_turns >> hops & 1 == 1
}

/// The part of an [`Arc`] the search reads for every arc of a subgoal it expands that the
/// pruning lets through, unpacked from its [`PackedArc`] by [`PackedArc::end`]: the far
/// end and the weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ArcEnd {
    pub to: u32,
    straight: u32,
    diagonal: u32,
}

impl ArcEnd {
    /// The edge's weight in cells.
    #[inline]
    pub fn weight(self) -> f64 {
        self.straight as f64 + self.diagonal as f64 * SQRT_2
    }
}

/// Bits of a [`PackedArc`] that hold its hop byte (see [`first_hop`]): the sector, below
/// 16, and the [`SHORTCUT`] bit.
const HOP_BITS: u32 = 5;
/// Bits of a [`PackedArc`]'s far end: graphs of up to 2^19 (524,288) ID slots.
const TO_BITS: u32 = 19;
/// Bits of each of a [`PackedArc`]'s two step counts.
const COUNT_BITS: u32 = 12;
/// The most steps of either kind an arc of the levels may count: the contraction keeps
/// global a subgoal whose shortcut would count more, and does not start when a direct
/// edge does (a map more than 4,096 cells a side).
const COUNT_LIMIT: u16 = (1 << COUNT_BITS) - 1;
/// The most ID slots a graph with levels may have.
const ID_LIMIT: usize = 1 << TO_BITS;
/// Where a [`PackedArc`]'s straight steps start: above its far end.
const STRAIGHT_AT: u32 = HOP_BITS + TO_BITS;
/// Where its diagonal steps start: above the straight ones, up to the 48th bit.
const DIAGONAL_AT: u32 = STRAIGHT_AT + COUNT_BITS;
const _: () = assert!(DIAGONAL_AT + COUNT_BITS == 48, "the fields fill 48 bits");

/// An arc of the levels in 6 bytes (little-endian, aligned to a byte, so that a slice of
/// them has no padding), its fields at fixed places, from the lowest bit up: its hop byte
/// in [`HOP_BITS`], its far end in [`TO_BITS`], its straight and its diagonal steps in
/// [`COUNT_BITS`] each. The search reads the hop byte of every arc of a subgoal it expands
/// (the first byte), and the rest of those the pruning lets through: each field is one
/// load of the 32 bits (the diagonal steps: the 16) that hold it, a shift and a mask by
/// constants (see [`PackedArc::end`]). Session 31's layout sized the fields by the graph's ID capacity
/// and shifted them by amounts kept in the levels: the search spent 3–5 % more
/// instructions unpacking them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PackedArc([u8; 6]);

impl PackedArc {
    /// The arc's hop byte (see [`first_hop`]): its lowest bits.
    #[inline]
    pub fn hops(self) -> u8 {
        self.0[0] & ((1 << HOP_BITS) - 1)
    }

    /// `arc` with hop byte `hops` packed, or `None` when its far end or a count does not
    /// fit (the contraction keeps the IDs below [`ID_LIMIT`] and the counts within
    /// [`COUNT_LIMIT`]).
    fn pack(arc: &Arc, hops: u8) -> Option<PackedArc> {
        let fits = (arc.to as usize) < ID_LIMIT && arc.fits(COUNT_LIMIT);
        if !fits || u32::from(hops) >= 1 << HOP_BITS {
            return None;
        }
        let bits = u64::from(hops)
            | u64::from(arc.to) << HOP_BITS
            | u64::from(arc.straight) << STRAIGHT_AT
            | u64::from(arc.diagonal) << DIAGONAL_AT;
        let mut bytes = [0; 6];
        bytes.copy_from_slice(&bits.to_le_bytes()[..6]);
        Some(PackedArc(bytes))
    }

    /// The far end and the weight of the arc.
    #[inline]
    pub fn end(self) -> ArcEnd {
        let [b0, b1, b2, b3, b4, b5] = self.0;
        // Bits 0–31, 16–47 and 32–47: one load each.
        let low = u32::from_le_bytes([b0, b1, b2, b3]);
        let high = u32::from_le_bytes([b2, b3, b4, b5]);
        let top = u16::from_le_bytes([b4, b5]);
        ArcEnd {
            to: low >> HOP_BITS & ((1 << TO_BITS) - 1),
            straight: high >> (STRAIGHT_AT - 16) & COUNT_LIMIT as u32,
            // The highest field: nothing lies above it.
            diagonal: (top >> (DIAGONAL_AT - 32)) as u32,
        }
    }
}

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

    /// The upward edges of local `id`, or the edges of global `id` to other globals.
    #[inline]
    pub fn arcs(&self, id: u32) -> impl Iterator<Item = Arc> + '_ {
        self.range(id).map(|i| {
            let end = self.arcs[i].end();
            let (via, last) = self.taken(i);
            // The packed counts are at most 12 bits.
            let counts = (end.straight as u16, end.diagonal as u16);
            Arc::new(end.to, via, counts, first_hop(self.arcs[i].hops()), last)
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
    /// `via` ([`DIRECT`] for no shortcut) stands for, appended to `out` after `a`: the inner
    /// subgoals, then `b`. The search knows the middle of the edges it took; the middle
    /// subgoal was contracted before both ends, so its edges to them are among its own
    /// upward arcs, a short list, and no other list is searched.
    pub fn unpack(&self, a: u32, via: u32, b: u32, out: &mut Vec<u32>) {
        #[cfg(debug_assertions)]
        assert_eq!(via, self.middle(a, b), "the middle of the edge {a} — {b}");
        if via == DIRECT {
            out.push(b);
            return;
        }
        let middle_of = |end: u32| {
            self.arcs(via)
                .find(|arc| arc.to == end)
                .map_or(DIRECT, |arc| arc.via)
        };
        self.unpack(a, middle_of(a), via, out);
        self.unpack(via, middle_of(b), b, out);
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

/// A contraction under way (see the module docs), which [`Contraction::run`] carries on
/// in slices over the unchanged subgoal graph it was started on.
#[derive(Clone, Debug)]
pub(crate) struct Contraction {
    /// The graph left so far.
    adj: Vec<Vec<Arc>>,
    /// The upward edges of each local.
    up: Vec<Vec<Arc>>,
    local: Vec<bool>,
    level: Vec<u8>,
    /// The subgoals to visit, and how many have been.
    order: Vec<u32>,
    visited: usize,
    /// The witness tests' tables, for the subgoals decided on this thread.
    witnesses: Witnesses,
    /// Each subgoal's cell, for the likely pairs (see [`Contraction::likely_pairs_refuse`]).
    cells: Vec<Cell>,
    /// Neighbours from which the likely pairs are tested first: [`LIKELY_FIRST_DEGREE`]
    /// (tests lower it, so that every subgoal's are).
    likely_from: usize,
}

/// The tables a contraction's witness tests write as they decide a subgoal.
#[derive(Clone, Debug)]
struct Witnesses {
    /// The shortest edge from the current first neighbour to each subgoal (infinite
    /// between two tests).
    reach: Vec<f64>,
    /// The [`octant_mask`] of each neighbour of the subgoal being decided.
    octants: Vec<u8>,
}

impl Witnesses {
    /// Tables for a graph of `n` ID slots.
    fn new(n: usize) -> Self {
        Witnesses {
            reach: vec![f64::INFINITY; n],
            octants: Vec::new(),
        }
    }

    /// Heap bytes held.
    fn memory_bytes(&self) -> usize {
        self.reach.capacity() * 8 + self.octants.capacity()
    }
}

/// Writes into `reach` the weight of the edge from `a` to each of its neighbours but `v`
/// (`reach[v]` stays infinite, so no witness passes through `v`).
#[inline(always)]
fn mark_reach(adj: &[Vec<Arc>], reach: &mut [f64], a: u32, v: u32) {
    for arc in &adj[a as usize] {
        if arc.to != v {
            let r = &mut reach[arc.to as usize];
            *r = r.min(arc.weight());
        }
    }
}

/// The octants (bit `k`: between directions `k` and `k + 1` of `taut.rs`, both edges
/// included) that hold the hop from `v` to `b` when `arc`, from `v` to `b`, weighs their
/// octile distance; 0 when it is a longer shortcut. The octile distance is a norm whose
/// unit ball has the eight octants as its faces' cones, so `|p + q| = |p| + |q|` exactly
/// when `p` and `q` share an octant: `v` lies taut between `a` and `b` when the masks of
/// the hop into `v` (the hop out to `a` turned half round) and of the hop out to `b` meet.
fn octant_mask(v: Cell, b: Cell, arc: &Arc) -> u8 {
    let (dx, dy) = (v.x.abs_diff(b.x), v.y.abs_diff(b.y));
    let octile = (dx.max(dy) - dx.min(dy), dx.min(dy));
    if (u32::from(arc.straight), u32::from(arc.diagonal)) != octile {
        return 0;
    }
    match sector(v, b) {
        // A straight or diagonal hop lies on the edge of two octants.
        s @ 0..8 => (1 << s) | (1 << ((s + 7) % 8)),
        s => 1 << (s - 8),
    }
}

/// Sets `reach` back to infinite where [`mark_reach`] wrote it for `a`.
#[inline(always)]
fn clear_reach(adj: &[Vec<Arc>], reach: &mut [f64], a: u32) {
    for arc in &adj[a as usize] {
        reach[arc.to as usize] = f64::INFINITY;
    }
}

/// Whether the neighbour marked in `reach` (see [`mark_reach`]) reaches `b` in at most
/// `most`, directly or through one middle subgoal. A middle it does not reach is skipped
/// before its edge's weight is worked out (every weight is positive).
#[inline(always)]
fn witnessed(adj: &[Vec<Arc>], reach: &[f64], b: u32, most: f64) -> bool {
    reach[b as usize] <= most
        || adj[b as usize].iter().any(|arc| {
            let r = reach[arc.to as usize];
            r < most && r + arc.weight() <= most
        })
}

/// Whether every direct edge of `graph` counts at most [`COUNT_LIMIT`] steps of each kind,
/// told before a contraction allocates anything (an edited graph that cannot pack its arcs
/// is asked again at the next refresh after every edit). A direct edge counts at most
/// `max(dx, dy)` steps of either kind, so subgoals within a box [`COUNT_LIMIT`] wide and
/// high (every map up to 4,096 cells a side) settle it without looking at an edge.
fn direct_edges_fit(graph: &SubgoalGraph) -> bool {
    let live = (0..graph.capacity() as u32).filter(|&id| graph.is_live(id));
    let cells = || live.clone().map(|id| graph.cell(id));
    let span = |axis: fn(Cell) -> u32| {
        let (low, high) = cells().fold((u32::MAX, 0), |(l, h), c| (l.min(axis(c)), h.max(axis(c))));
        high.saturating_sub(low)
    };
    let limit = u32::from(COUNT_LIMIT);
    if span(|c| c.x) <= limit && span(|c| c.y) <= limit {
        return true;
    }
    live.clone().all(|id| {
        let here = graph.cell(id);
        graph
            .neighbours(id)
            .iter()
            .all(|&to| Arc::direct(to, here, graph.cell(to)).fits(COUNT_LIMIT))
    })
}

/// The direct edges of the subgoals `ids` as arcs, one list per ID (empty for a vacant
/// one): with the `parallel` feature ranges of [`LISTS_CHUNK`] IDs side by side.
fn direct_lists(graph: &SubgoalGraph, ids: std::ops::Range<u32>) -> Vec<Vec<Arc>> {
    if cfg!(feature = "parallel") && ids.len() > LISTS_CHUNK {
        let middle = ids.start + (ids.end - ids.start) / 2;
        let (mut first, mut second) = join(
            || direct_lists(graph, ids.start..middle),
            || direct_lists(graph, middle..ids.end),
        );
        first.append(&mut second);
        return first;
    }
    ids.map(|id| {
        if !graph.is_live(id) {
            return Vec::new();
        }
        let here = graph.cell(id);
        graph
            .neighbours(id)
            .iter()
            .map(|&to| Arc::direct(to, here, graph.cell(to)))
            .collect()
    })
    .collect()
}

impl Contraction {
    /// Whether [`Contraction::new`] makes `graph`'s edge lists in ranges side by side
    /// (see [`direct_lists`]).
    pub fn splits_lists(graph: &SubgoalGraph) -> bool {
        cfg!(feature = "parallel") && graph.capacity() > LISTS_CHUNK
    }

    /// A contraction of `graph`'s subgoals that has not begun, or `None` when the levels'
    /// arcs could not be packed: more IDs than [`ID_LIMIT`], or a direct edge with more
    /// steps than [`COUNT_LIMIT`] (see [`PackedArc`]).
    pub fn new(graph: &SubgoalGraph) -> Option<Self> {
        let n = graph.capacity();
        if n > ID_LIMIT || !direct_edges_fit(graph) {
            return None;
        }
        let adj = direct_lists(graph, 0..n as u32);
        // By degree, then by cell among equal degrees, so that the levels do not depend on
        // the IDs, which edits hand out differently from a fresh build. (Maps with levels
        // are at most 2^16 cells a side: the key holds the cell in 32 bits. Each key is
        // worked out once; the cells are distinct, so the order is the same as a sort by
        // degree and cell.)
        let mut keyed: Vec<(u64, u32)> = (0..n as u32)
            .filter(|&id| graph.is_live(id))
            .map(|id| {
                let c = graph.cell(id);
                debug_assert!(c.x.max(c.y) <= u32::from(u16::MAX), "a level map's cell");
                let degree = graph.neighbours(id).len() as u64;
                (degree << 32 | u64::from(c.y) << 16 | u64::from(c.x), id)
            })
            .collect();
        keyed.sort_unstable();
        let order = keyed.into_iter().map(|(_, id)| id).collect();
        Some(Contraction {
            adj,
            up: vec![Vec::new(); n],
            local: vec![false; n],
            level: vec![0; n],
            order,
            visited: 0,
            witnesses: Witnesses::new(n),
            cells: graph.cells.clone(),
            likely_from: LIKELY_FIRST_DEGREE,
        })
    }

    /// Subgoals visited so far (contracted or kept global): the work done.
    pub fn visited(&self) -> usize {
        self.visited
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        let lists: usize = self
            .adj
            .iter()
            .chain(&self.up)
            .map(|l| l.capacity() * std::mem::size_of::<Arc>() + std::mem::size_of::<Vec<Arc>>())
            .sum();
        lists
            + self.local.capacity()
            + self.level.capacity()
            + self.order.capacity() * 4
            + self.witnesses.memory_bytes()
            + self.cells.capacity() * std::mem::size_of::<Cell>()
    }

    /// Carries the contraction on until it is done (then `true`) or `deadline` passes.
    /// `graph` is the one it was started on.
    pub fn run(&mut self, graph: &SubgoalGraph, deadline: Option<Instant>) -> bool {
        debug_assert_eq!(graph.capacity(), self.adj.len(), "the graph changed");
        let mut shortcuts: Vec<(u32, Arc)> = Vec::new();
        while self.visited < self.order.len() {
            let v = self.order[self.visited];
            self.visited += 1;
            if self.decide(v, &mut shortcuts) {
                self.contract(v, &shortcuts);
            }
            if self.visited % CLOCK_EVERY == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
                return self.visited == self.order.len();
            }
        }
        true
    }

    /// Whether `v` is to be contracted on the graph left so far (its level below
    /// [`MAX_LEVEL`] and [`Contraction::shortcuts`] it needs fitting), with those shortcuts
    /// in `out`.
    fn decide(&mut self, v: u32, out: &mut Vec<(u32, Arc)>) -> bool {
        let mut witnesses = std::mem::replace(&mut self.witnesses, Witnesses::new(0));
        let contracted = self.decide_with(&mut witnesses, v, out);
        self.witnesses = witnesses;
        contracted
    }

    /// [`Contraction::decide`] with the tables `witnesses`: it reads the graph alone, so
    /// threads may decide subgoals side by side, each with its own tables.
    fn decide_with(&self, witnesses: &mut Witnesses, v: u32, out: &mut Vec<(u32, Arc)>) -> bool {
        out.clear();
        self.level[v as usize] < MAX_LEVEL && self.shortcuts(witnesses, v, out)
    }

    /// The shortcuts contracting `v` needs, into `out` as (from, arc), or `false` (and
    /// `out` left holding some of them, or none) when there would be more than
    /// [`MAX_SHORTCUTS`] or one would count more steps than the packed arcs hold.
    fn shortcuts(&self, witnesses: &mut Witnesses, v: u32, out: &mut Vec<(u32, Arc)>) -> bool {
        out.clear();
        if self.adj[v as usize].len() >= self.likely_from && self.likely_pairs_refuse(witnesses, v)
        {
            return false;
        }
        let limit = COUNT_LIMIT;
        let (adj, reach) = (&self.adj, &mut witnesses.reach);
        let around = &adj[v as usize];
        // The last neighbour has no pair after it: it is not marked.
        for (i, x) in around
            .iter()
            .enumerate()
            .take(around.len().saturating_sub(1))
        {
            let a = x.to;
            mark_reach(adj, reach, a, v);
            let to_a = x.weight();
            let mut fits = true;
            for y in &around[i + 1..] {
                if !witnessed(adj, reach, y.to, to_a + y.weight() + TIE) {
                    // `x` leads from `v` to `a`: the same steps lead back.
                    match Arc::joined(x.reversed(v), *y, v, limit) {
                        Some(arc) => out.push((a, arc)),
                        None => fits = false,
                    }
                    // Past the limit the answer is known: the other pairs are not looked
                    // at (the build spends most of its contraction time on subgoals that
                    // stay global).
                    if !fits || out.len() > MAX_SHORTCUTS {
                        break;
                    }
                }
            }
            clear_reach(adj, reach, a);
            if !fits || out.len() > MAX_SHORTCUTS {
                return false;
            }
        }
        true
    }

    /// Whether the pairs of `v`'s neighbours most likely to need `v` already refuse its
    /// contraction: more than [`MAX_SHORTCUTS`] of them unwitnessed, or one whose shortcut
    /// would not fit. Only the count of unwitnessed pairs and their fit decide, not the
    /// order the pairs are tested in, so [`Contraction::shortcuts`] may refuse on this
    /// answer before its own pass. The likely pairs are those `v` lies *taut* between
    /// (`w(a, v) + w(v, b)` is the octile distance from `a` to `b`: the hops from `a` to
    /// `v` and from `v` to `b` share an octant, see [`octant_mask`]) and those joined to
    /// `v` by a shortcut longer than their octile distance. Around the subgoals Cauldron
    /// keeps global, 72 % and 30 % of them are unwitnessed against 11 % of all pairs
    /// (8.9 and 5.6 such pairs a subgoal, of 276), so most of those subgoals are told
    /// after a few tests instead of about a hundred.
    fn likely_pairs_refuse(&self, witnesses: &mut Witnesses, v: u32) -> bool {
        let limit = COUNT_LIMIT;
        let (adj, cells) = (&self.adj, &self.cells);
        let (reach, octants) = (&mut witnesses.reach, &mut witnesses.octants);
        let around = &adj[v as usize];
        let at_v = cells[v as usize];
        octants.clear();
        octants.extend(
            around
                .iter()
                .map(|x| octant_mask(at_v, cells[x.to as usize], x)),
        );
        let mut unwitnessed = 0;
        for (i, x) in around.iter().enumerate() {
            let a = x.to;
            // The octants of the hop from `a` into `v`.
            let inward = octants[i].rotate_left(4);
            let mut marked = false;
            for (y, &outward) in around[i + 1..].iter().zip(&octants[i + 1..]) {
                if inward != 0 && outward != 0 && inward & outward == 0 {
                    continue;
                }
                if !marked {
                    mark_reach(adj, reach, a, v);
                    marked = true;
                }
                if !witnessed(adj, reach, y.to, x.weight() + y.weight() + TIE) {
                    unwitnessed += match Arc::joined(x.reversed(v), *y, v, limit) {
                        Some(_) => 1,
                        None => MAX_SHORTCUTS + 1,
                    };
                    if unwitnessed > MAX_SHORTCUTS {
                        clear_reach(adj, reach, a);
                        return true;
                    }
                }
            }
            if marked {
                clear_reach(adj, reach, a);
            }
        }
        false
    }

    /// [`Contraction::shortcuts`] as it was written first, with no early skip in the
    /// witness test: the oracle its faster test is held to.
    #[cfg(test)]
    fn shortcuts_reference(&mut self, v: u32, out: &mut Vec<(u32, Arc)>) -> bool {
        out.clear();
        let limit = COUNT_LIMIT;
        let (adj, reach) = (&self.adj, &mut self.witnesses.reach);
        let around = &adj[v as usize];
        let mut fits = true;
        for (i, x) in around.iter().enumerate() {
            let a = x.to;
            for arc in &adj[a as usize] {
                if arc.to != v {
                    let r = &mut reach[arc.to as usize];
                    *r = r.min(arc.weight());
                }
            }
            for y in &around[i + 1..] {
                let b = y.to;
                let need = x.weight() + y.weight();
                let witnessed = reach[b as usize] <= need + TIE
                    || adj[b as usize].iter().any(|arc| {
                        arc.to != v && reach[arc.to as usize] + arc.weight() <= need + TIE
                    });
                if !witnessed {
                    match Arc::joined(x.reversed(v), *y, v, limit) {
                        Some(arc) => out.push((a, arc)),
                        None => fits = false,
                    }
                    if !fits || out.len() > MAX_SHORTCUTS {
                        break;
                    }
                }
            }
            for arc in &adj[a as usize] {
                reach[arc.to as usize] = f64::INFINITY;
            }
            if !fits || out.len() > MAX_SHORTCUTS {
                return false;
            }
        }
        true
    }

    /// Makes `v` local: its edges become its upward ones, its `shortcuts` join its
    /// neighbours.
    fn contract(&mut self, v: u32, shortcuts: &[(u32, Arc)]) {
        self.local[v as usize] = true;
        let edges = std::mem::take(&mut self.adj[v as usize]);
        let above = self.level[v as usize] + 1;
        for x in &edges {
            let l = &mut self.level[x.to as usize];
            *l = (*l).max(above);
            self.adj[x.to as usize].retain(|arc| arc.to != v);
        }
        self.up[v as usize] = edges;
        for &(a, arc) in shortcuts {
            let b = arc.to;
            for (p, q) in [(a, b), (b, a)] {
                let arc = if p == a { arc } else { arc.reversed(q) };
                match self.adj[p as usize].iter_mut().find(|old| old.to == q) {
                    Some(old) if old.weight() > arc.weight() => *old = arc,
                    Some(_) => {}
                    None => self.adj[p as usize].push(arc),
                }
            }
        }
    }

    /// The levels of a finished contraction.
    pub fn finish(self) -> Levels {
        let n = self.adj.len();
        let mut levels = Levels {
            local: vec![0; n.div_ceil(64)],
            level: self.level,
            offsets: Vec::with_capacity(n + 1),
            ..Levels::default()
        };
        levels.offsets.push(0);
        for id in 0..n {
            let arcs = if self.local[id] {
                levels.local[id / 64] |= 1 << (id % 64);
                &self.up[id]
            } else {
                &self.adj[id]
            };
            for arc in arcs {
                debug_assert!(
                    arc.first < SHORTCUT && arc.last < SHORTCUT,
                    "hops have sectors"
                );
                let i = levels.arcs.len();
                let hops = if arc.via == DIRECT {
                    debug_assert_eq!(arc.first, arc.last, "a direct edge is one hop");
                    arc.first
                } else {
                    levels.shortcuts.push(i, arc.via, arc.last);
                    arc.first | SHORTCUT
                };
                // The IDs fit, and the contraction kept the counts within the limit.
                let packed = PackedArc::pack(arc, hops).expect("an arc fits its packing");
                levels.arcs.push(packed);
            }
            levels.offsets.push(levels.arcs.len() as u32);
        }
        levels.arcs.shrink_to_fit();
        levels.shortcuts.finish(levels.arcs.len());
        levels
    }
}

/// The middles and last hops of the shortcuts among the arcs, by arc index: only a few
/// arcs are shortcuts (2–4 % on the StarCraft maps), so rather than 5 bytes an arc, one
/// bit an arc says whether it is one, and the shortcuts' middles and last hops are listed
/// in arc order. A shortcut's entry is found by its rank among the shortcuts: the count
/// kept for its word of bits plus the set bits before it in that word (one population
/// count), as `CellIds` finds an ID.
#[derive(Clone, Debug, Default)]
struct Shortcuts {
    /// One bit per arc, arc `i` in word `i / 64`: whether it is a shortcut.
    marks: Vec<u64>,
    /// Per word of `marks`: the shortcuts in the words before it.
    before: Vec<u32>,
    /// The middles of the shortcuts, in arc order.
    vias: Vec<u32>,
    /// The sectors of the shortcuts' last hops, in arc order.
    lasts: Vec<Sector>,
}

impl Shortcuts {
    /// Marks arc `i`, after every arc marked so far, as a shortcut through `via` whose last
    /// hop has sector `last`.
    fn push(&mut self, i: usize, via: u32, last: Sector) {
        self.cover(i + 1);
        self.marks[i / 64] |= 1 << (i % 64);
        self.vias.push(via);
        self.lasts.push(last);
    }

    /// Covers `arcs` arcs, those not marked yet no shortcuts.
    fn cover(&mut self, arcs: usize) {
        while self.marks.len() < arcs.div_ceil(64) {
            self.marks.push(0);
            self.before.push(self.vias.len() as u32);
        }
    }

    /// Covers all `arcs` arcs, those not marked yet no shortcuts, and drops spare
    /// capacity.
    fn finish(&mut self, arcs: usize) {
        self.cover(arcs);
        self.marks.shrink_to_fit();
        self.before.shrink_to_fit();
        self.vias.shrink_to_fit();
        self.lasts.shrink_to_fit();
    }

    /// The middle and the last hop's sector of arc `i`, a shortcut (kept out of line: the
    /// search's relaxation inlines the test for a direct edge, not this).
    #[inline(never)]
    fn get(&self, i: usize) -> (u32, Sector) {
        let (word, b) = (self.marks[i / 64], i % 64);
        debug_assert!(word >> b & 1 == 1, "arc {i} is a shortcut");
        let rank = self.before[i / 64] as usize + count_sparse(word & ((1u64 << b) - 1));
        (self.vias[rank], self.lasts[rank])
    }

    /// Heap bytes held.
    fn memory_bytes(&self) -> usize {
        self.marks.capacity() * 8
            + self.before.capacity() * 4
            + self.vias.capacity() * 4
            + self.lasts.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::{
        allows_hops, first_hop, hop_turns, Arc, Contraction, PackedArc, Shortcuts, Witnesses,
        COUNT_BITS, COUNT_LIMIT, DIRECT, HOP_BITS, ID_LIMIT, LIKELY_FIRST_DEGREE, MAX_LEVEL,
        SHORTCUT, TO_BITS,
    };
    use crate::grid::Grid;
    use crate::hpa::subgoals::SubgoalGraph;
    use proptest::prelude::*;

    /// The fields fill the 48 bits; a 1024² map's graph (16,000 IDs) and a direct edge
    /// across a 4,096² map fit.
    #[test]
    fn packed_fields_fit_the_maps() {
        assert_eq!(HOP_BITS + TO_BITS + 2 * COUNT_BITS, 48);
        assert!(ID_LIMIT >= 16_000 && usize::from(COUNT_LIMIT) >= 4_095);
    }

    /// A corridor of one row between two pillars: its subgoals' direct edge along the row
    /// counts `width − 5` straight steps. It fits up to [`COUNT_LIMIT`], and past it the
    /// contraction does not start (told by the edges, since the subgoals' box is wider
    /// than the limit), as when the fit was checked after building the arcs.
    #[test]
    fn a_direct_edge_past_the_count_limit_stops_the_contraction() {
        let limit = u32::from(COUNT_LIMIT);
        for (width, fits) in [(limit + 5, true), (limit + 6, false), (limit + 40, false)] {
            let grid = Grid::from_fn(width, 3, |x, y| !(y == 1 && (x == 1 || x == width - 2)));
            let graph = SubgoalGraph::build(&grid);
            let longest = (0..graph.capacity() as u32)
                .flat_map(|id| graph.neighbours(id).iter().map(move |&to| (id, to)))
                .map(|(a, b)| graph.cell(a).x.abs_diff(graph.cell(b).x))
                .max();
            assert_eq!(longest, Some(width - 5), "width {width}");
            assert_eq!(super::direct_edges_fit(&graph), fits, "width {width}");
            assert_eq!(Contraction::new(&graph).is_some(), fits, "width {width}");
        }
    }

    /// A far end below [`ID_LIMIT`], often at or just below a power of two.
    fn far_end() -> impl Strategy<Value = u32> {
        prop_oneof![
            (0u32..TO_BITS).prop_map(|k| 1u32 << k),
            (1u32..=TO_BITS).prop_map(|k| (1u32 << k) - 1),
            0u32..ID_LIMIT as u32,
        ]
    }

    proptest! {
        /// An arc whose far end and step counts fit packs and reads back (hop byte, far
        /// end, counts) in a slice of arcs whatever its neighbours hold; one with a count
        /// past the limit or a far end past the IDs' is refused.
        #[test]
        fn arcs_pack_and_read_back(
            arcs in prop::collection::vec((far_end(), any::<bool>(), any::<u16>(), any::<u16>(), 0u8..16, any::<bool>()), 1..20),
        ) {
            let mut packed = Vec::new();
            let mut kept = Vec::new();
            for &(to, past, straight, diagonal, first, shortcut) in &arcs {
                // Now and then a far end just past the IDs' limit.
                let to = if past { to | ID_LIMIT as u32 } else { to };
                let arc = Arc::new(to, DIRECT, (straight, diagonal), first, first);
                let hops = first | if shortcut { SHORTCUT } else { 0 };
                let fits = straight <= COUNT_LIMIT && diagonal <= COUNT_LIMIT && !past;
                match PackedArc::pack(&arc, hops) {
                    Some(p) => {
                        prop_assert!(fits);
                        packed.push(p);
                        kept.push((arc, hops));
                    }
                    None => prop_assert!(!fits),
                }
            }
            for (p, (arc, hops)) in packed.iter().zip(&kept) {
                let end = p.end();
                prop_assert_eq!(p.hops(), *hops);
                prop_assert_eq!(first_hop(p.hops()), arc.first);
                prop_assert_eq!((end.to, end.straight, end.diagonal), (arc.to, arc.straight as u32, arc.diagonal as u32));
                prop_assert_eq!(end.weight(), arc.weight());
            }
        }
    }

    /// An arc's hop byte is allowed by a set of sectors exactly when its first hop is,
    /// shortcut or not.
    #[test]
    fn hop_bytes_read_their_first_hop() {
        for turns in [0u16, 1, 0x8001, 0x5a5a, 0xffff, 0x1234] {
            for first in 0..SHORTCUT {
                for hops in [first, first | SHORTCUT] {
                    assert_eq!(first_hop(hops), first);
                    let want = crate::hpa::subgoals::allows(turns, first);
                    assert_eq!(allows_hops(hop_turns(turns), hops), want);
                }
            }
        }
    }

    proptest! {
        /// The witness test with its early skips, and with the likely pairs of a subgoal
        /// of many neighbours tested first, decides every subgoal as the plain one does,
        /// step by step of a whole contraction of a random map's subgoal graph: the same
        /// subgoals contracted, with the same shortcuts in the same order.
        #[test]
        fn shortcuts_equal_the_plain_witness_test(
            (w, h, blocked) in crate::grid::arb_blocked_cells(4..48, 0.3),
            likely_from in prop::sample::select(vec![0, 4, LIKELY_FIRST_DEGREE]),
        ) {
            let grid = Grid::from_fn(w, h, |x, y| !blocked[(y * w + x) as usize]);
            let graph = SubgoalGraph::build(&grid);
            let mut contraction = Contraction::new(&graph).expect("a small map's arcs fit");
            contraction.likely_from = likely_from;
            let (mut got, mut want) = (Vec::new(), Vec::new());
            let mut witnesses = Witnesses::new(contraction.adj.len());
            while contraction.visited < contraction.order.len() {
                let v = contraction.order[contraction.visited];
                contraction.visited += 1;
                if contraction.level[v as usize] >= MAX_LEVEL {
                    continue;
                }
                let fits = contraction.shortcuts(&mut witnesses, v, &mut got);
                prop_assert_eq!(fits, contraction.shortcuts_reference(v, &mut want));
                // A refused contraction's shortcuts are never read.
                if fits {
                    prop_assert_eq!(&got, &want);
                    contraction.contract(v, &got);
                }
            }
        }

        /// Every shortcut's middle and last hop read back as pushed, across word
        /// boundaries, whatever arcs between them are direct.
        #[test]
        fn shortcuts_read_back(arcs in prop::collection::vec(prop::option::weighted(0.3, (0u32..1000, 0u8..16)), 0..400)) {
            let mut shortcuts = Shortcuts::default();
            for (i, arc) in arcs.iter().enumerate() {
                if let Some((via, last)) = *arc {
                    shortcuts.push(i, via, last);
                }
            }
            shortcuts.finish(arcs.len());
            prop_assert_eq!(shortcuts.marks.len(), arcs.len().div_ceil(64));
            for (i, arc) in arcs.iter().enumerate() {
                prop_assert_eq!(shortcuts.marks[i / 64] >> (i % 64) & 1 == 1, arc.is_some());
                if let Some(arc) = *arc {
                    prop_assert_eq!(shortcuts.get(i), arc);
                }
            }
        }
    }
}
