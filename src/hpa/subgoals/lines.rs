//! Stop bits: which cells end a straight scan (blocked cells and subgoals), kept twice, by
//! rows and by columns, so that a scan along either axis reads 64 cells per machine word.

use crate::grid::Grid;

/// The cells where straight scans stop, as bitsets in both orientations. The map's edge
/// counts as a stop one cell past the last column or row.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct StopLines {
    width: u32,
    height: u32,
    /// Words per row of `rows`: row `y` holds bit `x` of cell `(x, y)`.
    row_words: usize,
    /// Words per column of `cols`: column `x` holds bit `y` of cell `(x, y)`.
    col_words: usize,
    rows: Vec<u64>,
    cols: Vec<u64>,
}

impl StopLines {
    /// No stops on a `width × height` map.
    pub fn new(width: u32, height: u32) -> Self {
        let row_words = (width as usize).div_ceil(64);
        let col_words = (height as usize).div_ceil(64);
        StopLines {
            width,
            height,
            row_words,
            col_words,
            rows: vec![0; row_words * height as usize],
            cols: vec![0; col_words * width as usize],
        }
    }

    /// The blocked cells of `grid` as stops, written a word at a time: each row's words
    /// are its blocked bits, and the columns are the rows' 64 × 64 blocks transposed (a
    /// build's stops cell by cell were a tenth of the subgoal graph's sequential part).
    /// The same lines as [`StopLines::set`] on every blocked cell.
    pub fn blocked(grid: &Grid) -> Self {
        let (width, height) = (grid.width(), grid.height());
        let mut lines = StopLines::new(width, height);
        for y in 0..height as usize {
            for word in 0..lines.row_words {
                let x0 = word * 64;
                // Bits past the row's end stay clear, as `set` leaves them.
                let on_grid = u64::MAX >> (64 - (width as usize - x0).min(64));
                lines.rows[y * lines.row_words + word] =
                    !grid.free_bits_at(x0 as i64, y as i64) & on_grid;
            }
        }
        let mut block = [0u64; 64];
        for word_y in 0..lines.col_words {
            for word_x in 0..lines.row_words {
                let (x0, y0) = (word_x * 64, word_y * 64);
                let rows_here = (height as usize - y0).min(64);
                for (i, bits) in block.iter_mut().enumerate() {
                    *bits = if i < rows_here {
                        lines.rows[(y0 + i) * lines.row_words + word_x]
                    } else {
                        0
                    };
                }
                transpose(&mut block);
                for (j, &bits) in block.iter().enumerate().take(width as usize - x0) {
                    lines.cols[(x0 + j) * lines.col_words + word_y] = bits;
                }
            }
        }
        lines
    }

    /// Marks `(x, y)` as a stop or not.
    pub fn set(&mut self, x: u32, y: u32, stop: bool) {
        let (x, y) = (x as usize, y as usize);
        write_bit(&mut self.rows[y * self.row_words..], x, stop);
        write_bit(&mut self.cols[x * self.col_words..], y, stop);
    }

    /// Whether `(x, y)`, on the map, is a stop.
    #[inline]
    pub fn is_stop(&self, x: u32, y: u32) -> bool {
        let w = self.rows[y as usize * self.row_words + x as usize / 64];
        w >> (x % 64) & 1 == 1
    }

    /// How many steps from `(x, y)` along the axis direction `(dx, dy)` (one of them ±1,
    /// the other 0) the first stop lies, counting the map's edge as a stop: `Some(k)` with
    /// `1 ≤ k ≤ limit`, or `None` when the first `limit` cells hold none. Always inlined:
    /// the scans call it with a constant axis, which folds its two tests away.
    #[inline(always)]
    pub fn first_stop(&self, x: u32, y: u32, (dx, dy): (i32, i32), limit: u32) -> Option<u32> {
        // The line's words, `words[start..]`: no slice of the line is cut (its two bounds
        // tests cost a run more than its word reads, each checked anyway).
        let (words, start, from, len) = if dy == 0 {
            (&self.rows[..], y as usize * self.row_words, x, self.width)
        } else {
            (&self.cols[..], x as usize * self.col_words, y, self.height)
        };
        let line = Line { words, start };
        if dx + dy > 0 {
            forward(line, from, len, limit)
        } else {
            backward(line, from, limit)
        }
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        (self.rows.capacity() + self.cols.capacity()) * 8
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

/// A line of stop bits: the words from `words[start]` on.
#[derive(Clone, Copy)]
struct Line<'a> {
    words: &'a [u64],
    start: usize,
}

impl std::ops::Index<usize> for Line<'_> {
    type Output = u64;

    /// The line's word `i`.
    #[inline]
    fn index(&self, i: usize) -> &u64 {
        &self.words[self.start + i]
    }
}

/// The first set bit after `from` within `limit` bits of a line of `len` bits, as a
/// distance; the bit just past the line's end counts as set.
#[inline]
fn forward(line: Line, from: u32, len: u32, limit: u32) -> Option<u32> {
    let end = (from as u64 + limit as u64).min(len as u64 - 1) as usize;
    let mut p = from as usize + 1;
    while p <= end {
        let word = line[p / 64] >> (p % 64);
        if word != 0 {
            let q = p + word.trailing_zeros() as usize;
            return (q <= end)
                .then(|| (q - from as usize) as u32)
                .or_else(|| past_end(from, len, limit));
        }
        p = (p / 64 + 1) * 64;
    }
    past_end(from, len, limit)
}

/// The map's edge as the stop of a forward scan, when the scan reaches it.
#[inline]
fn past_end(from: u32, len: u32, limit: u32) -> Option<u32> {
    let k = len - from;
    (k <= limit).then_some(k)
}

/// The first set bit before `from` within `limit` bits, as a distance; the bit just
/// before the line's start counts as set.
#[inline]
fn backward(line: Line, from: u32, limit: u32) -> Option<u32> {
    let from = from as i64;
    let end = (from - limit as i64).max(0);
    let mut p = from - 1;
    while p >= end {
        let shift = 63 - (p % 64);
        let word = line[p as usize / 64] << shift;
        if word != 0 {
            let q = p - word.leading_zeros() as i64;
            if q >= end {
                return Some((from - q) as u32);
            }
            break;
        }
        p = (p / 64) * 64 - 1;
    }
    (limit as i64 > from).then_some(from as u32 + 1)
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
