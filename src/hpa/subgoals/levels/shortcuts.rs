//! The shortcuts' middles and last hops, kept apart from the packed arcs
//! ([`Shortcuts`]): few arcs are shortcuts, so one bit an arc and a rank lookup cost
//! less memory than 5 more bytes on every arc.

use crate::hpa::subgoals::ids::count_sparse;
use crate::hpa::subgoals::taut::Sector;

/// The middles and last hops of the shortcuts among the arcs, by arc index: only a few
/// arcs are shortcuts (2–4 % on the StarCraft maps), so rather than 5 bytes an arc, one
/// bit an arc says whether it is one, and the shortcuts' middles and last hops are listed
/// in arc order. A shortcut's entry is found by its rank among the shortcuts: the count
/// kept for its word of bits plus the set bits before it in that word (one population
/// count), as `CellIds` finds an ID.
#[derive(Clone, Debug, Default)]
pub(super) struct Shortcuts {
    /// One bit per arc, arc `i` in word `i / 64`: whether it is a shortcut.
    marks: Vec<u64>,
    /// Per word of `marks`: the shortcuts in the words before it.
    before: Vec<u32>,
    /// The middles of the shortcuts, in arc order.
    vias: Vec<u32>,
    /// The sectors of the shortcuts' last hops, in arc order.
    lasts: Vec<Sector>,
}

impl Shortcuts {
    /// Marks arc `i`, after every arc marked so far, as a shortcut through `via` whose last
    /// hop has sector `last`.
    pub(super) fn push(&mut self, i: usize, via: u32, last: Sector) {
        self.cover(i + 1);
        self.marks[i / 64] |= 1 << (i % 64);
        self.vias.push(via);
        self.lasts.push(last);
    }

    /// Covers `arcs` arcs, those not marked yet no shortcuts.
    fn cover(&mut self, arcs: usize) {
        while self.marks.len() < arcs.div_ceil(64) {
            self.marks.push(0);
            self.before.push(self.vias.len() as u32);
        }
    }

    /// Covers all `arcs` arcs, those not marked yet no shortcuts, and drops spare
    /// capacity.
    pub(super) fn finish(&mut self, arcs: usize) {
        self.cover(arcs);
        self.marks.shrink_to_fit();
        self.before.shrink_to_fit();
        self.vias.shrink_to_fit();
        self.lasts.shrink_to_fit();
    }

    /// The middle and the last hop's sector of arc `i`, a shortcut (kept out of line: the
    /// search's relaxation inlines the test for a direct edge, not this).
    #[inline(never)]
    pub(super) fn get(&self, i: usize) -> (u32, Sector) {
        let (word, b) = (self.marks[i / 64], i % 64);
        debug_assert!(word >> b & 1 == 1, "arc {i} is a shortcut");
        let rank = self.before[i / 64] as usize + count_sparse(word & ((1u64 << b) - 1));
        (self.vias[rank], self.lasts[rank])
    }

    /// Heap bytes held.
    pub(super) fn memory_bytes(&self) -> usize {
        self.marks.capacity() * 8
            + self.before.capacity() * 4
            + self.vias.capacity() * 4
            + self.lasts.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::Shortcuts;
    use proptest::prelude::*;

    proptest! {
        /// Every shortcut's middle and last hop read back as pushed, across word
        /// boundaries, whatever arcs between them are direct.
        #[test]
        fn shortcuts_read_back(arcs in prop::collection::vec(prop::option::weighted(0.3, (0u32..1000, 0u8..16)), 0..400)) {
            let mut shortcuts = Shortcuts::default();
            for (i, arc) in arcs.iter().enumerate() {
                if let Some((via, last)) = *arc {
                    shortcuts.push(i, via, last);
                }
            }
            shortcuts.finish(arcs.len());
            prop_assert_eq!(shortcuts.marks.len(), arcs.len().div_ceil(64));
            for (i, arc) in arcs.iter().enumerate() {
                prop_assert_eq!(shortcuts.marks[i / 64] >> (i % 64) & 1 == 1, arc.is_some());
                if let Some(arc) = *arc {
                    prop_assert_eq!(shortcuts.get(i), arc);
                }
            }
        }
    }
}
