//! One node as stored: 8 bytes that say whether it is split (with its tally) or a leaf
//! (empty, listed or packed), and the side tables that hold a leaf's objects.

use crate::geom::{Cell, Rect};

/// A node as stored: 8 bytes with an alignment of 4, so that a node table slot is 13 bytes
/// with a 4-byte key (17 with an 8-byte one; see `table.rs`). An internal node stores its
/// subtree's [`Tally`]; a leaf stores only where its objects are, and its tally follows
/// from them (see [`Content`]). Bits 46–47 say which: 0 for an internal node (the tally's
/// own bits, which leave them clear), 1 empty, 2 listed, 3 packed, with the side table
/// index of the last two in the low 32 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Node {
    low: u32,
    high: u32,
}

// A 13-byte hash table slot with a 4-byte key: key, node and control byte.
const _: () = assert!(std::mem::size_of::<Node>() == 8 && std::mem::align_of::<Node>() == 4);

const TAG_SHIFT: u32 = COUNT_BITS;
const TAG_EMPTY: u64 = 1;
const TAG_LISTED: u64 = 2;
const TAG_FILLED: u64 = 3;

impl Node {
    #[inline]
    fn word(self) -> u64 {
        (self.high as u64) << 32 | self.low as u64
    }

    #[inline]
    fn from_word(w: u64) -> Node {
        Node {
            low: w as u32,
            high: (w >> 32) as u32,
        }
    }

    /// What the node holds.
    #[inline]
    pub(crate) fn content(self) -> Content {
        let w = self.word();
        match (w >> TAG_SHIFT) & 3 {
            0 => Content::Split(Tally(w)),
            TAG_EMPTY => Content::Empty,
            TAG_LISTED => Content::Listed(w as u32),
            _ => Content::Filled(w as u32),
        }
    }

    /// Whether the node is a leaf: the one question of the hot point location, answered
    /// from the tag alone.
    #[inline]
    pub(crate) fn is_leaf(self) -> bool {
        (self.high >> (TAG_SHIFT - 32)) & 3 != 0
    }
}

impl From<Content> for Node {
    #[inline]
    fn from(content: Content) -> Node {
        Node::from_word(match content {
            Content::Split(tally) => tally.0,
            Content::Empty => TAG_EMPTY << TAG_SHIFT,
            Content::Listed(i) => TAG_LISTED << TAG_SHIFT | i as u64,
            Content::Filled(i) => TAG_FILLED << TAG_SHIFT | i as u64,
        })
    }
}

/// What a node holds, as [`Node`] encodes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Content {
    /// An internal node and its subtree's tally: only leaves hold objects.
    Split(Tally),
    /// A leaf without objects (no allocation).
    Empty,
    /// A leaf with its objects listed: the index of its list (and the list's tally) in the
    /// tree's [`ListTable`], so that the many nodes without a list (the internal ones, the
    /// empty and the packed leaves) pay neither for a vector's three words nor for a
    /// pointer to one.
    Listed(u32),
    /// A packed leaf: exactly one object at each of its cells, all equal to the one at
    /// this index of the tree's [`FilledTable`] (see [`Packing`]). A path-finding map's
    /// blocked region holds one object per cell, so its leaves are all of this form and
    /// store 1 object instead of thousands.
    Filled(u32),
}

impl Content {
    #[inline]
    pub(crate) fn is_leaf(self) -> bool {
        !matches!(self, Content::Split(_))
    }
}

/// The object lists of a tree's listed leaves, each at the index its
/// [`Content::Listed`] holds, with its tally. Vacant entries are reused; the table is let
/// go when its last list goes (a path-finding map's tree lists objects only in the middle
/// of an edit).
#[derive(Debug)]
pub(crate) struct ListTable<T> {
    lists: Vec<Vec<(Cell, T)>>,
    /// Each list's tally, kept up to date by the tree's edits (a leaf's tally is read at
    /// every edit through it, so it is not counted again each time).
    tallies: Vec<Tally>,
    /// Vacant entries (empty vectors).
    vacant: Vec<u32>,
}

impl<T> Default for ListTable<T> {
    fn default() -> Self {
        ListTable {
            lists: Vec::new(),
            tallies: Vec::new(),
            vacant: Vec::new(),
        }
    }
}

impl<T> ListTable<T> {
    /// The content of a leaf holding `objects` (whose kinds `kind_of` gives): listed, or
    /// empty when there are none and no buffer to keep.
    pub(crate) fn content(&mut self, objects: Vec<(Cell, T)>, kind_of: fn(&T) -> u8) -> Content {
        match objects.is_empty() && objects.capacity() == 0 {
            true => Content::Empty,
            false => {
                let tally = Tally::of(&objects, kind_of);
                Content::Listed(self.store(objects, tally))
            }
        }
    }

    /// Stores `objects`, whose tally is `tally`, as a list of their own; returns its index.
    pub(crate) fn store(&mut self, objects: Vec<(Cell, T)>, tally: Tally) -> u32 {
        match self.vacant.pop() {
            Some(i) => {
                self.lists[i as usize] = objects;
                self.tallies[i as usize] = tally;
                i
            }
            None => {
                self.lists.push(objects);
                self.tallies.push(tally);
                u32::try_from(self.lists.len() - 1).expect("fewer lists than leaves")
            }
        }
    }

    /// Takes list `i` out, leaving its entry vacant.
    pub(crate) fn take(&mut self, i: u32) -> Vec<(Cell, T)> {
        let objects = std::mem::take(&mut self.lists[i as usize]);
        self.vacant.push(i);
        if self.vacant.len() == self.lists.len() {
            *self = ListTable::default();
        }
        objects
    }

    #[inline]
    pub(crate) fn get(&self, i: u32) -> &[(Cell, T)] {
        &self.lists[i as usize]
    }

    /// The tally of list `i`.
    #[inline]
    pub(crate) fn tally(&self, i: u32) -> Tally {
        self.tallies[i as usize]
    }

    /// Appends `object`, of kind `kind`, to list `i`.
    pub(crate) fn push(&mut self, i: u32, object: (Cell, T), kind: u8) {
        self.lists[i as usize].push(object);
        self.tallies[i as usize] = self.tallies[i as usize].added(kind);
    }

    /// List `i` to change in place; [`ListTable::recount`] must follow.
    #[inline]
    pub(crate) fn get_mut(&mut self, i: u32) -> &mut Vec<(Cell, T)> {
        &mut self.lists[i as usize]
    }

    /// Counts list `i`'s tally again after [`ListTable::get_mut`] removed `k` objects of
    /// kind `kind` from it: from the tally when the removal leaves the kind range as it
    /// was, from the objects otherwise.
    pub(crate) fn recount(&mut self, i: u32, k: u64, kind: u8, kind_of: fn(&T) -> u8) {
        let (tally, exact) = self.tallies[i as usize].removed(k, kind);
        self.tallies[i as usize] = match exact {
            true => tally,
            false => Tally::of(&self.lists[i as usize], kind_of),
        };
    }

    /// Gives back the room the table's growth left over.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.lists.shrink_to_fit();
        self.tallies.shrink_to_fit();
        self.vacant.shrink_to_fit();
    }

    /// Heap bytes held: the table, and every list's buffer.
    pub(crate) fn memory_bytes(&self) -> usize {
        let buffers: usize = self.lists.iter().map(|l| l.capacity()).sum();
        self.lists.capacity() * std::mem::size_of::<Vec<(Cell, T)>>()
            + self.tallies.capacity() * std::mem::size_of::<Tally>()
            + buffers * std::mem::size_of::<(Cell, T)>()
            + self.vacant.capacity() * 4
    }

    /// Of [`ListTable::memory_bytes`], what holds no object: vacant entries and spare
    /// room, in the table and in the lists.
    pub(crate) fn slack_bytes(&self) -> usize {
        let live = self.lists.len() - self.vacant.len();
        let spare: usize = self.lists.iter().map(|l| l.capacity() - l.len()).sum();
        (self.lists.capacity() - live) * std::mem::size_of::<Vec<(Cell, T)>>()
            + (self.tallies.capacity() - live) * std::mem::size_of::<Tally>()
            + spare * std::mem::size_of::<(Cell, T)>()
            + self.vacant.capacity() * 4
    }

    /// The heap bytes of `lists` lists holding `objects` objects in all, as a build leaves
    /// them (each at its length): what the tree's estimate counts.
    pub(crate) fn bytes_for(lists: usize, objects: usize) -> usize {
        objects * std::mem::size_of::<(Cell, T)>()
            + lists * (std::mem::size_of::<Vec<(Cell, T)>>() + std::mem::size_of::<Tally>())
    }
}

/// The objects of a tree's packed leaves, one per leaf, at the index its
/// [`Content::Filled`] holds: so that a node holds a 4-byte index whatever `T` is.
/// Vacant entries are reused and keep their old object until then.
#[derive(Debug)]
pub(crate) struct FilledTable<T> {
    objects: Vec<T>,
    /// Vacant entries.
    vacant: Vec<u32>,
}

impl<T> Default for FilledTable<T> {
    fn default() -> Self {
        FilledTable {
            objects: Vec::new(),
            vacant: Vec::new(),
        }
    }
}

impl<T> FilledTable<T> {
    /// Stores `object`; returns its index.
    pub(crate) fn store(&mut self, object: T) -> u32 {
        match self.vacant.pop() {
            Some(i) => {
                self.objects[i as usize] = object;
                i
            }
            None => {
                self.objects.push(object);
                u32::try_from(self.objects.len() - 1).expect("fewer packed leaves than 2^32")
            }
        }
    }

    #[inline]
    pub(crate) fn get(&self, i: u32) -> &T {
        &self.objects[i as usize]
    }

    /// Marks entry `i` vacant; the table is let go when its last entry goes.
    pub(crate) fn release(&mut self, i: u32) {
        self.vacant.push(i);
        if self.vacant.len() == self.objects.len() {
            *self = FilledTable::default();
        }
    }

    /// Gives back the room the table's growth left over.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.objects.shrink_to_fit();
        self.vacant.shrink_to_fit();
    }

    /// Heap bytes held.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.objects.capacity() * std::mem::size_of::<T>() + self.vacant.capacity() * 4
    }

    /// Of [`FilledTable::memory_bytes`], what holds no packed leaf's object.
    pub(crate) fn slack_bytes(&self) -> usize {
        let live = self.objects.len() - self.vacant.len();
        (self.objects.capacity() - live) * std::mem::size_of::<T>() + self.vacant.capacity() * 4
    }
}

/// How a tree of `T: Copy + PartialEq` packs a leaf that holds exactly one object at each
/// of its cells, all equal: the two operations it needs, taken as function pointers when
/// the tree is made (see [`QuadTree::build_packed`](super::QuadTree::build_packed)) so
/// that the tree itself needs no bounds on `T`.
#[derive(Debug)]
pub(crate) struct Packing<T> {
    pub(crate) same: fn(&T, &T) -> bool,
    pub(crate) copy: fn(&T) -> T,
}

impl<T> Clone for Packing<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Packing<T> {}

impl<T: Copy + PartialEq> Packing<T> {
    pub(crate) fn new() -> Self {
        Packing {
            same: |a, b| a == b,
            copy: |a| *a,
        }
    }
}

impl<T> Packing<T> {
    /// The object a leaf over `rect` holding `objects` packs into: `Some` when there is
    /// exactly one at each cell, all equal.
    pub(crate) fn packs<'a>(&self, rect: Rect, objects: &'a [(Cell, T)]) -> Option<&'a T> {
        let (_, first) = objects.first()?;
        (objects.len() as u64 == rect.area()
            && objects.iter().all(|(_, o)| (self.same)(o, first))
            && covers_each_cell_once(rect, objects.iter().map(|(c, _)| *c)))
        .then_some(first)
    }

    /// The objects of a packed leaf over `rect`, listed row by row.
    pub(crate) fn unpack(&self, rect: Rect, object: &T) -> Vec<(Cell, T)> {
        rect.cells().map(|c| (c, (self.copy)(object))).collect()
    }
}

/// Whether `cells`, as many as `rect` has and all inside it, are each of its cells once.
pub(crate) fn covers_each_cell_once(rect: Rect, cells: impl Iterator<Item = Cell>) -> bool {
    let width = rect.width() as usize;
    let mut seen = vec![0u64; (rect.area() as usize).div_ceil(64)];
    for c in cells {
        let bit = (c.y - rect.y1) as usize * width + (c.x - rect.x1) as usize;
        let word = &mut seen[bit / 64];
        if *word & (1 << (bit % 64)) != 0 {
            return false;
        }
        *word |= 1 << (bit % 64);
    }
    true
}

/// The objects of a leaf, as [`NodeRef::objects`](super::NodeRef::objects) gives them:
/// a list, or a packed leaf's one object repeated at each of its cells.
///
/// ```
/// use quadpath::quadtree::{QuadTree, SplitStopper};
/// use quadpath::{Cell, Rect};
/// // A 4×4 map whose left half is blocked (kind 0): two packed leaves of 8 cells.
/// let cells = (0..16).map(|i| Cell::new(i % 4, i / 4)).filter(|c| c.x < 2).map(|c| (c, 0u8));
/// let tree = QuadTree::build_packed(4, 4, SplitStopper::uniform(), cells, |k| *k)?;
/// let left = tree.find(Cell::new(0, 0))?;
/// assert_eq!(left.objects().len(), 4);
/// assert_eq!(left.objects().first(), Some((Cell::new(0, 0), &0)));
/// assert!(tree.find(Cell::new(3, 3))?.objects().is_empty());
/// assert_eq!(tree.objects_in_rect(Rect::new(0, 0, 3, 3)).len(), 8);
/// # Ok::<(), quadpath::quadtree::QuadtreeError>(())
/// ```
#[derive(Debug)]
pub enum Objects<'a, T> {
    /// The objects as listed.
    Listed(&'a [(Cell, T)]),
    /// One object, equal to this one, at each cell of the rectangle.
    Filled(Rect, &'a T),
}

impl<T> Clone for Objects<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Objects<'_, T> {}

impl<'a, T> Objects<'a, T> {
    /// Number of objects.
    pub fn len(&self) -> usize {
        match self {
            Objects::Listed(list) => list.len(),
            Objects::Filled(rect, _) => rect.area() as usize,
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first object with its cell (the top-left cell's of a packed leaf).
    pub fn first(&self) -> Option<(Cell, &'a T)> {
        self.iter().next()
    }

    /// The objects with their cells.
    pub fn iter(&self) -> impl Iterator<Item = (Cell, &'a T)> + 'a {
        let (list, filled) = match *self {
            Objects::Listed(list) => (list, None),
            Objects::Filled(rect, object) => (&[][..], Some((rect, object))),
        };
        list.iter().map(|(c, o)| (*c, o)).chain(
            filled
                .into_iter()
                .flat_map(|(rect, object)| rect.cells().map(move |c| (c, object))),
        )
    }

    /// The objects with their cells, copied out.
    pub fn to_vec(&self) -> Vec<(Cell, T)>
    where
        T: Clone,
    {
        self.iter().map(|(c, o)| (c, o.clone())).collect()
    }
}

impl<T: PartialEq> PartialEq<[(Cell, T)]> for Objects<'_, T> {
    fn eq(&self, other: &[(Cell, T)]) -> bool {
        self.len() == other.len()
            && self
                .iter()
                .zip(other)
                .all(|(a, b)| a.0 == b.0 && *a.1 == b.1)
    }
}

impl<T: PartialEq, const N: usize> PartialEq<&[(Cell, T); N]> for Objects<'_, T> {
    fn eq(&self, other: &&[(Cell, T); N]) -> bool {
        *self == other[..]
    }
}

/// A subtree's object count and the range of its objects' kinds, packed in one word so
/// that an internal node is 8 bytes: the count in the low 46 bits (no machine holds 2^46
/// objects of 8 bytes or more), 2 clear bits ([`Node`]'s tag), the smallest kind in the
/// next 8, the largest in the top 8. The kinds mean nothing while the count is 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally(u64);

const COUNT_BITS: u32 = 46;
const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;
/// Where the kinds start, past the count and [`Node`]'s 2 tag bits.
const KIND_SHIFT: u32 = 48;

impl Tally {
    pub(crate) fn new(count: u64, lo: u8, hi: u8) -> Self {
        debug_assert!(count <= COUNT_MASK && lo <= hi);
        Tally(count | (lo as u64) << KIND_SHIFT | (hi as u64) << (KIND_SHIFT + 8))
    }

    /// The tally of `objects`, whose kinds `kind_of` gives.
    pub(crate) fn of<T>(objects: &[(Cell, T)], kind_of: fn(&T) -> u8) -> Self {
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
        (self.0 >> KIND_SHIFT) as u8
    }

    #[inline]
    fn hi(self) -> u8 {
        (self.0 >> (KIND_SHIFT + 8)) as u8
    }

    /// Whether every object has the same kind (true with no objects).
    #[inline]
    pub(crate) fn one_kind(self) -> bool {
        self.count() == 0 || self.lo() == self.hi()
    }

    /// With one more object, of kind `k`.
    #[inline]
    pub(crate) fn added(self, k: u8) -> Self {
        match self.count() {
            0 => Tally::new(1, k, k),
            n => Tally::new(n + 1, self.lo().min(k), self.hi().max(k)),
        }
    }

    /// The tally of two subtrees together.
    pub(crate) fn joined(self, other: Tally) -> Self {
        match (self.count(), other.count()) {
            (0, _) => other,
            (_, 0) => self,
            (a, b) => Tally::new(a + b, self.lo().min(other.lo()), self.hi().max(other.hi())),
        }
    }

    /// With `k` objects fewer, of kinds that leave the range as it was or need it
    /// recomputed (`exact` says which).
    #[inline]
    pub(crate) fn removed(self, k: u64, kind: u8) -> (Self, bool) {
        let n = self.count() - k;
        let exact = n == 0 || self.lo() == self.hi() || (kind > self.lo() && kind < self.hi());
        (Tally::new(n, self.lo(), self.hi()), exact)
    }
}
