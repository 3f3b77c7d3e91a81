//! Stop bits: which cells end a straight scan (blocked cells and subgoals), kept twice, by
//! rows and by columns, so that a scan along either axis reads 64 cells per machine word.
//!
//! Each line (row or column) of `len` cells is `len + 2` bits: bit 0 and bit `len + 1` are
//! the map's edges, always set, and cell `i` is bit `i + 1`. With the edges as stops in
//! the bits themselves, a scan needs no test of the line's ends: its first set bit is the
//! stop, the edge included, and only the run's limit is tested. (A line's last word
//! holds at most 62 of its cells, so a row of 63 or 64 cells takes two words.)

use crate::grid::Grid;

/// The cells where straight scans stop, as bitsets in both orientations, with the map's
/// edges as stops one cell past the last column or row and one before the first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct StopLines {
    width: u32,
    height: u32,
    /// Words per row of `rows`: row `y` holds bit `x + 1` of cell `(x, y)` from word
    /// `y * row_words` on.
    row_words: usize,
    /// Words per column of `cols`: column `x` holds bit `y + 1` of cell `(x, y)` from
    /// word `x * col_words` on.
    col_words: usize,
    rows: Vec<u64>,
    cols: Vec<u64>,
}

/// The words of `lines` lines of `len` cells each, every bit clear but the lines' edges:
/// the lines one after the other.
fn edge_lines(len: u32, lines: u32) -> (usize, Vec<u64>) {
    let words = (len as usize + 2).div_ceil(64);
    let mut all = vec![0; words * lines as usize];
    for line in 0..lines as usize {
        let start = line * words;
        write_bit(&mut all[start..], 0, true);
        write_bit(&mut all[start..], len as usize + 1, true);
    }
    (words, all)
}

impl StopLines {
    /// No stops on a `width × height` map.
    pub fn new(width: u32, height: u32) -> Self {
        let (row_words, rows) = edge_lines(width, height);
        let (col_words, cols) = edge_lines(height, width);
        StopLines {
            width,
            height,
            row_words,
            col_words,
            rows,
            cols,
        }
    }

    /// The blocked cells of `grid` as stops, written a word at a time: each row's words
    /// are its blocked bits, and the columns are the rows' 64 × 64 blocks transposed (a
    /// build's stops cell by cell were a tenth of the subgoal graph's sequential part).
    /// The same lines as [`StopLines::set`] on every blocked cell.
    pub fn blocked(grid: &Grid) -> Self {
        let (width, height) = (grid.width(), grid.height());
        let mut lines = StopLines::new(width, height);
        // Rows and columns with cell `i` at bit `i`, then shifted into place.
        let (row_words, col_words) = (
            (width as usize).div_ceil(64),
            (height as usize).div_ceil(64),
        );
        let mut rows = vec![0u64; row_words * height as usize];
        let mut cols = vec![0u64; col_words * width as usize];
        for y in 0..height as usize {
            for word in 0..row_words {
                let x0 = word * 64;
                // Bits past the row's end stay clear, as `set` leaves them.
                let on_grid = u64::MAX >> (64 - (width as usize - x0).min(64));
                rows[y * row_words + word] = !grid.free_bits_at(x0 as i64, y as i64) & on_grid;
            }
        }
        let mut block = [0u64; 64];
        for word_y in 0..col_words {
            for word_x in 0..row_words {
                let (x0, y0) = (word_x * 64, word_y * 64);
                let rows_here = (height as usize - y0).min(64);
                for (i, bits) in block.iter_mut().enumerate() {
                    *bits = if i < rows_here {
                        rows[(y0 + i) * row_words + word_x]
                    } else {
                        0
                    };
                }
                transpose(&mut block);
                for (j, &bits) in block.iter().enumerate().take(width as usize - x0) {
                    cols[(x0 + j) * col_words + word_y] = bits;
                }
            }
        }
        shift_in(&rows, row_words, &mut lines.rows, lines.row_words);
        shift_in(&cols, col_words, &mut lines.cols, lines.col_words);
        lines
    }

    /// Marks `(x, y)` as a stop or not.
    pub fn set(&mut self, x: u32, y: u32, stop: bool) {
        let (x, y) = (x as usize, y as usize);
        write_bit(&mut self.rows[y * self.row_words..], x + 1, stop);
        write_bit(&mut self.cols[x * self.col_words..], y + 1, stop);
    }

    /// Whether `(x, y)`, on the map, is a stop.
    #[inline]
    pub fn is_stop(&self, x: u32, y: u32) -> bool {
        let bit = x as usize + 1;
        let w = self.rows[y as usize * self.row_words + bit / 64];
        w >> (bit % 64) & 1 == 1
    }

    /// How many steps from `(x, y)` along the axis direction `(dx, dy)` (one of them ±1,
    /// the other 0) the first stop lies, counting the map's edge as a stop: `Some(k)` with
    /// `1 ≤ k ≤ limit`, or `None` when the first `limit` cells hold none. Always inlined:
    /// the scans call it with a constant axis, which folds its two tests away.
    #[inline(always)]
    pub fn first_stop(&self, x: u32, y: u32, (dx, dy): (i32, i32), limit: u32) -> Option<u32> {
        // The line's words start at `words[start]`: no slice of the line is cut (its two
        // bounds tests cost a run more than its word reads, each checked anyway).
        let (words, start, from) = if dy == 0 {
            (&self.rows[..], y as usize * self.row_words, x)
        } else {
            (&self.cols[..], x as usize * self.col_words, y)
        };
        if dx + dy > 0 {
            forward(words, start, from, limit)
        } else {
            backward(words, start, from, limit)
        }
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        (self.rows.capacity() + self.cols.capacity()) * 8
    }
}

/// Writes `lines`, lines of `words` words each with cell `i` at bit `i`, into `into`'s
/// lines of `into_words` words each (made by [`edge_lines`]), cell `i` at bit `i + 1`,
/// keeping their edge bits.
fn shift_in(lines: &[u64], words: usize, into: &mut [u64], into_words: usize) {
    if words == 0 {
        return;
    }
    for (line, bits) in lines.chunks_exact(words).enumerate() {
        let start = line * into_words;
        let mut carry = 0;
        for (k, &word) in bits.iter().enumerate() {
            into[start + k] |= word << 1 | carry;
            carry = word >> 63;
        }
        if words < into_words {
            into[start + words] |= carry;
        }
    }
}

/// Transposes a 64 × 64 bit block in place: bit `x` of word `y` goes to bit `y` of word
/// `x`. Each round swaps bit `j` of the two coordinates (the block's off-diagonal
/// `j × j` squares change places), so the six rounds swap them all.
fn transpose(block: &mut [u64; 64]) {
    let mut j = 32;
    let mut mask: u64 = 0x0000_0000_ffff_ffff;
    while j != 0 {
        let mut k = 0;
        while k < 64 {
            // Rows `k` (bit `j` clear) and `k + j`: the high half of each `2j` group of
            // row `k` changes places with the low half of row `k + j`'s.
            let t = ((block[k] >> j) ^ block[k + j]) & mask;
            block[k + j] ^= t;
            block[k] ^= t << j;
            k = (k + j + 1) & !j;
        }
        j >>= 1;
        mask ^= mask << j;
    }
}

fn write_bit(words: &mut [u64], i: usize, on: bool) {
    if on {
        words[i / 64] |= 1 << (i % 64);
    } else {
        words[i / 64] &= !(1 << (i % 64));
    }
}

/// The first stop after cell `from` within `limit` cells of the line whose bit 0 is bit 0
/// of `words[start]`, as a distance. The line's far edge bit ends every scan, so the loop
/// needs no test of the line's end, only of the limit.
#[inline]
fn forward(words: &[u64], start: usize, from: u32, limit: u32) -> Option<u32> {
    // Cell `from + 1` is bit `from + 2`; bit `b` lies `b - from - 1` cells ahead.
    let base = from as usize + 1;
    let mut bit = base + 1;
    loop {
        let word = words[start + bit / 64] >> (bit % 64);
        if word != 0 {
            let k = bit + word.trailing_zeros() as usize - base;
            return (k <= limit as usize).then_some(k as u32);
        }
        bit = (bit / 64 + 1) * 64;
        if bit - base > limit as usize {
            return None;
        }
    }
}

/// The first stop before cell `from` within `limit` cells, as a distance, as [`forward`]
/// reads it, down to the line's edge bit 0.
#[inline]
fn backward(words: &[u64], start: usize, from: u32, limit: u32) -> Option<u32> {
    // Cell `from - 1` is bit `from`; bit `b` lies `from + 1 - b` cells behind.
    let base = from as usize + 1;
    let mut bit = from as usize;
    loop {
        let word = words[start + bit / 64] << (63 - bit % 64);
        if word != 0 {
            let k = base - bit + word.leading_zeros() as usize;
            return (k <= limit as usize).then_some(k as u32);
        }
        // The word held no bit 0 (it is set), so `bit ≥ 64` and a word lies below.
        bit = (bit / 64) * 64 - 1;
        if base - bit > limit as usize {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::StopLines;
    use crate::grid::Grid;
    use proptest::prelude::*;

    /// The scan's answer, one cell at a time.
    fn naive(
        stops: &[bool],
        w: u32,
        h: u32,
        (x, y): (u32, u32),
        d: (i32, i32),
        limit: u32,
    ) -> Option<u32> {
        for k in 1..=limit {
            let (cx, cy) = (
                x as i64 + d.0 as i64 * k as i64,
                y as i64 + d.1 as i64 * k as i64,
            );
            if cx < 0 || cy < 0 || cx >= w as i64 || cy >= h as i64 {
                return Some(k);
            }
            if stops[(cy * w as i64 + cx) as usize] {
                return Some(k);
            }
        }
        None
    }

    proptest! {
        /// The stops written a word at a time from the grid's free bits are those set cell
        /// by cell, on grids narrower, wider and taller than a word, on and off 64.
        #[test]
        fn blocked_lines_equal_those_set_cell_by_cell(
            w in prop::sample::select(vec![1u32, 5, 63, 64, 65, 127, 128, 130, 200]),
            h in prop::sample::select(vec![1u32, 7, 63, 64, 65, 128, 131]),
            seed in any::<u64>(), density in 0u32..100,
        ) {
            let mut state = seed | 1;
            let mut next = || { state ^= state << 13; state ^= state >> 7; state ^= state << 17; state };
            let grid = Grid::from_fn(w, h, |_, _| next() % 100 >= density as u64);
            let mut cell_by_cell = StopLines::new(w, h);
            for b in grid.blocked_cells() {
                cell_by_cell.set(b.x, b.y, true);
            }
            prop_assert_eq!(StopLines::blocked(&grid), cell_by_cell);
        }

        /// Word-at-a-time scans agree with a cell-by-cell walk in all four directions, on
        /// lines that straddle words.
        #[test]
        fn scans_match_a_walk(
            w in 1u32..150, h in 1u32..150, seed in any::<u64>(), density in 0u32..40,
            limit in 1u32..200,
        ) {
            let mut state = seed | 1;
            let mut next = || { state ^= state << 13; state ^= state >> 7; state ^= state << 17; state };
            let stops: Vec<bool> = (0..w * h).map(|_| (next() % 100) < density as u64).collect();
            let mut lines = StopLines::new(w, h);
            for y in 0..h {
                for x in 0..w {
                    lines.set(x, y, stops[(y * w + x) as usize]);
                    prop_assert_eq!(lines.is_stop(x, y), stops[(y * w + x) as usize]);
                }
            }
            for _ in 0..20 {
                let (x, y) = ((next() % w as u64) as u32, (next() % h as u64) as u32);
                for d in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                    prop_assert_eq!(
                        lines.first_stop(x, y, d, limit),
                        naive(&stops, w, h, (x, y), d, limit),
                        "from ({}, {}) towards {:?}", x, y, d
                    );
                    prop_assert_eq!(
                        lines.first_stop(x, y, d, u32::MAX),
                        naive(&stops, w, h, (x, y), d, 1000)
                    );
                }
            }
        }
    }
}
