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
//!
//! The nodes are listed as the descent makes them and stored at its end, in a table laid
//! out for their number (see `table.rs`, *Shards*).

use super::estimate::{table_estimate, Census};
use super::id::{NodeId, Shape, MAX_SIDE};
use super::node::{Content, Node, Packing, Tally};
use super::stopper::SplitStopper;
use super::tree::{LeafChange, QuadTree};
use super::QuadtreeError;
#[cfg(test)]
use crate::geom::Cell;
use crate::geom::Rect;

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
pub(crate) struct CellCounts {
    width: u32,
    height: u32,
    stride: usize,
    sums: Vec<u32>,
}

impl CellCounts {
    /// The heap bytes of the table of a `width × height` grid: what a caller with a memory
    /// limit checks before making one.
    pub(crate) fn table_bytes(width: u32, height: u32) -> usize {
        (width as usize + 1) * (height as usize + 1) * std::mem::size_of::<u32>()
    }

    /// The table of `cells` (each at most once, all on the `width × height` grid, which
    /// [`counted_build_fits`] accepts): the oracle of [`CellCounts::from_rows`], which the
    /// build uses.
    #[cfg(test)]
    pub(crate) fn new(width: u32, height: u32, cells: impl IntoIterator<Item = Cell>) -> Self {
        debug_assert!(
            counted_build_fits(width, height),
            "a count table this large"
        );
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
        CellCounts {
            width,
            height,
            stride,
            sums,
        }
    }

    /// The table of a `width × height` grid whose counted cells `row_bits(y, x0)` gives,
    /// 64 at a time: bit `j` for cell `(x0 + j, y)` (0 past the row's end). The same
    /// table as `CellCounts::new` of those cells, from one pass over the rows' words
    /// instead of a write per cell then a pass (on Cauldron's 1024² grid, with its blocked
    /// cells listed one at a time: 25.6M instructions against 14.1M).
    pub(crate) fn from_rows(width: u32, height: u32, row_bits: impl Fn(u32, u32) -> u64) -> Self {
        debug_assert!(
            counted_build_fits(width, height),
            "a count table this large"
        );
        let stride = width as usize + 1;
        let mut sums = vec![0u32; stride * (height as usize + 1)];
        for y in 0..height {
            let (above, here) =
                sums[y as usize * stride..(y as usize + 2) * stride].split_at_mut(stride);
            let mut row = 0;
            for x0 in (0..width).step_by(64) {
                let bits = row_bits(y, x0);
                let first = x0 as usize + 1;
                let last = (x0 as usize + 64).min(width as usize);
                for (j, (sum, &up)) in here[first..=last]
                    .iter_mut()
                    .zip(&above[first..=last])
                    .enumerate()
                {
                    row += (bits >> j) as u32 & 1;
                    *sum = up + row;
                }
            }
        }
        CellCounts {
            width,
            height,
            stride,
            sums,
        }
    }

    /// An upper bound on the heap bytes of the tree [`QuadTree::build_packed_counted`]
    /// makes from these counts with `stopper`, payloads of type `T`, as
    /// [`QuadTree::estimate_bytes_packed`] counts it from an object list: the same walk of
    /// the splits, each node's count read from the table, no node stored. A map with a
    /// memory limit is refused before its tree exists.
    ///
    /// # Errors
    /// As [`QuadTree::build`].
    pub(crate) fn estimate_tree_bytes<T>(
        &self,
        stopper: &SplitStopper,
    ) -> Result<usize, QuadtreeError> {
        let (width, height) = (self.width, self.height);
        if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
            return Err(QuadtreeError::BadSize { width, height });
        }
        let shape = Shape::new(self.width, self.height);
        let mut census = Census::default();
        self.count_nodes(&shape, stopper, NodeId::ROOT, &mut census);
        Ok(table_estimate::<T>(&shape, &census))
    }

    /// Counts into `census` the nodes of the subtree the counted build grows at `id`.
    fn count_nodes(&self, shape: &Shape, stopper: &SplitStopper, id: NodeId, census: &mut Census) {
        let rect = shape.rect(id);
        let n = self.count(rect);
        census.nodes += 1;
        if stopper.stops_with_kinds(rect, n, true) {
            match n {
                0 => {}
                n if n == rect.area() => census.packed += 1,
                n => census.listed(n as usize),
            }
            return;
        }
        for &kid in shape.children(id, rect).iter() {
            self.count_nodes(shape, stopper, kid, census);
        }
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
    /// [`QuadTree::build_packed`] over `object` at each of the cells `counts` holds,
    /// built from their counts (see the module docs).
    ///
    /// # Errors
    /// As [`QuadTree::build`].
    pub(crate) fn build_packed_counted(
        counts: &CellCounts,
        stopper: SplitStopper,
        object: T,
        kind_of: fn(&T) -> u8,
    ) -> Result<Self, QuadtreeError> {
        // An empty tree checks the size, as the listed build does.
        let mut tree = QuadTree::with_hasher(
            counts.width,
            counts.height,
            stopper,
            ahash::RandomState::new(),
        )?;
        tree.kind_of = kind_of;
        tree.packing = Some(Packing::new());
        tree.leaf_count = 0;
        tree.depth_counts.fill(0);
        // The nodes are listed first and stored once their number is known, in a table
        // laid out for it (`table.rs`): no table grows (and rehashes) on the way.
        let mut nodes = Vec::new();
        tree.grow_counted(NodeId::ROOT, counts, object, &mut nodes);
        tree.nodes.fill(nodes);
        tree.lists.shrink_to_fit();
        tree.filled.shrink_to_fit();
        Ok(tree)
    }

    /// Lists in `nodes` node `id` and the subtree below it the stopper asks for, depth
    /// first.
    fn grow_counted(
        &mut self,
        id: NodeId,
        counts: &CellCounts,
        object: T,
        nodes: &mut Vec<(NodeId, Node)>,
    ) {
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
            nodes.push((id, Content::Split(tally).into()));
            for &kid in self.shape.children(id, rect).iter() {
                self.grow_counted(kid, counts, object, nodes);
            }
            return;
        }
        let content = if n == 0 {
            Content::Empty
        } else if n == rect.area() {
            Content::Filled(self.filled.store(object))
        } else {
            // Not packed (a stopper that keeps mixed leaves): its cells, row by row.
            let mut list = Vec::with_capacity(n as usize);
            list.extend(
                rect.cells()
                    .filter(|c| counts.count(Rect::new(c.x, c.y, c.x, c.y)) == 1)
                    .map(|c| (c, object)),
            );
            Content::Listed(self.lists.store(list, tally))
        };
        nodes.push((id, content.into()));
        self.leaf_count += 1;
        self.log(LeafChange::Created { id, rect });
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::CellCounts;
    use crate::geom::Cell;
    use crate::quadtree::{QuadTree, SplitStopper};
    use proptest::prelude::*;

    /// Every node of a tree with its tally and content, sorted: what two builds are
    /// compared by.
    pub(crate) fn nodes<S: std::hash::BuildHasher>(tree: &QuadTree<u8, S>) -> Vec<String> {
        let mut all: Vec<String> = tree
            .nodes
            .iter()
            .map(|(id, node)| {
                let content = node.content();
                let objects = match content {
                    super::Content::Split(_) => "split".to_string(),
                    super::Content::Empty => "empty".to_string(),
                    super::Content::Listed(i) => {
                        let mut list = tree.lists.get(i).to_vec();
                        list.sort_unstable_by_key(|(c, _)| (c.y, c.x));
                        format!("listed {list:?}")
                    }
                    super::Content::Filled(i) => format!("filled {:?}", tree.filled.get(i)),
                };
                format!("{id} {:?} {objects}", tree.tally_of(id, content))
            })
            .collect();
        all.sort_unstable();
        all
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// The table made from the rows' words equals the one made from the cells, on
        /// widths on and off 64 (count a bit past a word's last cell, or drop a word's
        /// last bit, and this fails).
        #[test]
        fn counts_from_rows_equal_counts_from_cells(
            (w, h, blocked) in crate::grid::arb_blocked_cells_sized(1..200, 1..6, 0.4),
        ) {
            let cells: Vec<Cell> = (0..w * h)
                .filter(|&i| blocked[i as usize])
                .map(|i| Cell::new(i % w, i / w))
                .collect();
            let by_rows = CellCounts::from_rows(w, h, |y, x0| {
                (0..64u32)
                    .filter(|&j| x0 + j < w && blocked[(y * w + x0 + j) as usize])
                    .fold(0u64, |bits, j| bits | 1 << j)
            });
            let by_cells = CellCounts::new(w, h, cells);
            prop_assert_eq!(by_rows.sums, by_cells.sums);
        }

        /// The counted build makes the nodes, tallies and contents of the partition
        /// build, with the depth and leaf counts, and its estimate is the listed one
        /// (count one cell wrong, or pack a partly filled leaf, and this fails).
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
            let mut objects: Vec<(Cell, u8)> = cells.iter().map(|&c| (c, 0u8)).collect();
            let listed_estimate =
                QuadTree::estimate_bytes_packed(w, h, &stopper(), &mut objects).unwrap();
            let listed = QuadTree::build_packed(w, h, stopper(), objects, |k| *k).unwrap();
            let counts = CellCounts::new(w, h, cells);
            let counted_estimate = counts.estimate_tree_bytes::<u8>(&stopper()).unwrap();
            let counted = QuadTree::build_packed_counted(&counts, stopper(), 0u8, |k| *k)
                .unwrap();
            // The estimate from the counts is the object list's, and bounds the tree.
            prop_assert_eq!(counted_estimate, listed_estimate);
            prop_assert!(counted.memory_bytes() <= counted_estimate);
            prop_assert_eq!(nodes(&counted), nodes(&listed));
            prop_assert_eq!(counted.depth(), listed.depth());
            prop_assert_eq!(counted.leaf_count(), listed.leaf_count());
            prop_assert_eq!(counted.depth_counts.clone(), listed.depth_counts.clone());
            prop_assert_eq!(counted.memory_bytes(), listed.memory_bytes());
        }
    }
}
