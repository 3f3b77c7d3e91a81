//! Terrain patches: rectangles of terrain codes laid over a grid in one go (a building with
//! its yard, a bridge, a whole level), the unit of change of the GPPC dynamic scenarios.

use super::{Grid, Terrain};
use crate::geom::{Cell, Rect};

/// A `width × height` rectangle of terrain codes, row by row, to lay over a grid at some
/// cell: [`Grid::apply_patch`], or [`HpaMap::apply_patch`](crate::HpaMap::apply_patch) to
/// keep a search structure up to date.
///
/// Every cell under the patch takes the patch's code, whether it is passable or not: a
/// patch overwrites, it does not only add walls.
///
/// ```
/// use quadpath::{Cell, Grid, TerrainPatch};
///
/// // A 3×2 hut with a door in its bottom row.
/// let hut = TerrainPatch::new(3, 2, b"@@@@.@".to_vec());
/// let mut grid = Grid::new_free(5, 5);
/// assert_eq!(grid.apply_patch(Cell::new(1, 1), &hut), 5);
/// assert!(!grid.is_free(Cell::new(1, 1)) && grid.is_free(Cell::new(2, 2)));
/// assert_eq!(hut.rect_at(Cell::new(1, 1)).map(|r| (r.x2, r.y2)), Some((3, 2)));
/// ```
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct TerrainPatch {
    width: u32,
    height: u32,
    codes: Vec<u8>,
}

impl TerrainPatch {
    /// A patch of `width × height` terrain codes given row by row.
    ///
    /// # Panics
    /// When either side is zero or `codes` does not hold `width × height` codes. The readers
    /// in [`crate::io`] check untrusted input first and return errors instead.
    pub fn new(width: u32, height: u32, codes: Vec<u8>) -> Self {
        assert!(width > 0 && height > 0, "a patch needs at least one cell");
        let n = width as usize * height as usize;
        assert_eq!(
            codes.len(),
            n,
            "a {width}×{height} patch needs {n} terrain codes"
        );
        TerrainPatch {
            width,
            height,
            codes,
        }
    }

    /// Width in cells.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in cells.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The code at `(x, y)` of the patch itself (not of the map it is laid on).
    ///
    /// # Panics
    /// When `(x, y)` is outside the patch.
    pub fn code(&self, x: u32, y: u32) -> Terrain {
        assert!(
            x < self.width && y < self.height,
            "({x},{y}) is outside the {}×{} patch",
            self.width,
            self.height
        );
        Terrain(self.codes[y as usize * self.width as usize + x as usize])
    }

    /// The codes, row by row, as bytes (a [`Terrain`] is its byte).
    pub fn codes(&self) -> &[u8] {
        &self.codes
    }

    /// The rectangle of map cells the patch covers when its top-left cell is laid at `at`,
    /// or `None` when that rectangle would reach past the largest coordinate.
    pub fn rect_at(&self, at: Cell) -> Option<Rect> {
        let x2 = at.x.checked_add(self.width - 1)?;
        let y2 = at.y.checked_add(self.height - 1)?;
        Some(Rect::new(at.x, at.y, x2, y2))
    }

    /// Each map cell under the patch laid at `at` with the code it receives, row by row.
    /// The caller has checked that the patch fits there.
    pub(crate) fn cells_at(&self, at: Cell) -> impl Iterator<Item = (Cell, u8)> + '_ {
        let w = self.width as usize;
        self.codes.iter().enumerate().map(move |(i, &code)| {
            let (dx, dy) = ((i % w) as u32, (i / w) as u32);
            (Cell::new(at.x + dx, at.y + dy), code)
        })
    }
}

/// The cells a patch would block and free, without changing anything: what an edit of the
/// search structure has to handle.
#[derive(Default, Debug)]
pub(crate) struct PatchFlips {
    /// Free cells the patch makes blocked.
    pub blocking: Vec<Cell>,
    /// Blocked cells the patch makes free.
    pub freeing: Vec<Cell>,
}

impl Grid {
    /// Lays `patch` with its top-left cell at `at`: every cell under it takes the patch's
    /// terrain code. Obstructions (see [`Grid::set_blocked`]) stay where they are. Returns
    /// how many cells changed passability.
    ///
    /// # Panics
    /// When the patch reaches outside the grid.
    pub fn apply_patch(&mut self, at: Cell, patch: &TerrainPatch) -> usize {
        let rect = patch.rect_at(at);
        assert!(
            rect.is_some_and(|r| self.contains(Cell::new(r.x2, r.y2))),
            "a {}×{} patch at {at} does not fit in the {}×{} grid",
            patch.width,
            patch.height,
            self.width,
            self.height
        );
        patch
            .cells_at(at)
            .filter(|&(c, code)| self.set_cell_terrain(c, code))
            .count()
    }

    /// The cells whose passability laying `patch` at `at` would change; the patch fits.
    pub(crate) fn patch_flips(&self, at: Cell, patch: &TerrainPatch) -> PatchFlips {
        let mut flips = PatchFlips::default();
        for (c, code) in patch.cells_at(at) {
            let free_after = self.passable.contains(code) && !self.is_obstructed(c);
            match (self.is_free(c), free_after) {
                (true, false) => flips.blocking.push(c),
                (false, true) => flips.freeing.push(c),
                _ => {}
            }
        }
        flips
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rect;

    #[test]
    fn a_patch_overwrites_both_ways_and_keeps_obstructions() {
        let mut grid = Grid::from_fn(4, 3, |x, _| x != 0);
        grid.set_blocked(Cell::new(2, 1), true);
        let patch = TerrainPatch::new(3, 2, b".@G.GW".to_vec());
        let flips = grid.patch_flips(Cell::new(0, 1), &patch);
        assert_eq!(flips.blocking, vec![Cell::new(1, 1), Cell::new(2, 2)]);
        assert_eq!(flips.freeing, vec![Cell::new(0, 1), Cell::new(0, 2)]);
        assert_eq!(grid.apply_patch(Cell::new(0, 1), &patch), 4);
        let free: Vec<bool> = Rect::new(0, 1, 2, 2)
            .cells()
            .map(|c| grid.is_free(c))
            .collect();
        assert_eq!(free, [true, false, false, true, true, false]);
        assert!(grid.is_obstructed(Cell::new(2, 1)), "the building stays");
        assert_eq!(grid.terrain(Cell::new(2, 1)), b'G', "on its new road");
        assert_eq!(grid.apply_patch(Cell::new(0, 1), &patch), 0, "idempotent");
    }

    #[test]
    fn rect_at_refuses_to_overflow() {
        let p = TerrainPatch::new(2, 2, vec![b'.'; 4]);
        assert_eq!(p.rect_at(Cell::new(u32::MAX, 0)), None);
        assert_eq!(p.rect_at(Cell::new(1, 1)), Some(Rect::new(1, 1, 2, 2)));
    }

    #[test]
    #[should_panic(expected = "does not fit")]
    fn a_patch_off_the_grid_panics() {
        Grid::new_free(3, 3).apply_patch(Cell::new(2, 2), &TerrainPatch::new(2, 1, b"..".to_vec()));
    }
}
