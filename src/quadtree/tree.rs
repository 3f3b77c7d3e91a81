//! The tree itself: storage, bulk build, edits and the change feed.

use super::id::{is_unit, partition_quadrants, NodeId, Shape, MAX_SIDE};
use super::node::{Content, FilledTable, ListTable, Packing, Tally};
use super::stopper::SplitStopper;
use super::table::NodeTable;
use super::QuadtreeError;
use crate::geom::{Cell, Rect};
use std::hash::BuildHasher;

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
/// Nodes live in a hash map keyed by their packed [`NodeId`] (4 bytes of it on grids up to
/// 2^14 a side); there are no child pointers, because a child's ID is computed from its
/// parent's. The hasher is the type
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
/// assert_eq!(tree.find(Cell::new(3, 4))?.objects().first(), Some((Cell::new(3, 4), &"tower")));
/// tree.remove(Cell::new(60, 50), &"mill")?;
/// assert_eq!(tree.leaf_count(), 1); // and merged back
/// # Ok::<(), quadpath::quadtree::QuadtreeError>(())
/// ```
pub struct QuadTree<T, S = ahash::RandomState> {
    pub(crate) shape: Shape,
    /// The kind of each object, for stoppers that keep kinds apart (see
    /// [`QuadTree::build_with_kinds`]); every object is of kind 0 otherwise.
    pub(super) kind_of: fn(&T) -> u8,
    /// Set for a tree that packs leaves holding one equal object per cell (see
    /// [`QuadTree::build_packed`]).
    pub(super) packing: Option<Packing<T>>,
    pub(crate) nodes: NodeTable<S>,
    /// The object lists of the listed leaves (see [`Content::Listed`]).
    pub(crate) lists: ListTable<T>,
    /// The objects of the packed leaves (see [`Content::Filled`]).
    pub(crate) filled: FilledTable<T>,
    pub(super) stopper: SplitStopper,
    /// Number of nodes at each depth; the deepest non-zero entry is the tree's depth. A
    /// `u32` holds any count a tree in memory can have: 2^32 nodes would be 52 GiB of
    /// table slots alone.
    pub(super) depth_counts: Box<[u32]>,
    pub(crate) max_depth: u32,
    pub(super) leaf_count: usize,
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
            Storage {
                kind_of,
                packing: None,
                wide_keys: false,
            },
        )
    }

    /// [`QuadTree::build_with_kinds`] for a tree that packs its leaves: a leaf holding
    /// exactly one object at each of its cells, all equal, stores that object once (and
    /// [`NodeRef::objects`](super::NodeRef::objects) repeats it over the leaf's cells).
    /// Edits unpack a leaf when they change it and pack it again when they leave it so.
    /// A path-finding map's blocked regions are such leaves: on a 1024² StarCraft map this
    /// saves 12 bytes for each of its 400 000 blocked cells.
    ///
    /// ```
    /// use quadpath::quadtree::{QuadTree, SplitStopper};
    /// use quadpath::Cell;
    /// let walls = (0..8).flat_map(|y| (0..4).map(move |x| (Cell::new(x, y), 0u8)));
    /// let mut tree = QuadTree::build_packed(8, 8, SplitStopper::uniform(), walls, |k| *k)?;
    /// assert_eq!((tree.leaf_count(), tree.object_count()), (4, 32));
    /// let packed = tree.memory_bytes();
    /// tree.remove(Cell::new(0, 0), &0)?; // the leaf splits, its parts pack again
    /// assert_eq!(tree.object_count(), 31);
    /// assert!(tree.memory_bytes() < packed + 1024);
    /// # Ok::<(), quadpath::quadtree::QuadtreeError>(())
    /// ```
    ///
    /// # Errors
    /// As [`QuadTree::build`].
    pub fn build_packed(
        width: u32,
        height: u32,
        stopper: SplitStopper,
        objects: impl IntoIterator<Item = (Cell, T)>,
        kind_of: fn(&T) -> u8,
    ) -> Result<Self, QuadtreeError>
    where
        T: Copy + PartialEq,
    {
        Self::build_full(
            width,
            height,
            stopper,
            objects,
            ahash::RandomState::new(),
            Storage {
                kind_of,
                packing: Some(Packing::new()),
                wide_keys: false,
            },
        )
    }
}

/// How a tree stores its objects, fixed when it is built (see `QuadTree::build_full`).
pub(super) struct Storage<T> {
    /// Each object's kind: a leaf stays whole only while its objects are of one kind.
    pub(super) kind_of: fn(&T) -> u8,
    /// How a leaf full of equal objects stores one (`None`: leaves are never packed).
    pub(super) packing: Option<Packing<T>>,
    /// Nodes keyed by their whole ID whatever the grid (see `table.rs`), which only the
    /// tests ask for; otherwise 4-byte keys where the grid allows.
    pub(super) wide_keys: bool,
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
        let storage = Storage {
            kind_of: |_| 0,
            packing: None,
            wide_keys: false,
        };
        Self::build_full(width, height, stopper, objects, hasher, storage)
    }

    /// The one build every public build is, storing its objects as `storage` says.
    pub(super) fn build_full(
        width: u32,
        height: u32,
        stopper: SplitStopper,
        objects: impl IntoIterator<Item = (Cell, T)>,
        hasher: S,
        storage: Storage<T>,
    ) -> Result<Self, QuadtreeError> {
        let Storage {
            kind_of,
            packing,
            wide_keys,
        } = storage;
        if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
            return Err(QuadtreeError::BadSize { width, height });
        }
        let shape = Shape::new(width, height);
        let objects: Vec<(Cell, T)> = objects.into_iter().collect();
        for &(c, _) in &objects {
            shape.check(c)?;
        }
        let mut tree = QuadTree {
            shape,
            kind_of,
            packing,
            nodes: NodeTable::new(&shape, hasher, wide_keys),
            lists: ListTable::default(),
            filled: FilledTable::default(),
            stopper,
            depth_counts: vec![0; shape.max_possible_depth() as usize + 1].into(),
            max_depth: 0,
            leaf_count: 0,
            changes: None,
        };
        tree.grow(NodeId::ROOT, objects);
        // The table grew by doubling; a table of several shards may hold the nodes in
        // fewer buckets (`table.rs`).
        tree.nodes.refit();
        tree.lists.shrink_to_fit();
        tree.filled.shrink_to_fit();
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
        let leaf = self.update_ancestors(c, |t| t.added(kind));
        let i = self.listed(leaf);
        self.lists.push(i, (c, obj), kind);
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
        match self.content(leaf) {
            // Not there: the leaf stays as it is stored.
            Content::Empty => return Ok(false),
            Content::Filled(i) if self.filled.get(i) != obj => return Ok(false),
            _ => {}
        }
        let i = self.listed(leaf);
        let objects = self.lists.get_mut(i);
        let Some(at) = objects.iter().position(|(at, o)| *at == c && o == obj) else {
            return Ok(false);
        };
        let (_, gone) = objects.swap_remove(at);
        let kind = (self.kind_of)(&gone);
        self.lists.recount(i, 1, kind, self.kind_of);
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
        if self.content(leaf) == Content::Empty {
            return Ok(Vec::new());
        }
        let i = self.listed(leaf);
        let objects = self.lists.get_mut(i);
        let (taken, kept): (Vec<_>, Vec<_>) = std::mem::take(objects)
            .into_iter()
            .partition(|(at, _)| *at == c);
        *objects = kept;
        if let Some((_, first)) = taken.first() {
            // Kinds vary at most among the taken objects: recompute the range unless they
            // all leave it as it was.
            let kind = (self.kind_of)(first);
            let same = taken.iter().all(|(_, o)| (self.kind_of)(o) == kind);
            let (k, kind) = (taken.len() as u64, if same { kind } else { 0 });
            self.lists.recount(i, k, kind, self.kind_of);
            self.uncount(c, leaf, k, kind);
            if !same {
                self.retally(c, leaf);
            }
            self.restructure(c, leaf);
        } else {
            // Nothing was at `c`: pack the leaf again if it was packed.
            self.settle(leaf);
        }
        Ok(taken.into_iter().map(|(_, o)| o).collect())
    }

    /// Removes one object equal to each of `removed` and adds every object of `added`, in
    /// one pass over the nodes they fall in: each such node is visited once, its split
    /// decision taken once, bottom-up, where adding and removing them one at a time would
    /// restructure the root-to-cell path once per object. A building placed or torn down
    /// changes a small rectangle of cells this way. Returns how many of `removed` were
    /// there.
    ///
    /// The tree comes out the same as after the single edits (the shape is canonical: it
    /// depends only on the objects), and its change feed, netted, reports the same leaves.
    ///
    /// ```
    /// use quadpath::quadtree::{QuadTree, SplitStopper};
    /// use quadpath::Cell;
    /// let mut tree = QuadTree::new(16, 16, SplitStopper::uniform())?;
    /// let square: Vec<_> = (4..8).flat_map(|y| (4..8).map(move |x| (Cell::new(x, y), 1u8))).collect();
    /// assert_eq!(tree.replace_objects(&[], square.clone())?, 0);
    /// assert_eq!((tree.object_count(), tree.leaf_count()), (16, 7), "one full 4×4 leaf");
    /// assert_eq!(tree.replace_objects(&square, Vec::new())?, 16);
    /// assert_eq!((tree.object_count(), tree.leaf_count()), (0, 1));
    /// # Ok::<(), quadpath::quadtree::QuadtreeError>(())
    /// ```
    ///
    /// # Errors
    /// [`QuadtreeError::OutOfBounds`] when a cell is off the grid; the tree is unchanged
    /// then.
    pub fn replace_objects(
        &mut self,
        removed: &[(Cell, T)],
        added: Vec<(Cell, T)>,
    ) -> Result<usize, QuadtreeError>
    where
        T: PartialEq,
    {
        let mut cells = removed.iter().chain(&added).map(|&(c, _)| c);
        let Some(first) = cells.next() else {
            return Ok(0);
        };
        self.shape.check(first)?;
        let mut bounds = Rect::new(first.x, first.y, first.x, first.y);
        for c in cells {
            self.shape.check(c)?;
            bounds = Rect::new(
                bounds.x1.min(c.x),
                bounds.y1.min(c.y),
                bounds.x2.max(c.x),
                bounds.y2.max(c.y),
            );
        }
        let mut added = added;
        Ok(self.replace_below(NodeId::ROOT, bounds, removed, &mut added))
    }

    /// [`QuadTree::replace_objects`] below node `id`, which overlaps `bounds` (the cells
    /// of `removed` and `added`): the objects of `added` in `id` are taken out of it.
    /// Returns how many of `removed` were found.
    fn replace_below(
        &mut self,
        id: NodeId,
        bounds: Rect,
        removed: &[(Cell, T)],
        added: &mut Vec<(Cell, T)>,
    ) -> usize
    where
        T: PartialEq,
    {
        let rect = self.shape.rect(id);
        let content = self.content(id);
        if content.is_leaf() {
            let touched = |&(c, _): &(Cell, T)| rect.contains(c);
            if !removed.iter().any(touched) && !added.iter().any(touched) {
                return 0;
            }
            let (mut objects, _) = self.take_objects(id);
            let before = objects.len();
            let mut found = 0;
            for (c, o) in removed.iter().filter(|(c, _)| rect.contains(*c)) {
                if let Some(at) = objects.iter().position(|(at, x)| at == c && x == o) {
                    objects.swap_remove(at);
                    found += 1;
                }
            }
            let mut i = 0;
            while i < added.len() {
                if rect.contains(added[i].0) {
                    objects.push(added.swap_remove(i));
                } else {
                    i += 1;
                }
            }
            if found == 0 && objects.len() == before {
                // Untouched: the leaf goes back as it was stored.
                let content = self.lists.content(objects, self.kind_of);
                self.set_content(id, content);
                self.settle(id);
                return 0;
            }
            let tally = Tally::of(&objects, self.kind_of);
            self.log(LeafChange::Removed { id, rect });
            if self
                .stopper
                .stops_with_kinds(rect, tally.count(), tally.one_kind())
            {
                let content = self.lists.content(objects, self.kind_of);
                self.set_content(id, content);
                self.settle(id);
                self.log(LeafChange::Created { id, rect });
            } else {
                self.leaf_count -= 1;
                self.set_content(id, Content::Split(tally));
                self.split(id, objects);
            }
            return found;
        }
        let mut found = 0;
        let kids = self.shape.children(id, rect);
        for &kid in kids.iter() {
            if self.shape.rect(kid).intersects(&bounds) && self.nodes.get(kid).is_some() {
                found += self.replace_below(kid, bounds, removed, added);
            }
        }
        let tally = kids
            .iter()
            .filter_map(|&kid| Some(self.tally_of(kid, self.nodes.get(kid)?.content())))
            .fold(Tally::default(), |t, kid| t.joined(kid));
        self.set_content(id, Content::Split(tally));
        if self
            .stopper
            .stops_with_kinds(rect, tally.count(), tally.one_kind())
        {
            self.merge(id);
        }
        found
    }

    /// What node `id`, which must exist, holds.
    #[inline]
    pub(super) fn content(&self, id: NodeId) -> Content {
        self.nodes.get(id).expect("a node of this tree").content()
    }

    #[inline]
    pub(super) fn set_content(&mut self, id: NodeId, content: Content) {
        *self.nodes.get_mut(id).expect("a node of this tree") = content.into();
    }

    /// The tally of node `id` holding `content`: stored for an internal node, and for a
    /// leaf what its objects make (a packed leaf's one object over its area).
    #[inline]
    pub(super) fn tally_of(&self, id: NodeId, content: Content) -> Tally {
        match content {
            Content::Split(tally) => tally,
            Content::Empty => Tally::default(),
            Content::Listed(i) => self.lists.tally(i),
            Content::Filled(i) => {
                let kind = (self.kind_of)(self.filled.get(i));
                Tally::new(self.shape.rect(id).area(), kind, kind)
            }
        }
    }

    /// The index of `leaf`'s object list, its objects listed first if they were not.
    fn listed(&mut self, leaf: NodeId) -> u32 {
        match self.content(leaf) {
            Content::Listed(i) => i,
            _ => {
                let (objects, tally) = self.take_objects(leaf);
                let i = self.lists.store(objects, tally);
                self.set_content(leaf, Content::Listed(i));
                i
            }
        }
    }

    /// Takes the objects of `leaf` out, unpacked, with their tally, leaving the node
    /// internal with that tally (its caller makes it a leaf again or splits it).
    fn take_objects(&mut self, leaf: NodeId) -> (Vec<(Cell, T)>, Tally) {
        let content = self.content(leaf);
        let tally = self.tally_of(leaf, content);
        self.set_content(leaf, Content::Split(tally));
        let objects = match content {
            Content::Split(_) => unreachable!("{leaf} is a leaf"),
            Content::Empty => Vec::new(),
            Content::Listed(i) => self.lists.take(i),
            Content::Filled(i) => self.unpack(leaf, i),
        };
        (objects, tally)
    }

    /// The objects of packed leaf `leaf`, whose object is entry `i` of the filled table,
    /// listed; the entry is let go.
    fn unpack(&mut self, leaf: NodeId, i: u32) -> Vec<(Cell, T)> {
        let packing = self.packing.expect("only a packing tree packs");
        let objects = packing.unpack(self.shape.rect(leaf), self.filled.get(i));
        self.filled.release(i);
        objects
    }

    /// Stores `leaf`'s objects in their smallest form: packed when the tree packs and they
    /// allow it, nothing for no objects.
    fn settle(&mut self, leaf: NodeId) {
        let Content::Listed(i) = self.content(leaf) else {
            return;
        };
        let list = self.lists.get(i);
        let rect = self.shape.rect(leaf);
        if let Some(o) = self
            .packing
            .and_then(|p| Some((p.copy)(p.packs(rect, list)?)))
        {
            let content = Content::Filled(self.filled.store(o));
            self.set_content(leaf, content);
            self.lists.take(i);
        } else if list.is_empty() {
            self.set_content(leaf, Content::Empty);
            self.lists.take(i);
        }
    }

    /// Takes `k` objects of kind `kind` at `c` (already gone from `leaf`'s list, whose
    /// tally is counted again) off the tallies of `leaf`'s ancestors, recomputing their
    /// kind ranges when the removal may have narrowed them.
    fn uncount(&mut self, c: Cell, leaf: NodeId, k: u64, kind: u8) {
        let mut exact = true;
        self.update_ancestors(c, |t| {
            let (t, ok) = t.removed(k, kind);
            exact &= ok;
            t
        });
        if !exact {
            self.retally(c, leaf);
        }
    }

    /// Recomputes the tallies of `leaf`'s ancestors exactly, bottom-up, each from its
    /// children (a leaf's tally follows from its objects).
    fn retally(&mut self, c: Cell, leaf: NodeId) {
        for d in (0..leaf.depth()).rev() {
            let id = self.shape.cell_id(d, c);
            let tally = self
                .shape
                .children(id, self.shape.rect(id))
                .iter()
                .filter_map(|&kid| Some(self.tally_of(kid, self.nodes.get(kid)?.content())))
                .fold(Tally::default(), |t, kid| t.joined(kid));
            self.set_content(id, Content::Split(tally));
        }
    }

    /// Applies `f` to the tally of every internal node from the root down to the leaf
    /// holding `c`, and returns that leaf (whose tally follows from its objects, which
    /// the caller changes).
    fn update_ancestors(&mut self, c: Cell, mut f: impl FnMut(Tally) -> Tally) -> NodeId {
        let mut d = 0;
        loop {
            let id = self.shape.cell_id(d, c);
            let node = self
                .nodes
                .get_mut(id)
                .expect("every ancestor of a leaf exists");
            let Content::Split(tally) = node.content() else {
                return id;
            };
            *node = Content::Split(f(tally)).into();
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
            .find(|&id| {
                let t = self.tally_of(id, self.content(id));
                self.stopper
                    .stops_with_kinds(self.shape.rect(id), t.count(), t.one_kind())
            });
        match top {
            Some(id) if id != leaf => self.merge(id),
            Some(_) => {
                // Same shape, new contents: report the leaf as replaced.
                self.settle(leaf);
                let rect = self.shape.rect(leaf);
                self.log(LeafChange::Removed { id: leaf, rect });
                self.log(LeafChange::Created { id: leaf, rect });
            }
            None => {
                let (objects, _) = self.take_objects(leaf);
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
    pub(super) fn log(&mut self, change: LeafChange) {
        if let Some(c) = self.changes.as_mut() {
            c.push(change);
        }
    }

    /// Creates node `id` holding `objects` and everything below it that the stopper asks
    /// for, leaves in depth-first order.
    fn grow(&mut self, id: NodeId, mut objects: Vec<(Cell, T)>) {
        let mut leaves = Vec::new();
        self.grow_in_place(id, &mut objects, &mut leaves);
        self.share_out(objects, leaves);
    }

    /// Turns the (already stored, now internal) node `id` into the parent of new subtrees
    /// that share out `objects`.
    fn split(&mut self, id: NodeId, mut objects: Vec<(Cell, T)>) {
        let mut leaves = Vec::new();
        self.split_in_place(id, &mut objects, &mut leaves);
        self.share_out(objects, leaves);
    }

    /// Stores node `id` over `objects` and the subtree the stopper asks for below it,
    /// reordering `objects` in place so that each new leaf's are a run of them: the runs
    /// are given to the leaves, in `leaves`' order, by [`QuadTree::share_out`]. No object
    /// is moved between vectors on the way down, whatever the depth.
    fn grow_in_place(&mut self, id: NodeId, objects: &mut [(Cell, T)], leaves: &mut Vec<NewLeaf>) {
        self.depth_counts[id.depth() as usize] += 1;
        self.max_depth = self.max_depth.max(id.depth());
        let tally = Tally::of(objects, self.kind_of);
        let rect = self.shape.rect(id);
        if self
            .stopper
            .stops_with_kinds(rect, tally.count(), tally.one_kind())
        {
            let packed = self
                .packing
                .and_then(|p| Some((p.copy)(p.packs(rect, objects)?)));
            leaves.push(NewLeaf {
                id,
                objects: objects.len(),
                packed: packed.is_some(),
                tally,
            });
            let content = match packed {
                Some(o) => Content::Filled(self.filled.store(o)),
                None => Content::Empty,
            };
            self.nodes.insert(id, content.into());
        } else {
            self.nodes.insert(id, Content::Split(tally).into());
            self.split_in_place(id, objects, leaves);
        }
    }

    /// [`QuadTree::grow_in_place`] for the children of `id`, already stored as internal.
    fn split_in_place(&mut self, id: NodeId, objects: &mut [(Cell, T)], leaves: &mut Vec<NewLeaf>) {
        let rect = self.shape.rect(id);
        debug_assert!(!is_unit(&rect));
        let kids = self.shape.children(id, rect);
        let counts = partition_quadrants(&self.shape, rect, &kids, objects, |o| o.0);
        let mut rest = objects;
        for (&kid, &n) in kids.iter().zip(&counts) {
            let (mine, others) = rest.split_at_mut(n);
            self.grow_in_place(kid, mine, leaves);
            rest = others;
        }
    }

    /// Gives each leaf [`QuadTree::grow_in_place`] made its run of `objects` (a packed
    /// leaf keeps only the one object it already holds), and logs it as created.
    fn share_out(&mut self, objects: Vec<(Cell, T)>, leaves: Vec<NewLeaf>) {
        let mut objects = objects.into_iter();
        for leaf in leaves {
            let run = objects.by_ref().take(leaf.objects);
            if leaf.packed {
                run.for_each(drop);
            } else {
                let list: Vec<_> = run.collect();
                if !list.is_empty() {
                    let content = Content::Listed(self.lists.store(list, leaf.tally));
                    self.set_content(leaf.id, content);
                }
            }
            self.leaf_count += 1;
            let rect = self.shape.rect(leaf.id);
            self.log(LeafChange::Created { id: leaf.id, rect });
        }
    }

    /// Makes `id` a leaf again, taking the objects of every node below it.
    fn merge(&mut self, id: NodeId) {
        let mut objects = Vec::new();
        let mut stack: Vec<NodeId> = self.shape.children(id, self.shape.rect(id)).to_vec();
        while let Some(n) = stack.pop() {
            let Some(node) = self.nodes.get(n) else {
                continue;
            };
            let rect = self.shape.rect(n);
            match node.content() {
                Content::Split(_) => {
                    stack.extend_from_slice(&self.shape.children(n, rect));
                    self.nodes.remove(n);
                    self.depth_counts[n.depth() as usize] -= 1;
                    continue;
                }
                Content::Listed(i) => objects.extend(self.lists.take(i)),
                Content::Filled(i) => objects.extend(self.unpack(n, i)),
                Content::Empty => {}
            }
            self.nodes.remove(n);
            self.depth_counts[n.depth() as usize] -= 1;
            self.leaf_count -= 1;
            self.log(LeafChange::Removed { id: n, rect });
        }
        while self.max_depth > 0 && self.depth_counts[self.max_depth as usize] == 0 {
            self.max_depth -= 1;
        }
        let content = self.lists.content(objects, self.kind_of);
        self.set_content(id, content);
        self.settle(id);
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
        self.tally_of(NodeId::ROOT, self.content(NodeId::ROOT))
            .count()
    }

    /// Depth of the deepest leaf; a tree that is only its root has depth 0.
    #[inline]
    pub fn depth(&self) -> u32 {
        self.max_depth
    }

    /// Of [`QuadTree::memory_bytes`], what no node uses: node table slots past its
    /// entries, vacant list and packed-object table entries, and spare capacity in the
    /// leaves' object buffers.
    pub fn slack_bytes(&self) -> usize {
        self.nodes.allocation_size() - self.nodes.len() * self.nodes.slot_bytes()
            + self.lists.slack_bytes()
            + self.filled.slack_bytes()
    }

    /// The heap memory the tree holds, in bytes: the hash table's allocation (slots and
    /// control bytes, every bucket, used or not), plus the list table with the listed
    /// leaves' object buffers and the packed leaves' objects (one each).
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.nodes.allocation_size()
            + self.lists.memory_bytes()
            + self.filled.memory_bytes()
            + std::mem::size_of_val::<[u32]>(&self.depth_counts)
    }
}

/// A leaf [`QuadTree::grow_in_place`] made, waiting for its run of objects.
struct NewLeaf {
    id: NodeId,
    /// How many objects its run has.
    objects: usize,
    /// Whether it holds them packed already.
    packed: bool,
    /// Their tally.
    tally: Tally,
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
