//! The bulk build of a tree whose objects are one equal value at each of a set of cells
//! (a path-finding map's blocked cells), from a table of cell counts instead of an object
//! list.
//!
//! [`QuadTree::build_packed`] partitions its object list at every level, so each blocked
//! cell of a 1024² map is moved and counted about ten times, and the list itself (12
//! bytes a cell) is built first. Here a summed-area table gives the number of cells in
//! any node's rectangle in four reads, so the descent visits each node once and touches
//! no cell: the same nodes, tallies and contents as [`QuadTree::build_packed`] over the
//! same cells (a node is split or stopped on its count and kinds alone, and a stopped
//! node whose every cell holds the value is packed, as there), which
//! `counted_build_equals_the_partition_build` checks on random maps.

use super::id::NodeId;
use super::node::{Content, Node, Packing, Tally};
use super::stopper::SplitStopper;
use super::tree::{LeafChange, QuadTree};
use super::QuadtreeError;
use crate::geom::{Cell, Rect};

/// The largest `(width + 1) · (height + 1)` a [`CellCounts`] table is made for (16 MiB
/// of counts, a 2048² map): beyond it the build lists objects instead, which costs less
/// than a table over a large and sparse map.
const MAX_COUNTED_CELLS: u64 = 1 << 22;

/// Whether a `width × height` tree may be built by [`QuadTree::build_packed_cells`].
pub(crate) fn counted_build_fits(width: u32, height: u32) -> bool {
    (width as u64 + 1) * (height as u64 + 1) <= MAX_COUNTED_CELLS
}

/// A summed-area table of a set of cells: `sums[y · (w + 1) + x]` counts the cells above
/// row `y` and left of column `x`.
struct CellCounts {
    stride: usize,
    sums: Vec<u32>,
}

impl CellCounts {
    fn new(width: u32, height: u32, cells: impl IntoIterator<Item = Cell>) -> Self {
        let stride = width as usize + 1;
        let mut sums = vec![0u32; stride * (height as usize + 1)];
        for c in cells {
            sums[(c.y as usize + 1) * stride + c.x as usize + 1] += 1;
        }
        for y in 1..=height as usize {
            let mut row = 0;
            for x in 1..stride {
                row += sums[y * stride + x];
                sums[y * stride + x] = sums[(y - 1) * stride + x] + row;
            }
        }
        CellCounts { stride, sums }
    }

    /// How many of the cells lie in `r`.
    #[inline]
    fn count(&self, r: Rect) -> u64 {
        let at = |x: u32, y: u32| self.sums[y as usize * self.stride + x as usize];
        let (x1, y1, x2, y2) = (r.x1, r.y1, r.x2 + 1, r.y2 + 1);
        u64::from(at(x2, y2) + at(x1, y1) - at(x1, y2) - at(x2, y1))
    }
}

impl<T: Copy + PartialEq> QuadTree<T> {
    /// [`QuadTree::build_packed`] over `object` at each of `cells` (each at most once, all
    /// on the grid), built from their counts (see the module docs), for a grid
    /// [`counted_build_fits`] accepts.
    ///
    /// # Errors
    /// As [`QuadTree::build`].
    pub(crate) fn build_packed_cells(
        width: u32,
        height: u32,
        stopper: SplitStopper,
        cells: impl IntoIterator<Item = Cell>,
        object: T,
        kind_of: fn(&T) -> u8,
    ) -> Result<Self, QuadtreeError> {
        // An empty tree checks the size, as the listed build does.
        let mut tree = QuadTree::with_hasher(width, height, stopper, ahash::RandomState::new())?;
        debug_assert!(
            counted_build_fits(width, height),
            "a count table this large"
        );
        tree.kind_of = kind_of;
        tree.packing = Some(Packing::new());
        tree.nodes.clear();
        tree.leaf_count = 0;
        tree.depth_counts.fill(0);
        let counts = CellCounts::new(width, height, cells);
        tree.grow_counted(NodeId::ROOT, &counts, object);
        tree.lists.shrink_to_fit();
        Ok(tree)
    }

    /// Stores node `id` and the subtree below it the stopper asks for, depth first.
    fn grow_counted(&mut self, id: NodeId, counts: &CellCounts, object: T) {
        self.depth_counts[id.depth() as usize] += 1;
        self.max_depth = self.max_depth.max(id.depth());
        let rect = self.shape.rect(id);
        let n = counts.count(rect);
        let kind = (self.kind_of)(&object);
        let tally = match n {
            0 => Tally::default(),
            n => Tally::new(n, kind, kind),
        };
        if !self.stopper.stops_with_kinds(rect, n, true) {
            let content = Content::Split;
            self.nodes.insert(id.0, Node { tally, content });
            for &kid in self.shape.children(id, rect).iter() {
                self.grow_counted(kid, counts, object);
            }
            return;
        }
        let content = if n == 0 {
            Content::Empty
        } else if n == rect.area() {
            Content::Filled(object)
        } else {
            // Not packed (a stopper that keeps mixed leaves): its cells, row by row.
            let mut list = Vec::with_capacity(n as usize);
            list.extend(
                rect.cells()
                    .filter(|c| counts.count(Rect::new(c.x, c.y, c.x, c.y)) == 1)
                    .map(|c| (c, object)),
            );
            Content::Listed(self.lists.store(list))
        };
        self.nodes.insert(id.0, Node { tally, content });
        self.leaf_count += 1;
        self.log(LeafChange::Created { id, rect });
    }
}

#[cfg(test)]
mod tests {
    use crate::geom::Cell;
    use crate::quadtree::{QuadTree, SplitStopper};
    use proptest::prelude::*;

    /// Every node of a tree with its tally and content, sorted: what two builds are
    /// compared by.
    fn nodes(tree: &QuadTree<u8>) -> Vec<String> {
        let mut all: Vec<String> = tree
            .nodes
            .iter()
            .map(|(id, node)| {
                let objects = match &node.content {
                    super::Content::Listed(i) => {
                        let mut list = tree.lists.get(*i).to_vec();
                        list.sort_unstable_by_key(|(c, _)| (c.y, c.x));
                        format!("{list:?}")
                    }
                    other => format!("{other:?}"),
                };
                format!("{id} {:?} {objects}", node.tally)
            })
            .collect();
        all.sort_unstable();
        all
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// The counted build makes the nodes, tallies and contents of the partition
        /// build, with the depth and leaf counts (count one cell wrong, or pack a
        /// partly filled leaf, and this fails).
        #[test]
        fn counted_build_equals_the_partition_build(
            (w, h, blocked) in crate::grid::arb_blocked_cells(1..70, 0.45),
            side in prop_oneof![Just(None), (1u32..9).prop_map(Some)],
            mixed in any::<bool>(),
        ) {
            let cells: Vec<Cell> = (0..w * h)
                .filter(|&i| blocked[i as usize])
                .map(|i| Cell::new(i % w, i / w))
                .collect();
            // A stopper that keeps mixed leaves too, for the listed leaves.
            let stopper = || {
                let s = match mixed {
                    true => SplitStopper::max_objects(3),
                    false => SplitStopper::uniform(),
                };
                match side {
                    Some(side) => s.with_max_leaf_side(side),
                    None => s,
                }
            };
            let listed = QuadTree::build_packed(
                w, h, stopper(), cells.iter().map(|&c| (c, 0u8)), |k| *k,
            ).unwrap();
            let counted = QuadTree::build_packed_cells(w, h, stopper(), cells, 0u8, |k| *k)
                .unwrap();
            prop_assert_eq!(nodes(&counted), nodes(&listed));
            prop_assert_eq!(counted.depth(), listed.depth());
            prop_assert_eq!(counted.leaf_count(), listed.leaf_count());
            prop_assert_eq!(counted.depth_counts.clone(), listed.depth_counts.clone());
            prop_assert_eq!(counted.memory_bytes(), listed.memory_bytes());
        }
    }
}
