//! Many small growable lists in one flat arena: each list is a [`Span`] of 12 bytes, not
//! a vector of 24 (or a small vector of 24 that spills to the heap past a few items).
//!
//! A list that outgrows its room moves to the end of the arena and leaves a hole. Before
//! items are added at the end, the owner of the spans asks whether the arena would rather
//! be packed ([`SpanArena::wants_packing`], [`SpanArena::compact`]): when the items would
//! outgrow the allocation and a quarter of it is holes. Packing keeps the allocation, so
//! the allocation grows only when the lists themselves fill three quarters of it, never
//! because holes happened to fill it: its size follows the largest the lists have been,
//! not when the edits' holes were last packed. (Packing when holes weighed more than the
//! lists, into an allocation of exactly the lists, let a list's move reach the doubled
//! allocation's end just before the holes caught up: the allocation doubled again, to
//! four times the lists, on about 1 run in 500 of the same edits, the hash seed deciding.)

/// Where one list lives in a [`SpanArena`]: `len` items from `start`, room for `cap`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Span {
    start: u32,
    len: u32,
    cap: u32,
}

impl Span {
    /// Number of items.
    #[inline]
    pub fn len(self) -> usize {
        self.len as usize
    }

    /// Whether the list is empty.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    /// At most the items a push onto this list adds at its arena's end: none while the
    /// list has room, its new room when it moves (less when it is the arena's last list,
    /// which grows in place).
    #[inline]
    pub fn push_growth(self) -> usize {
        match self.len == self.cap {
            true => (self.cap * 2).max(FIRST_ROOM) as usize,
            false => 0,
        }
    }
}

/// A [`Span`] of a list that never holds more than `u16::MAX` items (a gate's crossings,
/// at most 8), in 8 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ShortSpan {
    start: u32,
    len: u16,
    cap: u16,
}

impl ShortSpan {
    /// Number of items.
    #[inline]
    pub fn len(self) -> usize {
        self.len as usize
    }

    /// Whether the list is empty.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.len == 0
    }
}

impl From<ShortSpan> for Span {
    #[inline]
    fn from(s: ShortSpan) -> Span {
        Span {
            start: s.start,
            len: s.len as u32,
            cap: s.cap as u32,
        }
    }
}

impl From<Span> for ShortSpan {
    #[inline]
    fn from(s: Span) -> ShortSpan {
        debug_assert!(s.cap <= u16::MAX as u32, "a short list outgrew its span");
        ShortSpan {
            start: s.start,
            len: s.len as u16,
            cap: s.cap as u16,
        }
    }
}

/// A span of either width.
pub(crate) trait SpanLike: Into<Span> + From<Span> + Copy {}
impl SpanLike for Span {}
impl SpanLike for ShortSpan {}

/// The arena: every list's items, and the holes moved lists left.
#[derive(Clone, Debug, Default)]
pub(crate) struct SpanArena<T> {
    items: Vec<T>,
    /// Slots no span covers any more.
    holes: usize,
}

/// Room a list gets when it first grows: most gates have at most 4 crossings.
const FIRST_ROOM: u32 = 4;

impl<T: Copy + Default> SpanArena<T> {
    /// The items of `span`.
    #[inline]
    pub fn get(&self, span: impl Into<Span>) -> &[T] {
        let span = span.into();
        &self.items[span.start as usize..][..span.len as usize]
    }

    /// The items of `span`, to change in place.
    #[inline]
    pub fn get_mut(&mut self, span: impl Into<Span>) -> &mut [T] {
        let span = span.into();
        &mut self.items[span.start as usize..][..span.len as usize]
    }

    /// Appends `item` to the list at `span`, moving it to the end of the arena with twice
    /// the room when it is full (in place when it is the last list already).
    pub fn push(&mut self, outer: &mut impl SpanLike, item: T) {
        let mut whole: Span = (*outer).into();
        let span = &mut whole;
        if span.len == span.cap {
            let cap = (span.cap * 2).max(FIRST_ROOM);
            let end = span.start as usize + span.cap as usize;
            if end == self.items.len() && span.cap > 0 {
                self.items
                    .resize(span.start as usize + cap as usize, T::default());
            } else {
                let start = self.items.len();
                debug_assert!(start + cap as usize <= u32::MAX as usize);
                self.items
                    .extend_from_within(span.start as usize..span.start as usize + span.len());
                self.items.resize(start + cap as usize, T::default());
                self.holes += span.cap as usize;
                span.start = start as u32;
            }
            span.cap = cap;
        }
        self.items[(span.start + span.len) as usize] = item;
        span.len += 1;
        *outer = From::from(whole);
    }

    /// Gives the empty `span` a list of `len` copies of `item`, at the end of the arena.
    pub fn fill(&mut self, span: &mut Span, len: usize, item: T) {
        debug_assert_eq!(span.cap, 0, "filling a list that has room already");
        let start = self.items.len();
        debug_assert!(start + len <= u32::MAX as usize);
        self.items.resize(start + len, item);
        *span = Span {
            start: start as u32,
            len: len as u32,
            cap: len as u32,
        };
    }

    /// Removes the item at `i` of the list at `span`, moving its last item there.
    pub fn swap_remove<S: SpanLike>(&mut self, outer: &mut S, i: usize) -> T {
        let mut whole: Span = (*outer).into();
        let span = &mut whole;
        let list = self.get_mut(*span);
        let gone = list[i];
        list[i] = list[list.len() - 1];
        span.len -= 1;
        *outer = S::from(whole);
        gone
    }

    /// Keeps the items of `span` for which `keep` holds, in their order.
    pub fn retain<S: SpanLike>(&mut self, outer: &mut S, mut keep: impl FnMut(T) -> bool) {
        let mut whole: Span = (*outer).into();
        let span = &mut whole;
        let list = self.get_mut(*span);
        let mut kept = 0;
        for i in 0..list.len() {
            if keep(list[i]) {
                list[kept] = list[i];
                kept += 1;
            }
        }
        span.len = kept as u32;
        *outer = S::from(whole);
    }

    /// Gives the room of `span` back (as a hole) and empties it.
    pub fn free<S: SpanLike>(&mut self, outer: &mut S) {
        let whole: Span = (*outer).into();
        self.holes += whole.cap as usize;
        *outer = S::from(Span::default());
    }

    /// Whether `extra` items added at the end would outgrow the allocation while a quarter
    /// of it or more is holes: then the owner packs the arena first
    /// ([`SpanArena::compact`]), which frees at least that quarter and keeps the
    /// allocation. Each packing copies the lists once, and a quarter of the allocation was
    /// written at the end since the last (or the allocation grew), so the amortised cost
    /// is a few copies per item written.
    #[inline]
    pub fn wants_packing(&self, extra: usize) -> bool {
        // Most pushes have room in their list (no extra): one comparison.
        self.items.len() + extra > self.items.capacity()
            && self.holes > 0
            && 4 * self.holes >= self.items.capacity()
    }

    /// Packs the lists of `spans`, which must be every span into this arena, one after
    /// another with no room to spare and no hole, in the order given. The allocation is
    /// kept (see [`SpanArena::shrink_to_fit`] to give it back).
    pub fn compact<'a, S: SpanLike + 'a>(&mut self, spans: impl Iterator<Item = &'a mut S>) {
        let mut items = Vec::with_capacity(self.items.capacity());
        for span in spans {
            let start = items.len() as u32;
            let old: Span = (*span).into();
            items.extend_from_slice(self.get(old));
            *span = S::from(Span {
                start,
                len: old.len,
                cap: old.len,
            });
        }
        self.items = items;
        self.holes = 0;
    }

    /// Gives back the allocation past the items (after a [`SpanArena::compact`], the
    /// lists' own): what a built graph, mostly read, keeps.
    pub fn shrink_to_fit(&mut self) {
        self.items.shrink_to_fit();
    }

    /// Heap bytes of the arena.
    pub fn memory_bytes(&self) -> usize {
        self.items.capacity() * std::mem::size_of::<T>()
    }

    /// Of [`SpanArena::memory_bytes`], what no item uses: holes, room past the lists'
    /// items (`used` is the number of items in all lists), spare capacity.
    pub fn slack_bytes(&self, used: usize) -> usize {
        (self.items.capacity() - used) * std::mem::size_of::<T>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lists grown, shrunk, freed and compacted in random order hold what plain vectors
    /// given the same operations hold.
    #[test]
    fn lists_match_vectors_through_moves_and_compaction() {
        exercise::<Span>();
        exercise::<ShortSpan>();
    }

    fn exercise<S: SpanLike + Default>() {
        let mut arena = SpanArena::<u32>::default();
        let mut spans = [S::default(); 40];
        let mut model: Vec<Vec<u32>> = vec![Vec::new(); 40];
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        for step in 0..20_000u32 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let k = (s % 40) as usize;
            match (s >> 8) % 7 {
                0..=3 => {
                    if arena.wants_packing(spans[k].into().push_growth()) {
                        arena.compact(spans.iter_mut());
                        let items: usize = model.iter().map(Vec::len).sum();
                        assert_eq!((arena.items.len(), arena.holes), (items, 0));
                    }
                    arena.push(&mut spans[k], step);
                    model[k].push(step);
                }
                4 if !model[k].is_empty() => {
                    let i = (s >> 16) as usize % model[k].len();
                    assert_eq!(arena.swap_remove(&mut spans[k], i), model[k].swap_remove(i));
                }
                5 => {
                    arena.retain(&mut spans[k], |v| v % 3 != 0);
                    model[k].retain(|v| v % 3 != 0);
                }
                _ => {
                    arena.free(&mut spans[k]);
                    model[k].clear();
                }
            }
            if step % 5000 == 4999 {
                arena.compact(spans.iter_mut());
                arena.shrink_to_fit();
                assert_eq!(arena.slack_bytes(model.iter().map(Vec::len).sum()), 0);
            }
            for (span, list) in spans.iter().zip(&model) {
                assert_eq!(arena.get(*span), &list[..]);
            }
        }
    }

    /// An arena's allocation follows the most its lists have held, not when their holes
    /// were last packed: lists emptied and grown again in random order, each to the same
    /// length every time, never make it more than 3 times the room the lists and the next
    /// push have ever needed together (8/3 by [`SpanArena::wants_packing`]'s rule; 1,024
    /// items for 520 here). Packing only when holes weighed more than the lists, into an
    /// allocation of exactly the lists, reached 1,912 items for 514: lists mostly filling
    /// their room (4, 8, 16 items) are what let the doubled allocation fill before the
    /// holes weigh more than the lists.
    #[test]
    fn allocation_follows_the_lists_not_their_holes() {
        let mut arena = SpanArena::<u32>::default();
        let mut spans = [Span::default(); 64];
        let mut s = 0x2545_F491_4F6C_DD1Du64;
        let (mut most_needed, mut most_allocated) = (0usize, 0usize);
        for round in 0..4000u32 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let k = (s % 64) as usize;
            // Each list is rebuilt to the same length every time: what a building's
            // leaves' lists do as it is placed and removed.
            arena.free(&mut spans[k]);
            for item in 0..[4, 8, 16, 4, 8, 5][k % 6] {
                let growth = spans[k].push_growth();
                if arena.wants_packing(growth) {
                    arena.compact(spans.iter_mut());
                }
                let room: usize = spans.iter().map(|s| s.cap as usize).sum();
                most_needed = most_needed.max(room + growth);
                arena.push(&mut spans[k], round + item);
                most_allocated = most_allocated.max(arena.items.capacity());
            }
        }
        assert!(
            most_allocated <= 3 * most_needed,
            "{most_allocated} items allocated for lists that needed {most_needed}"
        );
    }
}
