//! What a tree would weigh, counted before it is built.

use super::id::{partition_quadrants, NodeId, Shape, MAX_SIDE};
use super::node::{covers_each_cell_once, ListTable};
use super::stopper::SplitStopper;
use super::table::{Layout, NodeTable};
use super::{QuadTree, QuadtreeError};
use crate::geom::Cell;

impl QuadTree<()> {
    /// An upper bound on the heap bytes of the tree [`QuadTree::build`] would make from
    /// objects at `cells` (one per cell, no payload), found by walking the splits it would
    /// make without storing a node: so that a caller with a memory budget can refuse a map
    /// before its tree is built. `cells` is reordered in place; nothing else is allocated.
    /// The table is counted at the capacity a map of that many nodes grows to.
    ///
    /// # Errors
    /// As [`QuadTree::build`].
    pub fn estimate_bytes(
        width: u32,
        height: u32,
        stopper: &SplitStopper,
        cells: &mut [Cell],
    ) -> Result<usize, QuadtreeError> {
        let walk = Walk {
            stopper,
            cell: |c: &Cell| *c,
            kind: |_| 0,
            packs: false,
        };
        walk.estimate::<()>(width, height, cells)
    }
}

impl QuadTree<u8> {
    /// [`QuadTree::estimate_bytes`] for the tree [`QuadTree::build_with_kinds`] would make
    /// from `objects`, each object its own kind.
    ///
    /// # Errors
    /// As [`QuadTree::build`].
    pub fn estimate_bytes_with_kinds(
        width: u32,
        height: u32,
        stopper: &SplitStopper,
        objects: &mut [(Cell, u8)],
    ) -> Result<usize, QuadtreeError> {
        Walk::over_kinds(stopper, false).estimate::<u8>(width, height, objects)
    }

    /// [`QuadTree::estimate_bytes`] for the tree [`QuadTree::build_packed`] would make
    /// from `objects`, each object its own kind: what a path-finding map's tree weighs.
    ///
    /// ```
    /// use quadpath::quadtree::{QuadTree, SplitStopper};
    /// use quadpath::Cell;
    /// let mut walls: Vec<_> = (0..64).flat_map(|y| (0..32).map(move |x| (Cell::new(x, y), 0u8))).collect();
    /// let stopper = SplitStopper::uniform();
    /// let listed = QuadTree::estimate_bytes_with_kinds(64, 64, &stopper, &mut walls)?;
    /// let packed = QuadTree::estimate_bytes_packed(64, 64, &stopper, &mut walls)?;
    /// let tree = QuadTree::build_packed(64, 64, stopper, walls, |k| *k)?;
    /// assert!(packed >= tree.memory_bytes() && packed + 2048 * 12 <= listed);
    /// # Ok::<(), quadpath::quadtree::QuadtreeError>(())
    /// ```
    ///
    /// # Errors
    /// As [`QuadTree::build`].
    pub fn estimate_bytes_packed(
        width: u32,
        height: u32,
        stopper: &SplitStopper,
        objects: &mut [(Cell, u8)],
    ) -> Result<usize, QuadtreeError> {
        Walk::over_kinds(stopper, true).estimate::<u8>(width, height, objects)
    }
}

/// What [`Walk::count_nodes`] needs to follow the build's splits over items of type `I`.
struct Walk<'a, I> {
    stopper: &'a SplitStopper,
    cell: fn(&I) -> Cell,
    kind: fn(&I) -> u8,
    /// Whether the tree packs its leaves (see [`QuadTree::build_packed`]); items of one
    /// kind are then taken to be equal objects.
    packs: bool,
}

impl<'a> Walk<'a, (Cell, u8)> {
    fn over_kinds(stopper: &'a SplitStopper, packs: bool) -> Self {
        Walk {
            stopper,
            cell: |o| o.0,
            kind: |o| o.1,
            packs,
        }
    }
}

impl<I> Walk<'_, I> {
    /// The estimate for a tree of `T` payloads over `items`.
    fn estimate<T>(
        &self,
        width: u32,
        height: u32,
        items: &mut [I],
    ) -> Result<usize, QuadtreeError> {
        if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
            return Err(QuadtreeError::BadSize { width, height });
        }
        let shape = Shape::new(width, height);
        for item in items.iter() {
            shape.check((self.cell)(item))?;
        }
        let mut census = Census::default();
        self.count_nodes(&shape, NodeId::ROOT, items, &mut census);
        Ok(table_estimate::<T>(&shape, &census))
    }

    /// Counts into `census` the nodes of the subtree [`QuadTree::build`] grows at `id`
    /// over `items` (which lie in it); `items` is partitioned in place the way the build
    /// shares objects out among children.
    fn count_nodes(&self, shape: &Shape, id: NodeId, items: &mut [I], census: &mut Census) {
        let rect = shape.rect(id);
        let one_kind = items.first().map_or(true, |first| {
            items.iter().all(|i| (self.kind)(i) == (self.kind)(first))
        });
        if self
            .stopper
            .stops_with_kinds(rect, items.len() as u64, one_kind)
        {
            let packed = self.packs
                && one_kind
                && items.len() as u64 == rect.area()
                && covers_each_cell_once(rect, items.iter().map(self.cell));
            census.nodes += 1;
            match items.len() {
                0 => {}
                _ if packed => census.packed += 1,
                n => census.listed(n),
            }
            return;
        }
        census.nodes += 1;
        let kids = shape.children(id, rect);
        let counts = partition_quadrants(shape, rect, &kids, items, self.cell);
        let mut rest = items;
        for (&kid, &n) in kids.iter().zip(&counts) {
            let (mine, others) = rest.split_at_mut(n);
            self.count_nodes(shape, kid, mine, census);
            rest = others;
        }
    }
}

/// What an estimate counts of a tree before it is built.
#[derive(Default)]
pub(super) struct Census {
    /// Nodes, internal and leaves.
    pub(super) nodes: usize,
    /// Packed leaves (each keeps one object in the tree's filled table).
    pub(super) packed: usize,
    /// Listed leaves.
    pub(super) lists: usize,
    /// The objects the listed leaves hold (a list has room for its objects only; an edit
    /// that grows it reallocates, and is counted by the map as waste).
    pub(super) listed_objects: usize,
}

impl Census {
    /// One more listed leaf, of `n` objects.
    pub(super) fn listed(&mut self, n: usize) {
        self.lists += 1;
        self.listed_objects += n;
    }
}

/// The heap bytes of a tree of `T` payloads over `shape` as `census` counts it: the
/// table at the capacity a map of that many nodes grows to, the lists, the packed leaves'
/// objects, the depth counts.
pub(super) fn table_estimate<T>(shape: &Shape, census: &Census) -> usize {
    // The table as a build lays it out (`table.rs`): one hashbrown table grown in powers
    // of two, or shards of one power of two, each made for its share.
    let layout = Layout::for_nodes(census.nodes);
    let objects = ListTable::<T>::bytes_for(census.lists, census.listed_objects)
        + census.packed * std::mem::size_of::<T>();
    std::mem::size_of::<QuadTree<T>>()
        // The table: its slots, a control byte per bucket, and per shard a group of
        // trailing control bytes, the padding before them (at most 16 each) and its entry
        // in the list of shards.
        + layout.buckets() * NodeTable::<()>::slot_bytes_for(shape)
        + layout.shards() * (32 + NodeTable::<()>::shard_header_bytes())
        + objects
        + (shape.max_possible_depth() as usize + 1) * std::mem::size_of::<u32>()
}
