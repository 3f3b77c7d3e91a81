//! The subgoal graph's edges, one list per subgoal in one flat arena.
//!
//! A subgoal's list holds every subgoal it is joined to: first, sorted, those its own cone
//! scan found (the *finds*: an edit that scans a subgoal again compares them with what
//! the scan finds now, and drops an edge only when neither end's scan finds it; no route's
//! write-out asks for them since session 41), then, in no order, those joined to it only
//! because their scan found it (the *others*). One list with a count of finds replaces a list of finds and a list of
//! neighbours per subgoal: each edge is written once at each end, not up to three times.
//!
//! The lists live in one `Vec<u32>`, each in a block of its own capacity, rather than a
//! `Vec` per list (a 24-byte header and a heap block with its allocator overhead and
//! growth slack, for lists of 20 entries on average). A list that outgrows its block moves
//! to a larger one at the arena's end, half as large again, and leaves its old block
//! unused; when the arena's capacity runs out, the lists are packed again, each block its
//! list and one entry and a sixteenth more, and a sixteenth of spare room is reserved at
//! the arena's end. Each packing copies the arena once, and at least a sixteenth of it was
//! written by moves since the last, so the amortised cost is a few copies per moved entry.
//! [`EdgeLists::pack`] after a build leaves no slack at all; the room a growth's pack
//! leaves in every block is what keeps an edit's lists in place: with blocks exactly their
//! lists, every list an edit grew by an entry moved, and the arena was packed again about
//! every eighth edit (3–4 % of a blocking edit on Aftershock, session 36). (The gate
//! graph's `SpanArena` packs its lists exactly and doubles its allocation when they fill
//! three quarters of it: after a few edits a subgoal graph's arena would hold twice its
//! edges.)

/// A list's place in the arena.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Slot {
    /// Its first entry in the arena.
    start: u32,
    /// Its block's size.
    capacity: u32,
    /// Entries: the finds, then the others.
    len: u32,
    /// The finds, the first `finds` entries.
    finds: u32,
}

impl Slot {
    fn range(self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.len) as usize
    }
}

/// Room a pack made for growth leaves past a list of `len` entries: one entry and a
/// sixteenth. An edit's rescans and new edges grow lists by an entry or two; with blocks
/// exactly their lists, every such list moved (half as large again, at the arena's end) and
/// the arena was packed again every few edits.
fn growth_slack(len: u32) -> u32 {
    len / 16 + 1
}

/// Bytes of a list's place in the arena, kept for each ID, vacant or not.
pub(super) const SLOT_BYTES: usize = std::mem::size_of::<Slot>();

/// The edge lists of the subgoals by ID (see the module docs).
#[derive(Clone, Debug, Default)]
pub(super) struct EdgeLists {
    /// Per ID, its list's place in `arena`.
    slots: Vec<Slot>,
    /// The blocks of the lists, with unused blocks left by lists that moved.
    arena: Vec<u32>,
    /// Entries of `arena` in no list's block (left behind by moves).
    unused: usize,
    /// Entries in all lists: twice the edges.
    entries: usize,
}

impl EdgeLists {
    /// Lists for `n` IDs, all empty.
    pub fn new(n: usize) -> Self {
        EdgeLists {
            slots: vec![Slot::default(); n],
            ..EdgeLists::default()
        }
    }

    /// Adds an empty list for the next ID.
    pub fn push_empty(&mut self) {
        self.slots.push(Slot::default());
    }

    /// Everything joined to `id`: its finds, then its others.
    #[inline]
    pub fn all(&self, id: u32) -> &[u32] {
        &self.arena[self.slots[id as usize].range()]
    }

    /// What `id`'s own scan found, sorted.
    #[inline]
    pub fn finds(&self, id: u32) -> &[u32] {
        let slot = self.slots[id as usize];
        &self.arena[slot.start as usize..(slot.start + slot.finds) as usize]
    }

    /// What is joined to `id` only by its own scan finding it, in no order.
    #[cfg(test)]
    pub fn others(&self, id: u32) -> &[u32] {
        let slot = self.slots[id as usize];
        &self.arena[(slot.start + slot.finds) as usize..(slot.start + slot.len) as usize]
    }

    /// Number of entries of all lists: twice the edges.
    pub fn entries(&self) -> usize {
        self.entries
    }

    /// Replaces `id`'s list by `finds` (sorted) and `others`.
    pub fn set(&mut self, id: u32, finds: &[u32], others: &[u32]) {
        debug_assert!(finds.windows(2).all(|p| p[0] < p[1]), "finds are sorted");
        let len = finds.len() + others.len();
        let slot = self.make_room(id, len);
        let start = slot.start as usize;
        self.arena[start..start + finds.len()].copy_from_slice(finds);
        self.arena[start + finds.len()..start + len].copy_from_slice(others);
        self.entries = self.entries + len - slot.len as usize;
        let slot = &mut self.slots[id as usize];
        slot.len = len as u32;
        slot.finds = finds.len() as u32;
    }

    /// Appends `other` to `id`'s others.
    pub fn push_other(&mut self, id: u32, other: u32) {
        let len = self.slots[id as usize].len as usize;
        let slot = self.make_room(id, len + 1);
        self.arena[slot.start as usize + len] = other;
        self.slots[id as usize].len += 1;
        self.entries += 1;
    }

    /// Adds `x`, in no list of `id`, to `id`'s finds (in its place: they stay sorted).
    pub fn insert_find(&mut self, id: u32, x: u32) {
        let len = self.slots[id as usize].len as usize;
        let slot = self.make_room(id, len + 1);
        let (start, finds) = (slot.start as usize, slot.finds as usize);
        let at = start + self.arena[start..start + finds].partition_point(|&v| v < x);
        debug_assert!(
            !self.arena[start..start + len].contains(&x),
            "x is in no list"
        );
        self.arena.copy_within(at..start + len, at + 1);
        self.arena[at] = x;
        let slot = &mut self.slots[id as usize];
        slot.len += 1;
        slot.finds += 1;
        self.entries += 1;
    }

    /// Removes the `k`-th of `id`'s finds (the others keep their order).
    pub fn remove_find_at(&mut self, id: u32, k: usize) {
        let slot = self.slots[id as usize];
        debug_assert!(k < slot.finds as usize, "a find");
        let (at, end) = (slot.start as usize + k, (slot.start + slot.len) as usize);
        self.arena.copy_within(at + 1..end, at);
        let slot = &mut self.slots[id as usize];
        slot.len -= 1;
        slot.finds -= 1;
        self.entries -= 1;
    }

    /// Removes `x` from `id`'s others; returns whether it was there.
    pub fn remove_other(&mut self, id: u32, x: u32) -> bool {
        let slot = self.slots[id as usize];
        let (others, end) = (
            (slot.start + slot.finds) as usize,
            (slot.start + slot.len) as usize,
        );
        let Some(k) = self.arena[others..end].iter().position(|&v| v == x) else {
            return false;
        };
        self.arena.copy_within(others + k + 1..end, others + k);
        self.slots[id as usize].len -= 1;
        self.entries -= 1;
        true
    }

    /// Removes `x` from `id`'s list, a find or an other; returns whether it was there.
    /// The finds stay sorted; they are searched by halves, the others one by one.
    pub fn remove(&mut self, id: u32, x: u32) -> bool {
        let slot = self.slots[id as usize];
        let range = slot.range();
        let finds = slot.finds as usize;
        let list = &self.arena[range.clone()];
        let found = match list[..finds].binary_search(&x) {
            Ok(k) => Some(k),
            Err(_) => list[finds..]
                .iter()
                .position(|&v| v == x)
                .map(|k| finds + k),
        };
        let Some(k) = found else {
            return false;
        };
        let at = range.start + k;
        self.arena.copy_within(at + 1..range.end, at);
        let slot = &mut self.slots[id as usize];
        slot.len -= 1;
        if (k as u32) < slot.finds {
            slot.finds -= 1;
        }
        self.entries -= 1;
        true
    }

    /// Empties `id`'s list (its block stays, for the next subgoal given the ID).
    pub fn clear(&mut self, id: u32) {
        let slot = &mut self.slots[id as usize];
        self.entries -= slot.len as usize;
        slot.len = 0;
        slot.finds = 0;
    }

    /// `id`'s slot, its block first moved to one of at least `len` entries (its entries
    /// kept) if it is smaller.
    fn make_room(&mut self, id: u32, len: usize) -> Slot {
        let slot = self.slots[id as usize];
        if len <= slot.capacity as usize {
            return slot;
        }
        let capacity = len.max(slot.capacity as usize * 3 / 2).max(4);
        if self.arena.len() + capacity > self.arena.capacity() {
            let spare = (self.arena.len() - self.unused) / 16 + capacity;
            self.pack_blocks(spare, growth_slack);
            let slot = self.slots[id as usize];
            if len <= slot.capacity as usize {
                return slot;
            }
        }
        let slot = self.slots[id as usize];
        let start = self.arena.len();
        self.arena.extend_from_within(slot.range());
        self.arena.resize(start + capacity, 0);
        self.unused += slot.capacity as usize;
        let slot = &mut self.slots[id as usize];
        slot.start = u32::try_from(start).expect("the edge lists fit 2^32 entries");
        slot.capacity = capacity as u32;
        *slot
    }

    /// Packs the lists anew, each block exactly its list, in ID order, with room for
    /// `spare` more entries in the arena.
    pub fn pack(&mut self, spare: usize) {
        self.pack_blocks(spare, |_| 0);
    }

    /// Packs the lists anew in ID order, each block its list and `slack(len)` entries
    /// more, with room for `spare` more entries in the arena past the blocks.
    fn pack_blocks(&mut self, spare: usize, slack: impl Fn(u32) -> u32) {
        let slacks: usize = self.slots.iter().map(|s| slack(s.len) as usize).sum();
        let mut arena = Vec::with_capacity(self.entries + slacks + spare);
        for slot in &mut self.slots {
            let start = arena.len();
            let capacity = slot.len + slack(slot.len);
            arena.extend_from_slice(&self.arena[slot.range()]);
            arena.resize(start + capacity as usize, 0);
            slot.start = u32::try_from(start).expect("the edge lists fit 2^32 entries");
            slot.capacity = capacity;
        }
        self.arena = arena;
        self.unused = 0;
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Slot>() + self.arena.capacity() * 4
    }

    /// Heap bytes no list uses: unused blocks, the blocks' room past their lists, the
    /// arena's spare capacity and the slot table's.
    pub fn slack_bytes(&self) -> usize {
        (self.arena.capacity() - self.entries) * 4
            + (self.slots.capacity() - self.slots.len()) * std::mem::size_of::<Slot>()
    }
}

#[cfg(test)]
mod tests {
    use super::EdgeLists;
    use proptest::prelude::*;

    /// An operation on the lists of a few IDs.
    #[derive(Clone, Debug)]
    enum Op {
        Set(u32, Vec<u32>, Vec<u32>),
        PushOther(u32, u32),
        Remove(u32, u32),
        RemoveOther(u32, u32),
        RemoveFindAt(u32, usize),
        InsertFind(u32, u32),
        Clear(u32),
        PushEmpty,
        Pack(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        let id = 0u32..12;
        let list = || prop::collection::vec(0u32..40, 0..30);
        prop_oneof![
            3 => (id.clone(), list(), list()).prop_map(|(id, mut f, o)| {
                f.sort_unstable();
                f.dedup();
                Op::Set(id, f, o)
            }),
            4 => (id.clone(), 0u32..40).prop_map(|(id, x)| Op::PushOther(id, x)),
            3 => (id.clone(), 0u32..40).prop_map(|(id, x)| Op::Remove(id, x)),
            2 => (id.clone(), 0u32..40).prop_map(|(id, x)| Op::RemoveOther(id, x)),
            2 => (id.clone(), 0usize..30).prop_map(|(id, k)| Op::RemoveFindAt(id, k)),
            3 => (id.clone(), 0u32..40).prop_map(|(id, x)| Op::InsertFind(id, x)),
            1 => id.prop_map(Op::Clear),
            1 => Just(Op::PushEmpty),
            1 => (0usize..20).prop_map(Op::Pack),
        ]
    }

    /// After the arena ran out and was packed for a list's growth, every other list takes
    /// one more entry in its own block: an edit's next new edges move no list and pack no
    /// more (a work count: the blocks' starts and the arena's capacity stay).
    #[test]
    fn growth_pack_leaves_room_in_every_block() {
        let n = 50u32;
        let mut lists = EdgeLists::new(n as usize);
        for id in 0..n {
            let finds: Vec<u32> = (0..id % 37).collect();
            lists.set(id, &finds, &[n + id]);
        }
        // As after a build: blocks exactly their lists, no spare room.
        lists.pack(0);
        // The first growth runs the arena out and packs it.
        lists.push_other(0, 7);
        let starts: Vec<u32> = lists.slots.iter().map(|s| s.start).collect();
        let capacity = lists.arena.capacity();
        for id in 1..n {
            lists.push_other(id, 2 * n + id);
        }
        let starts_after: Vec<u32> = lists.slots.iter().map(|s| s.start).collect();
        assert_eq!(starts_after, starts, "a list moved");
        assert_eq!(
            lists.arena.capacity(),
            capacity,
            "the arena was packed again"
        );
        assert_eq!(lists.others(0), &[n, 7]);
        assert_eq!(lists.others(1), &[n + 1, 2 * n + 1]);
        assert_eq!(lists.others(n - 1), &[2 * n - 1, 3 * n - 1]);
    }

    proptest! {
        /// Any sequence of operations (an edit's in-place changes of a rescanned list
        /// among them) leaves every list as a pair of plain vectors would
        /// (finds, others), through moves and packings; the entry count and the memory
        /// accounting stay true.
        #[test]
        fn lists_match_vectors(ops in prop::collection::vec(op(), 1..200)) {
            let mut lists = EdgeLists::new(8);
            let mut model: Vec<(Vec<u32>, Vec<u32>)> = vec![Default::default(); 8];
            for op in ops {
                match op {
                    Op::Set(id, f, o) if (id as usize) < model.len() => {
                        lists.set(id, &f, &o);
                        model[id as usize] = (f, o);
                    }
                    Op::PushOther(id, x) if (id as usize) < model.len() => {
                        lists.push_other(id, x);
                        model[id as usize].1.push(x);
                    }
                    Op::Remove(id, x) if (id as usize) < model.len() => {
                        let (f, o) = &mut model[id as usize];
                        let was = if let Some(k) = f.iter().position(|&v| v == x) {
                            f.remove(k);
                            true
                        } else if let Some(k) = o.iter().position(|&v| v == x) {
                            o.remove(k);
                            true
                        } else {
                            false
                        };
                        prop_assert_eq!(lists.remove(id, x), was);
                    }
                    Op::RemoveOther(id, x) if (id as usize) < model.len() => {
                        let o = &mut model[id as usize].1;
                        let was = o.iter().position(|&v| v == x).map(|k| o.remove(k));
                        prop_assert_eq!(lists.remove_other(id, x), was.is_some());
                    }
                    Op::RemoveFindAt(id, k)
                        if (id as usize) < model.len() && k < model[id as usize].0.len() =>
                    {
                        lists.remove_find_at(id, k);
                        model[id as usize].0.remove(k);
                    }
                    // Only an entry in no list of `id` is inserted.
                    Op::InsertFind(id, x)
                        if (id as usize) < model.len()
                            && !model[id as usize].0.contains(&x)
                            && !model[id as usize].1.contains(&x) =>
                    {
                        lists.insert_find(id, x);
                        let f = &mut model[id as usize].0;
                        let at = f.partition_point(|&v| v < x);
                        f.insert(at, x);
                    }
                    Op::Clear(id) if (id as usize) < model.len() => {
                        lists.clear(id);
                        model[id as usize] = Default::default();
                    }
                    Op::PushEmpty => {
                        lists.push_empty();
                        model.push(Default::default());
                    }
                    Op::Pack(spare) => lists.pack(spare),
                    _ => {}
                }
                for (id, (f, o)) in model.iter().enumerate() {
                    let id = id as u32;
                    prop_assert_eq!(lists.finds(id), &f[..]);
                    prop_assert_eq!(lists.others(id), &o[..]);
                    let all: Vec<u32> = f.iter().chain(o).copied().collect();
                    prop_assert_eq!(lists.all(id), &all[..]);
                }
                let entries: usize = model.iter().map(|(f, o)| f.len() + o.len()).sum();
                prop_assert_eq!(lists.entries(), entries);
                prop_assert!(lists.slack_bytes() + entries * 4 <= lists.memory_bytes());
            }
        }
    }
}
