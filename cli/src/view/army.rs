//! Units for the viewer's unit-index layer: a seeded random army filed in the library's
//! [`UnitIndex`] (a [`LooseQuadtree`] whose finest cells are about twice a unit's size),
//! in world coordinates of one unit per cell.

use quadpath::units::{Aabb, LooseQuadtree, UnitIndex};
use quadpath::{Cell, Grid};

/// The most units a page or `--units` may ask for: the index holds 38 bytes a unit, and
/// every `/api/units` answer lists them all.
pub const MAX_UNITS: usize = 100_000;

/// A seeded random army and the index it is filed in.
pub struct Army {
    /// The units, one box of `size`×`size` cells each, standing on cells open for the class.
    pub index: UnitIndex<LooseQuadtree>,
    /// The seed it was spawned from.
    pub seed: u64,
}

impl Army {
    /// Up to `count` units of `size`×`size` cells, each standing at a random cell of `open`
    /// (the class's open positions), drawn from `seed`. Fewer when the map has few open
    /// cells (the draw gives up after `20 × count` misses); none on a map with none.
    ///
    /// # Errors
    /// A count over [`MAX_UNITS`], or the index refusing the world's size (as text).
    pub fn spawn(open: &Grid, size: u32, count: usize, seed: u64) -> Result<Army, String> {
        if count > MAX_UNITS {
            return Err(format!("{count} units: at most {MAX_UNITS}"));
        }
        let (w, h) = (open.width(), open.height());
        let layout =
            LooseQuadtree::new(w as f32, h as f32).with_finest_cell(2.0 * size.max(1) as f32);
        let mut index = UnitIndex::new(layout).map_err(|e| e.to_string())?;
        let mut rng = SplitMix(seed);
        let mut misses = 0;
        while index.len() < count && misses < 20 * count {
            let cell = Cell::new(rng.below(w), rng.below(h));
            if !open.is_free(cell) {
                misses += 1;
                continue;
            }
            let (x, y) = (cell.x as f32, cell.y as f32);
            let unit = Aabb::new(x, y, x + size as f32, y + size as f32);
            index.insert(unit).map_err(|e| e.to_string())?;
        }
        Ok(Army { index, seed })
    }
}

/// SplitMix64: a tiny, well-mixed generator, enough to scatter units reproducibly.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    fn below(&mut self, n: u32) -> u32 {
        (((self.next() >> 32) * u64::from(n)) >> 32) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_stand_on_open_cells_and_the_seed_repeats_them() {
        let open = Grid::from_fn(40, 30, |x, y| (x + y) % 3 != 0);
        let a = Army::spawn(&open, 1, 200, 9).unwrap();
        assert_eq!(a.index.len(), 200);
        for (_, b) in a.index.iter() {
            assert!(open.is_free(Cell::new(b.min_x as u32, b.min_y as u32)));
        }
        let b = Army::spawn(&open, 1, 200, 9).unwrap();
        assert!(a.index.iter().zip(b.index.iter()).all(|(u, v)| u == v));
        assert_eq!(
            Army::spawn(&Grid::from_fn(8, 8, |_, _| false), 1, 5, 1)
                .unwrap()
                .index
                .len(),
            0
        );
        assert!(Army::spawn(&open, 1, MAX_UNITS + 1, 1).is_err());
    }
}
