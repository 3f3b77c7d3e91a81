//! Which free leaves touch: the adjacency the component labels (`components`) walk, read
//! from the gate graph's crossings or, on a layer that keeps no gate graph, from the
//! quadtree's neighbour queries.
//!
//! Two free leaves are joined when some legal step (8-connected, no corner cutting) leads
//! from a cell of one to a cell of the other; the components are the connected pieces of
//! that relation, so two free cells share a label exactly when a path joins them. An exact
//! gate graph ([`GatePolicy::All`](super::GatePolicy::All)) stores every such step as a
//! crossing, so its linked leaves are exactly the joined ones. [`TreeAdjacency`] finds the
//! same leaves without any crossing:
//! - a free leaf on a side (north, east, south, west) of a leaf shares at least one cell
//!   edge with it, and the straight step across that edge is legal (both cells are free):
//!   side neighbours are always joined;
//! - a free leaf that touches only at a corner (it holds the cell diagonally past the
//!   leaf's corner cell, and overlaps neither its rows nor its columns) is joined by the
//!   one diagonal step between those two cells, legal only when both cells beside it are
//!   free ([`Grid::can_step`]): exactly the crossing the gate graph would store.
//!
//! (A legal corner step never changes the components, since its two side cells are free
//! and give a straight way round, but keeping it makes the two adjacencies list the same
//! leaves, which the tests compare leaf by leaf.)
//!
//! Sparse gate policies (fast mode) drop crossings but keep at least one between leaves
//! joined by a legal step, so their linked leaves give the same partition; those layers
//! keep their gate graph and label through it.

use super::graph::{GateGraph, LeafId};
use crate::geom::{Cell, Direction};
use crate::grid::Grid;
use crate::quadtree::QuadTree;

/// The free leaves of a layer and which of them are joined by a legal step (see the
/// module docs): what the component labels need, and all they need.
pub(crate) trait LeafAdjacency {
    /// Leaf slots ever allocated: the length a per-leaf table needs.
    fn leaf_capacity(&self) -> usize;

    /// The live free leaves, into `out` (cleared first). Only the consistency checks and
    /// the leaf-walk labelling kept as their oracle read it: a build labels from the
    /// cells.
    #[cfg(any(test, feature = "testing"))]
    fn live_leaves(&self, out: &mut Vec<LeafId>);

    /// The free leaves joined to live leaf `leaf`, into `out` (cleared first), possibly
    /// with repeats.
    fn neighbours(&self, leaf: LeafId, out: &mut Vec<LeafId>);
}

/// The gate graph's crossings as leaf adjacency: every leaf one crossing away.
impl LeafAdjacency for GateGraph {
    fn leaf_capacity(&self) -> usize {
        GateGraph::leaf_capacity(self)
    }

    #[cfg(any(test, feature = "testing"))]
    fn live_leaves(&self, out: &mut Vec<LeafId>) {
        out.clear();
        out.extend(self.leaves().map(|(id, _)| id));
    }

    fn neighbours(&self, leaf: LeafId, out: &mut Vec<LeafId>) {
        out.clear();
        out.extend(self.linked_leaves(leaf));
    }
}

/// Leaf adjacency from the quadtree's neighbour queries and the grid's step rule, for a
/// layer whose gate graph holds its leaves but no gates (see the module docs).
pub(crate) struct TreeAdjacency<'a> {
    /// The free leaves (gates or none).
    pub graph: &'a GateGraph,
    pub tree: &'a QuadTree<u8>,
    pub grid: &'a Grid,
}

/// Each diagonal with the corner of a leaf it leaves from (`true` for the right column,
/// `true` for the bottom row).
const CORNERS: [(Direction, bool, bool); 4] = [
    (Direction::NW, false, false),
    (Direction::NE, true, false),
    (Direction::SW, false, true),
    (Direction::SE, true, true),
];

impl LeafAdjacency for TreeAdjacency<'_> {
    fn leaf_capacity(&self) -> usize {
        self.graph.leaf_capacity()
    }

    #[cfg(any(test, feature = "testing"))]
    fn live_leaves(&self, out: &mut Vec<LeafId>) {
        LeafAdjacency::live_leaves(self.graph, out);
    }

    fn neighbours(&self, leaf: LeafId, out: &mut Vec<LeafId>) {
        out.clear();
        let l = self.graph.leaf(leaf);
        let (id, r) = (l.id, self.graph.rect_of(l));
        for dir in [Direction::N, Direction::E, Direction::S, Direction::W] {
            self.tree.for_each_neighbour(id, dir, |n| {
                out.extend(self.graph.leaf_of(n.id()));
            });
        }
        for (dir, right, bottom) in CORNERS {
            let corner = Cell::new(
                if right { r.x2 } else { r.x1 },
                if bottom { r.y2 } else { r.y1 },
            );
            if !self.grid.can_step(corner, dir) {
                continue;
            }
            let past = corner.step(dir).expect("a legal step stays on the map");
            // A leaf holding the diagonal cell that also runs along a side was met there.
            let node = self.tree.find(past).expect("a legal step stays on the map");
            let nr = node.rect();
            let corner_only = (nr.x2 < r.x1 || nr.x1 > r.x2) && (nr.y2 < r.y1 || nr.y1 > r.y2);
            if corner_only {
                out.extend(self.graph.leaf_of(node.id()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{LeafAdjacency, TreeAdjacency};
    use crate::hpa::graph::SlotId;
    use crate::{Config, Grid, HpaMap};
    use proptest::prelude::*;

    /// Every leaf's neighbours, sorted and each once.
    fn neighbour_sets(adjacency: &impl LeafAdjacency) -> Vec<(usize, Vec<usize>)> {
        let (mut leaves, mut next) = (Vec::new(), Vec::new());
        adjacency.live_leaves(&mut leaves);
        leaves
            .iter()
            .map(|&leaf| {
                adjacency.neighbours(leaf, &mut next);
                let mut ids: Vec<usize> = next.iter().map(|n| n.index()).collect();
                ids.sort_unstable();
                ids.dedup();
                (leaf.index(), ids)
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// The quadtree's neighbours with the corner rule list, leaf by leaf, exactly the
        /// leaves an exact gate graph links: its crossings are every legal step between
        /// two free leaves. (Drop a side, or the corner rule, and this fails.)
        #[test]
        fn tree_neighbours_are_the_exact_gate_graphs_links(
            (w, h, blocked) in crate::grid::arb_blocked_cells(1..40, 0.35),
            side in prop_oneof![Just(None), (1u32..5).prop_map(Some)],
        ) {
            let grid = Grid::from_fn(w, h, |x, y| !blocked[(y * w + x) as usize]);
            let config = Config::exact().with_subgoals(false).with_max_leaf_side(side);
            let map = HpaMap::new(grid, config).unwrap();
            prop_assert!(map.linked);
            let tree = TreeAdjacency { graph: &map.graph, tree: &map.tree, grid: &map.grid };
            prop_assert_eq!(neighbour_sets(&tree), neighbour_sets(&*map.graph));
        }
    }
}
