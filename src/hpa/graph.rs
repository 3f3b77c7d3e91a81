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

use crate::geom::{Cell, Rect};
use crate::quadtree::NodeId;
use hashbrown::HashMap;

/// An index type for [`Slots`]: a dense `u32` position with a type of its own, so that a
/// leaf index cannot be passed where a gate index is meant.
pub(crate) trait SlotId: Copy {
    fn from_index(i: usize) -> Self;
    fn index(self) -> usize;
}

macro_rules! slot_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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

/// The crossings of one gate.
pub(crate) type Links = smallvec::SmallVec<[GateId; 4]>;

/// A free leaf of the quadtree.
#[derive(Clone, Debug)]
pub(crate) struct Leaf {
    pub id: NodeId,
    pub rect: Rect,
    /// The gates inside this leaf.
    pub gates: Vec<GateId>,
    /// Their cells, in the same order: the search scans these for every leaf it enters.
    pub cells: Vec<Cell>,
}

/// A gate: a cell of a free leaf with at least one crossing into another free leaf.
#[derive(Clone, Debug)]
pub(crate) struct Gate {
    pub cell: Cell,
    /// The leaf holding the cell.
    pub leaf: LeafId,
    /// Position in the leaf's gate list, so that removal is O(1).
    pub pos: u32,
    /// Gates one legal step away, in other leaves. Nearly always a handful, so they live
    /// inline: one allocation per gate was most of the build time.
    pub links: Links,
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

    /// Heap bytes held by the slot vectors themselves.
    pub fn memory_bytes(&self) -> usize {
        self.items.capacity() * std::mem::size_of::<T>()
            + self.live.capacity()
            + self.free.capacity() * std::mem::size_of::<I>()
    }
}

/// Marks a cell without a gate in [`GateGraph::gate_at`]: a dense table of 4-byte entries
/// is what makes it cheaper than a hash map, so it cannot afford an `Option`.
const NO_GATE: u32 = u32::MAX;

/// Free leaves, gates and crossings, with the indexes needed to edit them.
#[derive(Clone, Debug)]
pub(crate) struct GateGraph {
    leaves: Slots<LeafId, Leaf>,
    gates: Slots<GateId, Gate>,
    /// Leaf by quadtree node ID (free leaves only).
    leaf_of_node: HashMap<u64, LeafId, ahash::RandomState>,
    /// Gate index by cell index `y·W + x`, [`NO_GATE`] where there is none. It costs 4 bytes
    /// a cell, less than a hash map once gates are a sizeable share of the cells (as in
    /// exact mode), and it is looked up for every crossing added.
    gate_at: Vec<u32>,
    width: u64,
    crossing_count: usize,
}

impl GateGraph {
    /// An empty graph for a `width`×`height` map, its per-cell table allocated fallibly.
    pub fn try_new(width: u32, height: u32) -> Result<Self, std::collections::TryReserveError> {
        let n = width as usize * height as usize;
        let mut gate_at = Vec::new();
        gate_at.try_reserve_exact(n)?;
        gate_at.resize(n, NO_GATE);
        Ok(GateGraph {
            leaves: Slots::default(),
            gates: Slots::default(),
            leaf_of_node: HashMap::default(),
            gate_at,
            width: width as u64,
            crossing_count: 0,
        })
    }

    /// An upper bound, in practice, on the heap bytes of the graph over free leaves
    /// `leaves` of a `width`×`height` map, from their sizes alone: every cell on a leaf's
    /// border counted as a gate, vectors at their growth capacity.
    pub fn estimate_bytes(width: u32, height: u32, leaves: impl Iterator<Item = Rect>) -> usize {
        use std::mem::size_of;
        let (mut n_leaves, mut n_gates, mut lists, mut spilled) = (0usize, 0usize, 0usize, 0usize);
        for r in leaves {
            let (w, h) = (r.width() as usize, r.height() as usize);
            let border = if w <= 2 || h <= 2 {
                w * h
            } else {
                2 * (w + h) - 4
            };
            n_leaves += 1;
            n_gates = n_gates.saturating_add(border);
            lists =
                lists.saturating_add(border.next_power_of_two().max(4) * (size_of::<GateId>() + 8));
            // Cells of thin leaves and the corners of the others can have more links than
            // the inline 4 (up to 8).
            let crowded = if w <= 2 || h <= 2 { w * h } else { 4 };
            spilled = spilled.saturating_add(crowded * 8 * size_of::<GateId>());
        }
        let slots = |n: usize, item: usize| n.next_power_of_two() * (item + 1);
        (width as usize * height as usize * 4)
            .saturating_add(slots(n_leaves, size_of::<Leaf>()))
            .saturating_add(slots(n_gates, size_of::<Gate>()))
            .saturating_add(lists)
            .saturating_add(spilled)
            .saturating_add(2 * n_leaves * (size_of::<(u64, LeafId)>() + 1))
    }

    #[inline]
    fn key(&self, c: Cell) -> usize {
        (c.y as u64 * self.width + c.x as u64) as usize
    }

    #[inline]
    pub fn leaf(&self, id: LeafId) -> &Leaf {
        self.leaves.get(id)
    }

    #[inline]
    pub fn gate(&self, id: GateId) -> &Gate {
        self.gates.get(id)
    }

    /// The free leaf of quadtree node `node`, if it is one.
    #[inline]
    pub fn leaf_of(&self, node: NodeId) -> Option<LeafId> {
        self.leaf_of_node.get(&node.raw()).copied()
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
                gate.links
                    .iter()
                    .map(|&o| self.gate(o).cell)
                    .filter(|&o| gate.cell < o)
                    .map(|o| (gate.cell, o)),
            );
        }
        out
    }

    pub fn add_leaf(&mut self, id: NodeId, rect: Rect) -> LeafId {
        let leaf = self.leaves.insert(Leaf {
            id,
            rect,
            gates: Vec::new(),
            cells: Vec::new(),
        });
        self.leaf_of_node.insert(id.raw(), leaf);
        leaf
    }

    /// Removes a leaf, its gates and every crossing into them; gates of other leaves left
    /// without crossings disappear too.
    pub fn remove_leaf(&mut self, id: LeafId) {
        let gates = std::mem::take(&mut self.leaves.get_mut(id).gates);
        for &g in &gates {
            let links = std::mem::take(&mut self.gates.get_mut(g).links);
            self.crossing_count -= links.len();
            for other in links {
                self.drop_link(other, g);
            }
            self.release_gate(g);
        }
        let leaf = self.leaves.get_mut(id);
        self.leaf_of_node.remove(&leaf.id.raw());
        // Keep the vectors' capacity for the next leaf in this slot.
        leaf.gates = gates;
        leaf.gates.clear();
        leaf.cells.clear();
        self.leaves.release(id);
    }

    /// Removes every crossing between leaves `a` and `b`.
    pub fn unlink_leaves(&mut self, a: LeafId, b: LeafId) {
        let gates = self.leaf(a).gates.clone();
        for g in gates {
            let links = std::mem::take(&mut self.gates.get_mut(g).links);
            let (gone, kept): (Vec<GateId>, Vec<GateId>) =
                links.into_iter().partition(|&o| self.gate(o).leaf == b);
            self.crossing_count -= gone.len();
            self.gates.get_mut(g).links = Links::from_vec(kept);
            for other in gone {
                self.drop_link(other, g);
            }
            if self.gate(g).links.is_empty() {
                self.free_gate(g);
            }
        }
    }

    /// Removes `g` from `from`'s links, and `from` itself when that was its last crossing.
    fn drop_link(&mut self, from: GateId, g: GateId) {
        let links = &mut self.gates.get_mut(from).links;
        if let Some(i) = links.iter().position(|&x| x == g) {
            links.swap_remove(i);
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
        let (leaf, pos) = (self.gate(g).leaf, self.gate(g).pos as usize);
        let leaf = self.leaves.get_mut(leaf);
        leaf.cells.swap_remove(pos);
        leaf.gates.swap_remove(pos);
        if let Some(&moved) = leaf.gates.get(pos) {
            self.gates.get_mut(moved).pos = pos as u32;
        }
        self.release_gate(g);
    }

    /// Frees gate `g`'s slot and cell index, leaving its leaf's list to the caller.
    fn release_gate(&mut self, g: GateId) {
        let key = self.key(self.gate(g).cell);
        self.gate_at[key] = NO_GATE;
        self.gates.get_mut(g).links.clear();
        self.gates.release(g);
    }

    /// The gate at `cell` (creating it in `leaf` if there is none yet).
    fn gate_for(&mut self, cell: Cell, leaf: LeafId) -> GateId {
        let key = self.key(cell);
        if self.gate_at[key] != NO_GATE {
            let g = GateId::from_index(self.gate_at[key] as usize);
            debug_assert_eq!(self.gate(g).leaf, leaf);
            return g;
        }
        let pos = self.leaf(leaf).gates.len() as u32;
        let g = self.gates.insert(Gate {
            cell,
            leaf,
            pos,
            links: Links::new(),
        });
        let l = self.leaves.get_mut(leaf);
        l.gates.push(g);
        l.cells.push(cell);
        self.gate_at[key] = g.index() as u32;
        g
    }

    /// Adds the crossing `a → b` between cells of leaves `la` and `lb`.
    pub fn link(&mut self, a: Cell, la: LeafId, b: Cell, lb: LeafId) {
        let ga = self.gate_for(a, la);
        let gb = self.gate_for(b, lb);
        debug_assert!(
            !self.gate(ga).links.contains(&gb),
            "crossing {a} -> {b} added twice"
        );
        self.gates.get_mut(ga).links.push(gb);
        self.gates.get_mut(gb).links.push(ga);
        self.crossing_count += 1;
    }

    /// The leaves this leaf has crossings into (with repeats).
    pub fn linked_leaves(&self, id: LeafId) -> impl Iterator<Item = LeafId> + '_ {
        self.leaf(id)
            .gates
            .iter()
            .flat_map(move |&g| self.gate(g).links.iter().map(move |&o| self.gate(o).leaf))
    }

    /// Heap bytes held, approximately.
    pub fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        let leaf_lists: usize = self
            .leaves
            .items
            .iter()
            .map(|l| l.gates.capacity() * size_of::<GateId>() + l.cells.capacity() * 8)
            .sum();
        let spilled_links: usize = self
            .gates
            .items
            .iter()
            .filter(|g| g.links.spilled())
            .map(|g| g.links.capacity() * size_of::<GateId>())
            .sum();
        let maps = self.leaf_of_node.capacity() * (size_of::<(u64, LeafId)>() + 1)
            + self.gate_at.capacity() * 4;
        self.leaves.memory_bytes() + leaf_lists + self.gates.memory_bytes() + spilled_links + maps
    }
}
