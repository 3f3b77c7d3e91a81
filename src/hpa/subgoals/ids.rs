//! Subgoal IDs by cell without hashing: the cone scans of every query look up the ID of
//! each subgoal they reach, and a hash map's look-up (hashing, then a probe of a table of
//! tens of thousands of entries) was about 7 % of a query's time.
//!
//! The subgoals are marked one bit per cell, each row starting a fresh word; per word the
//! number of subgoals of its row in the words before it, and per row the IDs of its
//! subgoals by column. A subgoal's rank in its row is that count plus the marked bits
//! before it in its own word (one population count), and its ID is the row's entry at
//! that rank. A change touches one row: its words after the cell and its ID list. On a
//! 1024² map the marks and counts take 192 KiB, the lists 4 bytes a subgoal and 24 a row,
//! less than the hash map they replace (9 bytes a slot, a power of two of slots).

/// The set bits of `word`, cheapest when there are at most one: the crate builds for the
/// baseline x86-64, which has no population count instruction, so `count_ones` is about
/// 17 instructions of bit arithmetic, while the words an ID look-up counts (the marks of a
/// row's subgoals before a cell, within its word) rarely hold two bits: a subgoal stands
/// beside a corner of an obstacle, a few in a hundred cells on the benchmark maps. (Every
/// query's cone scans look up the ID of each subgoal they find: on Aftershock the count
/// was ≈ 6 % of a query's instructions.)
#[inline]
pub(super) fn count_sparse(word: u64) -> usize {
    if word & word.wrapping_sub(1) == 0 {
        usize::from(word != 0)
    } else {
        word.count_ones() as usize
    }
}

/// A subgoal's mark as a cone scan read it where it stopped: the word of the marks that
/// holds it, and the marks before it in that word. Its ID is ranked from these
/// ([`CellIds::id_of_mark`]) with no second read of the word (about 1 % of a query).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mark {
    word: usize,
    below: u64,
}

/// Subgoal IDs by cell (see the module docs).
#[derive(Clone, Debug, Default)]
pub(super) struct CellIds {
    /// Words per row of `marks`.
    row_words: usize,
    /// One bit per cell, row `y` in words `y · row_words ..`: whether it is a subgoal.
    marks: Vec<u64>,
    /// Per word of `marks`: the subgoals of its row in the words before it.
    before: Vec<u32>,
    /// Per row: the IDs of its subgoals, by column.
    rows: Vec<Vec<u32>>,
}

impl CellIds {
    /// No subgoal on a `width × height` map.
    pub fn new(width: u32, height: u32) -> Self {
        let row_words = (width as usize).div_ceil(64);
        let words = row_words * height as usize;
        CellIds {
            row_words,
            marks: vec![0; words],
            before: vec![0; words],
            rows: vec![Vec::new(); height as usize],
        }
    }

    /// The word of `marks` holding `(x, y)`, and the bit within it.
    #[inline]
    fn word(&self, x: u32, y: u32) -> (usize, u32) {
        (y as usize * self.row_words + x as usize / 64, x % 64)
    }

    /// Whether `(x, y)`, on the map, is a subgoal.
    #[inline]
    pub fn contains(&self, x: u32, y: u32) -> bool {
        let (w, b) = self.word(x, y);
        self.marks[w] >> b & 1 == 1
    }

    /// The rank of `(x, y)` among its row's subgoals: those before it.
    #[inline]
    fn rank(&self, w: usize, b: u32) -> usize {
        let below = (1u64 << b) - 1;
        self.before[w] as usize + count_sparse(self.marks[w] & below)
    }

    /// The ID of the subgoal at `(x, y)`, if it is one.
    #[inline]
    pub fn get(&self, x: u32, y: u32) -> Option<u32> {
        let (w, b) = self.word(x, y);
        if self.marks[w] >> b & 1 == 0 {
            return None;
        }
        Some(self.rows[y as usize][self.rank(w, b)])
    }

    /// The mark of `(x, y)`, on the map, if it is a subgoal: what a cone scan reads where
    /// it stops, and ranks the ID from if it reports the subgoal ([`CellIds::id_of_mark`]).
    #[inline]
    pub fn mark(&self, x: u32, y: u32) -> Option<Mark> {
        let (w, b) = self.word(x, y);
        let marks = self.marks[w];
        (marks >> b & 1 == 1).then_some(Mark {
            word: w,
            below: marks & ((1u64 << b) - 1),
        })
    }

    /// The ID of the subgoal in row `y` whose mark [`CellIds::mark`] read as `mark`, with
    /// no change to the IDs since. Any other pair gives a wrong ID or a panic, never
    /// undefined behaviour.
    #[inline]
    pub fn id_of_mark(&self, y: u32, mark: Mark) -> u32 {
        self.rows[y as usize][self.before[mark.word] as usize + count_sparse(mark.below)]
    }

    /// Makes `(x, y)`, no subgoal, the subgoal of ID `id`.
    pub fn insert(&mut self, x: u32, y: u32, id: u32) {
        let (w, b) = self.word(x, y);
        debug_assert!(self.marks[w] >> b & 1 == 0, "({x}, {y}) has an ID");
        let rank = self.rank(w, b);
        self.rows[y as usize].insert(rank, id);
        self.marks[w] |= 1 << b;
        self.shift_after(w, y, 1);
    }

    /// Makes the subgoal at `(x, y)` none; returns its ID.
    pub fn remove(&mut self, x: u32, y: u32) -> Option<u32> {
        let (w, b) = self.word(x, y);
        if self.marks[w] >> b & 1 == 0 {
            return None;
        }
        let rank = self.rank(w, b);
        let id = self.rows[y as usize].remove(rank);
        self.marks[w] &= !(1 << b);
        self.shift_after(w, y, -1);
        Some(id)
    }

    /// Adds `by` to the counts of the words of row `y` after word `w`.
    fn shift_after(&mut self, w: usize, y: u32, by: i32) {
        let end = (y as usize + 1) * self.row_words;
        for count in &mut self.before[w + 1..end] {
            *count = count.wrapping_add_signed(by);
        }
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.marks.capacity() * 8
            + self.before.capacity() * 4
            + self.rows.capacity() * std::mem::size_of::<Vec<u32>>()
            + self.rows.iter().map(|r| r.capacity() * 4).sum::<usize>()
    }

    /// Heap bytes of the ID lists' spare capacity.
    pub fn slack_bytes(&self) -> usize {
        self.rows.iter().map(|r| (r.capacity() - r.len()) * 4).sum()
    }

    /// Drops the ID lists' spare capacity (after a build, which inserts one ID at a time:
    /// the lists' growth left about a quarter of them unused).
    pub fn shrink_to_fit(&mut self) {
        for row in &mut self.rows {
            row.shrink_to_fit();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{count_sparse, CellIds};
    use proptest::prelude::*;
    use std::collections::HashMap;

    /// The sparse count is the population count: on no bits, every word of one bit or
    /// two, and a spread of denser words.
    #[test]
    fn sparse_counts_are_population_counts() {
        let mut words = vec![0u64, u64::MAX];
        for a in 0..64 {
            for b in a..64 {
                words.push(1 << a | 1 << b);
            }
        }
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..1000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            words.push(state);
            words.push(state & state >> 3 & state >> 7);
        }
        for word in words {
            assert_eq!(count_sparse(word), word.count_ones() as usize, "{word:#x}");
        }
    }

    proptest! {
        /// Insertions and removals in any order agree with a hash map, on rows that
        /// straddle words (the look-up of a marked cell too).
        #[test]
        fn ids_match_a_map(
            w in 1u32..200, h in 1u32..6, ops in prop::collection::vec((any::<u32>(), any::<u32>(), any::<bool>()), 1..300),
        ) {
            let mut ids = CellIds::new(w, h);
            let mut model: HashMap<(u32, u32), u32> = HashMap::new();
            for (k, &(x, y, add)) in ops.iter().enumerate() {
                let (x, y) = (x % w, y % h);
                if add && !model.contains_key(&(x, y)) {
                    ids.insert(x, y, k as u32);
                    model.insert((x, y), k as u32);
                } else if !add {
                    prop_assert_eq!(ids.remove(x, y), model.remove(&(x, y)));
                }
                for y in 0..h {
                    for x in 0..w {
                        prop_assert_eq!(ids.get(x, y), model.get(&(x, y)).copied());
                        prop_assert_eq!(ids.contains(x, y), model.contains_key(&(x, y)));
                        let by_mark = ids.mark(x, y).map(|m| ids.id_of_mark(y, m));
                        prop_assert_eq!(by_mark, model.get(&(x, y)).copied());
                    }
                }
            }
        }
    }
}
