//! The cell grid: which cells are free, and what terrain each cell carries.

use crate::geom::{Cell, Direction, Rect};

/// Terrain code of a free cell created by [`Grid::new_free`] (the Moving AI `.` character).
pub const TERRAIN_FREE: u8 = b'.';
/// Terrain code of a blocked cell created by [`Grid::set_free`] (the Moving AI `@` character).
pub const TERRAIN_WALL: u8 = b'@';

/// A W×H grid of cells. Each cell is free or blocked, and carries a terrain byte.
///
/// Passability lives in a bitset, one bit per cell, because it is what every search reads;
/// the terrain byte is kept beside it so that maps round-trip and later layers can weigh
/// terrain. For Moving AI maps the terrain byte is the map's original character.
#[derive(Clone, PartialEq, Eq)]
pub struct Grid {
    width: u32,
    height: u32,
    /// One bit per cell, row-major; a set bit means free.
    free: Vec<u64>,
    terrain: Vec<u8>,
}

impl std::fmt::Debug for Grid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Grid")
            .field("width", &self.width)
            .field("height", &self.height)
            .field("free_cells", &self.free_count())
            .finish()
    }
}

impl Grid {
    /// A grid of `width × height` free cells.
    ///
    /// # Panics
    /// When either side is zero. Use the loaders in [`crate::io`] for untrusted sizes: they
    /// return errors instead.
    pub fn new_free(width: u32, height: u32) -> Self {
        assert!(width > 0 && height > 0, "a grid needs at least one cell");
        let n = width as usize * height as usize;
        let mut free = vec![u64::MAX; n.div_ceil(64)];
        if n % 64 != 0 {
            *free.last_mut().unwrap() = (1u64 << (n % 64)) - 1;
        }
        Grid {
            width,
            height,
            free,
            terrain: vec![TERRAIN_FREE; n],
        }
    }

    /// Builds a grid from a predicate telling whether each cell is free.
    pub fn from_fn(width: u32, height: u32, mut is_free: impl FnMut(u32, u32) -> bool) -> Self {
        let mut g = Grid::new_free(width, height);
        for y in 0..height {
            for x in 0..width {
                if !is_free(x, y) {
                    g.set_free(x, y, false);
                }
            }
        }
        g
    }

    /// Width in cells.
    #[inline]
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in cells.
    #[inline]
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The whole grid as a rectangle.
    #[inline]
    pub fn bounds(&self) -> Rect {
        Rect::from_size(0, 0, self.width, self.height)
    }

    /// Whether `(x, y)` is inside the grid.
    #[inline]
    pub fn in_bounds(&self, x: i64, y: i64) -> bool {
        x >= 0 && y >= 0 && x < self.width as i64 && y < self.height as i64
    }

    #[inline]
    fn index(&self, x: u32, y: u32) -> usize {
        debug_assert!(x < self.width && y < self.height);
        y as usize * self.width as usize + x as usize
    }

    /// Whether the cell is free. Cells outside the grid count as blocked.
    #[inline]
    pub fn is_free(&self, x: u32, y: u32) -> bool {
        if x >= self.width || y >= self.height {
            return false;
        }
        let i = self.index(x, y);
        self.free[i / 64] >> (i % 64) & 1 == 1
    }

    /// [`Grid::is_free`] on signed coordinates, so that callers can probe one step outside
    /// the grid without wrapping.
    #[inline]
    pub fn is_free_i(&self, x: i64, y: i64) -> bool {
        self.in_bounds(x, y) && self.is_free(x as u32, y as u32)
    }

    /// The terrain byte of a cell.
    ///
    /// # Panics
    /// When the cell is outside the grid.
    #[inline]
    pub fn terrain(&self, x: u32, y: u32) -> u8 {
        assert!(
            x < self.width && y < self.height,
            "cell ({x},{y}) is outside the grid"
        );
        self.terrain[self.index(x, y)]
    }

    /// Marks a cell free or blocked. The terrain byte becomes `.` or `@` unless it already
    /// agrees with the new state's default; use [`Grid::set_cell`] to choose it.
    ///
    /// # Panics
    /// When the cell is outside the grid.
    pub fn set_free(&mut self, x: u32, y: u32, free: bool) {
        let t = if free { TERRAIN_FREE } else { TERRAIN_WALL };
        self.set_cell(x, y, free, t);
    }

    /// Sets both the passability and the terrain byte of a cell.
    ///
    /// # Panics
    /// When the cell is outside the grid.
    pub fn set_cell(&mut self, x: u32, y: u32, free: bool, terrain: u8) {
        assert!(
            x < self.width && y < self.height,
            "cell ({x},{y}) is outside the grid"
        );
        let i = self.index(x, y);
        if free {
            self.free[i / 64] |= 1 << (i % 64);
        } else {
            self.free[i / 64] &= !(1 << (i % 64));
        }
        self.terrain[i] = terrain;
    }

    /// Number of free cells.
    pub fn free_count(&self) -> u64 {
        self.free.iter().map(|w| w.count_ones() as u64).sum()
    }

    /// Heap bytes held: the passability bits and the terrain bytes.
    pub fn memory_bytes(&self) -> usize {
        self.free.capacity() * 8 + self.terrain.capacity()
    }

    /// Iterates over the blocked cells, row by row.
    pub fn blocked_cells(&self) -> impl Iterator<Item = Cell> + '_ {
        self.cells_where(false)
    }

    /// Iterates over the free cells, row by row.
    pub fn free_cells(&self) -> impl Iterator<Item = Cell> + '_ {
        self.cells_where(true)
    }

    fn cells_where(&self, free: bool) -> impl Iterator<Item = Cell> + '_ {
        // Scan the bitset a word at a time: building a tree for a large map starts here.
        let n = self.width as usize * self.height as usize;
        let w = self.width as usize;
        self.free.iter().enumerate().flat_map(move |(i, &word)| {
            let valid = if (i + 1) * 64 <= n {
                u64::MAX
            } else {
                (1u64 << (n % 64)) - 1
            };
            let mut bits = if free { word } else { !word } & valid;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let bit = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let k = i * 64 + bit;
                    Cell::new((k % w) as u32, (k / w) as u32)
                })
            })
        })
    }

    /// Whether one step from `from` in `dir` is legal: the target is free and, for a
    /// diagonal, both orthogonal cells beside the step are free (no corner cutting).
    /// `from` itself is not checked.
    #[inline]
    pub fn can_step(&self, from: Cell, dir: Direction) -> bool {
        let (dx, dy) = dir.delta();
        let (x, y) = (from.x as i64, from.y as i64);
        if !self.is_free_i(x + dx as i64, y + dy as i64) {
            return false;
        }
        !dir.is_diagonal() || (self.is_free_i(x + dx as i64, y) && self.is_free_i(x, y + dy as i64))
    }

    /// The legal single steps out of a free cell, with their costs.
    pub fn successors(&self, from: Cell) -> impl Iterator<Item = (Cell, f64)> + '_ {
        Direction::ALL
            .into_iter()
            .filter(move |&d| self.can_step(from, d))
            .map(move |d| {
                let (dx, dy) = d.delta();
                (
                    Cell::new(
                        (from.x as i64 + dx as i64) as u32,
                        (from.y as i64 + dy as i64) as u32,
                    ),
                    d.cost(),
                )
            })
    }

    /// Octile distance between two cells (see [`crate::geom::octile`]).
    #[inline]
    pub fn octile(&self, a: Cell, b: Cell) -> f64 {
        crate::geom::octile(a, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_and_terrain() {
        let mut g = Grid::new_free(13, 7);
        assert_eq!(g.free_count(), 91);
        g.set_cell(12, 6, false, b'T');
        assert!(!g.is_free(12, 6));
        assert_eq!(g.terrain(12, 6), b'T');
        assert!(!g.is_free(13, 0), "outside counts as blocked");
        assert_eq!(g.free_count(), 90);
        assert_eq!(
            g.blocked_cells().collect::<Vec<_>>(),
            vec![Cell::new(12, 6)]
        );
    }

    #[test]
    fn free_and_blocked_cells_split_the_grid_in_row_order() {
        // 67 cells wide, so rows straddle the 64-bit words of the bitset.
        let g = Grid::from_fn(67, 5, |x, y| (x * 31 + y * 17) % 7 != 0);
        let all: Vec<Cell> = g.bounds().cells().collect();
        let free: Vec<Cell> = all
            .iter()
            .copied()
            .filter(|c| g.is_free(c.x, c.y))
            .collect();
        let blocked: Vec<Cell> = all
            .iter()
            .copied()
            .filter(|c| !g.is_free(c.x, c.y))
            .collect();
        assert_eq!(g.free_cells().collect::<Vec<_>>(), free);
        assert_eq!(g.blocked_cells().collect::<Vec<_>>(), blocked);
    }

    #[test]
    fn no_corner_cutting() {
        // .@
        // ..
        let g = Grid::from_fn(2, 2, |x, y| !(x == 1 && y == 0));
        assert!(
            !g.can_step(Cell::new(0, 1), Direction::NE),
            "target blocked"
        );
        assert!(
            !g.can_step(Cell::new(0, 0), Direction::SE),
            "corner (1,0) blocked"
        );
        assert!(g.can_step(Cell::new(0, 0), Direction::S));
        assert!(!g.can_step(Cell::new(0, 0), Direction::W), "outside");
        assert_eq!(g.successors(Cell::new(0, 1)).count(), 2);
    }
}
