//! The gate graph: free leaves, their gate cells, and the crossings between gates.
//!
//! Intra-leaf edges are implicit: every pair of gates in one free leaf is joined at octile
//! distance, which is exact because the leaf is an obstacle-free rectangle. Only the
//! crossings (one legal step between gates of two different leaves) are stored, so a
//! 512×512 empty leaf costs its border gates, not millions of edges.
//!
//! The graph holds geometry only. The layers over it (components, clusters) keep their own
//! tables indexed by [`LeafId`] and [`GateId`], so that no layer writes into another's
//! records.

use super::spans::{ShortSpan, Span, SpanArena};
use crate::geom::{Cell, Rect};
use crate::quadtree::{NodeId, Shape};
use hashbrown::HashTable;

/// An index type for [`Slots`]: a dense `u32` position with a type of its own, so that a
/// leaf index cannot be passed where a gate index is meant.
pub(crate) trait SlotId: Copy {
    fn from_index(i: usize) -> Self;
    fn index(self) -> usize;
}

macro_rules! slot_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub(crate) struct $name(u32);

        impl SlotId for $name {
            #[inline]
            fn from_index(i: usize) -> Self {
                debug_assert!(i < u32::MAX as usize);
                $name(i as u32)
            }
            #[inline]
            fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}
pub(crate) use slot_id;

slot_id!(
    /// A free leaf's slot in the gate graph.
    LeafId
);
slot_id!(
    /// A gate's slot in the gate graph.
    GateId
);

/// A free leaf of the quadtree: 16 bytes. Its rectangle follows from its node ID and the
/// tree's [`Shape`] ([`GateGraph::rect_of`]; no query's inner loop reads it). Its gate
/// lists live apart, in a [`LeafLists`] of the graph's that exists only while the graph
/// holds gates, so that a layer without a gate graph pays nothing for them (see
/// `HpaMap::keeps_gate_graph`).
#[derive(Clone, Debug)]
pub(crate) struct Leaf {
    pub id: NodeId,
    /// What a unit of step length costs anywhere in the leaf (its terrain costs are
    /// uniform, see `hpa::costs`).
    pub cost: f64,
}

// What the records weigh is what the memory figures of the docs count on.
const _: () = assert!(std::mem::size_of::<Leaf>() == 16);

/// The gate-graph lists of one free leaf, by leaf slot beside the [`Leaf`] records.
#[derive(Clone, Copy, Debug, Default)]
struct LeafLists {
    /// The gates inside this leaf ([`GateGraph::gates_of`]) and their cells in the same
    /// order ([`GateGraph::cells_of`]: the search scans these for every leaf it enters),
    /// one span into two parallel arenas of the graph: 12 bytes where two vectors took 48.
    gates: Span,
    /// The gate at each border cell (see [`border_index`]), [`NO_GATE`] where there is
    /// none; empty until the leaf's first gate. Gates lie on leaf borders, so this costs 4
    /// bytes per border cell of a leaf with gates, not per cell of the map: a map that is
    /// one big free leaf pays nothing.
    border_gates: Span,
}

/// Cells of `r` a gate may stand on: the border, or every cell of a leaf at most 2 wide.
fn border_len(r: Rect) -> usize {
    let (w, h) = (r.width() as usize, r.height() as usize);
    if w <= 2 || h <= 2 {
        w * h
    } else {
        2 * (w + h) - 4
    }
}

/// The index of border cell `c` of `r` in `0..border_len(r)`: the top row, the bottom row,
/// then the left and the right column between them (every cell, row by row, for a leaf at
/// most 2 wide).
fn border_index(r: Rect, c: Cell) -> usize {
    let (w, h) = (r.width() as usize, r.height() as usize);
    let (dx, dy) = ((c.x - r.x1) as usize, (c.y - r.y1) as usize);
    if w <= 2 || h <= 2 {
        dy * w + dx
    } else if dy == 0 {
        dx
    } else if dy == h - 1 {
        w + dx
    } else if dx == 0 {
        2 * w + dy - 1
    } else {
        debug_assert_eq!(dx, w - 1, "{c} is not on the border of {r}");
        2 * w + (h - 2) + dy - 1
    }
}

/// A gate: a cell of a free leaf with at least one crossing into another free leaf.
#[derive(Clone, Debug)]
pub(crate) struct Gate {
    pub cell: Cell,
    /// The leaf holding the cell.
    pub leaf: LeafId,
    /// Gates one legal step away, in other leaves ([`GateGraph::links_of`]): a span of the
    /// graph's one link arena, 8 bytes, where an inline small vector took 24 and an
    /// allocation of its own past four crossings.
    links: ShortSpan,
}

/// Slot storage that recycles freed indices, so that indices stay dense and can index the
/// search's flat score arrays and the other layers' side tables.
#[derive(Clone, Debug)]
pub(crate) struct Slots<I, T> {
    items: Vec<T>,
    live: Vec<bool>,
    free: Vec<I>,
}

impl<I, T> Default for Slots<I, T> {
    fn default() -> Self {
        Slots {
            items: Vec::new(),
            live: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<I: SlotId, T> Slots<I, T> {
    pub fn insert(&mut self, item: T) -> I {
        match self.free.pop() {
            Some(i) => {
                self.items[i.index()] = item;
                self.live[i.index()] = true;
                i
            }
            None => {
                self.items.push(item);
                self.live.push(true);
                I::from_index(self.items.len() - 1)
            }
        }
    }

    /// Frees a slot; its item stays in place, unused, until the slot is reused.
    pub fn release(&mut self, i: I) {
        debug_assert!(self.live[i.index()], "slot released twice");
        self.live[i.index()] = false;
        self.free.push(i);
    }

    #[inline]
    pub fn get(&self, i: I) -> &T {
        &self.items[i.index()]
    }

    #[inline]
    pub fn get_mut(&mut self, i: I) -> &mut T {
        &mut self.items[i.index()]
    }

    /// The slot of `item`, which must be borrowed from these slots (found from its
    /// address: what lets a reader holding only the item reach a side table by slot).
    ///
    /// # Panics
    /// When `item` does not lie in these slots.
    #[inline]
    pub fn slot_of(&self, item: &T) -> I {
        let size = std::mem::size_of::<T>().max(1);
        let offset = (item as *const T as usize).wrapping_sub(self.items.as_ptr() as usize);
        assert!(
            offset < self.items.len() * size && offset % size == 0,
            "an item of other slots"
        );
        I::from_index(offset / size)
    }

    #[inline]
    pub fn is_live(&self, i: I) -> bool {
        self.live.get(i.index()).copied().unwrap_or(false)
    }

    /// Number of slots ever allocated (live or free): the size side tables need.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.items.len()
    }

    /// Number of live slots.
    #[inline]
    pub fn live(&self) -> usize {
        self.items.len() - self.free.len()
    }

    /// The live slots with their items.
    pub fn iter(&self) -> impl Iterator<Item = (I, &T)> + '_ {
        self.items
            .iter()
            .zip(&self.live)
            .enumerate()
            .filter(|(_, (_, &live))| live)
            .map(|(i, (item, _))| (I::from_index(i), item))
    }

    /// Of [`Slots::memory_bytes`], what no live slot uses: vacant slots and spare
    /// capacity, which edits leave and a fresh build would not hold.
    pub fn slack_bytes(&self) -> usize {
        let used = self.live();
        (self.items.capacity() - used) * std::mem::size_of::<T>()
            + (self.live.capacity() - used)
            + self.free.capacity() * std::mem::size_of::<I>()
    }

    /// Heap bytes held by the slot vectors themselves.
    pub fn memory_bytes(&self) -> usize {
        self.items.capacity() * std::mem::size_of::<T>()
            + self.live.capacity()
            + self.free.capacity() * std::mem::size_of::<I>()
    }
}

/// Marks a border cell without a gate in a leaf's `border_gates`: a table of 4-byte entries
/// is what makes it cheaper than a hash map, so it cannot afford an `Option`.
const NO_GATE: u32 = u32::MAX;

/// Free leaves, gates and crossings, with the indexes needed to edit them.
#[derive(Clone, Debug)]
pub(crate) struct GateGraph {
    /// The tree's grid, which gives each leaf's rectangle from its node ID.
    shape: Shape,
    leaves: Slots<LeafId, Leaf>,
    gates: Slots<GateId, Gate>,
    /// Leaf by quadtree node ID (free leaves only): the live leaf slots, hashed by their
    /// leaves' node IDs (`node_hasher`), which the records hold: 5 bytes a bucket where a
    /// map of (ID, slot) pairs took 17.
    leaf_of_node: HashTable<LeafId>,
    node_hasher: ahash::RandomState,
    /// Every gate's crossings (see [`Gate::links`]).
    links: SpanArena<GateId>,
    /// Every leaf's gates and, in parallel (the same spans), their cells (see
    /// [`Leaf::gates`]).
    leaf_gates: SpanArena<GateId>,
    leaf_cells: SpanArena<Cell>,
    /// Every leaf's border index (see [`LeafLists::border_gates`]).
    borders: SpanArena<u32>,
    /// Each leaf slot's lists, while the graph holds gates; empty when it holds none, and
    /// never longer than the leaf slots.
    lists: Vec<LeafLists>,
    crossing_count: usize,
}

impl GateGraph {
    /// An empty graph over the leaves of a tree of `shape`. Nothing in it grows with the
    /// map's area: a gate's index lives in its leaf.
    pub fn new(shape: Shape) -> Self {
        GateGraph {
            shape,
            leaves: Slots::default(),
            gates: Slots::default(),
            leaf_of_node: HashTable::new(),
            node_hasher: ahash::RandomState::new(),
            links: SpanArena::default(),
            leaf_gates: SpanArena::default(),
            leaf_cells: SpanArena::default(),
            borders: SpanArena::default(),
            lists: Vec::new(),
            crossing_count: 0,
        }
    }

    /// An upper bound, in practice, on the heap bytes of the graph over free leaves
    /// `leaves` of a `width`×`height` map, from their sizes alone: every cell on a leaf's
    /// border counted as a gate, vectors at their growth capacity. With `gates` false, the
    /// leaves alone (a layer that keeps no gate graph, see `HpaMap::keeps_gate_graph`).
    pub fn estimate_bytes(leaves: impl Iterator<Item = Rect>, gates: bool) -> usize {
        use std::mem::size_of;
        let (mut n_leaves, mut n_gates, mut lists, mut links) = (0usize, 0usize, 0usize, 0usize);
        for r in leaves {
            if !gates {
                n_leaves += 1;
                continue;
            }
            let (w, h) = (r.width() as usize, r.height() as usize);
            let border = border_len(r);
            n_leaves += 1;
            n_gates = n_gates.saturating_add(border);
            // The gate and cell lists at growth capacity, and the border index.
            lists = lists.saturating_add(
                border.next_power_of_two().max(4) * (size_of::<GateId>() + 8) + border * 4,
            );
            // A gate on a side crosses into at most 3 cells; cells of thin leaves and the
            // corners of the others into up to 8.
            let crowded = if w <= 2 || h <= 2 { w * h } else { 4 };
            links = links.saturating_add((3 * border + 5 * crowded) * size_of::<GateId>());
        }
        let slots = |n: usize, item: usize| n.next_power_of_two() * (item + 1);
        // Each leaf slot's spans into those lists.
        let spans = match gates {
            true => n_leaves.next_power_of_two() * size_of::<LeafLists>(),
            false => 0,
        };
        slots(n_leaves, size_of::<Leaf>())
            .saturating_add(spans)
            .saturating_add(slots(n_gates, size_of::<Gate>()))
            .saturating_add(lists)
            .saturating_add(links)
            // The node → leaf map's buckets, as it is shrunk after the build.
            .saturating_add(
                (n_leaves * 8 / 7 + 1).next_power_of_two() * (size_of::<LeafId>() + 1) + 32,
            )
    }

    #[inline]
    pub fn leaf(&self, id: LeafId) -> &Leaf {
        self.leaves.get(id)
    }

    /// The cells of leaf `l`, a leaf of this graph.
    #[inline]
    pub fn rect_of(&self, l: &Leaf) -> Rect {
        self.shape.rect(l.id)
    }

    /// The cells of leaf `id`.
    #[inline]
    pub fn leaf_rect(&self, id: LeafId) -> Rect {
        self.rect_of(self.leaf(id))
    }

    #[inline]
    pub fn gate(&self, id: GateId) -> &Gate {
        self.gates.get(id)
    }

    /// The free leaf of quadtree node `node`, if it is one.
    #[inline]
    pub fn leaf_of(&self, node: NodeId) -> Option<LeafId> {
        let hash = self.node_hasher.hash_one(node.raw());
        (self.leaf_of_node)
            .find(hash, |&l| self.leaves.get(l).id == node)
            .copied()
    }

    /// The free leaf of quadtree node `node`, which must be a free leaf.
    #[inline]
    pub fn leaf_of_node(&self, node: NodeId) -> LeafId {
        self.leaf_of(node)
            .expect("every free leaf of the tree is in the graph")
    }

    /// Number of live free leaves.
    pub fn leaf_count(&self) -> usize {
        self.leaves.live()
    }

    /// Number of live gates.
    pub fn gate_count(&self) -> usize {
        self.gates.live()
    }

    /// Leaf slots ever allocated: the length a per-leaf side table needs.
    pub fn leaf_capacity(&self) -> usize {
        self.leaves.capacity()
    }

    /// Gate slots ever allocated: the length a per-gate side table needs.
    pub fn gate_capacity(&self) -> usize {
        self.gates.capacity()
    }

    /// The live leaves.
    pub fn leaves(&self) -> impl Iterator<Item = (LeafId, &Leaf)> + '_ {
        self.leaves.iter()
    }

    /// The live gates.
    pub fn gates(&self) -> impl Iterator<Item = (GateId, &Gate)> + '_ {
        self.gates.iter()
    }

    #[cfg(any(test, feature = "testing"))]
    /// Whether `id` is a live gate.
    pub fn is_live_gate(&self, id: GateId) -> bool {
        self.gates.is_live(id)
    }

    /// Number of stored crossings (each counted once, not per direction).
    pub fn crossing_count(&self) -> usize {
        self.crossing_count
    }

    /// Every crossing as a pair of cells, smaller cell first, each once.
    pub fn crossing_cells(&self) -> Vec<(Cell, Cell)> {
        let mut out = Vec::with_capacity(self.crossing_count);
        for (_, gate) in self.gates() {
            out.extend(
                self.links_of(gate)
                    .iter()
                    .map(|&o| self.gate(o).cell)
                    .filter(|&o| gate.cell < o)
                    .map(|o| (gate.cell, o)),
            );
        }
        out
    }

    pub fn add_leaf(&mut self, id: NodeId, rect: Rect, cost: f64) -> LeafId {
        debug_assert_eq!(rect, self.shape.rect(id), "the rectangle of leaf {id}");
        let leaf = self.leaves.insert(Leaf { id, cost });
        // A reused slot's lists were emptied when its last leaf went.
        debug_assert!(self.lists(leaf).gates.is_empty());
        let (leaves, hasher) = (&self.leaves, &self.node_hasher);
        self.leaf_of_node
            .insert_unique(hasher.hash_one(id.raw()), leaf, |&l| {
                hasher.hash_one(leaves.get(l).id.raw())
            });
        leaf
    }

    /// Whether the graph holds no gate (and so no crossing).
    pub fn is_unlinked(&self) -> bool {
        self.gates.live() == 0
    }

    /// Drops every gate and crossing, keeping the leaves in their slots (so that the other
    /// layers' per-leaf tables stay valid): what a layer that no longer needs its gate
    /// graph keeps (see `HpaMap::keeps_gate_graph`).
    pub fn drop_gates(&mut self) {
        self.lists = Vec::new();
        self.gates = Slots::default();
        self.links = SpanArena::default();
        self.leaf_gates = SpanArena::default();
        self.leaf_cells = SpanArena::default();
        self.borders = SpanArena::default();
        self.crossing_count = 0;
    }

    /// Removes a leaf, its gates and every crossing into them; gates of other leaves left
    /// without crossings disappear too.
    pub fn remove_leaf(&mut self, id: LeafId) {
        let gates = self.lists(id).gates;
        // Releasing gates and dropping links touches other leaves' lists, never this one.
        for k in 0..gates.len() {
            let g = self.leaf_gates.get(gates)[k];
            let links = self.gate(g).links;
            self.crossing_count -= links.len();
            // Dropping links only shrinks other lists: this one stays where it is.
            for i in 0..links.len() {
                self.drop_link(self.links.get(links)[i], g);
            }
            self.release_gate(g);
        }
        let hash = self.node_hasher.hash_one(self.leaf(id).id.raw());
        if let Ok(entry) = self.leaf_of_node.find_entry(hash, |&l| l == id) {
            entry.remove();
        }
        if let Some(lists) = self.lists.get_mut(id.index()) {
            let mut cells = lists.gates;
            self.leaf_gates.free(&mut lists.gates);
            self.leaf_cells.free(&mut cells);
            self.borders.free(&mut lists.border_gates);
        }
        self.leaves.release(id);
    }

    /// Removes every crossing between leaves `a` and `b`.
    pub fn unlink_leaves(&mut self, a: LeafId, b: LeafId) {
        let gates = self.gates_of(self.leaf(a)).to_vec();
        let mut gone: smallvec::SmallVec<[GateId; 8]> = smallvec::SmallVec::new();
        for g in gates {
            let mut links = self.gate(g).links;
            gone.clear();
            gone.extend(
                self.links
                    .get(links)
                    .iter()
                    .copied()
                    .filter(|&o| self.gate(o).leaf == b),
            );
            let slots = &self.gates;
            self.links.retain(&mut links, |o| slots.get(o).leaf != b);
            self.gates.get_mut(g).links = links;
            self.crossing_count -= gone.len();
            for &other in &gone {
                self.drop_link(other, g);
            }
            if links.is_empty() {
                self.free_gate(g);
            }
        }
    }

    /// The gates one crossing away from `gate`, in other leaves.
    #[inline]
    pub fn links_of(&self, gate: &Gate) -> &[GateId] {
        self.links.get(gate.links)
    }

    /// The gates of leaf `l`.
    #[inline]
    pub fn gates_of(&self, l: &Leaf) -> &[GateId] {
        self.leaf_gates
            .get(self.lists(self.leaves.slot_of(l)).gates)
    }

    /// The cells of the gates of leaf `l`, in the order of [`GateGraph::gates_of`].
    #[inline]
    pub fn cells_of(&self, l: &Leaf) -> &[Cell] {
        self.leaf_cells
            .get(self.lists(self.leaves.slot_of(l)).gates)
    }

    /// The lists of leaf slot `id` (empty ones for a leaf without gates).
    #[inline]
    fn lists(&self, id: LeafId) -> LeafLists {
        self.lists.get(id.index()).copied().unwrap_or_default()
    }

    /// The lists of leaf slot `id`, to change them: the table grows to the leaf slots at
    /// the first gate.
    fn lists_mut(&mut self, id: LeafId) -> &mut LeafLists {
        if self.lists.len() <= id.index() {
            self.lists.resize(
                self.leaves.capacity().max(id.index() + 1),
                LeafLists::default(),
            );
        }
        &mut self.lists[id.index()]
    }

    /// Whether the leaves' arenas should be packed before [`GateGraph::gate_for`] writes
    /// a new gate into `lists`, a leaf over `rect`: when its border index (the first
    /// time) or its gate and cell lists would outgrow an arena that holes fill a quarter
    /// of (see [`SpanArena::wants_packing`]). An arena's allocation then grows with its
    /// lists only, to at most 8/3 of the most they held (twice, when it grows, an
    /// allocation they filled three quarters of), whatever order the edits leave holes in.
    #[inline]
    fn leaf_lists_want_packing(&self, lists: LeafLists, rect: Rect) -> bool {
        let gates = lists.gates.push_growth();
        // The parallel arenas hold as many items and holes; their allocations may differ.
        self.leaf_gates.wants_packing(gates)
            || self.leaf_cells.wants_packing(gates)
            || (lists.border_gates.is_empty() && self.borders.wants_packing(border_len(rect)))
    }

    fn compact_links(&mut self) {
        self.links
            .compact(self.gates.items.iter_mut().map(|g| &mut g.links));
    }

    /// Compacts the leaves' arenas, the two parallel ones along the same spans.
    fn compact_leaf_lists(&mut self) {
        let mut cells: Vec<Span> = self.lists.iter().map(|l| l.gates).collect();
        self.leaf_cells.compact(cells.iter_mut());
        self.leaf_gates
            .compact(self.lists.iter_mut().map(|l| &mut l.gates));
        debug_assert!(cells.iter().zip(&self.lists).all(|(c, l)| *c == l.gates));
        self.borders
            .compact(self.lists.iter_mut().map(|l| &mut l.border_gates));
    }

    /// Removes `g` from `from`'s links, and `from` itself when that was its last crossing.
    fn drop_link(&mut self, from: GateId, g: GateId) {
        let mut links = self.gate(from).links;
        if let Some(i) = self.links.get(links).iter().position(|&x| x == g) {
            self.links.swap_remove(&mut links, i);
            self.gates.get_mut(from).links = links;
        }
        if links.is_empty() {
            self.free_gate(from);
        }
    }

    /// Frees gate `g` and takes it out of its leaf's gate list.
    fn free_gate(&mut self, g: GateId) {
        if !self.gates.is_live(g) {
            return;
        }
        let leaf = self.gates.get(g).leaf;
        let lists = &mut self.lists[leaf.index()];
        // A scan of 4-byte ids, rarely more than a few dozen: cheaper than keeping each
        // gate's position (4 bytes a gate, and its update on every removal).
        let pos = (self.leaf_gates.get(lists.gates).iter())
            .position(|&x| x == g)
            .expect("a live gate is in its leaf's list");
        let mut cells = lists.gates;
        self.leaf_cells.swap_remove(&mut cells, pos);
        self.leaf_gates.swap_remove(&mut lists.gates, pos);
        self.release_gate(g);
    }

    /// Frees gate `g`'s slot and cell index, leaving its leaf's list to the caller.
    fn release_gate(&mut self, g: GateId) {
        let (cell, leaf) = (self.gate(g).cell, self.gate(g).leaf);
        let (border, rect) = (self.lists[leaf.index()].border_gates, self.leaf_rect(leaf));
        self.borders.get_mut(border)[border_index(rect, cell)] = NO_GATE;
        self.links.free(&mut self.gates.get_mut(g).links);
        self.gates.release(g);
    }

    /// The gate at `cell` (creating it in `leaf` if there is none yet).
    fn gate_for(&mut self, cell: Cell, leaf: LeafId) -> GateId {
        let rect = self.leaf_rect(leaf);
        let slot = border_index(rect, cell);
        let border = self.borders.get(self.lists(leaf).border_gates);
        if let Some(&g) = border.get(slot).filter(|&&g| g != NO_GATE) {
            return GateId::from_index(g as usize);
        }
        let g = self.gates.insert(Gate {
            cell,
            leaf,
            links: ShortSpan::default(),
        });
        let mut lists = *self.lists_mut(leaf);
        if self.leaf_lists_want_packing(lists, rect) {
            self.compact_leaf_lists();
            lists = self.lists[leaf.index()];
        }
        if lists.border_gates.is_empty() {
            self.borders
                .fill(&mut lists.border_gates, border_len(rect), NO_GATE);
        }
        let mut cells = lists.gates;
        self.leaf_cells.push(&mut cells, cell);
        self.leaf_gates.push(&mut lists.gates, g);
        debug_assert_eq!(cells, lists.gates, "the parallel arenas stay parallel");
        self.borders.get_mut(lists.border_gates)[slot] = g.index() as u32;
        self.lists[leaf.index()] = lists;
        g
    }

    /// Adds the crossing `a → b` between cells of leaves `la` and `lb`.
    pub fn link(&mut self, a: Cell, la: LeafId, b: Cell, lb: LeafId) {
        let ga = self.gate_for(a, la);
        let gb = self.gate_for(b, lb);
        debug_assert!(
            !self.links_of(self.gate(ga)).contains(&gb),
            "crossing {a} -> {b} added twice"
        );
        // Room for both pushes at once, so that packing cannot come between them.
        let growth = Span::from(self.gate(ga).links).push_growth()
            + Span::from(self.gate(gb).links).push_growth();
        if self.links.wants_packing(growth) {
            self.compact_links();
        }
        self.links.push(&mut self.gates.get_mut(ga).links, gb);
        self.links.push(&mut self.gates.get_mut(gb).links, ga);
        self.crossing_count += 1;
    }

    /// The cost of the crossing from gate `a` to gate `b` (one legal step between two
    /// leaves): its length times the mean of both leaves' costs.
    #[inline]
    pub fn crossing_cost(&self, a: &Gate, b: &Gate) -> f64 {
        let length = crate::grid::movement::octile(a.cell, b.cell);
        length * (self.leaf(a.leaf).cost + self.leaf(b.leaf).cost) * 0.5
    }

    /// The leaves this leaf has crossings into (with repeats).
    pub fn linked_leaves(&self, id: LeafId) -> impl Iterator<Item = LeafId> + '_ {
        self.gates_of(self.leaf(id)).iter().flat_map(move |&g| {
            self.links_of(self.gate(g))
                .iter()
                .map(move |&o| self.gate(o).leaf)
        })
    }

    /// Gives back the room the build's growing vectors left over: a built graph is mostly
    /// read, and edits grow what they touch again.
    pub fn shrink_to_fit(&mut self) {
        self.compact_links();
        self.compact_leaf_lists();
        self.links.shrink_to_fit();
        self.leaf_gates.shrink_to_fit();
        self.leaf_cells.shrink_to_fit();
        self.borders.shrink_to_fit();
        for slots in [&mut self.leaves.live, &mut self.gates.live] {
            slots.shrink_to_fit();
        }
        self.leaves.items.shrink_to_fit();
        self.lists.shrink_to_fit();
        self.gates.items.shrink_to_fit();
        let (leaves, hasher) = (&self.leaves, &self.node_hasher);
        self.leaf_of_node
            .shrink_to_fit(|&l| hasher.hash_one(leaves.get(l).id.raw()));
    }

    /// Heap bytes held by the leaves: their records, cell and gate lists, border indexes,
    /// and the node → leaf map.
    pub fn leaf_bytes(&self) -> usize {
        let leaf_lists = self.lists.capacity() * std::mem::size_of::<LeafLists>()
            + self.leaf_gates.memory_bytes()
            + self.leaf_cells.memory_bytes()
            + self.borders.memory_bytes();
        let map = self.leaf_of_node.allocation_size();
        self.leaves.memory_bytes() + leaf_lists + map
    }

    /// Of [`GateGraph::leaf_bytes`] and [`GateGraph::gate_bytes`], what edits have left
    /// behind: vacant leaf and gate slots with the lists they still hold, spare capacity
    /// in the live leaves' lists, and node → leaf map slots past its entries.
    pub fn slack_bytes(&self) -> usize {
        use std::mem::size_of;
        let border: usize = self.lists.iter().map(|l| l.border_gates.len()).sum();
        // Entries of vacant leaf slots and spare capacity; none without gates.
        let lists = self.lists.capacity().saturating_sub(self.leaf_count())
            * size_of::<LeafLists>()
            * usize::from(!self.lists.is_empty());
        let leaves = lists
            + self.leaf_gates.slack_bytes(self.gate_count())
            + self.leaf_cells.slack_bytes(self.gate_count())
            + self.borders.slack_bytes(border);
        let links = self.links.slack_bytes(2 * self.crossing_count);
        let map = self.leaf_of_node.allocation_size()
            - self.leaf_of_node.len() * (size_of::<LeafId>() + 1);
        self.leaves.slack_bytes() + self.gates.slack_bytes() + leaves + links + map
    }

    /// Heap bytes held by the gates and their crossings.
    pub fn gate_bytes(&self) -> usize {
        self.gates.memory_bytes() + self.links.memory_bytes()
    }
}
