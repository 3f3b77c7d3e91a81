//! One node as stored: its tally, and what a leaf holds, listed or packed.

use crate::geom::{Cell, Rect};

/// A node as stored: its subtree's object count and kinds, and its objects when it is a
/// leaf. 16 bytes for payloads of up to 4 bytes (a hash table slot of 25 with its key and
/// control byte), so that a tree of a million cells' worth of nodes stays a few MiB.
#[derive(Clone, Debug)]
pub(crate) struct Node<T> {
    pub(crate) tally: Tally,
    pub(crate) content: Content<T>,
}

// A hash table slot of 25 bytes for a path-finding map's tree (see `Node`).
const _: () = assert!(std::mem::size_of::<Node<u8>>() == 16);

/// What a node holds.
#[derive(Clone, Debug)]
pub(crate) enum Content<T> {
    /// An internal node: only leaves hold objects.
    Split,
    /// A leaf without objects (no allocation).
    Empty,
    /// A leaf with its objects listed: the index of its list in the tree's [`ListTable`],
    /// so that the many nodes without a list (the internal ones, the empty and the packed
    /// leaves) pay neither for a vector's three words nor for a pointer to one.
    Listed(u32),
    /// A packed leaf: exactly one object at each of its cells, all equal to this one (see
    /// [`Packing`]). A path-finding map's blocked region holds one object per cell, so its
    /// leaves are all of this form and store 1 object instead of thousands.
    Filled(T),
}

impl<T> Content<T> {
    #[inline]
    pub(crate) fn is_leaf(&self) -> bool {
        !matches!(self, Content::Split)
    }
}

/// The object lists of a tree's listed leaves, each at the index its
/// [`Content::Listed`] holds. Vacant entries are reused; the table is let go when its
/// last list goes (a path-finding map's tree lists objects only in the middle of an edit).
#[derive(Debug)]
pub(crate) struct ListTable<T> {
    lists: Vec<Vec<(Cell, T)>>,
    /// Vacant entries (empty vectors).
    vacant: Vec<u32>,
}

impl<T> Default for ListTable<T> {
    fn default() -> Self {
        ListTable {
            lists: Vec::new(),
            vacant: Vec::new(),
        }
    }
}

impl<T> ListTable<T> {
    /// The content of a leaf holding `objects`: listed, or empty when there are none and
    /// no buffer to keep.
    pub(crate) fn content(&mut self, objects: Vec<(Cell, T)>) -> Content<T> {
        match objects.is_empty() && objects.capacity() == 0 {
            true => Content::Empty,
            false => Content::Listed(self.store(objects)),
        }
    }

    /// Stores `objects` as a list of their own; returns its index.
    pub(crate) fn store(&mut self, objects: Vec<(Cell, T)>) -> u32 {
        match self.vacant.pop() {
            Some(i) => {
                self.lists[i as usize] = objects;
                i
            }
            None => {
                self.lists.push(objects);
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

    #[inline]
    pub(crate) fn get_mut(&mut self, i: u32) -> &mut Vec<(Cell, T)> {
        &mut self.lists[i as usize]
    }

    /// Gives back the room the table's growth left over.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.lists.shrink_to_fit();
        self.vacant.shrink_to_fit();
    }

    /// Heap bytes held: the table, and every list's buffer.
    pub(crate) fn memory_bytes(&self) -> usize {
        let buffers: usize = self.lists.iter().map(|l| l.capacity()).sum();
        self.lists.capacity() * std::mem::size_of::<Vec<(Cell, T)>>()
            + buffers * std::mem::size_of::<(Cell, T)>()
            + self.vacant.capacity() * 4
    }

    /// Of [`ListTable::memory_bytes`], what holds no object: vacant entries and spare
    /// room, in the table and in the lists.
    pub(crate) fn slack_bytes(&self) -> usize {
        let live = self.lists.len() - self.vacant.len();
        let spare: usize = self.lists.iter().map(|l| l.capacity() - l.len()).sum();
        (self.lists.capacity() - live) * std::mem::size_of::<Vec<(Cell, T)>>()
            + spare * std::mem::size_of::<(Cell, T)>()
            + self.vacant.capacity() * 4
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
/// that a node costs no more than it did before kinds: the count in the low 48 bits (no
/// machine holds 2^48 objects of 8 bytes or more), the smallest kind in the next 8, the
/// largest in the top 8. The kinds mean nothing while the count is 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally(u64);

const COUNT_BITS: u32 = 48;
const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;

impl Tally {
    pub(crate) fn new(count: u64, lo: u8, hi: u8) -> Self {
        debug_assert!(count <= COUNT_MASK && lo <= hi);
        Tally(count | (lo as u64) << COUNT_BITS | (hi as u64) << (COUNT_BITS + 8))
    }

    /// The tally of `objects`, whose kinds `kind_of` gives.
    pub(crate) fn of<T>(objects: &[(Cell, T)], kind_of: fn(&T) -> u8) -> Self {
        objects
            .iter()
            .fold(Tally::default(), |t, (_, o)| t.added(kind_of(o)))
    }

    /// The tally of a leaf holding `content` over `rect`, its list (if any) in `lists`.
    pub(crate) fn of_content<T>(
        content: &Content<T>,
        rect: Rect,
        lists: &ListTable<T>,
        kind_of: fn(&T) -> u8,
    ) -> Self {
        match content {
            Content::Split | Content::Empty => Tally::default(),
            Content::Listed(i) => Tally::of(lists.get(*i), kind_of),
            Content::Filled(o) => Tally::new(rect.area(), kind_of(o), kind_of(o)),
        }
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
