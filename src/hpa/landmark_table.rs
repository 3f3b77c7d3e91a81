//! The landmark distance table: `k` lattice distances per free cell, kept in 8×8 blocks
//! that hold each landmark's 64 values as 16-bit offsets from a per-block base.
//!
//! Distances from one landmark to the cells of one small block are close to each other
//! (neighbouring cells differ by at most one step, 41 lattice units), so a 16-bit offset
//! from the block's smallest value holds them on every map: this halves the table, which is
//! the largest part of an exact-mode map. A value that does not fit (cells of a block cut
//! apart by a wall with a detour of over a thousand cells between them, or by a cell of
//! extreme terrain cost) is kept exactly in a side map. Values are exact either way: the
//! bounds built on them stay admissible.
//!
//! The side map is a hash map, so that writing a value costs O(1) however many are wide:
//! with extreme terrain costs (roads at 1/64, swamps at 10⁶) most values of the blocks a
//! swamp touches are, and a sorted vector made each write shift half of them, which made
//! building and refreshing quadratic (issue 26).

use super::landmarks::{MAX_LANDMARKS, UNREACHED};
use crate::geom::Cell;
use hashbrown::HashMap;

/// Cells per side of a storage block.
const BLOCK: u32 = 8;
/// Cells per block.
const PER_BLOCK: usize = (BLOCK * BLOCK) as usize;
/// Marks a block with no storage: all its cells have been walls since the build.
const NO_BLOCK: u32 = u32::MAX;
/// The offset of an unreached cell.
const OFF_UNREACHED: u16 = u16::MAX;
/// The offset of a value kept in the side map.
const OFF_WIDE: u16 = u16::MAX - 1;
/// The largest offset stored in place.
const OFF_MAX: u32 = u16::MAX as u32 - 2;
/// How far below a block's smallest value its base is set: the repair after an edit only
/// lowers values, and this room (141 straight steps) lets it do so without rewriting the
/// block's 64 offsets each time.
const HEADROOM: u32 = 4096;

/// See the module documentation.
#[derive(Clone, Debug, Default)]
pub(crate) struct DistanceTable {
    k: usize,
    /// Blocks per row.
    stride: u32,
    /// Storage index of each block, or [`NO_BLOCK`].
    blocks: Vec<u32>,
    /// `base[block · k + l]`: at or below the smallest value of landmark `l` in the block
    /// (by up to [`HEADROOM`]), or [`UNREACHED`] while it has none.
    base: Vec<u32>,
    /// `off[(block · 64 + cell in block) · k + l]`: the value minus its base.
    off: Vec<u16>,
    /// Values whose offset is over [`OFF_MAX`], by their index in `off`.
    wide: HashMap<u32, u32>,
}

/// Where one cell's values are: the index of its first offset, and of its block's first
/// base.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slot {
    off: usize,
    base: usize,
}

impl DistanceTable {
    /// An empty table for `k` landmarks on a `width × height` map.
    pub fn new(width: u32, height: u32, k: usize) -> Self {
        let stride = width.div_ceil(BLOCK);
        DistanceTable {
            k,
            stride,
            blocks: vec![NO_BLOCK; stride as usize * height.div_ceil(BLOCK) as usize],
            ..DistanceTable::default()
        }
    }

    /// Blocks on a `width × height` map, and the bytes one block with storage takes for `k`
    /// landmarks: what building the table will allocate.
    pub fn estimate(width: u32, height: u32, k: usize) -> (usize, usize) {
        let blocks = width.div_ceil(BLOCK) as usize * height.div_ceil(BLOCK) as usize;
        (blocks, k * (PER_BLOCK * 2 + 4))
    }

    /// The block of `c`, by its place on the map.
    #[inline]
    fn block_index(&self, c: Cell) -> usize {
        (c.y / BLOCK * self.stride + c.x / BLOCK) as usize
    }

    /// `c`'s slot, if its block has storage.
    #[inline]
    pub fn slot(&self, c: Cell) -> Option<Slot> {
        let b = self.blocks[self.block_index(c)];
        (b != NO_BLOCK).then(|| Slot {
            off: (b as usize * PER_BLOCK + ((c.y % BLOCK) * BLOCK + c.x % BLOCK) as usize) * self.k,
            base: b as usize * self.k,
        })
    }

    /// `c`'s slot, allocating its block (all values unreached) if needed.
    pub fn slot_or_alloc(&mut self, c: Cell) -> Slot {
        let bi = self.block_index(c);
        if self.blocks[bi] == NO_BLOCK {
            self.blocks[bi] = (self.base.len() / self.k.max(1)) as u32;
            self.base.resize(self.base.len() + self.k, UNREACHED);
            self.off
                .resize(self.off.len() + PER_BLOCK * self.k, OFF_UNREACHED);
        }
        self.slot(c).expect("just allocated")
    }

    /// Landmark `l`'s value at `s`.
    #[inline]
    pub fn get(&self, s: Slot, l: usize) -> u32 {
        match self.off[s.off + l] {
            OFF_UNREACHED => UNREACHED,
            OFF_WIDE => self.wide_value(s.off + l),
            o => self.base[s.base + l] + o as u32,
        }
    }

    /// The largest `|value − goal[l]|` over the landmarks at `s` whose `mask[l]` is all
    /// ones and whose value is reached: the search's hot loop, kept free of branches but
    /// one (values in the side map are rare, and take the slow path).
    #[inline]
    pub fn largest_gap(&self, s: Slot, goal: &[u32], mask: &[u32]) -> u32 {
        let offs = &self.off[s.off..s.off + self.k];
        let bases = &self.base[s.base..s.base + self.k];
        let mut best = 0u32;
        let mut wide = false;
        for (((&o, &base), &g), &m) in offs.iter().zip(bases).zip(goal).zip(mask) {
            wide |= o == OFF_WIDE;
            let m = m & ((o != OFF_UNREACHED) as u32).wrapping_neg();
            best = best.max(base.wrapping_add(o as u32).abs_diff(g) & m);
        }
        if wide {
            best = (0..self.k)
                .map(|l| (self.get(s, l), goal[l], mask[l]))
                .map(|(d, g, m)| d.abs_diff(g) & m & ((d != UNREACHED) as u32).wrapping_neg())
                .max()
                .unwrap_or(0);
        }
        best
    }

    /// Every landmark's value at `c`; [`UNREACHED`] where `c` has no storage.
    pub fn row(&self, c: Cell) -> [u32; MAX_LANDMARKS] {
        let mut row = [UNREACHED; MAX_LANDMARKS];
        if let Some(s) = self.slot(c) {
            for (l, v) in row.iter_mut().enumerate().take(self.k) {
                *v = self.get(s, l);
            }
        }
        row
    }

    /// Sets landmark `l`'s value at `s` to `value` (possibly [`UNREACHED`]).
    pub fn set(&mut self, s: Slot, l: usize, value: u32) {
        let base = self.base[s.base + l];
        if value != UNREACHED && value < base {
            self.rebase(s, l, value.saturating_sub(HEADROOM));
        }
        self.put(s.off + l, self.base[s.base + l], value);
    }

    /// The side map's value for offset index `i`.
    fn wide_value(&self, i: usize) -> u32 {
        *self
            .wide
            .get(&(i as u32))
            .expect("a wide offset has its value in the side map")
    }

    /// Writes `value` at offset index `i` against `base`, in place or in the side map.
    fn put(&mut self, i: usize, base: u32, value: u32) {
        let key = i as u32;
        if self.off[i] == OFF_WIDE {
            self.wide.remove(&key);
        }
        self.off[i] = if value == UNREACHED {
            OFF_UNREACHED
        } else if value - base <= OFF_MAX {
            (value - base) as u16
        } else {
            self.wide.insert(key, value);
            OFF_WIDE
        };
    }

    /// Lowers landmark `l`'s base in the block of `s` to `base`, rewriting its 64 values.
    fn rebase(&mut self, s: Slot, l: usize, base: u32) {
        // The block's first offset index for landmark 0.
        let first = s.off - (s.off / self.k % PER_BLOCK) * self.k;
        let mut values = [UNREACHED; PER_BLOCK];
        for (c, v) in values.iter_mut().enumerate() {
            *v = self.get(
                Slot {
                    off: first + c * self.k,
                    base: s.base,
                },
                l,
            );
        }
        self.base[s.base + l] = base;
        for (c, v) in values.into_iter().enumerate() {
            self.put(first + c * self.k + l, base, v);
        }
    }

    /// Copies landmark `l`'s distances, indexed by cell of a `width`-wide map, into the
    /// blocks with storage.
    pub fn store_column(&mut self, l: usize, column: &[u32], width: u32) {
        self.store_column_blocks(l, column, width, 0..self.blocks.len());
    }

    /// Blocks on the map, with storage or not: the range [`DistanceTable::cells_of_blocks`]
    /// and [`DistanceTable::store_column_blocks`] take their slices of.
    pub fn block_count(&self) -> usize {
        self.blocks.len()
    }

    /// [`DistanceTable::store_column`] for the blocks in `range` only (by place on the
    /// map), so that a column can be written in slices.
    pub fn store_column_blocks(
        &mut self,
        l: usize,
        column: &[u32],
        width: u32,
        range: std::ops::Range<usize>,
    ) {
        let (side, w) = (BLOCK as usize, width as usize);
        let h = column.len() / w;
        for bi in range {
            let b = self.blocks[bi];
            if b == NO_BLOCK {
                continue;
            }
            let (x0, y0) = (
                bi % self.stride as usize * side,
                bi / self.stride as usize * side,
            );
            // The block's cells on the map, each with its index in `column`.
            let (bw, bh) = (side.min(w - x0), side.min(h - y0));
            let on_map = |c: usize| {
                (c % side < bw && c / side < bh).then(|| (y0 + c / side) * w + x0 + c % side)
            };
            let base = (0..PER_BLOCK)
                .filter_map(on_map)
                .map(|i| column[i])
                .min()
                .map_or(UNREACHED, |least| match least {
                    UNREACHED => UNREACHED,
                    least => least.saturating_sub(HEADROOM),
                });
            self.base[b as usize * self.k + l] = base;
            let first = b as usize * PER_BLOCK;
            for c in 0..PER_BLOCK {
                let value = on_map(c).map_or(UNREACHED, |i| column[i]);
                self.put((first + c) * self.k + l, base, value);
            }
        }
    }

    /// Every cell with storage, in block order, with its slot.
    #[cfg(test)]
    pub fn cells(&self) -> impl Iterator<Item = (Cell, Slot)> + '_ {
        self.cells_of_blocks(0..self.blocks.len())
    }

    /// The cells with storage of the blocks in `range` (by place on the map), in block
    /// order, with their slots.
    pub fn cells_of_blocks(
        &self,
        range: std::ops::Range<usize>,
    ) -> impl Iterator<Item = (Cell, Slot)> + '_ {
        let (side, stride) = (BLOCK, self.stride);
        let first = range.start;
        self.blocks[range]
            .iter()
            .enumerate()
            .map(move |(i, b)| (first + i, b))
            .filter(|&(_, &b)| b != NO_BLOCK)
            .flat_map(move |(bi, &b)| {
                let (x0, y0) = (bi as u32 % stride * side, bi as u32 / stride * side);
                (0..PER_BLOCK as u32).map(move |i| {
                    let slot = Slot {
                        off: (b as usize * PER_BLOCK + i as usize) * self.k,
                        base: b as usize * self.k,
                    };
                    (Cell::new(x0 + i % side, y0 + i / side), slot)
                })
            })
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        (self.blocks.capacity() + self.base.capacity()) * 4
            + self.off.capacity() * 2
            + self.wide.capacity() * (std::mem::size_of::<(u32, u32)>() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Whatever is written (values far apart in one block, lowered bases, unreached
        /// cells), the table reads back exactly what was last written.
        #[test]
        fn reads_what_was_written(
            writes in prop::collection::vec(
                (0u32..20, 0u32..20, 0usize..3, prop_oneof![
                    3 => 0u32..200_000,
                    1 => Just(UNREACHED),
                    1 => 1_000_000u32..1_100_000,
                ]),
                1..300,
            ),
        ) {
            let mut t = DistanceTable::new(20, 20, 3);
            let mut want = vec![[UNREACHED; 3]; 400];
            for (x, y, l, v) in writes {
                let c = Cell::new(x, y);
                let s = t.slot_or_alloc(c);
                t.set(s, l, v);
                want[(y * 20 + x) as usize][l] = v;
                for (i, w) in want.iter().enumerate() {
                    let c = Cell::new(i as u32 % 20, i as u32 / 20);
                    prop_assert_eq!(&t.row(c)[..3], &w[..], "{}", c);
                }
            }
        }
    }

    #[test]
    fn columns_round_trip_and_take_two_bytes_a_value() {
        let (w, h) = (37u32, 29u32);
        let column: Vec<u32> = (0..w * h)
            .map(|i| match i % 7 {
                0 => UNREACHED,
                3 => 2_000_000 + i,
                _ => i * 41,
            })
            .collect();
        let mut t = DistanceTable::new(w, h, 2);
        for y in 0..h {
            for x in 0..w {
                t.slot_or_alloc(Cell::new(x, y));
            }
        }
        t.store_column(1, &column, w);
        for (c, s) in t.cells() {
            if c.x < w && c.y < h {
                assert_eq!(t.get(s, 1), column[(c.y * w + c.x) as usize], "{c}");
                assert_eq!(t.get(s, 0), UNREACHED);
            }
        }
    }
}
