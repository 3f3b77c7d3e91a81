//! Where a tree's nodes live: hash tables from packed [`NodeId`] to [`Node`], keyed by a
//! 4-byte key on grids up to [`NARROW_MAX_SIDE`] a side and by the 8-byte ID beyond.
//!
//! A path-finding map's tree is mostly leaves, and every one of them is a slot of this
//! table: on a 1024² StarCraft map, 114 000 nodes in 131 072 buckets. With the 8-byte node a
//! slot is 13 bytes narrow and 17 wide (25 with the 16-byte node and wide key before).
//! *Why the narrow key is the same map*: on a grid at most 2^14 a side a node's depth is at
//! most 14 ([`Shape::max_possible_depth`]) and its column and row at that depth are below
//! 2^14, so `(depth, column, row)` packs into 4 + 14 + 14 bits without loss, and
//! [`narrow_key`] and [`narrow_id`] are inverse on those IDs: the narrow map holds the same
//! entries under other names. `narrow_and_wide_tables_agree` (below) edits both
//! layouts alike and compares them node by node.
//!
//! *Shards.* A hashbrown table has a power of two of buckets and fills at most 7/8 of them,
//! so a tree a few nodes past a step doubles its table: Cauldron's 2×2 layer, 122 981
//! nodes, took 262 144 buckets (3.4 MB) where 140 550 would do. The table is therefore
//! split into `k` hashbrown tables (shards), `k` chosen when a tree is built
//! ([`Layout::for_nodes`]) so that each shard, of the same power of two, is nearly full:
//! 9 shards of 16 384 buckets there (1.9 MB). A node's shard is picked by bits 24–55 of its
//! hash ([`shard_of`]), which hashbrown uses neither for the bucket (the low bits) nor for
//! the control byte (the top 7): within a shard the hashes stay as spread as in one table.
//! The key is hashed once per look-up; a pick costs a multiply and an index more, and a
//! table of one shard (the layout whenever no split saves buckets, e.g. Cauldron's 1×1
//! tree, 114 297 nodes in 131 072) skips it but still reads its table through the list of
//! shards: on the subgoals bench's edits of 1×1 layers, +0.4 % instructions in all
//! (session 43). *Tried*: a variant of this enum per layout (one table inline, or shards),
//! so that the existing `match` picks both: +1.7 % on the same edits, the four-armed
//! look-up no longer inlined where it was. Each shard grows (and never shrinks) on its
//! own when edits fill it, by its own size only (one table of 114 297 nodes doubles to
//! 262 144 buckets; one shard of 16 384 to 32 768). The shards' node counts are
//! binomial: a shard is planned for its mean share plus five standard deviations, so
//! that a build whose shard outgrows its plan (and doubles, weighing more than
//! [`Layout`] counts, and more than the tree's estimate) has odds below one in a million.
//! A build lays its table out once it knows its node count: the counted build lists its
//! nodes first and stores them in one pass ([`NodeTable::fill`]: no table grows and
//! rehashes on the way); the partition build, which reads its nodes back as it goes,
//! grows one table and lays it out anew at its end if that saves buckets
//! ([`NodeTable::refit`]).
//! `sharded_tables_hold_what_a_map_holds` (below) runs edits on tables of several shards
//! against a plain map, and `narrow_and_wide_tables_agree` compares a tree re-sharded
//! before its edits with the others.

use super::id::{NodeId, Shape};
use super::node::Node;
use hashbrown::HashTable;
use std::hash::{BuildHasher, Hash};

/// Bits of a node's column and of its row in a narrow key.
const NARROW_AXIS_BITS: u32 = 14;
const NARROW_AXIS_MASK: u32 = (1 << NARROW_AXIS_BITS) - 1;

/// The largest width or height whose tree keys its nodes by 4 bytes: 2^14 cells.
pub(crate) const NARROW_MAX_SIDE: u32 = 1 << NARROW_AXIS_BITS;

/// The largest depth a narrow key holds (its top 4 bits).
const NARROW_MAX_DEPTH: u32 = 15;

/// The 4-byte key of `id`: depth in the top 4 bits, then column and row in 14 each, or
/// `None` for an ID no narrow tree holds (a depth or index past the fields; such IDs come
/// only from callers, e.g. a [`NodeId`] of a bigger tree, and must find nothing rather
/// than another node under a wrapped key).
#[inline]
fn narrow_key(id: NodeId) -> Option<u32> {
    let fits = id.depth() <= NARROW_MAX_DEPTH && (id.ix() | id.iy()) <= NARROW_AXIS_MASK;
    fits.then(|| id.depth() << (2 * NARROW_AXIS_BITS) | id.ix() << NARROW_AXIS_BITS | id.iy())
}

/// The ID a narrow key stands for.
#[inline]
fn narrow_id(key: u32) -> NodeId {
    NodeId::pack(
        key >> (2 * NARROW_AXIS_BITS),
        (key >> NARROW_AXIS_BITS) & NARROW_AXIS_MASK,
        key & NARROW_AXIS_MASK,
    )
}

/// The shard of `shards` holding the key of hash `hash`: bits 24–55 of the hash scaled to
/// the shard count (see the module docs for why those bits).
#[inline]
fn shard_of(hash: u64, shards: usize) -> usize {
    ((((hash >> 24) & 0xFFFF_FFFF) * shards as u64) >> 32) as usize
}

/// How a table of a given number of nodes is split: its shard count and the nodes each
/// shard is made for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    shards: usize,
    capacity: usize,
}

impl Layout {
    /// The most shards a table is split into: a bound on the list of shards (a finer split
    /// saves less each step, and each shard adds its margin; Cauldron's 2×2 tree takes 9).
    const MAX_SHARDS: usize = 16;

    /// The smallest shard capacity worth splitting for (smaller tables are kept whole: what
    /// they could save is little, and hashbrown's rounding of small tables differs).
    const MIN_SHARD_CAPACITY: usize = 1024;

    /// The layout of fewest buckets for `nodes` nodes: one table when no split saves
    /// buckets, else `k` shards each made for its mean share plus a margin.
    pub(crate) fn for_nodes(nodes: usize) -> Layout {
        let mut best = Layout {
            shards: 1,
            capacity: nodes,
        };
        for shards in 2..=Self::MAX_SHARDS {
            let mean = nodes.div_ceil(shards);
            // Five standard deviations of a binomial share (at most its mean's square root).
            let capacity = mean + 5 * (mean as f64).sqrt().ceil() as usize + 8;
            let split = Layout { shards, capacity };
            if capacity >= Self::MIN_SHARD_CAPACITY && split.buckets() < best.buckets() {
                best = split;
            }
        }
        best
    }

    /// Buckets of all shards together.
    pub(crate) fn buckets(&self) -> usize {
        self.shards * buckets_for(self.capacity)
    }

    /// How many shards.
    pub(crate) fn shards(&self) -> usize {
        self.shards
    }
}

/// The buckets of a hashbrown table made for, or grown to, `capacity` entries: a power of
/// two, at least 4, of which 7/8 are usable from 8 on (all but one below).
pub(crate) fn buckets_for(capacity: usize) -> usize {
    let usable = |b: usize| if b < 8 { b - 1 } else { b / 8 * 7 };
    let mut buckets = 4;
    while usable(buckets) < capacity {
        buckets *= 2;
    }
    buckets
}

/// Nodes under keys of type `K` (a narrow `u32` or a wide `u64`), in one or more shards.
pub(crate) struct Shards<K, S> {
    hasher: S,
    /// At least one.
    tables: Box<[HashTable<(K, Node)>]>,
}

impl<K: Copy + Eq + Hash, S: BuildHasher> Shards<K, S> {
    /// One empty shard, which grows as nodes come.
    fn new(hasher: S) -> Self {
        Shards {
            hasher,
            tables: Box::new([HashTable::new()]),
        }
    }

    /// Replaces the table's entries by `entries` (distinct keys), laid out for their
    /// number: each shard is made for the entries it gets, so none grows while it is filled.
    fn refill(&mut self, entries: Vec<(K, Node)>) {
        let shards = Layout::for_nodes(entries.len()).shards;
        let hasher = &self.hasher;
        let hashed: Vec<(u64, (K, Node))> = entries
            .into_iter()
            .map(|e| (hasher.hash_one(e.0), e))
            .collect();
        let mut counts = vec![0; shards];
        for &(h, _) in &hashed {
            counts[shard_of(h, shards)] += 1;
        }
        let mut tables: Box<[_]> = counts.into_iter().map(HashTable::with_capacity).collect();
        for (h, e) in hashed {
            tables[shard_of(h, shards)].insert_unique(h, e, |e| hasher.hash_one(e.0));
        }
        self.tables = tables;
    }

    /// Lays the entries out anew for their number, if that takes fewer buckets.
    fn refit(&mut self) {
        if Layout::for_nodes(self.len()).buckets() < self.buckets() {
            let entries = self.tables.iter_mut().flat_map(|t| t.drain()).collect();
            self.refill(entries);
        }
    }

    /// The shard of the key of hash `hash`: a table of one shard (every tree of up to
    /// about 2,000 nodes, and a larger one whose count no split serves better) skips the
    /// pick, whose multiply and bounds check are most of what shards add to a look-up.
    #[inline]
    fn shard(&self, hash: u64) -> &HashTable<(K, Node)> {
        match &*self.tables {
            [only] => only,
            tables => &tables[shard_of(hash, tables.len())],
        }
    }

    /// [`Shards::shard`] to change.
    #[inline]
    fn shard_mut(&mut self, hash: u64) -> &mut HashTable<(K, Node)> {
        match &mut *self.tables {
            [only] => only,
            tables => {
                let s = shard_of(hash, tables.len());
                &mut tables[s]
            }
        }
    }

    #[inline]
    fn get(&self, key: K) -> Option<Node> {
        let hash = self.hasher.hash_one(key);
        self.shard(hash).find(hash, |e| e.0 == key).map(|e| e.1)
    }

    #[inline]
    fn get_mut(&mut self, key: K) -> Option<&mut Node> {
        let hash = self.hasher.hash_one(key);
        self.shard_mut(hash)
            .find_mut(hash, |e| e.0 == key)
            .map(|e| &mut e.1)
    }

    #[inline]
    fn insert(&mut self, key: K, node: Node) {
        let hash = self.hasher.hash_one(key);
        let Shards { hasher, tables } = self;
        let shards = tables.len();
        let rehash = |e: &(K, Node)| hasher.hash_one(e.0);
        let shard = &mut tables[shard_of(hash, shards)];
        match shard.entry(hash, |e| e.0 == key, rehash) {
            hashbrown::hash_table::Entry::Occupied(mut o) => o.get_mut().1 = node,
            hashbrown::hash_table::Entry::Vacant(v) => {
                v.insert((key, node));
            }
        }
    }

    #[inline]
    fn remove(&mut self, key: K) -> Option<Node> {
        let hash = self.hasher.hash_one(key);
        let found = self.shard_mut(hash).find_entry(hash, |e| e.0 == key).ok()?;
        Some(found.remove().0 .1)
    }

    /// The bytes of the shards' allocations, every bucket, and of the list of shards.
    fn allocation_size(&self) -> usize {
        self.tables
            .iter()
            .map(|t| t.allocation_size())
            .sum::<usize>()
            + std::mem::size_of_val::<[HashTable<(K, Node)>]>(&self.tables)
    }
}

impl<K, S> Shards<K, S> {
    fn len(&self) -> usize {
        self.tables.iter().map(|t| t.len()).sum()
    }

    fn iter(&self) -> impl Iterator<Item = &(K, Node)> + '_ {
        self.tables.iter().flat_map(|t| t.iter())
    }

    /// Buckets of all shards.
    fn buckets(&self) -> usize {
        let buckets = |capacity| match capacity {
            0 => 0,
            c => buckets_for(c),
        };
        self.tables.iter().map(|t| buckets(t.capacity())).sum()
    }
}

/// A tree's nodes by ID, in one of two key layouts chosen when the tree is made.
pub(crate) enum NodeTable<S> {
    /// Keys of 4 bytes, for grids at most [`NARROW_MAX_SIDE`] a side.
    Narrow(Shards<u32, S>),
    /// The packed 8-byte IDs, for any grid.
    Wide(Shards<u64, S>),
}

impl<S> NodeTable<S> {
    /// Whether a tree over `shape` keys its nodes narrow.
    pub(crate) fn narrow_fits(shape: &Shape) -> bool {
        shape.width() <= NARROW_MAX_SIDE && shape.height() <= NARROW_MAX_SIDE
    }

    /// Bytes of one slot of the table of a tree over `shape`: key, node and control byte.
    pub(crate) fn slot_bytes_for(shape: &Shape) -> usize {
        Self::slot_bytes_of(Self::narrow_fits(shape))
    }

    /// Bytes of one slot of this table.
    pub(crate) fn slot_bytes(&self) -> usize {
        Self::slot_bytes_of(matches!(self, NodeTable::Narrow(_)))
    }

    /// Bytes of one slot keyed narrow or wide: key, node and hashbrown's control byte.
    fn slot_bytes_of(narrow: bool) -> usize {
        1 + match narrow {
            true => std::mem::size_of::<(u32, Node)>(),
            false => std::mem::size_of::<(u64, Node)>(),
        }
    }

    /// The bytes of one shard's entry in the list of shards.
    pub(crate) fn shard_header_bytes() -> usize {
        std::mem::size_of::<HashTable<(u64, Node)>>()
    }

    /// How many nodes the table holds.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        match self {
            NodeTable::Narrow(m) => m.len(),
            NodeTable::Wide(m) => m.len(),
        }
    }

    /// Every node with its ID, in no order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (NodeId, Node)> + '_ {
        let (narrow, wide) = match self {
            NodeTable::Narrow(m) => (Some(m.iter()), None),
            NodeTable::Wide(m) => (None, Some(m.iter())),
        };
        let narrow = narrow
            .into_iter()
            .flatten()
            .map(|&(k, n)| (narrow_id(k), n));
        let wide = wide.into_iter().flatten().map(|&(k, n)| (NodeId(k), n));
        narrow.chain(wide)
    }

    /// How many shards the table has.
    #[cfg(test)]
    pub(crate) fn shard_count(&self) -> usize {
        match self {
            NodeTable::Narrow(m) => m.tables.len(),
            NodeTable::Wide(m) => m.tables.len(),
        }
    }

    /// Buckets of all shards.
    #[cfg(test)]
    pub(crate) fn buckets(&self) -> usize {
        match self {
            NodeTable::Narrow(m) => m.buckets(),
            NodeTable::Wide(m) => m.buckets(),
        }
    }
}

impl<S: BuildHasher> NodeTable<S> {
    /// An empty table of one shard for a tree over `shape`: narrow when the shape allows
    /// it, unless `wide` asks for the wide layout anyway (what the tests compare the two by).
    pub(crate) fn new(shape: &Shape, hasher: S, wide: bool) -> Self {
        match wide || !Self::narrow_fits(shape) {
            true => NodeTable::Wide(Shards::new(hasher)),
            false => NodeTable::Narrow(Shards::new(hasher)),
        }
    }

    /// Replaces the table's nodes by `nodes` (distinct IDs of the tree's own shape), laid
    /// out for their number ([`Layout::for_nodes`]): how the counted build stores its tree.
    pub(crate) fn fill(&mut self, nodes: Vec<(NodeId, Node)>) {
        match self {
            NodeTable::Narrow(m) => m.refill(
                nodes
                    .into_iter()
                    .map(|(id, n)| {
                        (
                            narrow_key(id).expect("a narrow tree's own IDs fit its keys"),
                            n,
                        )
                    })
                    .collect(),
            ),
            NodeTable::Wide(m) => m.refill(nodes.into_iter().map(|(id, n)| (id.0, n)).collect()),
        }
    }

    /// Lays the nodes out anew for their number ([`Layout::for_nodes`]) if that takes
    /// fewer buckets than the table has: how a build that grew its table ends.
    pub(crate) fn refit(&mut self) {
        match self {
            NodeTable::Narrow(m) => m.refit(),
            NodeTable::Wide(m) => m.refit(),
        }
    }

    /// The bytes of the table's allocations: every bucket of every shard, used or not,
    /// and the list of shards.
    pub(crate) fn allocation_size(&self) -> usize {
        match self {
            NodeTable::Narrow(m) => m.allocation_size(),
            NodeTable::Wide(m) => m.allocation_size(),
        }
    }

    /// The node with ID `id`, if the tree has one.
    #[inline]
    pub(crate) fn get(&self, id: NodeId) -> Option<Node> {
        match self {
            NodeTable::Narrow(m) => m.get(narrow_key(id)?),
            NodeTable::Wide(m) => m.get(id.0),
        }
    }

    /// The node with ID `id` to change, if the tree has one.
    #[inline]
    pub(crate) fn get_mut(&mut self, id: NodeId) -> Option<&mut Node> {
        match self {
            NodeTable::Narrow(m) => m.get_mut(narrow_key(id)?),
            NodeTable::Wide(m) => m.get_mut(id.0),
        }
    }

    /// Whether the tree has a node with ID `id`.
    #[inline]
    pub(crate) fn contains(&self, id: NodeId) -> bool {
        self.get(id).is_some()
    }

    /// Puts `node` under `id`, a node of the tree's own shape (which a narrow table's
    /// keys always hold: the tree makes its IDs itself).
    #[inline]
    pub(crate) fn insert(&mut self, id: NodeId, node: Node) {
        match self {
            NodeTable::Narrow(m) => m.insert(
                narrow_key(id).expect("a narrow tree's own IDs fit its keys"),
                node,
            ),
            NodeTable::Wide(m) => m.insert(id.0, node),
        }
    }

    /// Takes the node with ID `id` out of the tree, if it has one.
    #[inline]
    pub(crate) fn remove(&mut self, id: NodeId) -> Option<Node> {
        match self {
            NodeTable::Narrow(m) => m.remove(narrow_key(id)?),
            NodeTable::Wide(m) => m.remove(id.0),
        }
    }

    /// Lays the nodes out in `shards` shards whatever their number: the tests' way to
    /// edit trees of several shards.
    #[cfg(test)]
    pub(crate) fn reshard(&mut self, shards: usize) {
        fn split<K: Copy + Eq + Hash, S: BuildHasher>(m: &mut Shards<K, S>, shards: usize) {
            let entries: Vec<_> = m.tables.iter_mut().flat_map(|t| t.drain()).collect();
            let mut tables: Box<[_]> = (0..shards).map(|_| HashTable::new()).collect();
            for e in entries {
                let h = m.hasher.hash_one(e.0);
                tables[shard_of(h, shards)].insert_unique(h, e, |e| m.hasher.hash_one(e.0));
            }
            m.tables = tables;
        }
        match self {
            NodeTable::Narrow(m) => split(m, shards),
            NodeTable::Wide(m) => split(m, shards),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{buckets_for, Layout, NodeTable};
    use crate::geom::Cell;
    use crate::quadtree::id::{NodeId, Shape};
    use crate::quadtree::node::Packing;
    use crate::quadtree::node::{Content, Node, Tally};
    use crate::quadtree::tree::Storage;
    use crate::quadtree::{QuadTree, SplitStopper};
    use proptest::prelude::*;

    /// One edit of a tree of `u8` kinds.
    #[derive(Clone, Debug)]
    enum Edit {
        Add(u32, u32, u8),
        Remove(u32, u32, u8),
        RemoveAll(u32, u32),
    }

    fn edit() -> impl Strategy<Value = Edit> {
        prop_oneof![
            3 => (0u32..64, 0u32..64, 0u8..3).prop_map(|(x, y, k)| Edit::Add(x, y, k)),
            2 => (0u32..64, 0u32..64, 0u8..3).prop_map(|(x, y, k)| Edit::Remove(x, y, k)),
            1 => (0u32..64, 0u32..64).prop_map(|(x, y)| Edit::RemoveAll(x, y)),
        ]
    }

    fn tree(w: u32, h: u32, objects: &[(Cell, u8)], mixed: bool, wide: bool) -> QuadTree<u8> {
        let stopper = match mixed {
            true => SplitStopper::max_objects(2),
            false => SplitStopper::uniform(),
        };
        let hasher = ahash::RandomState::new();
        let storage = Storage {
            kind_of: |k| *k,
            packing: Some(Packing::new()),
            wide_keys: wide,
        };
        let objects = objects.iter().copied();
        QuadTree::build_full(w, h, stopper, objects, hasher, storage).unwrap()
    }

    /// Narrow keys round-trip at the fields' extremes, and an ID past them (as one of a
    /// bigger tree) finds nothing in a narrow tree instead of a node under a wrapped key
    /// (the key once shifted depth 16 to 0: the root).
    #[test]
    fn narrow_keys_hold_their_fields_and_refuse_the_rest() {
        use super::{narrow_id, narrow_key, NARROW_AXIS_MASK, NARROW_MAX_DEPTH};
        use crate::quadtree::NodeId;
        use crate::Direction;
        for (d, x, y) in [
            (0, 0, 0),
            (14, NARROW_AXIS_MASK, 0),
            (14, 0, NARROW_AXIS_MASK),
            (NARROW_MAX_DEPTH, NARROW_AXIS_MASK, NARROW_AXIS_MASK),
        ] {
            let id = NodeId::pack(d, x, y);
            assert_eq!(narrow_key(id).map(narrow_id), Some(id), "{d} {x} {y}");
        }
        let t = tree(64, 64, &[(Cell::new(3, 5), 0)], false, false);
        assert!(matches!(t.nodes, NodeTable::Narrow(_)));
        assert!(t.node(NodeId::pack(0, 0, 0)).is_some(), "the root");
        for stranger in [
            NodeId::pack(NARROW_MAX_DEPTH + 1, 0, 0),
            NodeId::pack(17, 0, 0),
            NodeId::pack(0, NARROW_AXIS_MASK + 1, 0),
            NodeId::pack(1, 0, NARROW_AXIS_MASK + 2),
        ] {
            assert!(t.node(stranger).is_none(), "{stranger:?}");
            assert!(narrow_key(stranger).is_none());
            assert!(
                t.neighbours(stranger, Direction::E).is_empty(),
                "{stranger:?}"
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// A tree keyed narrow, one keyed wide and one whose nodes are spread over several
        /// shards, built and edited alike, hold the same nodes with the same tallies and
        /// contents, find the same leaves and weigh what their slots say (a narrow key that
        /// drops or mixes a bit fails this, and so does a shard picked by other bits on
        /// insertion than on look-up).
        #[test]
        fn narrow_and_wide_tables_agree(
            (w, h, blocked) in crate::grid::arb_blocked_cells(1..64, 0.4),
            edits in proptest::collection::vec(edit(), 0..40),
            mixed in any::<bool>(),
            shards in 2usize..7,
        ) {
            let objects: Vec<(Cell, u8)> = (0..w * h)
                .filter(|&i| blocked[i as usize])
                .map(|i| (Cell::new(i % w, i / w), (i % 2) as u8))
                .collect();
            let mut narrow = tree(w, h, &objects, mixed, false);
            let mut wide = tree(w, h, &objects, mixed, true);
            // A third tree, keyed narrow, whose nodes are spread over several shards.
            let mut sharded = tree(w, h, &objects, mixed, false);
            sharded.nodes.reshard(shards);
            prop_assert!(matches!(narrow.nodes, NodeTable::Narrow(_)));
            prop_assert!(matches!(wide.nodes, NodeTable::Wide(_)));
            prop_assert_eq!(sharded.nodes.shard_count(), shards);
            let nodes = crate::quadtree::counted::tests::nodes;
            prop_assert_eq!(nodes(&narrow), nodes(&wide));
            prop_assert_eq!(nodes(&narrow), nodes(&sharded));
            for e in edits {
                match e {
                    Edit::Add(x, y, k) => {
                        let c = Cell::new(x % w, y % h);
                        narrow.add(c, k).unwrap();
                        wide.add(c, k).unwrap();
                        sharded.add(c, k).unwrap();
                    }
                    Edit::Remove(x, y, k) => {
                        let c = Cell::new(x % w, y % h);
                        let removed = narrow.remove(c, &k).unwrap();
                        prop_assert_eq!(removed, wide.remove(c, &k).unwrap());
                        prop_assert_eq!(removed, sharded.remove(c, &k).unwrap());
                    }
                    Edit::RemoveAll(x, y) => {
                        let c = Cell::new(x % w, y % h);
                        let removed = narrow.remove_all(c).unwrap();
                        prop_assert_eq!(&removed, &wide.remove_all(c).unwrap());
                        prop_assert_eq!(&removed, &sharded.remove_all(c).unwrap());
                    }
                }
                prop_assert_eq!(nodes(&narrow), nodes(&wide));
                prop_assert_eq!(nodes(&narrow), nodes(&sharded));
            }
            for i in 0..w * h {
                let c = Cell::new(i % w, i / w);
                prop_assert_eq!(narrow.find(c).unwrap().id(), wide.find(c).unwrap().id());
                prop_assert_eq!(narrow.find(c).unwrap().id(), sharded.find(c).unwrap().id());
            }
            prop_assert_eq!(narrow.nodes.len(), sharded.nodes.len());
            prop_assert_eq!(narrow.nodes.len(), wide.nodes.len());
            prop_assert_eq!(narrow.nodes.slot_bytes() + 4, wide.nodes.slot_bytes());
            prop_assert_eq!((narrow.depth(), narrow.leaf_count()), (wide.depth(), wide.leaf_count()));
        }
    }

    /// One operation on a node table.
    #[derive(Clone, Debug)]
    enum Op {
        Insert(u32, u32, u64),
        Remove(u32, u32),
        Change(u32, u32, u64),
    }

    fn op() -> impl Strategy<Value = Op> {
        let leaf = (0u32..12, 0u32..12);
        prop_oneof![
            4 => (leaf.clone(), 0u64..1 << 40).prop_map(|((x, y), w)| Op::Insert(x, y, w)),
            2 => leaf.clone().prop_map(|(x, y)| Op::Remove(x, y)),
            1 => (leaf, 0u64..1 << 40).prop_map(|((x, y), w)| Op::Change(x, y, w)),
        ]
    }

    /// A node standing for the number `w` (an internal node's tally bits).
    fn node_of(w: u64) -> Node {
        Content::Split(Tally::new(w, 0, 0)).into()
    }

    /// Every layout holds its nodes in no more buckets than one table would: each shard is
    /// made for its mean share of the nodes plus five standard deviations of it (a margin
    /// cut to one deviation fails the second assertion), and Cauldron's 2×2 tree of 122,981
    /// nodes takes 147,456 buckets instead of 262,144.
    #[test]
    fn layouts_hold_their_nodes_in_fewer_buckets() {
        for nodes in (1..400_000).step_by(97).chain([114_297, 122_981, 1 << 17]) {
            let layout = Layout::for_nodes(nodes);
            assert!(
                layout.buckets() <= buckets_for(nodes),
                "{nodes}: {layout:?}"
            );
            let mean = nodes.div_ceil(layout.shards) as f64;
            assert!(
                layout.shards == 1 || layout.capacity as f64 >= mean + 5.0 * mean.sqrt(),
                "{nodes}: {layout:?}"
            );
            assert!(layout.shards * layout.capacity >= nodes);
        }
        assert_eq!(Layout::for_nodes(122_981).buckets(), 147_456);
        assert_eq!(Layout::for_nodes(114_297).buckets(), 131_072);
    }

    /// A counted build of tens of thousands of nodes lays its table out in shards, holds
    /// what the partition build holds, and after edits what a fresh build of the edited
    /// cells holds; it weighs no more than its estimate.
    #[test]
    fn a_sharded_tree_edits_like_a_fresh_one() {
        use crate::quadtree::counted::tests::nodes;
        use crate::quadtree::counted::CellCounts;
        let (w, h) = (256u32, 256u32);
        let mut rng = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut blocked: Vec<bool> = (0..w * h).map(|_| next() % 5 < 2).collect();
        let cells = |blocked: &[bool]| -> Vec<Cell> {
            (0..w * h)
                .filter(|&i| blocked[i as usize])
                .map(|i| Cell::new(i % w, i / w))
                .collect()
        };
        let counts = CellCounts::new(w, h, cells(&blocked));
        let estimate = counts
            .estimate_tree_bytes::<u8>(&SplitStopper::uniform())
            .unwrap();
        let mut tree =
            QuadTree::build_packed_counted(&counts, SplitStopper::uniform(), 0u8, |k| *k).unwrap();
        assert!(tree.nodes.shard_count() > 1, "{} nodes", tree.node_count());
        assert!(tree.memory_bytes() <= estimate);
        assert_eq!(
            tree.nodes.buckets(),
            Layout::for_nodes(tree.node_count()).buckets()
        );
        let objects = |b: &[bool]| cells(b).into_iter().map(|c| (c, 0u8)).collect::<Vec<_>>();
        let listed =
            QuadTree::build_packed(w, h, SplitStopper::uniform(), objects(&blocked), |k| *k)
                .unwrap();
        assert!(listed.nodes.shard_count() > 1);
        assert_eq!(nodes(&tree), nodes(&listed));
        for _ in 0..3000 {
            let i = (next() % (w * h) as u64) as usize;
            let c = Cell::new(i as u32 % w, i as u32 / w);
            match blocked[i] {
                true => assert!(tree.remove(c, &0).unwrap()),
                false => tree.add(c, 0).unwrap(),
            }
            blocked[i] = !blocked[i];
        }
        let fresh =
            QuadTree::build_packed(w, h, SplitStopper::uniform(), objects(&blocked), |k| *k)
                .unwrap();
        assert_eq!(nodes(&tree), nodes(&fresh));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(100))]

        /// A table of several shards, made small so that its shards grow, answers every
        /// look-up as a plain map given the same insertions, changes and removals does,
        /// and counts and lists the same nodes (a shard picked by other bits on insertion
        /// than on look-up, or a removal that forgets the count, fails this).
        #[test]
        fn sharded_tables_hold_what_a_map_holds(
            shards in 1usize..6,
            ops in proptest::collection::vec(op(), 0..300),
        ) {
            let shape = Shape::new(12, 12);
            let mut table = NodeTable::new(&shape, ahash::RandomState::new(), false);
            table.reshard(shards);
            let mut model = std::collections::HashMap::new();
            let id = |x: u32, y: u32| NodeId::pack(4, x, y);
            for op in ops {
                match op {
                    Op::Insert(x, y, w) => {
                        table.insert(id(x, y), node_of(w));
                        model.insert(id(x, y), node_of(w));
                    }
                    Op::Remove(x, y) => {
                        prop_assert_eq!(table.remove(id(x, y)), model.remove(&id(x, y)));
                    }
                    Op::Change(x, y, w) => {
                        let changed = table.get_mut(id(x, y)).map(|n| *n = node_of(w));
                        let expected = model.get_mut(&id(x, y)).map(|n| *n = node_of(w));
                        prop_assert_eq!(changed, expected);
                    }
                }
                prop_assert_eq!(table.len(), model.len());
            }
            for x in 0..12 {
                for y in 0..12 {
                    prop_assert_eq!(table.get(id(x, y)), model.get(&id(x, y)).copied());
                    prop_assert_eq!(table.contains(id(x, y)), model.contains_key(&id(x, y)));
                }
            }
            let mut listed: Vec<_> = table.iter().map(|(id, n)| (id.0, n.content())).collect();
            let mut expected: Vec<_> = model.iter().map(|(id, n)| (id.0, n.content())).collect();
            listed.sort_unstable_by_key(|e| e.0);
            expected.sort_unstable_by_key(|e| e.0);
            prop_assert_eq!(listed, expected);
            prop_assert_eq!(table.shard_count(), shards);
        }
    }
}
