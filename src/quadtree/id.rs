//! Packed node IDs and the geometry they imply.
//!
//! A node at depth `d` holds exactly the cells `(x, y)` with
//! `floor(x·2^d / W) = i` and `floor(y·2^d / H) = j`. Its ID packs `(d, i, j)` into a `u64`.
//! Because `floor(floor(2a) / 2) = floor(a)`, the cells of child `(d+1, 2i|2i+1, 2j|2j+1)` are
//! a subset of the parent's, so these intervals nest into a tree whose split points are the
//! "corrected midpoints": every cell of a node computes the same ID, whatever W and H are.

use super::QuadtreeError;
use crate::geom::{Cell, Rect};

/// Bits of the `x` and `y` indices in a packed ID.
const AXIS_BITS: u32 = 29;
const AXIS_MASK: u64 = (1 << AXIS_BITS) - 1;

/// The largest width or height a tree can index: 2^29 − 1 cells.
pub const MAX_SIDE: u32 = (1 << AXIS_BITS) - 1;

/// The packed ID of a quadtree node: 6 bits of depth, then 29 bits each of the node's column
/// and row index at that depth.
///
/// ```
/// use quadpath::quadtree::{NodeId, QuadTree, SplitStopper};
/// use quadpath::Cell;
/// let id = NodeId::pack(2, 3, 1);
/// assert_eq!((id.depth(), id.ix(), id.iy()), (2, 3, 1));
/// assert_eq!(id.parent(), Some(NodeId::pack(1, 1, 0)));
/// assert_eq!((NodeId::ROOT.parent(), id.to_string()), (None, "d2:3:1".to_string()));
/// let mut tree = QuadTree::new(64, 64, SplitStopper::max_objects(1))?;
/// tree.add(Cell::new(3, 4), "tower")?;
/// tree.add(Cell::new(60, 50), "mill")?;
/// assert_eq!(tree.find(Cell::new(3, 4))?.id(), NodeId::pack(1, 0, 0));
/// # Ok::<(), quadpath::quadtree::QuadtreeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub(crate) u64);

impl NodeId {
    /// The root's ID, `(0, 0, 0)`.
    pub const ROOT: NodeId = NodeId(0);

    /// Packs `(depth, ix, iy)`. The indices must fit in 29 bits and the depth in 6.
    #[inline]
    pub const fn pack(depth: u32, ix: u32, iy: u32) -> NodeId {
        debug_assert!(depth < 64 && (ix as u64) <= AXIS_MASK && (iy as u64) <= AXIS_MASK);
        NodeId(((depth as u64) << (2 * AXIS_BITS)) | ((ix as u64) << AXIS_BITS) | iy as u64)
    }

    /// Depth of the node; the root is at depth 0.
    #[inline]
    pub const fn depth(self) -> u32 {
        (self.0 >> (2 * AXIS_BITS)) as u32
    }

    /// Column index of the node among the nodes of its depth.
    #[inline]
    pub const fn ix(self) -> u32 {
        ((self.0 >> AXIS_BITS) & AXIS_MASK) as u32
    }

    /// Row index of the node among the nodes of its depth.
    #[inline]
    pub const fn iy(self) -> u32 {
        (self.0 & AXIS_MASK) as u32
    }

    /// The raw packed value.
    #[inline]
    pub const fn raw(self) -> u64 {
        self.0
    }

    /// The parent's ID, or `None` for the root. This equals repacking the node's corner
    /// cell at depth `d − 1`, computed without the division.
    #[inline]
    pub const fn parent(self) -> Option<NodeId> {
        match self.depth() {
            0 => None,
            d => Some(NodeId::pack(d - 1, self.ix() >> 1, self.iy() >> 1)),
        }
    }
}

impl std::fmt::Display for NodeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "d{}:{}:{}", self.depth(), self.ix(), self.iy())
    }
}

/// The W×H grid a tree covers, with the arithmetic that maps cells to IDs and IDs to
/// rectangles.
///
/// ```
/// use quadpath::quadtree::{NodeId, QuadTree, SplitStopper};
/// use quadpath::{Cell, Rect};
/// let tree: QuadTree<()> = QuadTree::new(50, 40, SplitStopper::uniform())?;
/// let shape = tree.shape();
/// assert_eq!((shape.width(), shape.height()), (50, 40));
/// assert_eq!(shape.rect(NodeId::ROOT), Rect::new(0, 0, 49, 39));
/// // Depth 2 splits the 50 columns at 13, 25 and 38.
/// let id = shape.cell_id(2, Cell::new(20, 5));
/// assert_eq!(shape.rect(id), Rect::new(13, 0, 24, 9));
/// # Ok::<(), quadpath::quadtree::QuadtreeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    width: u32,
    height: u32,
}

impl Shape {
    /// A shape of `width × height` cells; both must be in `1..=MAX_SIDE` (checked by the tree).
    pub(crate) const fn new(width: u32, height: u32) -> Shape {
        Shape { width, height }
    }

    /// Width in cells.
    #[inline]
    pub const fn width(&self) -> u32 {
        self.width
    }

    /// Height in cells.
    #[inline]
    pub const fn height(&self) -> u32 {
        self.height
    }

    /// `Ok` when `c` lies on the grid; the one bounds check of every public entry point.
    #[inline]
    pub(crate) fn check(&self, c: Cell) -> Result<(), QuadtreeError> {
        if c.x < self.width && c.y < self.height {
            Ok(())
        } else {
            Err(QuadtreeError::OutOfBounds {
                cell: c,
                width: self.width,
                height: self.height,
            })
        }
    }

    /// `floor(v · 2^d / side)`: the index at depth `d` of coordinate `v`.
    #[inline]
    fn axis_index(v: u32, d: u32, side: u32) -> u32 {
        (((v as u64) << d) / side as u64) as u32
    }

    /// First coordinate with index `i` at depth `d`: `ceil(i · side / 2^d)`.
    #[inline]
    fn axis_start(i: u64, d: u32, side: u32) -> u64 {
        (i * side as u64 + (1u64 << d) - 1) >> d
    }

    /// The ID at depth `d` of the node that contains (or would contain) cell `c`.
    #[inline]
    pub fn cell_id(&self, d: u32, c: Cell) -> NodeId {
        NodeId::pack(
            d,
            Self::axis_index(c.x, d, self.width),
            Self::axis_index(c.y, d, self.height),
        )
    }

    /// The cells a node covers.
    #[inline]
    pub fn rect(&self, id: NodeId) -> Rect {
        let d = id.depth();
        let (i, j) = (id.ix() as u64, id.iy() as u64);
        Rect {
            x1: Self::axis_start(i, d, self.width) as u32,
            y1: Self::axis_start(j, d, self.height) as u32,
            x2: (Self::axis_start(i + 1, d, self.width) - 1) as u32,
            y2: (Self::axis_start(j + 1, d, self.height) - 1) as u32,
        }
    }

    /// The children a node has when it splits: 4, or 2 when one side is a single cell
    /// (the other half of that axis holds no cells). A 1×1 node has none.
    #[inline]
    pub fn children(&self, id: NodeId, rect: Rect) -> ChildIds {
        let d = id.depth() + 1;
        let mut out = ChildIds {
            ids: [NodeId::ROOT; 4],
            len: 0,
        };
        if rect.x1 == rect.x2 && rect.y1 == rect.y2 {
            return out;
        }
        let xs = [
            Self::axis_index(rect.x1, d, self.width),
            Self::axis_index(rect.x2, d, self.width),
        ];
        let ys = [
            Self::axis_index(rect.y1, d, self.height),
            Self::axis_index(rect.y2, d, self.height),
        ];
        let nx = if xs[0] == xs[1] { 1 } else { 2 };
        let ny = if ys[0] == ys[1] { 1 } else { 2 };
        for &iy in &ys[..ny] {
            for &ix in &xs[..nx] {
                out.ids[out.len] = NodeId::pack(d, ix, iy);
                out.len += 1;
            }
        }
        out
    }

    /// The depth at which every node is a single cell, which bounds the tree's depth.
    pub fn max_possible_depth(&self) -> u32 {
        let side = self.width.max(self.height);
        u32::BITS - (side - 1).leading_zeros()
    }
}

/// Groups `items` (lying in the node over `rect` whose children are `kids`) by child in
/// place, in one counting pass plus swaps (a sort would cost a log factor at every level
/// of a tree over millions of cells), and returns how many each child got, in `kids`'
/// order. Children come row-major; the corrected midpoints are where the last child
/// starts, and items at or past a midpoint go right or down.
pub(crate) fn partition_quadrants<I>(
    shape: &Shape,
    rect: Rect,
    kids: &ChildIds,
    items: &mut [I],
    cell: impl Fn(&I) -> Cell,
) -> [usize; 4] {
    let last = shape.rect(kids[kids.len() - 1]);
    let split_x = (last.x1 > rect.x1).then_some(last.x1);
    let split_y = (last.y1 > rect.y1).then_some(last.y1);
    let columns = 1 + split_x.is_some() as usize;
    let quadrant = |i: &I| {
        let c = cell(i);
        let col = split_x.is_some_and(|s| c.x >= s) as usize;
        let row = split_y.is_some_and(|s| c.y >= s) as usize;
        row * columns + col
    };
    let mut counts = [0usize; 4];
    for i in items.iter() {
        counts[quadrant(i)] += 1;
    }
    let mut next = [0usize; 4];
    for k in 1..4 {
        next[k] = next[k - 1] + counts[k - 1];
    }
    let ends: [usize; 4] = std::array::from_fn(|k| next[k] + counts[k]);
    for k in 0..4 {
        while next[k] < ends[k] {
            let q = quadrant(&items[next[k]]);
            if q == k {
                next[k] += 1;
            } else {
                items.swap(next[k], next[q]);
                next[q] += 1;
            }
        }
    }
    counts
}

/// The up-to-four child IDs of a node, without allocating.
///
/// ```
/// use quadpath::quadtree::{NodeId, QuadTree, SplitStopper};
/// use quadpath::Rect;
/// let tree: QuadTree<()> = QuadTree::new(50, 40, SplitStopper::uniform())?;
/// let shape = tree.shape();
/// let root = shape.rect(NodeId::ROOT);
/// let children = shape.children(NodeId::ROOT, root);
/// assert_eq!(children.len(), 4);
/// assert_eq!(children.iter().map(|&c| shape.rect(c).area()).sum::<u64>(), root.area());
/// // A column one cell wide splits in two.
/// let column: QuadTree<()> = QuadTree::new(1, 5, SplitStopper::uniform())?;
/// assert_eq!(column.shape().children(NodeId::ROOT, Rect::new(0, 0, 0, 4)).len(), 2);
/// # Ok::<(), quadpath::quadtree::QuadtreeError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ChildIds {
    ids: [NodeId; 4],
    len: usize,
}

impl ChildIds {
    /// The children as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[NodeId] {
        &self.ids[..self.len]
    }
}

impl std::ops::Deref for ChildIds {
    type Target = [NodeId];
    fn deref(&self) -> &[NodeId] {
        self.as_slice()
    }
}

/// Whether the rectangle is a single cell (such a node never splits).
#[inline]
pub(crate) fn is_unit(r: &Rect) -> bool {
    r.x1 == r.x2 && r.y1 == r.y2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips() {
        let id = NodeId::pack(29, MAX_SIDE, 12345);
        assert_eq!((id.depth(), id.ix(), id.iy()), (29, MAX_SIDE, 12345));
        assert_eq!(
            id.parent(),
            Some(NodeId::pack(28, MAX_SIDE >> 1, 12345 >> 1))
        );
        assert_eq!(NodeId::ROOT.parent(), None);
    }

    #[test]
    fn fifty_wide_midpoints_are_corrected() {
        // 50 cells: depth 1 splits at 25, depth 2 at 13 | 25 | 38 (ceil(50/4)=13, ceil(150/4)=38).
        let s = Shape::new(50, 40);
        let xs: Vec<_> = (0..4).map(|i| s.rect(NodeId::pack(2, i, 0)).x1).collect();
        assert_eq!(xs, vec![0, 13, 25, 38]);
        for x in 0..50 {
            let id = s.cell_id(2, Cell::new(x, 0));
            assert!(s.rect(id).contains(Cell::new(x, 0)));
        }
    }

    #[test]
    fn single_cell_sides_split_in_two() {
        let s = Shape::new(1, 5);
        let kids = s.children(NodeId::ROOT, s.rect(NodeId::ROOT));
        assert_eq!(kids.len(), 2);
        let rects: Vec<_> = kids.iter().map(|&k| s.rect(k)).collect();
        assert_eq!(rects, vec![Rect::new(0, 0, 0, 2), Rect::new(0, 3, 0, 4)]);
        assert_eq!(s.max_possible_depth(), 3);
    }
}
