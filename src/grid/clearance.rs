//! Clearance fields: for each cell, the side of the largest square of passable cells with
//! its top-left corner there. A `K × K` agent may stand at a cell exactly when the cell's
//! clearance is at least `K`, so one field answers every agent size on one terrain set.

use super::{Grid, TerrainSet};
use crate::geom::{Cell, Rect};

/// The clearance of every cell of a grid for one [`TerrainSet`], capped at a largest size.
///
/// A cell's clearance is the side of the largest square that has its top-left corner at the
/// cell, lies inside the grid, and holds only cells whose terrain is in the set and that no
/// obstruction stands on. It is 0 on impassable cells, and capped at [`ClearanceField::cap`]:
/// the largest agent size anyone asked about, past which the exact value does not matter.
///
/// ```
/// use quadpath::{Cell, ClearanceField, Grid, TerrainSet};
///
/// // ....
/// // ...@
/// // ....
/// let grid = Grid::from_fn(4, 3, |x, y| (x, y) != (3, 1));
/// let field = ClearanceField::new(&grid, TerrainSet::moving_ai(), 4);
/// assert_eq!(field.get(Cell::new(0, 0)), 3, "the 3×3 square fits, 4×4 leaves the map");
/// assert_eq!(field.get(Cell::new(2, 0)), 1, "the wall is at (3, 1)");
/// assert_eq!(field.get(Cell::new(3, 1)), 0);
/// // A 2×2 agent may stand where the clearance is at least 2.
/// assert!(field.get(Cell::new(1, 1)) >= 2);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClearanceField {
    width: u32,
    height: u32,
    passable: TerrainSet,
    cap: u16,
    /// Row-major, capped clearances.
    values: Vec<u16>,
}

/// One cell whose clearance an edit changed, with its value before and after.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ClearanceChange {
    pub cell: Cell,
    pub before: u16,
    pub after: u16,
}

impl ClearanceField {
    /// The largest cap accepted: the largest agent size,
    /// [`Movement::MAX_SIZE`](super::Movement::MAX_SIZE).
    pub const MAX_CAP: u32 = super::Movement::MAX_SIZE;

    /// Computes the field of `grid` for terrain `passable`, capped at `cap`.
    ///
    /// # Panics
    /// When `cap` is 0 or above [`ClearanceField::MAX_CAP`].
    pub fn new(grid: &Grid, passable: TerrainSet, cap: u32) -> Self {
        assert!(
            (1..=Self::MAX_CAP).contains(&cap),
            "a clearance cap is 1 to {}, not {cap}",
            Self::MAX_CAP
        );
        let mut field = ClearanceField {
            width: grid.width(),
            height: grid.height(),
            passable,
            cap: cap as u16,
            values: vec![0; grid.width() as usize * grid.height() as usize],
        };
        field.fill(grid);
        field
    }

    /// Computes every value of the field: what [`ClearanceField::recompute`] over the
    /// grid's bounds gives (the same recurrence, row by row from the bottom right), written
    /// over each row's slice with the row below read from the field, and for the grid's own
    /// terrain set with passability read from its free bits: a movement class's first layer
    /// on a 1024² map built this field cell by cell at about 60 instructions a cell.
    fn fill(&mut self, grid: &Grid) {
        let (w, h) = (self.width as usize, self.height as usize);
        let (cap, passable) = (self.cap, self.passable);
        // The grid's free bits are its own set's passability with obstructions taken out.
        let own = passable == grid.passable;
        let open = |i: usize| match own {
            true => grid.free[i / 64] >> (i % 64) & 1 == 1,
            false => passable.contains(grid.terrain.get(i)) && !grid.is_obstructed_at(i),
        };
        for y in (0..h).rev() {
            let (upper, lower) = self.values.split_at_mut((y + 1) * w);
            let row = &mut upper[y * w..];
            // The row below, or none past the grid's bottom edge (clearance 0 there).
            let below = (y + 1 < h).then(|| &lower[..w]);
            // The clearances right of `x` on this row and the one below (0 past the edge).
            let (mut right, mut below_right) = (0u16, 0u16);
            for x in (0..w).rev() {
                let under = below.map_or(0, |b| b[x]);
                let value = match open(y * w + x) {
                    true => (right.min(under).min(below_right) + 1).min(cap),
                    false => 0,
                };
                row[x] = value;
                (right, below_right) = (value, under);
            }
        }
    }

    /// The clearance of `cell`, at most [`ClearanceField::cap`]; 0 off the field.
    #[inline]
    pub fn get(&self, cell: Cell) -> u32 {
        self.at(cell.x as i64, cell.y as i64) as u32
    }

    #[inline]
    fn at(&self, x: i64, y: i64) -> u16 {
        if x < 0 || y < 0 || x >= self.width as i64 || y >= self.height as i64 {
            return 0;
        }
        self.values[y as usize * self.width as usize + x as usize]
    }

    /// The clearance of the cell of row-major index `i` (which must be on the grid).
    #[inline]
    pub(crate) fn value_at(&self, i: usize) -> u32 {
        self.values[i] as u32
    }

    /// The cap: clearances above it are stored as it.
    pub fn cap(&self) -> u32 {
        self.cap as u32
    }

    /// The terrain codes the field counts as passable.
    pub fn passable(&self) -> &TerrainSet {
        &self.passable
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.values.capacity() * std::mem::size_of::<u16>()
    }

    /// Brings the field up to date after the terrain or obstructions of the cells in
    /// `edited` changed, reporting each cell whose clearance changed.
    ///
    /// A cell's capped clearance depends only on the `cap × cap` square below and right of
    /// it, so only cells up to `cap − 1` above and left of the edit can change; they are
    /// recomputed bottom-right first, reading the unchanged values beyond.
    pub(crate) fn update(
        &mut self,
        grid: &Grid,
        edited: Rect,
        changed: &mut impl FnMut(ClearanceChange),
    ) {
        let reach = self.cap as u32 - 1;
        let region = Rect::new(
            edited.x1.saturating_sub(reach),
            edited.y1.saturating_sub(reach),
            edited.x2,
            edited.y2,
        );
        self.recompute(grid, region, changed);
    }

    /// Recomputes the cells of `region`, bottom-right first, from the values right of and
    /// below it.
    fn recompute(&mut self, grid: &Grid, region: Rect, changed: &mut impl FnMut(ClearanceChange)) {
        let w = self.width as usize;
        for y in (region.y1..=region.y2).rev() {
            for x in (region.x1..=region.x2).rev() {
                let after = if grid.cell_passable_for(&self.passable, x, y) {
                    let (x, y) = (x as i64, y as i64);
                    let below_right = self
                        .at(x + 1, y)
                        .min(self.at(x, y + 1))
                        .min(self.at(x + 1, y + 1));
                    (below_right + 1).min(self.cap)
                } else {
                    0
                };
                let slot = &mut self.values[y as usize * w + x as usize];
                if *slot != after {
                    changed(ClearanceChange {
                        cell: Cell::new(x, y),
                        before: *slot,
                        after,
                    });
                    *slot = after;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The clearance of `(x, y)` by trying every square, capped.
    fn brute(g: &Grid, set: &TerrainSet, cap: u32, x: u32, y: u32) -> u32 {
        let passable = |cx: u32, cy: u32| {
            cx < g.width() && cy < g.height() && g.cell_passable_for(set, cx, cy)
        };
        (1..=cap)
            .take_while(|&k| (y..y + k).all(|cy| (x..x + k).all(|cx| passable(cx, cy))))
            .last()
            .unwrap_or(0)
    }

    fn arb_grid() -> impl Strategy<Value = Grid> {
        (1u32..12, 1u32..12).prop_flat_map(|(w, h)| {
            prop::collection::vec(prop::sample::select(b"..GW@".to_vec()), (w * h) as usize)
                .prop_map(move |codes| Grid::from_terrain(w, h, codes, TerrainSet::moving_ai()))
        })
    }

    proptest! {
        // Grids of up to 71² cells checked by brute force: fewer cases than the default.
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// A new field (its whole-grid fill) against brute force, for the grid's own terrain
        /// set (read from its free bits) and another, with obstructions, on widths on both
        /// sides of a 64-cell word.
        #[test]
        fn a_new_field_equals_brute_force(
            (w, h, closed) in crate::grid::arb_blocked_cells(1..72, 0.2),
            obstructed in prop::collection::vec(0usize..5041, 0..40),
            cap in 1u32..6,
        ) {
            let codes: Vec<u8> = closed.iter().enumerate()
                .map(|(i, &c)| match (c, i % 7) { (true, _) => b'@', (false, 0) => b'W', _ => b'.' })
                .collect();
            let mut g = Grid::from_terrain(w, h, codes, TerrainSet::moving_ai());
            for i in obstructed.into_iter().filter(|&i| i < (w * h) as usize) {
                g.set_obstructed(Cell::new(i as u32 % w, i as u32 / w), true);
            }
            for set in [TerrainSet::moving_ai(), TerrainSet::from_codes(b".GW")] {
                let field = ClearanceField::new(&g, set, cap);
                for c in g.bounds().cells() {
                    prop_assert_eq!(field.get(c), brute(&g, &set, cap, c.x, c.y), "{}", c);
                }
            }
        }
    }

    proptest! {
        #[test]
        fn updates_equal_brute_force(
            mut g in arb_grid(),
            cap in 1u32..6,
            edits in prop::collection::vec((0u32..12, 0u32..12, 0u32..3, 0u32..3, 0u8..4), 1..12),
        ) {
            let set = TerrainSet::from_codes(b".GW");
            let mut field = ClearanceField::new(&g, set, cap);
            for (x, y, w, h, what) in edits {
                let (x, y) = (x % g.width(), y % g.height());
                let rect = Rect::new(x, y, (x + w).min(g.width() - 1), (y + h).min(g.height() - 1));
                for c in rect.cells() {
                    match what {
                        0 => { g.set_terrain(c, b'@'); }
                        1 => { g.set_terrain(c, b'W'); }
                        2 => { g.set_obstructed(c, true); }
                        _ => { g.set_obstructed(c, false); }
                    }
                }
                let before = field.clone();
                let mut reported = Vec::new();
                field.update(&g, rect, &mut |ch| reported.push(ch));
                for c in g.bounds().cells() {
                    prop_assert_eq!(field.get(c), brute(&g, &set, cap, c.x, c.y), "{}", c);
                    let was = before.get(c) as u16;
                    let is = field.get(c) as u16;
                    let listed = reported.iter().find(|ch| ch.cell == c);
                    prop_assert_eq!(
                        listed.copied(),
                        (was != is).then_some(ClearanceChange { cell: c, before: was, after: is })
                    );
                }
            }
        }
    }
}
