//! Where a tree's nodes live: a hash map from packed [`NodeId`] to [`Node`], keyed by a
//! 4-byte key on grids up to [`NARROW_MAX_SIDE`] a side and by the 8-byte ID beyond.
//!
//! A path-finding map's tree is mostly leaves, and every one of them is a slot of this
//! map: on a 1024² StarCraft map, 114 000 nodes in 131 072 buckets. With the 8-byte node a
//! slot is 13 bytes narrow and 17 wide (25 with the 16-byte node and wide key before).
//! *Why the narrow key is the same map*: on a grid at most 2^14 a side a node's depth is at
//! most 14 ([`Shape::max_possible_depth`]) and its column and row at that depth are below
//! 2^14, so `(depth, column, row)` packs into 4 + 14 + 14 bits without loss, and
//! [`narrow_key`] and [`narrow_id`] are inverse on those IDs: the narrow map holds the same
//! entries under other names. `narrow_and_wide_tables_agree` (below) edits both
//! layouts alike and compares them node by node.

use super::id::{NodeId, Shape};
use super::node::Node;
use hashbrown::HashMap;
use std::hash::BuildHasher;

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

/// A tree's nodes by ID, in one of two layouts chosen when the tree is made.
pub(crate) enum NodeTable<S> {
    /// Keys of 4 bytes, for grids at most [`NARROW_MAX_SIDE`] a side.
    Narrow(HashMap<u32, Node, S>),
    /// The packed 8-byte IDs, for any grid.
    Wide(HashMap<u64, Node, S>),
}

impl<S> NodeTable<S> {
    /// An empty table for a tree over `shape`: narrow when the shape allows it, unless
    /// `wide` asks for the wide layout anyway (what the tests compare the two by).
    pub(crate) fn new(shape: &Shape, hasher: S, wide: bool) -> Self {
        match wide || !Self::narrow_fits(shape) {
            true => NodeTable::Wide(HashMap::with_hasher(hasher)),
            false => NodeTable::Narrow(HashMap::with_hasher(hasher)),
        }
    }

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

    /// How many nodes the table holds.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        match self {
            NodeTable::Narrow(m) => m.len(),
            NodeTable::Wide(m) => m.len(),
        }
    }

    /// Drops every node, keeping the allocation.
    pub(crate) fn clear(&mut self) {
        match self {
            NodeTable::Narrow(m) => m.clear(),
            NodeTable::Wide(m) => m.clear(),
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
            .map(|(&k, &n)| (narrow_id(k), n));
        let wide = wide.into_iter().flatten().map(|(&k, &n)| (NodeId(k), n));
        narrow.chain(wide)
    }
}

impl<S: BuildHasher> NodeTable<S> {
    /// The bytes of the table's allocation: every bucket, used or not.
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
            NodeTable::Narrow(m) => m.get(&narrow_key(id)?).copied(),
            NodeTable::Wide(m) => m.get(&id.0).copied(),
        }
    }

    /// The node with ID `id` to change, if the tree has one.
    #[inline]
    pub(crate) fn get_mut(&mut self, id: NodeId) -> Option<&mut Node> {
        match self {
            NodeTable::Narrow(m) => m.get_mut(&narrow_key(id)?),
            NodeTable::Wide(m) => m.get_mut(&id.0),
        }
    }

    /// Whether the tree has a node with ID `id`.
    #[inline]
    pub(crate) fn contains(&self, id: NodeId) -> bool {
        match self {
            NodeTable::Narrow(m) => narrow_key(id).is_some_and(|k| m.contains_key(&k)),
            NodeTable::Wide(m) => m.contains_key(&id.0),
        }
    }

    /// Puts `node` under `id`, a node of the tree's own shape (which a narrow table's
    /// keys always hold: the tree makes its IDs itself).
    #[inline]
    pub(crate) fn insert(&mut self, id: NodeId, node: Node) {
        match self {
            NodeTable::Narrow(m) => {
                let key = narrow_key(id).expect("a narrow tree's own IDs fit its keys");
                m.insert(key, node)
            }
            NodeTable::Wide(m) => m.insert(id.0, node),
        };
    }

    /// Takes the node with ID `id` out of the tree, if it has one.
    #[inline]
    pub(crate) fn remove(&mut self, id: NodeId) -> Option<Node> {
        match self {
            NodeTable::Narrow(m) => m.remove(&narrow_key(id)?),
            NodeTable::Wide(m) => m.remove(&id.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::NodeTable;
    use crate::geom::Cell;
    use crate::quadtree::node::Packing;
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

        /// A tree keyed narrow and one keyed wide, built and edited alike, hold the same
        /// nodes with the same tallies and contents, find the same leaves and weigh what
        /// their slots say (a narrow key that drops or mixes a bit fails this).
        #[test]
        fn narrow_and_wide_tables_agree(
            (w, h, blocked) in crate::grid::arb_blocked_cells(1..64, 0.4),
            edits in proptest::collection::vec(edit(), 0..40),
            mixed in any::<bool>(),
        ) {
            let objects: Vec<(Cell, u8)> = (0..w * h)
                .filter(|&i| blocked[i as usize])
                .map(|i| (Cell::new(i % w, i / w), (i % 2) as u8))
                .collect();
            let mut narrow = tree(w, h, &objects, mixed, false);
            let mut wide = tree(w, h, &objects, mixed, true);
            prop_assert!(matches!(narrow.nodes, NodeTable::Narrow(_)));
            prop_assert!(matches!(wide.nodes, NodeTable::Wide(_)));
            let nodes = crate::quadtree::counted::tests::nodes;
            prop_assert_eq!(nodes(&narrow), nodes(&wide));
            for e in edits {
                match e {
                    Edit::Add(x, y, k) => {
                        let c = Cell::new(x % w, y % h);
                        narrow.add(c, k).unwrap();
                        wide.add(c, k).unwrap();
                    }
                    Edit::Remove(x, y, k) => {
                        let c = Cell::new(x % w, y % h);
                        prop_assert_eq!(narrow.remove(c, &k).unwrap(), wide.remove(c, &k).unwrap());
                    }
                    Edit::RemoveAll(x, y) => {
                        let c = Cell::new(x % w, y % h);
                        prop_assert_eq!(narrow.remove_all(c).unwrap(), wide.remove_all(c).unwrap());
                    }
                }
                prop_assert_eq!(nodes(&narrow), nodes(&wide));
            }
            for i in 0..w * h {
                let c = Cell::new(i % w, i / w);
                prop_assert_eq!(narrow.find(c).unwrap().id(), wide.find(c).unwrap().id());
            }
            prop_assert_eq!(narrow.nodes.len(), wide.nodes.len());
            prop_assert_eq!(narrow.nodes.slot_bytes() + 4, wide.nodes.slot_bytes());
            prop_assert_eq!((narrow.depth(), narrow.leaf_count()), (wide.depth(), wide.leaf_count()));
        }
    }
}
