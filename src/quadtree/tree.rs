//! The tree itself: storage, bulk build, edits and the change feed.

use super::id::{is_unit, NodeId, Shape, MAX_SIDE};
use super::stopper::SplitStopper;
use super::QuadtreeError;
use crate::geom::{Cell, Rect};
use hashbrown::HashMap;
use std::hash::BuildHasher;

/// A node as stored: its subtree's object count and kinds, and its objects when it is a
/// leaf.
#[derive(Clone, Debug)]
pub(crate) struct Node<T> {
    pub(crate) tally: Tally,
    /// `Some` exactly for leaves: only leaves hold objects.
    pub(crate) objects: Option<Vec<(Cell, T)>>,
}

/// A subtree's object count and the range of its objects' kinds, packed in one word so
/// that a node costs no more than it did before kinds: the count in the low 48 bits (no
/// machine holds 2^48 objects of 8 bytes or more), the smallest kind in the next 8, the
/// largest in the top 8. The kinds mean nothing while the count is 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally(u64);

const COUNT_BITS: u32 = 48;
const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;

impl Tally {
    fn new(count: u64, lo: u8, hi: u8) -> Self {
        debug_assert!(count <= COUNT_MASK && lo <= hi);
        Tally(count | (lo as u64) << COUNT_BITS | (hi as u64) << (COUNT_BITS + 8))
    }

    /// The tally of `objects`, whose kinds `kind_of` gives.
    fn of<T>(objects: &[(Cell, T)], kind_of: fn(&T) -> u8) -> Self {
        objects
            .iter()
            .fold(Tally::default(), |t, (_, o)| t.added(kind_of(o)))
    }

    #[inline]
    pub(crate) fn count(self) -> u64 {
        self.0 & COUNT_MASK
    }

    #[inline]
    fn lo(self) -> u8 {
        (self.0 >> COUNT_BITS) as u8
    }

    #[inline]
    fn hi(self) -> u8 {
        (self.0 >> (COUNT_BITS + 8)) as u8
    }

    /// Whether every object has the same kind (true with no objects).
    #[inline]
    pub(crate) fn one_kind(self) -> bool {
        self.count() == 0 || self.lo() == self.hi()
    }

    /// With one more object, of kind `k`.
    #[inline]
    fn added(self, k: u8) -> Self {
        match self.count() {
            0 => Tally::new(1, k, k),
            n => Tally::new(n + 1, self.lo().min(k), self.hi().max(k)),
        }
    }

    /// The tally of two subtrees together.
    fn joined(self, other: Tally) -> Self {
        match (self.count(), other.count()) {
            (0, _) => other,
            (_, 0) => self,
            (a, b) => Tally::new(a + b, self.lo().min(other.lo()), self.hi().max(other.hi())),
        }
    }

    /// With `k` objects fewer, of kinds that leave the range as it was or need it
    /// recomputed (`exact` says which).
    #[inline]
    fn removed(self, k: u64, kind: u8) -> (Self, bool) {
        let n = self.count() - k;
        let exact = n == 0 || self.lo() == self.hi() || (kind > self.lo() && kind < self.hi());
        (Tally::new(n, self.lo(), self.hi()), exact)
    }
}

/// One entry of the change feed: a leaf that appeared or disappeared.
///
/// An edit that changes a leaf's objects without changing the tree's shape reports that
/// leaf as removed and then created again, so a consumer that rebuilds what it derived
/// from removed leaves and derives it afresh for created ones is always up to date.
///
/// ```
/// use quadpath::quadtree::{LeafChange, NodeId, QuadTree, SplitStopper};
/// use quadpath::Cell;
/// let mut tree = QuadTree::new(64, 64, SplitStopper::max_objects(1))?;
/// tree.add(Cell::new(3, 4), "tower")?;
/// tree.track_changes(true);
/// tree.add(Cell::new(60, 50), "mill")?; // the root leaf splits in four
/// let changes = tree.drain_changes();
/// assert!(changes.contains(&LeafChange::Removed { id: NodeId::ROOT, rect: tree.shape().rect(NodeId::ROOT) }));
/// let created = changes.iter().filter(|c| matches!(c, LeafChange::Created { .. })).count();
/// assert_eq!(created, 4);
/// # Ok::<(), quadpath::quadtree::QuadtreeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LeafChange {
    /// This leaf no longer exists in its previous form.
    Removed {
        /// Its ID.
        id: NodeId,
        /// The cells it covered.
        rect: Rect,
    },
    /// This leaf exists now.
    Created {
        /// Its ID.
        id: NodeId,
        /// The cells it covers.
        rect: Rect,
    },
}

/// A region quadtree over a W×H cell grid, storing objects of type `T` at cells.
///
/// Nodes live in a hash map keyed by their packed [`NodeId`]; there are no child
/// pointers, because a child's ID is computed from its parent's. The hasher is the type
/// parameter `S`, [`ahash`] by default.
///
/// The shape is canonical: it depends only on the current objects and the
/// [`SplitStopper`], never on the order of the edits, and every edit restructures only
/// the nodes on the path from the root to the edited cell.
///
/// ```
/// use quadpath::quadtree::{QuadTree, SplitStopper};
/// use quadpath::Cell;
/// let mut tree: QuadTree<&str> = QuadTree::new(64, 64, SplitStopper::max_objects(1))?;
/// tree.add(Cell::new(3, 4), "tower")?;
/// tree.add(Cell::new(60, 50), "mill")?;
/// assert_eq!(tree.leaf_count(), 4); // the root split once
/// assert_eq!(tree.find(Cell::new(3, 4))?.objects()[0].1, "tower");
/// tree.remove(Cell::new(60, 50), &"mill")?;
/// assert_eq!(tree.leaf_count(), 1); // and merged back
/// # Ok::<(), quadpath::quadtree::QuadtreeError>(())
/// ```
pub struct QuadTree<T, S = ahash::RandomState> {
    pub(crate) shape: Shape,
    /// The kind of each object, for stoppers that keep kinds apart (see
    /// [`QuadTree::build_with_kinds`]); every object is of kind 0 otherwise.
    kind_of: fn(&T) -> u8,
    pub(crate) nodes: HashMap<u64, Node<T>, S>,
    stopper: SplitStopper,
    /// Number of nodes at each depth; the deepest non-zero entry is the tree's depth.
    depth_counts: Vec<u64>,
    pub(crate) max_depth: u32,
    leaf_count: usize,
    changes: Option<Vec<LeafChange>>,
}

impl<T> QuadTree<T, ahash::RandomState> {
    /// An empty tree over `width × height` cells with the default hasher.
    ///
    /// # Errors
    /// [`QuadtreeError::BadSize`] when a side is 0 or larger than [`MAX_SIDE`].
    pub fn new(width: u32, height: u32, stopper: SplitStopper) -> Result<Self, QuadtreeError> {
        Self::with_hasher(width, height, stopper, ahash::RandomState::new())
    }

    /// A tree over `width × height` cells holding `objects`, built top-down in one pass:
    /// each node is visited once, so a 1024×1024 map costs one partition per level instead
    /// of a million separate adds.
    ///
    /// # Errors
    /// [`QuadtreeError::BadSize`] when a side is 0 or larger than [`MAX_SIDE`];
    /// [`QuadtreeError::OutOfBounds`] for the first object whose cell is off the grid.
    pub fn build(
        width: u32,
        height: u32,
        stopper: SplitStopper,
        objects: impl IntoIterator<Item = (Cell, T)>,
    ) -> Result<Self, QuadtreeError> {
        Self::build_with_hasher(width, height, stopper, objects, ahash::RandomState::new())
    }

    /// [`QuadTree::build`] for objects of several kinds: `kind_of` gives each object's
    /// kind, and the stopper learns for every node whether its objects are all of one kind
    /// ([`SplitStopper::stops_with_kinds`]). With [`SplitStopper::uniform`] every leaf is
    /// then empty or full of one kind: the path finder keeps one object per cell that
    /// differs from the common case, kinded by whether it is blocked and how much its
    /// terrain costs, so that every leaf is uniform in both.
    ///
    /// ```
    /// use quadpath::quadtree::{QuadTree, SplitStopper};
    /// use quadpath::Cell;
    /// // A 4×4 map whose left half is swamp (kind 2) and right half road (kind 1).
    /// let cells = (0..16).map(|i| (Cell::new(i % 4, i / 4), if i % 4 < 2 { 2u8 } else { 1 }));
    /// let tree = QuadTree::build_with_kinds(4, 4, SplitStopper::uniform(), cells, |k| *k)?;
    /// assert_eq!(tree.leaf_count(), 4, "full, but of two kinds: the root splits once");
    /// let plain = QuadTree::build(4, 4, SplitStopper::uniform(), (0..16).map(|i| (Cell::new(i % 4, i / 4), 0u8)))?;
    /// assert_eq!(plain.leaf_count(), 1);
    /// # Ok::<(), quadpath::quadtree::QuadtreeError>(())
    /// ```
    ///
    /// # Errors
    /// As [`QuadTree::build`].
    pub fn build_with_kinds(
        width: u32,
        height: u32,
        stopper: SplitStopper,
        objects: impl IntoIterator<Item = (Cell, T)>,
        kind_of: fn(&T) -> u8,
    ) -> Result<Self, QuadtreeError> {
        Self::build_full(
            width,
            height,
            stopper,
            objects,
            ahash::RandomState::new(),
            kind_of,
        )
    }
}

impl<T, S: BuildHasher> QuadTree<T, S> {
    /// An empty tree with a chosen hasher.
    ///
    /// # Errors
    /// As [`QuadTree::new`].
    pub fn with_hasher(
        width: u32,
        height: u32,
        stopper: SplitStopper,
        hasher: S,
    ) -> Result<Self, QuadtreeError> {
        Self::build_with_hasher(width, height, stopper, std::iter::empty(), hasher)
    }

    /// [`QuadTree::build`] with a chosen hasher.
    ///
    /// # Errors
    /// As [`QuadTree::build`].
    pub fn build_with_hasher(
        width: u32,
        height: u32,
        stopper: SplitStopper,
        objects: impl IntoIterator<Item = (Cell, T)>,
        hasher: S,
    ) -> Result<Self, QuadtreeError> {
        Self::build_full(width, height, stopper, objects, hasher, |_| 0)
    }

    fn build_full(
        width: u32,
        height: u32,
        stopper: SplitStopper,
        objects: impl IntoIterator<Item = (Cell, T)>,
        hasher: S,
        kind_of: fn(&T) -> u8,
    ) -> Result<Self, QuadtreeError> {
        if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
            return Err(QuadtreeError::BadSize { width, height });
        }
        let shape = Shape::new(width, height);
        let mut objects: Vec<(Cell, T)> = objects.into_iter().collect();
        for &(c, _) in &objects {
            shape.check(c)?;
        }
        let mut tree = QuadTree {
            shape,
            kind_of,
            nodes: HashMap::with_hasher(hasher),
            stopper,
            depth_counts: vec![0; shape.max_possible_depth() as usize + 1],
            max_depth: 0,
            leaf_count: 0,
            changes: None,
        };
        let objects = std::mem::take(&mut objects);
        tree.grow(NodeId::ROOT, objects);
        Ok(tree)
    }

    /// Width of the grid in cells.
    #[inline]
    pub fn width(&self) -> u32 {
        self.shape.width()
    }

    /// Height of the grid in cells.
    #[inline]
    pub fn height(&self) -> u32 {
        self.shape.height()
    }

    /// The grid's dimensions and ID arithmetic.
    #[inline]
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The stopper this tree splits by.
    pub fn stopper(&self) -> &SplitStopper {
        &self.stopper
    }

    /// Starts recording [`LeafChange`]s; see [`QuadTree::drain_changes`]. Off by default so
    /// that a tree nobody listens to does not accumulate a log.
    pub fn track_changes(&mut self, on: bool) {
        self.changes = on.then(Vec::new);
    }

    /// Takes the changes recorded since the last call, oldest first.
    pub fn drain_changes(&mut self) -> Vec<LeafChange> {
        self.changes
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Like [`QuadTree::drain_changes`], but appends into a buffer the caller reuses.
    pub fn drain_changes_into(&mut self, out: &mut Vec<LeafChange>) {
        if let Some(c) = self.changes.as_mut() {
            out.append(c);
        }
    }

    /// Adds an object at cell `c`.
    ///
    /// # Errors
    /// [`QuadtreeError::OutOfBounds`] when `c` is off the grid; the tree is unchanged then.
    pub fn add(&mut self, c: Cell, obj: T) -> Result<(), QuadtreeError> {
        self.shape.check(c)?;
        let kind = (self.kind_of)(&obj);
        let leaf = self.update_path(c, |t| t.added(kind));
        self.leaf_objects_mut(leaf).push((c, obj));
        self.restructure(c, leaf);
        Ok(())
    }

    /// Removes one object equal to `obj` at cell `c`. Returns whether one was there.
    ///
    /// # Errors
    /// [`QuadtreeError::OutOfBounds`] when `c` is off the grid; the tree is unchanged then.
    pub fn remove(&mut self, c: Cell, obj: &T) -> Result<bool, QuadtreeError>
    where
        T: PartialEq,
    {
        self.shape.check(c)?;
        let leaf = self.find_id(c);
        let objects = self.leaf_objects_mut(leaf);
        let Some(i) = objects.iter().position(|(at, o)| *at == c && o == obj) else {
            return Ok(false);
        };
        let (_, gone) = objects.swap_remove(i);
        let kind = (self.kind_of)(&gone);
        self.uncount(c, leaf, 1, kind);
        self.restructure(c, leaf);
        Ok(true)
    }

    /// Removes every object at cell `c` and returns them.
    ///
    /// # Errors
    /// [`QuadtreeError::OutOfBounds`] when `c` is off the grid; the tree is unchanged then.
    pub fn remove_all(&mut self, c: Cell) -> Result<Vec<T>, QuadtreeError> {
        self.shape.check(c)?;
        let leaf = self.find_id(c);
        let objects = self.leaf_objects_mut(leaf);
        let (taken, kept): (Vec<_>, Vec<_>) = std::mem::take(objects)
            .into_iter()
            .partition(|(at, _)| *at == c);
        *objects = kept;
        if let Some((_, first)) = taken.first() {
            // Kinds vary at most among the taken objects: recompute the range unless they
            // all leave it as it was.
            let kind = (self.kind_of)(first);
            let same = taken.iter().all(|(_, o)| (self.kind_of)(o) == kind);
            self.uncount(c, leaf, taken.len() as u64, if same { kind } else { 0 });
            if !same {
                self.retally(c, leaf);
            }
            self.restructure(c, leaf);
        }
        Ok(taken.into_iter().map(|(_, o)| o).collect())
    }

    fn leaf_objects_mut(&mut self, leaf: NodeId) -> &mut Vec<(Cell, T)> {
        self.nodes
            .get_mut(&leaf.0)
            .and_then(|n| n.objects.as_mut())
            .expect("a leaf of this tree")
    }

    /// Takes `k` objects of kind `kind` at `c` (already gone from `leaf`'s list) off the
    /// tallies on the root-to-`leaf` path, recomputing their kind ranges when the removal
    /// may have narrowed them.
    fn uncount(&mut self, c: Cell, leaf: NodeId, k: u64, kind: u8) {
        let mut exact = true;
        self.update_path(c, |t| {
            let (t, ok) = t.removed(k, kind);
            exact &= ok;
            t
        });
        if !exact {
            self.retally(c, leaf);
        }
    }

    /// Recomputes the kind ranges on the root-to-`leaf` path exactly, bottom-up: the leaf
    /// from its objects, each ancestor from its children.
    fn retally(&mut self, c: Cell, leaf: NodeId) {
        let kind_of = self.kind_of;
        let node = self.nodes.get_mut(&leaf.0).expect("a leaf of this tree");
        node.tally = Tally::of(node.objects.as_deref().unwrap_or_default(), kind_of);
        for d in (0..leaf.depth()).rev() {
            let id = self.shape.cell_id(d, c);
            let tally = self
                .shape
                .children(id, self.shape.rect(id))
                .iter()
                .filter_map(|kid| self.nodes.get(&kid.0))
                .fold(Tally::default(), |t, n| t.joined(n.tally));
            self.nodes.get_mut(&id.0).expect("an ancestor").tally = tally;
        }
    }

    /// Applies `f` to the tally of every node from the root down to the leaf holding `c`,
    /// and returns that leaf.
    fn update_path(&mut self, c: Cell, mut f: impl FnMut(Tally) -> Tally) -> NodeId {
        let mut d = 0;
        loop {
            let id = self.shape.cell_id(d, c);
            let node = self
                .nodes
                .get_mut(&id.0)
                .expect("every ancestor of a leaf exists");
            node.tally = f(node.tally);
            if node.objects.is_some() {
                return id;
            }
            d += 1;
        }
    }

    /// Restores the canonical shape after the counts on the root-to-`leaf` path changed.
    ///
    /// Only those counts changed, so only those nodes can change their split decision.
    /// The topmost path node that now stops must be the leaf: if it is above `leaf`, its
    /// subtree merges into it; if no path node stops, `leaf` splits. At most one of the two
    /// happens, whether the edit was an add or a remove.
    fn restructure(&mut self, c: Cell, leaf: NodeId) {
        let top = (0..=leaf.depth())
            .map(|d| self.shape.cell_id(d, c))
            .find(|id| {
                let t = self.nodes[&id.0].tally;
                self.stopper
                    .stops_with_kinds(self.shape.rect(*id), t.count(), t.one_kind())
            });
        match top {
            Some(id) if id != leaf => self.merge(id),
            Some(_) => {
                // Same shape, new contents: report the leaf as replaced.
                let rect = self.shape.rect(leaf);
                self.log(LeafChange::Removed { id: leaf, rect });
                self.log(LeafChange::Created { id: leaf, rect });
            }
            None => {
                let objects = self.nodes.get_mut(&leaf.0).unwrap().objects.take().unwrap();
                self.leaf_count -= 1;
                self.log(LeafChange::Removed {
                    id: leaf,
                    rect: self.shape.rect(leaf),
                });
                self.split(leaf, objects);
            }
        }
    }

    #[inline]
    fn log(&mut self, change: LeafChange) {
        if let Some(c) = self.changes.as_mut() {
            c.push(change);
        }
    }

    /// Creates node `id` holding `objects` and everything below it that the stopper asks for.
    fn grow(&mut self, id: NodeId, objects: Vec<(Cell, T)>) {
        self.depth_counts[id.depth() as usize] += 1;
        self.max_depth = self.max_depth.max(id.depth());
        let tally = Tally::of(&objects, self.kind_of);
        let rect = self.shape.rect(id);
        if self
            .stopper
            .stops_with_kinds(rect, tally.count(), tally.one_kind())
        {
            self.nodes.insert(
                id.0,
                Node {
                    tally,
                    objects: Some(objects),
                },
            );
            self.leaf_count += 1;
            self.log(LeafChange::Created { id, rect });
        } else {
            self.nodes.insert(
                id.0,
                Node {
                    tally,
                    objects: None,
                },
            );
            self.split(id, objects);
        }
    }

    /// Turns the (already stored, now internal) node `id` into the parent of new subtrees
    /// that share out `objects`.
    fn split(&mut self, id: NodeId, objects: Vec<(Cell, T)>) {
        let rect = self.shape.rect(id);
        debug_assert!(!is_unit(&rect));
        let kids = self.shape.children(id, rect);
        // Children come row-major; the corrected midpoints are where the last child starts.
        let last = self.shape.rect(kids[kids.len() - 1]);
        let split_x = (last.x1 > rect.x1).then_some(last.x1);
        let split_y = (last.y1 > rect.y1).then_some(last.y1);
        let columns = 1 + split_x.is_some() as usize;
        let mut runs: [Vec<(Cell, T)>; 4] = Default::default();
        for (c, o) in objects {
            let col = split_x.is_some_and(|s| c.x >= s) as usize;
            let row = split_y.is_some_and(|s| c.y >= s) as usize;
            runs[row * columns + col].push((c, o));
        }
        for (&kid, run) in kids.iter().zip(runs) {
            self.grow(kid, run);
        }
    }

    /// Makes `id` a leaf again, taking the objects of every node below it.
    fn merge(&mut self, id: NodeId) {
        let mut objects = Vec::new();
        let mut stack: Vec<NodeId> = self.shape.children(id, self.shape.rect(id)).to_vec();
        while let Some(n) = stack.pop() {
            let Some(node) = self.nodes.remove(&n.0) else {
                continue;
            };
            self.depth_counts[n.depth() as usize] -= 1;
            let rect = self.shape.rect(n);
            match node.objects {
                Some(objs) => {
                    objects.extend(objs);
                    self.leaf_count -= 1;
                    self.log(LeafChange::Removed { id: n, rect });
                }
                None => stack.extend_from_slice(&self.shape.children(n, rect)),
            }
        }
        while self.max_depth > 0 && self.depth_counts[self.max_depth as usize] == 0 {
            self.max_depth -= 1;
        }
        self.nodes.get_mut(&id.0).unwrap().objects = Some(objects);
        self.leaf_count += 1;
        self.log(LeafChange::Created {
            id,
            rect: self.shape.rect(id),
        });
    }

    /// Number of leaves.
    #[inline]
    pub fn leaf_count(&self) -> usize {
        self.leaf_count
    }

    /// Number of nodes, internal and leaves.
    #[inline]
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Number of objects stored.
    #[inline]
    pub fn object_count(&self) -> u64 {
        self.nodes[&NodeId::ROOT.0].tally.count()
    }

    /// Depth of the deepest leaf; a tree that is only its root has depth 0.
    #[inline]
    pub fn depth(&self) -> u32 {
        self.max_depth
    }

    /// Of [`QuadTree::memory_bytes`], what no node uses: node table slots past its
    /// entries, and spare capacity in the leaves' object buffers.
    pub fn slack_bytes(&self) -> usize {
        let slot = std::mem::size_of::<(u64, Node<T>)>() + 1;
        let objects: usize = self
            .nodes
            .values()
            .filter_map(|n| n.objects.as_ref())
            .map(|o| (o.capacity() - o.len()) * std::mem::size_of::<(Cell, T)>())
            .sum();
        (self.nodes.capacity() - self.nodes.len()) * slot + objects
    }

    /// An estimate of the heap memory the tree holds, in bytes: the hash table's slots and
    /// control bytes, plus the leaves' object buffers.
    pub fn memory_bytes(&self) -> usize {
        let slot = std::mem::size_of::<(u64, Node<T>)>() + 1;
        let objects: usize = self
            .nodes
            .values()
            .filter_map(|n| n.objects.as_ref())
            .map(|o| o.capacity() * std::mem::size_of::<(Cell, T)>())
            .sum();
        std::mem::size_of::<Self>()
            + self.nodes.capacity() * slot
            + objects
            + self.depth_counts.len() * 8
    }
}

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
        estimate::<Cell, ()>(width, height, stopper, cells, |c| *c, |_| 0)
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
        estimate::<(Cell, u8), u8>(width, height, stopper, objects, |o| o.0, |o| o.1)
    }
}

/// The estimate behind [`QuadTree::estimate_bytes`], for a tree of `T` payloads over items
/// that give their cell and kind.
fn estimate<I, T>(
    width: u32,
    height: u32,
    stopper: &SplitStopper,
    items: &mut [I],
    cell: fn(&I) -> Cell,
    kind: fn(&I) -> u8,
) -> Result<usize, QuadtreeError> {
    if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
        return Err(QuadtreeError::BadSize { width, height });
    }
    let shape = Shape::new(width, height);
    for item in items.iter() {
        shape.check(cell(item))?;
    }
    let walk = Walk {
        shape: &shape,
        stopper,
        cell,
        kind,
    };
    let (nodes, object_slots) = walk.count_nodes(NodeId::ROOT, items);
    // hashbrown grows in powers of two, at least 4 buckets, keeping 7/8 of them usable
    // from 8 buckets on (all but one below).
    let usable = |b: usize| if b < 8 { b - 1 } else { b / 8 * 7 };
    let mut buckets = 4;
    while usable(buckets) < nodes {
        buckets *= 2;
    }
    let slot = std::mem::size_of::<(u64, Node<T>)>() + 1;
    let objects = object_slots * std::mem::size_of::<(Cell, T)>();
    Ok(std::mem::size_of::<QuadTree<T>>()
        + buckets * slot
        + objects
        + (shape.max_possible_depth() as usize + 1) * 8)
}

/// What [`Walk::count_nodes`] needs to follow the build's splits over items of type `I`.
struct Walk<'a, I> {
    shape: &'a Shape,
    stopper: &'a SplitStopper,
    cell: fn(&I) -> Cell,
    kind: fn(&I) -> u8,
}

impl<I> Walk<'_, I> {
    /// The nodes of the subtree [`QuadTree::build`] grows at `id` over `items` (which lie
    /// in it), and the object slots its leaves' lists may hold (a list grown by pushing has
    /// at most the next power of two, and at least 4); `items` is partitioned in place the
    /// way the build shares objects out among children.
    fn count_nodes(&self, id: NodeId, items: &mut [I]) -> (usize, usize) {
        let rect = self.shape.rect(id);
        let one_kind = items.first().map_or(true, |first| {
            items.iter().all(|i| (self.kind)(i) == (self.kind)(first))
        });
        if self
            .stopper
            .stops_with_kinds(rect, items.len() as u64, one_kind)
        {
            let slots = match items.len() {
                0 => 0,
                n => n.next_power_of_two().max(4),
            };
            return (1, slots);
        }
        let kids = self.shape.children(id, rect);
        let last = self.shape.rect(kids[kids.len() - 1]);
        let split_x = (last.x1 > rect.x1).then_some(last.x1);
        let split_y = (last.y1 > rect.y1).then_some(last.y1);
        let columns = 1 + split_x.is_some() as usize;
        // The same quadrant rule as `split`: row-major children, objects at or past a split
        // going right or down.
        let quadrant = |i: &I| {
            let c = (self.cell)(i);
            let col = split_x.is_some_and(|s| c.x >= s) as usize;
            let row = split_y.is_some_and(|s| c.y >= s) as usize;
            row * columns + col
        };
        // Group the items by quadrant in place, in one pass plus swaps (a sort would cost
        // a log factor at every level of a tree over millions of cells).
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
        let (mut nodes, mut with_objects) = (1, 0);
        let mut rest = items;
        for (k, &kid) in kids.iter().enumerate() {
            let (mine, others) = rest.split_at_mut(counts[k]);
            let (a, b) = self.count_nodes(kid, mine);
            nodes += a;
            with_objects += b;
            rest = others;
        }
        (nodes, with_objects)
    }
}

impl<T: std::fmt::Debug, S> std::fmt::Debug for QuadTree<T, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QuadTree")
            .field("width", &self.shape.width())
            .field("height", &self.shape.height())
            .field("nodes", &self.nodes.len())
            .field("leaves", &self.leaf_count)
            .field("depth", &self.max_depth)
            .finish()
    }
}
