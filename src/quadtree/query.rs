//! Read-only queries: point location, ranges, covering nodes, neighbours and iteration.

use super::id::{NodeId, Shape};
use super::node::{Content, FilledTable, ListTable, Node, Objects};
use super::tree::QuadTree;
use super::QuadtreeError;
use crate::geom::{Cell, Direction, Rect};
use std::hash::BuildHasher;

/// A borrowed view of one node.
///
/// ```
/// use quadpath::quadtree::{NodeId, QuadTree, SplitStopper};
/// use quadpath::{Cell, Rect};
/// let mut tree = QuadTree::new(64, 64, SplitStopper::max_objects(1))?;
/// tree.add(Cell::new(3, 4), "tower")?;
/// tree.add(Cell::new(60, 50), "mill")?;
/// let leaf = tree.find(Cell::new(3, 4))?;
/// assert!(leaf.is_leaf());
/// assert_eq!((leaf.depth(), leaf.rect()), (1, Rect::new(0, 0, 31, 31)));
/// assert_eq!(leaf.objects(), &[(Cell::new(3, 4), "tower")]);
/// assert_eq!(leaf.objects().first(), Some((Cell::new(3, 4), &"tower")));
/// assert_eq!(tree.node(NodeId::ROOT).map(|root| root.object_count()), Some(2));
/// # Ok::<(), quadpath::quadtree::QuadtreeError>(())
/// ```
#[derive(Debug)]
pub struct NodeRef<'a, T> {
    id: NodeId,
    rect: Rect,
    content: Content,
    /// The tree's lists, for a listed leaf's objects.
    lists: &'a ListTable<T>,
    /// The tree's packed leaves' objects.
    filled: &'a FilledTable<T>,
}

impl<T> Clone for NodeRef<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for NodeRef<'_, T> {}

impl<'a, T> NodeRef<'a, T> {
    /// The node's packed ID.
    #[inline]
    pub fn id(&self) -> NodeId {
        self.id
    }

    /// The cells it covers.
    #[inline]
    pub fn rect(&self) -> Rect {
        self.rect
    }

    /// Its depth; the root is 0.
    #[inline]
    pub fn depth(&self) -> u32 {
        self.id.depth()
    }

    /// Whether it is a leaf.
    #[inline]
    pub fn is_leaf(&self) -> bool {
        self.content.is_leaf()
    }

    /// Number of objects in its subtree.
    #[inline]
    pub fn object_count(&self) -> u64 {
        match self.content {
            Content::Split(tally) => tally.count(),
            Content::Empty => 0,
            Content::Listed(i) => self.lists.tally(i).count(),
            Content::Filled(_) => self.rect.area(),
        }
    }

    /// The objects it holds with their cells; none for internal nodes.
    #[inline]
    pub fn objects(&self) -> Objects<'a, T> {
        match self.content {
            Content::Split(_) | Content::Empty => Objects::Listed(&[]),
            Content::Listed(i) => Objects::Listed(self.lists.get(i)),
            Content::Filled(i) => Objects::Filled(self.rect, self.filled.get(i)),
        }
    }
}

impl<T, S: BuildHasher> QuadTree<T, S> {
    #[inline]
    fn node_ref(&self, id: NodeId) -> Option<NodeRef<'_, T>> {
        Some(self.node_ref_of(id, self.nodes.get(id)?))
    }

    #[inline]
    fn node_ref_of(&self, id: NodeId, node: Node) -> NodeRef<'_, T> {
        NodeRef {
            id,
            rect: self.shape.rect(id),
            content: node.content(),
            lists: &self.lists,
            filled: &self.filled,
        }
    }

    /// The node with this ID, if the tree has it.
    pub fn node(&self, id: NodeId) -> Option<NodeRef<'_, T>> {
        self.node_ref(id)
    }

    /// The leaf containing cell `c`.
    ///
    /// Every cell's node at depth `d` has a known ID, and the nodes containing a cell exist
    /// exactly down to its leaf, so a binary search over depth finds the leaf in
    /// O(log depth) hash look-ups instead of one per level.
    ///
    /// # Errors
    /// [`QuadtreeError::OutOfBounds`] when `c` is off the grid.
    pub fn find(&self, c: Cell) -> Result<NodeRef<'_, T>, QuadtreeError> {
        self.shape.check(c)?;
        let id = self.find_id(c);
        Ok(self.node_ref(id).expect("find_id returns an existing leaf"))
    }

    /// The ID of the leaf holding an in-bounds cell.
    #[inline]
    pub(crate) fn find_id(&self, c: Cell) -> NodeId {
        let (mut lo, mut hi) = (0, self.max_depth);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            let id = self.shape.cell_id(mid, c);
            match self.nodes.get(id) {
                Some(n) if n.is_leaf() => return id,
                Some(_) => lo = mid + 1,
                None => hi = mid - 1,
            }
        }
        self.shape.cell_id(lo, c)
    }

    /// The leaf found by walking down from the root, one look-up per level. Kept to
    /// measure what the binary search in [`QuadTree::find`] gains, and as its oracle in the
    /// tests; only with the `testing` feature.
    ///
    /// # Errors
    /// [`QuadtreeError::OutOfBounds`] when `c` is off the grid.
    #[cfg(any(test, feature = "testing"))]
    pub fn find_by_descent(&self, c: Cell) -> Result<NodeRef<'_, T>, QuadtreeError> {
        self.shape.check(c)?;
        let mut d = 0;
        loop {
            let id = self.shape.cell_id(d, c);
            let node = self.node_ref(id).expect("ancestors of a leaf exist");
            if node.is_leaf() {
                return Ok(node);
            }
            d += 1;
        }
    }

    /// Clips a rectangle to the grid; `None` when they do not meet.
    pub fn clip(&self, r: Rect) -> Option<Rect> {
        r.intersection(&Rect::new(0, 0, self.width() - 1, self.height() - 1))
    }

    /// The deepest node that contains the whole rectangle (clipped to the grid), found by
    /// binary search over depth: a node at depth `d` covers it exactly when both corners
    /// map to the same ID at `d` and that node exists. `None` when `r` misses the grid.
    pub fn smallest_node_covering(&self, r: Rect) -> Option<NodeRef<'_, T>> {
        let r = self.clip(r)?;
        self.node_ref(self.covering_id(&r))
    }

    fn covering_id(&self, r: &Rect) -> NodeId {
        let (first, last) = (Cell::new(r.x1, r.y1), Cell::new(r.x2, r.y2));
        let covers = |d: u32| {
            let a = self.shape.cell_id(d, first);
            (a == self.shape.cell_id(d, last) && self.nodes.contains(a)).then_some(a)
        };
        let (mut lo, mut hi) = (0, self.max_depth);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if covers(mid).is_some() {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        self.shape.cell_id(lo, first)
    }

    /// Calls `f` on every leaf under `from` that overlaps `r`.
    fn visit_leaves<'a>(&'a self, from: NodeId, r: &Rect, f: &mut impl FnMut(NodeRef<'a, T>)) {
        // Deep enough for any tree (at most 3 siblings wait per level), so it never spills.
        let mut stack: smallvec::SmallVec<[NodeId; 96]> = smallvec::smallvec![from];
        while let Some(id) = stack.pop() {
            let Some(n) = self.node_ref(id) else { continue };
            if !n.rect.intersects(r) {
                continue;
            }
            if n.is_leaf() {
                f(n);
            } else {
                stack.extend_from_slice(&self.shape.children(id, n.rect));
            }
        }
    }

    /// The leaves overlapping `r` (clipped to the grid).
    pub fn leaves_in_rect(&self, r: Rect) -> Vec<NodeRef<'_, T>> {
        let mut out = Vec::new();
        if let Some(r) = self.clip(r) {
            self.visit_leaves(self.covering_id(&r), &r, &mut |n| out.push(n));
        }
        out
    }

    /// The objects at cells inside `r` (clipped to the grid).
    pub fn objects_in_rect(&self, r: Rect) -> Vec<(Cell, &T)> {
        let mut out = Vec::new();
        if let Some(r) = self.clip(r) {
            self.visit_leaves(self.covering_id(&r), &r, &mut |n| {
                out.extend(n.objects().iter().filter(|(c, _)| r.contains(*c)));
            });
        }
        out
    }

    /// The leaves next to leaf `id` in direction `dir`: for a side, every leaf that shares
    /// part of that edge; for a diagonal, the leaf holding the cell just outside that corner.
    /// Empty at the grid's border, or when `id` is not a leaf of this tree.
    pub fn neighbours(&self, id: NodeId, dir: Direction) -> Vec<NodeRef<'_, T>> {
        let mut out = Vec::new();
        self.for_each_neighbour(id, dir, |n| out.push(n));
        out
    }

    /// [`QuadTree::neighbours`] without the allocation.
    pub fn for_each_neighbour<'a>(
        &'a self,
        id: NodeId,
        dir: Direction,
        mut f: impl FnMut(NodeRef<'a, T>),
    ) {
        if !self.node_ref(id).is_some_and(|n| n.is_leaf()) {
            return;
        }
        let Some(strip) = outside_strip(&self.shape, self.shape.rect(id), dir) else {
            return;
        };
        if dir.is_diagonal() {
            f(self
                .node_ref(self.find_id(Cell::new(strip.x1, strip.y1)))
                .unwrap());
        } else {
            // The smallest node covering the strip holds every leaf touching it; descend
            // only into children that overlap the strip, whatever their number.
            self.visit_leaves(self.covering_id(&strip), &strip, &mut f);
        }
    }

    /// Iterates over every node.
    pub fn nodes(&self) -> impl Iterator<Item = NodeRef<'_, T>> + '_ {
        self.nodes
            .iter()
            .map(|(id, node)| self.node_ref_of(id, node))
    }

    /// Iterates over the leaves.
    pub fn leaves(&self) -> impl Iterator<Item = NodeRef<'_, T>> + '_ {
        self.nodes().filter(|n| n.is_leaf())
    }
}

/// The cells just outside `r` in direction `dir`: a row or column strip along a side, or the
/// single corner cell for a diagonal. `None` when that is outside the grid.
pub(crate) fn outside_strip(shape: &Shape, r: Rect, dir: Direction) -> Option<Rect> {
    let (dx, dy) = dir.delta();
    let (w, h) = (shape.width() as i64, shape.height() as i64);
    let xs = match dx {
        -1 => (r.x1 as i64 - 1, r.x1 as i64 - 1),
        1 => (r.x2 as i64 + 1, r.x2 as i64 + 1),
        _ => (r.x1 as i64, r.x2 as i64),
    };
    let ys = match dy {
        -1 => (r.y1 as i64 - 1, r.y1 as i64 - 1),
        1 => (r.y2 as i64 + 1, r.y2 as i64 + 1),
        _ => (r.y1 as i64, r.y2 as i64),
    };
    (xs.0 >= 0 && ys.0 >= 0 && xs.1 < w && ys.1 < h)
        .then(|| Rect::new(xs.0 as u32, ys.0 as u32, xs.1 as u32, ys.1 as u32))
}
