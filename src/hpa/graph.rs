//! The gate graph: free leaves, their gate cells, and the crossings between gates.
//!
//! Intra-leaf edges are implicit: every pair of gates in one free leaf is joined at octile
//! distance, which is exact because the leaf is an obstacle-free rectangle. Only the
//! crossings (one legal step between gates of two different leaves) are stored, so a
//! 512×512 empty leaf costs its border gates, not millions of edges.

use crate::geom::{Cell, Rect};
use crate::quadtree::NodeId;
use hashbrown::HashMap;

/// The crossings of one gate.
pub(crate) type Links = smallvec::SmallVec<[u32; 4]>;

/// Marks an empty slot or a missing link.
pub(crate) const NONE: u32 = u32::MAX;

/// A free leaf of the quadtree.
#[derive(Clone, Debug)]
pub(crate) struct Leaf {
    pub id: NodeId,
    pub rect: Rect,
    /// Gate indices of the gates inside this leaf.
    pub gates: Vec<u32>,
    /// Their cells, in the same order: the search scans these for every leaf it enters.
    pub cells: Vec<Cell>,
    /// Connected-component label.
    pub component: u32,
    /// Scratch mark for traversals (see `components`).
    pub mark: u64,
    /// Slot of its cluster, when the map is clustered.
    pub cluster: u32,
}

/// A gate: a cell of a free leaf with at least one crossing into another free leaf.
#[derive(Clone, Debug)]
pub(crate) struct Gate {
    pub cell: Cell,
    /// Slot of the leaf holding the cell, or `NONE` while the gate slot is free.
    pub leaf: u32,
    /// Position in `leaves[leaf].gates`, so that removal is O(1).
    pub pos: u32,
    /// Gates one legal step away, in other leaves. Nearly always a handful, so they live
    /// inline: one allocation per gate was most of the build time.
    pub links: Links,
    /// Index among its cluster's gates (valid while the cluster is up to date).
    pub local: u32,
    /// Index among its cluster's entrances, or `NONE`.
    pub entrance: u32,
}

/// Slot storage that recycles freed indices, so gate and leaf indices stay dense and can
/// index the search's flat score arrays.
#[derive(Clone, Debug)]
pub(crate) struct Slots<T> {
    pub items: Vec<T>,
    free: Vec<u32>,
}

impl<T> Default for Slots<T> {
    fn default() -> Self {
        Slots {
            items: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<T> Slots<T> {
    pub fn insert(&mut self, item: T) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.items[i as usize] = item;
                i
            }
            None => {
                self.items.push(item);
                (self.items.len() - 1) as u32
            }
        }
    }

    pub fn release(&mut self, i: u32) {
        self.free.push(i);
    }

    /// Number of slots ever allocated (live or free).
    #[inline]
    pub fn capacity(&self) -> usize {
        self.items.len()
    }

    /// Number of live slots.
    #[inline]
    pub fn live(&self) -> usize {
        self.items.len() - self.free.len()
    }
}

/// Free leaves, gates and crossings, with the indexes needed to edit them.
#[derive(Clone, Debug)]
pub(crate) struct GateGraph {
    pub leaves: Slots<Leaf>,
    pub gates: Slots<Gate>,
    /// Leaf slot by quadtree node ID (free leaves only).
    pub leaf_slot: HashMap<u64, u32, ahash::RandomState>,
    /// Gate by cell index `y·W + x`, `NONE` where there is none. A dense table: it costs
    /// 4 bytes a cell, less than a hash map once gates are a sizeable share of the cells
    /// (as in exact mode), and it is looked up for every crossing added.
    gate_at: Vec<u32>,
    width: u64,
    crossing_count: usize,
}

impl GateGraph {
    pub fn new(width: u32, height: u32) -> Self {
        GateGraph {
            leaves: Slots::default(),
            gates: Slots::default(),
            leaf_slot: HashMap::default(),
            gate_at: vec![NONE; width as usize * height as usize],
            width: width as u64,
            crossing_count: 0,
        }
    }

    #[inline]
    fn key(&self, c: Cell) -> usize {
        (c.y as u64 * self.width + c.x as u64) as usize
    }

    #[inline]
    pub fn leaf(&self, slot: u32) -> &Leaf {
        &self.leaves.items[slot as usize]
    }

    #[inline]
    pub fn gate(&self, g: u32) -> &Gate {
        &self.gates.items[g as usize]
    }

    /// Number of stored crossings (each counted once, not per direction).
    pub fn crossing_count(&self) -> usize {
        self.crossing_count
    }

    pub fn add_leaf(&mut self, id: NodeId, rect: Rect) -> u32 {
        let slot = self.leaves.insert(Leaf {
            id,
            rect,
            gates: Vec::new(),
            cells: Vec::new(),
            component: NONE,
            mark: 0,
            cluster: NONE,
        });
        self.leaf_slot.insert(id.raw(), slot);
        slot
    }

    /// Removes a leaf, its gates and every crossing into them; gates of other leaves left
    /// without crossings disappear too.
    pub fn remove_leaf(&mut self, slot: u32) {
        let gates = std::mem::take(&mut self.leaves.items[slot as usize].gates);
        for &g in &gates {
            let links = std::mem::take(&mut self.gates.items[g as usize].links);
            self.crossing_count -= links.len();
            for other in links {
                self.drop_link(other, g);
            }
            self.release_gate(g);
        }
        let leaf = &mut self.leaves.items[slot as usize];
        self.leaf_slot.remove(&leaf.id.raw());
        leaf.component = NONE;
        leaf.gates = gates;
        leaf.gates.clear();
        leaf.cells.clear();
        self.leaves.release(slot);
    }

    /// Removes every crossing between leaves `a` and `b`.
    pub fn unlink_leaves(&mut self, a: u32, b: u32) {
        let gates = self.leaves.items[a as usize].gates.clone();
        for g in gates {
            let links = std::mem::take(&mut self.gates.items[g as usize].links);
            let (gone, kept): (Vec<u32>, Vec<u32>) =
                links.into_iter().partition(|&o| self.gate(o).leaf == b);
            let kept = Links::from_vec(kept);
            self.crossing_count -= gone.len();
            self.gates.items[g as usize].links = kept;
            for other in gone {
                self.drop_link(other, g);
            }
            if self.gate(g).links.is_empty() {
                self.free_gate(g);
            }
        }
    }

    /// Removes `g` from `from`'s links, and `from` itself when that was its last crossing.
    fn drop_link(&mut self, from: u32, g: u32) {
        let links = &mut self.gates.items[from as usize].links;
        if let Some(i) = links.iter().position(|&x| x == g) {
            links.swap_remove(i);
        }
        if links.is_empty() {
            self.free_gate(from);
        }
    }

    /// Frees gate `g` and takes it out of its leaf's gate list.
    fn free_gate(&mut self, g: u32) {
        let (leaf, pos) = (self.gate(g).leaf, self.gate(g).pos);
        if leaf == NONE {
            return;
        }
        let leaf = &mut self.leaves.items[leaf as usize];
        leaf.cells.swap_remove(pos as usize);
        let list = &mut leaf.gates;
        list.swap_remove(pos as usize);
        if let Some(&moved) = list.get(pos as usize) {
            self.gates.items[moved as usize].pos = pos;
        }
        self.release_gate(g);
    }

    /// Frees gate `g`'s slot and cell index, leaving its leaf's list to the caller.
    fn release_gate(&mut self, g: u32) {
        let key = self.key(self.gate(g).cell);
        self.gate_at[key] = NONE;
        let gate = &mut self.gates.items[g as usize];
        gate.leaf = NONE;
        gate.links.clear();
        self.gates.release(g);
    }

    pub(crate) fn gate_mut(&mut self, g: u32) -> &mut Gate {
        &mut self.gates.items[g as usize]
    }

    pub(crate) fn leaf_mut(&mut self, slot: u32) -> &mut Leaf {
        &mut self.leaves.items[slot as usize]
    }

    fn gate_for(&mut self, cell: Cell, leaf: u32) -> u32 {
        let key = self.key(cell);
        let g = self.gate_at[key];
        if g != NONE {
            debug_assert_eq!(self.gate(g).leaf, leaf);
            return g;
        }
        let pos = self.leaves.items[leaf as usize].gates.len() as u32;
        let g = self.gates.insert(Gate {
            cell,
            leaf,
            pos,
            links: Links::new(),
            local: NONE,
            entrance: NONE,
        });
        self.leaves.items[leaf as usize].gates.push(g);
        self.leaves.items[leaf as usize].cells.push(cell);
        self.gate_at[key] = g;
        g
    }

    /// Adds the crossing `a → b` between cells of leaves `la` and `lb`.
    pub fn link(&mut self, a: Cell, la: u32, b: Cell, lb: u32) {
        let ga = self.gate_for(a, la);
        let gb = self.gate_for(b, lb);
        debug_assert!(
            !self.gate(ga).links.contains(&gb),
            "crossing {a} -> {b} added twice"
        );
        self.gates.items[ga as usize].links.push(gb);
        self.gates.items[gb as usize].links.push(ga);
        self.crossing_count += 1;
    }

    /// The slots of the leaves this leaf has crossings into (with repeats).
    pub fn linked_leaves(&self, slot: u32) -> impl Iterator<Item = u32> + '_ {
        self.leaf(slot)
            .gates
            .iter()
            .flat_map(move |&g| self.gate(g).links.iter().map(move |&o| self.gate(o).leaf))
    }

    /// Heap bytes held, approximately.
    pub fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        let leaves = self.leaves.items.capacity() * size_of::<Leaf>()
            + self
                .leaves
                .items
                .iter()
                .map(|l| l.gates.capacity() * 4 + l.cells.capacity() * 8)
                .sum::<usize>();
        let gates = self.gates.items.capacity() * size_of::<Gate>()
            + self
                .gates
                .items
                .iter()
                .filter(|g| g.links.spilled())
                .map(|g| g.links.capacity() * 4)
                .sum::<usize>();
        let maps =
            self.leaf_slot.capacity() * (size_of::<(u64, u32)>() + 1) + self.gate_at.capacity() * 4;
        leaves + gates + maps
    }
}
