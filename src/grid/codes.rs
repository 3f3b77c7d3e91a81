//! A grid's terrain codes, packed: each cell holds the index of its code among the codes
//! the grid uses, in as few bits as that many codes need (1, 2, 4 or 8). A Moving AI map
//! uses three or four codes (`.`, `@`, `T`, sometimes `S` or `W`), so its terrain takes 2
//! bits a cell where a byte took 8: a 1024² map's terrain is 256 KiB instead of 1 MiB.

/// The terrain code of every cell of a grid, row-major, packed (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct PackedCodes {
    /// The codes in use, in the order they first appeared: a cell holds an index here.
    /// Codes no cell holds any more stay (the width never shrinks). Held at its length.
    palette: Vec<u8>,
    /// Bits per cell, log 2: 0 to 3 (1, 2, 4 or 8 bits, enough for `palette`'s length).
    width_log: u32,
    words: Vec<u64>,
    len: usize,
}

/// The width, log 2, that `codes` distinct codes need.
fn width_log_for(codes: usize) -> u32 {
    match codes {
        0..=2 => 0,
        3..=4 => 1,
        5..=16 => 2,
        _ => 3,
    }
}

impl PackedCodes {
    /// `codes`, one per cell, packed.
    pub fn new(codes: &[u8]) -> Self {
        let mut index_of = [u8::MAX; 256];
        let mut palette = Vec::new();
        for &c in codes {
            if index_of[c as usize] == u8::MAX && palette.len() < 256 {
                // The 256th code gets index 255, the marker's value: it is never looked up
                // again, because it is the last code there can be.
                index_of[c as usize] = palette.len() as u8;
                palette.push(c);
            }
        }
        // Held at its length, as a clone holds it: a grid and its clone weigh the same.
        palette.shrink_to_fit();
        let mut packed = PackedCodes {
            width_log: width_log_for(palette.len()),
            palette,
            words: Vec::new(),
            len: codes.len(),
        };
        packed.words = vec![0; packed.word_count(packed.width_log)];
        for (i, &c) in codes.iter().enumerate() {
            packed.put(i, index_of[c as usize] as u64);
        }
        packed
    }

    /// `len` cells of code `code`: [`PackedCodes::new`] of that many, without reading them.
    pub fn uniform(len: usize, code: u8) -> Self {
        PackedCodes {
            palette: vec![code],
            width_log: 0,
            words: vec![0; len.div_ceil(64)],
            len,
        }
    }

    /// Words that `len` cells take at `width_log`.
    fn word_count(&self, width_log: u32) -> usize {
        (self.len << width_log).div_ceil(64)
    }

    /// The code of cell `i`.
    #[inline]
    pub fn get(&self, i: usize) -> u8 {
        debug_assert!(i < self.len);
        let bit = i << self.width_log;
        let mask = (1u64 << (1 << self.width_log)) - 1;
        self.palette[(self.words[bit / 64] >> (bit % 64) & mask) as usize]
    }

    /// Writes palette index `index` at cell `i`.
    #[inline]
    fn put(&mut self, i: usize, index: u64) {
        let bit = i << self.width_log;
        let mask = (1u64 << (1 << self.width_log)) - 1;
        let word = &mut self.words[bit / 64];
        *word = *word & !(mask << (bit % 64)) | index << (bit % 64);
    }

    /// Sets cell `i` to `code`. A code the grid never held joins the palette, and when the
    /// palette outgrows the width every cell is packed again, wider (once per width: at
    /// the 3rd, the 5th and the 17th code).
    pub fn set(&mut self, i: usize, code: u8) {
        let index = match self.palette.iter().position(|&c| c == code) {
            Some(index) => index,
            None => {
                self.palette.push(code);
                self.palette.shrink_to_fit();
                let wanted = width_log_for(self.palette.len());
                if wanted > self.width_log {
                    self.widen(wanted);
                }
                self.palette.len() - 1
            }
        };
        self.put(i, index as u64);
    }

    /// Packs every cell again at `width_log` bits (log 2).
    fn widen(&mut self, width_log: u32) {
        let indices: Vec<u8> = (0..self.len)
            .map(|i| {
                let bit = i << self.width_log;
                let mask = (1u64 << (1 << self.width_log)) - 1;
                (self.words[bit / 64] >> (bit % 64) & mask) as u8
            })
            .collect();
        self.width_log = width_log;
        self.words = vec![0; self.word_count(width_log)];
        for (i, &index) in indices.iter().enumerate() {
            self.put(i, index as u64);
        }
    }

    /// Every cell's code, in order.
    pub fn iter(&self) -> impl Iterator<Item = u8> + '_ {
        (0..self.len).map(|i| self.get(i))
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.words.capacity() * 8 + self.palette.capacity()
    }
}

/// Equal when every cell holds the same code, whatever the palettes.
impl PartialEq for PackedCodes {
    fn eq(&self, other: &Self) -> bool {
        if self.len != other.len {
            return false;
        }
        if self.palette == other.palette {
            // One palette, one width: the same codes are the same bits (the bits past the
            // last cell stay 0).
            return self.words == other.words;
        }
        self.iter().eq(other.iter())
    }
}

impl Eq for PackedCodes {}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Packed codes read back what was written, through palette growth and widening,
        /// against a plain byte vector.
        #[test]
        fn packed_codes_match_a_byte_vector(
            start in prop::collection::vec(prop::sample::select(b".@T".to_vec()), 1..300),
            edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..40), 0..60),
        ) {
            let mut bytes = start.clone();
            let mut packed = PackedCodes::new(&start);
            for (at, code) in edits {
                let i = at.index(bytes.len());
                // A few codes often, and now and then one of many.
                let code = if code < 30 { b'a' + code % 6 } else { code * 5 };
                bytes[i] = code;
                packed.set(i, code);
                prop_assert_eq!(packed.iter().collect::<Vec<_>>(), bytes.clone());
            }
            prop_assert!(packed == PackedCodes::new(&bytes), "equal to a fresh packing");
        }
    }

    #[test]
    fn widths_follow_the_palette() {
        let mut two = PackedCodes::new(&[b'.'; 1000]);
        assert_eq!(two.memory_bytes(), 1000usize.div_ceil(64) * 8 + 1);
        two.set(3, b'@');
        assert_eq!(two.memory_bytes(), 1000usize.div_ceil(64) * 8 + 2);
        two.set(4, b'T');
        assert_eq!(
            two.memory_bytes(),
            2000usize.div_ceil(64) * 8 + 3,
            "2 bits a cell"
        );
        assert_eq!(
            two.clone().memory_bytes(),
            two.memory_bytes(),
            "as its clone"
        );
        let all: Vec<u8> = (0..=255).collect();
        let wide = PackedCodes::new(&all);
        assert_eq!(wide.width_log, 3);
        assert!(wide.iter().eq(all.iter().copied()));
    }
}
