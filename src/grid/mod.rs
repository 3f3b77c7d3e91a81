//! The cell grid: the terrain of every cell, the obstructions placed on top of it, and the
//! free cells that follow from both. The rules of movement over it live in [`movement`].

mod clearance;
mod codes;
mod costs;
pub mod movement;
mod patch;
mod terrain;

use crate::geom::{Cell, Direction, Rect};
pub(crate) use clearance::ClearanceChange;
pub use clearance::ClearanceField;
use codes::PackedCodes;
pub use costs::{CostError, TerrainCosts};
use movement::{legal_step, step_cost};
pub use movement::{Movement, MovementError, TerrainSet};
pub use patch::TerrainPatch;
pub use terrain::Terrain;

/// The byte of [`Terrain::GROUND`], for the loops that read bytes.
pub(crate) const GROUND: u8 = Terrain::GROUND.code();
/// The byte of [`Terrain::WALL`].
pub(crate) const WALL: u8 = Terrain::WALL.code();

/// A W×H grid of cells. Each cell carries a terrain byte and may carry an obstruction;
/// it is free when its terrain is in the grid's [passable set](Grid::passable) and nothing
/// obstructs it.
///
/// Terrain is what the map is made of (ground, road, water, rock: for Moving AI maps the
/// map's original character); obstructions are what game code places on top of it
/// (buildings, units at rest) and takes away again. Keeping them apart means removing a
/// building gives back exactly the terrain that was under it.
///
/// Whether each cell is free is cached in a bitset, one bit per cell, because it is what
/// every search reads; every edit keeps it equal to "passable terrain and not obstructed".
/// The terrain codes are packed in as few bits a cell as the codes in use need (2 for a
/// Moving AI map), and the obstruction bits exist from the first obstruction on.
///
/// ```
/// use quadpath::{Cell, Grid, Rect};
///
/// let mut grid = Grid::new_free(8, 8);
/// let road = Cell::new(3, 3);
/// grid.set_terrain(road, b'G');
/// // A building goes up over the road, then comes down: the road is still there.
/// assert_eq!(grid.set_blocked(Rect::new(2, 2, 4, 4), true), 9);
/// assert!(!grid.is_free(road) && grid.is_obstructed(road));
/// assert_eq!(grid.set_blocked(Rect::new(2, 2, 4, 4), false), 9);
/// assert!(grid.is_free(road));
/// assert_eq!(grid.terrain(road), b'G');
/// ```
#[derive(Clone)]
pub struct Grid {
    width: u32,
    height: u32,
    /// One bit per cell, row-major; a set bit means free. Derived from the fields below.
    free: Vec<u64>,
    /// One bit per cell, row-major; a set bit means an obstruction stands on the cell.
    /// Empty until the first obstruction (see [`Grid::is_obstructed_at`]).
    obstructed: Vec<u64>,
    terrain: PackedCodes,
    passable: TerrainSet,
}

/// Equal grids hold the same cells: size, passable set, terrain and obstructions, however
/// they are stored (a grid whose obstructions all went keeps its zeroed bits).
impl PartialEq for Grid {
    fn eq(&self, other: &Self) -> bool {
        let obstructed = |g: &Grid, w: usize| g.obstructed.get(w).copied().unwrap_or(0);
        let words = self.obstructed.len().max(other.obstructed.len());
        self.width == other.width
            && self.height == other.height
            && self.passable == other.passable
            && self.free == other.free
            && (0..words).all(|w| obstructed(self, w) == obstructed(other, w))
            && self.terrain == other.terrain
    }
}

impl Eq for Grid {}

impl std::fmt::Debug for Grid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Grid")
            .field("width", &self.width)
            .field("height", &self.height)
            .field("free_cells", &self.free_count())
            .field(
                "obstructed_cells",
                &self.obstructed.iter().map(|w| w.count_ones()).sum::<u32>(),
            )
            .field("passable", &self.passable)
            .finish()
    }
}

#[inline]
fn bit(bits: &[u64], i: usize) -> bool {
    bits[i / 64] >> (i % 64) & 1 == 1
}

#[inline]
fn set_bit(bits: &mut [u64], i: usize, on: bool) {
    if on {
        bits[i / 64] |= 1 << (i % 64);
    } else {
        bits[i / 64] &= !(1 << (i % 64));
    }
}

impl Grid {
    /// A grid of `width × height` free cells of terrain `.`, passable by the
    /// [Moving AI set](TerrainSet::moving_ai).
    ///
    /// # Panics
    /// When either side is zero. Use the loaders in [`crate::io`] for untrusted sizes: they
    /// return errors instead.
    pub fn new_free(width: u32, height: u32) -> Self {
        // `Grid::from_fn(width, height, |_, _| true)`, written a word at a time (on a
        // 1024² grid 65M instructions were a sixth of a movement class's layer build).
        assert!(width > 0 && height > 0, "a grid needs at least one cell");
        let cells = width as usize * height as usize;
        let free = (0..cells.div_ceil(64))
            .map(|w| u64::MAX >> (64 - (cells - w * 64).min(64)))
            .collect();
        Grid {
            width,
            height,
            obstructed: Vec::new(),
            free,
            terrain: PackedCodes::uniform(cells, GROUND),
            passable: TerrainSet::moving_ai(),
        }
    }

    /// Builds a grid from a predicate telling whether each cell `(x, y)` is free. Free cells
    /// get terrain `.` and blocked ones `@`, passable by the
    /// [Moving AI set](TerrainSet::moving_ai).
    ///
    /// # Panics
    /// When either side is zero.
    ///
    /// ```
    /// use quadpath::{Cell, Grid};
    ///
    /// let grid = Grid::from_fn(4, 3, |x, _| x != 2);
    /// assert!(grid.is_free(Cell::new(1, 2)) && !grid.is_free(Cell::new(2, 0)));
    /// assert_eq!(grid.terrain(Cell::new(2, 0)), b'@');
    /// ```
    pub fn from_fn(width: u32, height: u32, mut is_free: impl FnMut(u32, u32) -> bool) -> Self {
        let codes = (0..height)
            .flat_map(|y| (0..width).map(move |x| (x, y)))
            .map(|(x, y)| if is_free(x, y) { GROUND } else { WALL })
            .collect();
        Grid::from_terrain(width, height, codes, TerrainSet::moving_ai())
    }

    /// A grid of free ground (as [`Grid::new_free`]) with an obstruction on each cell `i`
    /// (row-major index) for which `closed(i)` holds: the grid of a movement class's open
    /// positions. The same grid as obstructing those cells one at a time with
    /// [`Grid::set_blocked`], made a word of 64 cells at a time (on a 1024² map, 17M
    /// instructions against 67M).
    pub(crate) fn new_free_obstructed(
        width: u32,
        height: u32,
        closed: impl Fn(usize) -> bool,
    ) -> Self {
        let mut grid = Grid::new_free(width, height);
        let cells = width as usize * height as usize;
        let obstructed: Vec<u64> = (0..grid.free.len())
            .map(|w| {
                (0..64.min(cells - w * 64))
                    .filter(|&j| closed(w * 64 + j))
                    .fold(0u64, |bits, j| bits | 1 << j)
            })
            .collect();
        // An obstruction-free grid keeps no obstruction bits (see `set_obstructed_at`).
        if obstructed.iter().any(|&w| w != 0) {
            for (free, &closed) in grid.free.iter_mut().zip(&obstructed) {
                *free &= !closed;
            }
            grid.obstructed = obstructed;
        }
        grid
    }

    /// Builds a grid from its terrain codes, row by row, and the set of codes that are
    /// passable. No cell is obstructed.
    ///
    /// # Panics
    /// When either side is zero or `codes` does not hold `width × height` codes. The loaders
    /// in [`crate::io`] check untrusted input first and return errors instead.
    ///
    /// ```
    /// use quadpath::{Grid, TerrainSet};
    /// use quadpath::Cell;
    ///
    /// let grid = Grid::from_terrain(3, 1, b".W#".to_vec(), TerrainSet::from_codes(b".#"));
    /// assert!(grid.is_free(Cell::new(2, 0)) && !grid.is_free(Cell::new(1, 0)));
    /// ```
    pub fn from_terrain(width: u32, height: u32, codes: Vec<u8>, passable: TerrainSet) -> Self {
        assert!(width > 0 && height > 0, "a grid needs at least one cell");
        let n = width as usize * height as usize;
        assert_eq!(
            codes.len(),
            n,
            "a {width}×{height} grid needs {n} terrain codes"
        );
        let mut free = vec![0u64; n.div_ceil(64)];
        for (i, &code) in codes.iter().enumerate() {
            set_bit(&mut free, i, passable.contains(code));
        }
        Grid {
            width,
            height,
            obstructed: Vec::new(),
            free,
            terrain: PackedCodes::new(&codes),
            passable,
        }
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
        // Both sides are at least 1 (see `Grid::from_fn`).
        Rect::new(0, 0, self.width - 1, self.height - 1)
    }

    /// Whether `cell` is inside the grid.
    #[inline]
    pub fn contains(&self, cell: Cell) -> bool {
        cell.x < self.width && cell.y < self.height
    }

    /// [`Grid::contains`] on signed coordinates, so that callers can probe one step outside
    /// the grid without wrapping.
    #[inline]
    pub(crate) fn contains_at(&self, x: i64, y: i64) -> bool {
        // A negative coordinate wraps to a huge unsigned one: one comparison per axis.
        (x as u64) < self.width as u64 && (y as u64) < self.height as u64
    }

    #[inline]
    fn index(&self, x: u32, y: u32) -> usize {
        debug_assert!(x < self.width && y < self.height);
        y as usize * self.width as usize + x as usize
    }

    /// The index of a cell that callers promise is inside the grid.
    fn checked_index(&self, cell: Cell) -> usize {
        assert!(
            self.contains(cell),
            "cell {cell} is outside the {}×{} grid",
            self.width,
            self.height
        );
        self.index(cell.x, cell.y)
    }

    /// Whether the cell is free: its terrain is passable and nothing obstructs it. Cells
    /// outside the grid count as blocked.
    #[inline]
    pub fn is_free(&self, cell: Cell) -> bool {
        self.contains(cell) && bit(&self.free, self.index(cell.x, cell.y))
    }

    /// 64 cells of row `y` at once, from column `x` on: bit `j` is [`Grid::is_free_at`]
    /// of `(x + j, y)` (cells off the grid count as blocked). For scans that look at a
    /// row a word at a time.
    #[inline]
    pub(crate) fn free_bits_at(&self, x: i64, y: i64) -> u64 {
        let (w, h) = (self.width as i64, self.height as i64);
        if y < 0 || y >= h || x >= w || x <= -64 {
            return 0;
        }
        // The first column on the grid, and its bit in the row-major bitset.
        let first = x.max(0);
        let i = (y * w + first) as usize;
        let (word, shift) = (i / 64, i % 64);
        let mut bits = self.free[word] >> shift;
        if shift > 0 {
            if let Some(&next) = self.free.get(word + 1) {
                bits |= next << (64 - shift);
            }
        }
        // Columns past the row's end belong to the next row.
        let columns = w - first;
        if columns < 64 {
            bits &= (1u64 << columns) - 1;
        }
        bits << (first - x)
    }

    /// [`Grid::is_free`] on signed coordinates, so that callers can probe one step outside
    /// the grid without wrapping.
    #[inline]
    pub(crate) fn is_free_at(&self, x: i64, y: i64) -> bool {
        self.contains_at(x, y) && bit(&self.free, self.index(x as u32, y as u32))
    }

    /// Whether the diagonal step from `(x, y)`, inside the grid, by `(dx, dy)` (each ±1)
    /// is legal: its target and the two cells beside it free, no corner cut. One bounds
    /// test serves the three: the two cells beside the step are inside the grid whenever
    /// its target is. (The cone scans of the subgoal graph take thousands of these steps
    /// a query.)
    #[inline]
    pub(crate) fn diagonal_step_free(&self, x: u32, y: u32, dx: i32, dy: i32) -> bool {
        if !self.contains_at(x as i64 + dx as i64, y as i64 + dy as i64) {
            return false;
        }
        let from = self.index(x, y) as isize;
        let beside_x = from + dx as isize;
        let beside_y = from + dy as isize * self.width as isize;
        bit(&self.free, (beside_y + dx as isize) as usize)
            && bit(&self.free, beside_x as usize)
            && bit(&self.free, beside_y as usize)
    }

    /// Whether the walk from `a` to `b`, both on the grid, that takes all its diagonal
    /// steps first and then its straight ones (the walk a subgoal graph's cone scan makes,
    /// bending at `bend(a, b)`) is legal: every cell after `a` free, no corner cut. Such a
    /// walk is as long as the octile distance, so when it is legal it is a shortest path.
    /// The straight part along a row reads 64 cells a word; `b` is read as any other cell.
    /// The straight part is tested first: most walks a query tries are blocked, and a
    /// row's word reads tell it before the diagonal steps' three cells each are read
    /// (−0.3 to −0.75 % of an exact corner query, session 41).
    pub(crate) fn diagonal_first_walk_free(&self, a: Cell, b: Cell) -> bool {
        let (dx, dy) = (
            (b.x as i64 - a.x as i64).signum() as isize,
            (b.y as i64 - a.y as i64).signum() as isize,
        );
        let diagonals = a.x.abs_diff(b.x).min(a.y.abs_diff(b.y));
        // Every cell the walk reads, the steps' targets and the cells beside its diagonal
        // steps, lies in the rectangle spanned by `a` and `b`, on the grid: the walk
        // indexes the bitset directly, with no bounds test a step.
        let w = self.width as isize;
        // The straight part first, from the bend on: along a row it reads 64 cells a word,
        // so a walk blocked there is told so before its diagonal steps are taken.
        let (x, y) = (
            a.x.wrapping_add_signed(dx as i32 * diagonals as i32),
            a.y.wrapping_add_signed(dy as i32 * diagonals as i32),
        );
        let straight_free = if x == b.x && y == b.y {
            true
        } else if y == b.y {
            // Along the row: the cells after `x` up to `b.x`, a word at a time.
            let (lo, hi) = if b.x > x { (x + 1, b.x) } else { (b.x, x - 1) };
            let mut from = lo as i64;
            let mut free = true;
            while free && from <= hi as i64 {
                let cells = (hi as i64 - from + 1).min(64);
                let want = u64::MAX >> (64 - cells);
                free = self.free_bits_at(from, y as i64) & want == want;
                from += 64;
            }
            free
        } else {
            // Along the column, cell by cell.
            let mut i = self.index(x, y) as isize;
            (0..y.abs_diff(b.y)).all(|_| {
                i += dy * w;
                bit(&self.free, i as usize)
            })
        };
        if !straight_free {
            return false;
        }
        let mut i = self.index(a.x, a.y) as isize;
        (0..diagonals).all(|_| {
            let free = |j: isize| bit(&self.free, j as usize);
            let step = free(i + dx) && free(i + dy * w) && free(i + dx + dy * w);
            i += dx + dy * w;
            step
        })
    }

    /// Whether the cell at `(x, y)`, inside the grid, is passable under `passable`: its
    /// terrain is in the set and nothing obstructs it. For movement classes whose set is
    /// not the grid's own.
    #[inline]
    pub(crate) fn cell_passable_for(&self, passable: &TerrainSet, x: u32, y: u32) -> bool {
        let i = self.index(x, y);
        passable.contains(self.terrain.get(i)) && !self.is_obstructed_at(i)
    }

    /// Whether an obstruction stands on cell `i` (none before the first).
    #[inline]
    fn is_obstructed_at(&self, i: usize) -> bool {
        self.obstructed
            .get(i / 64)
            .is_some_and(|w| w >> (i % 64) & 1 == 1)
    }

    /// Places or takes away the obstruction on cell `i`.
    fn set_obstructed_at(&mut self, i: usize, on: bool) {
        if self.obstructed.is_empty() {
            if !on {
                return;
            }
            self.obstructed = vec![0; self.free.len()];
        }
        set_bit(&mut self.obstructed, i, on);
    }

    /// The terrain of a cell.
    ///
    /// # Panics
    /// When the cell is outside the grid.
    #[inline]
    pub fn terrain(&self, cell: Cell) -> Terrain {
        Terrain(self.terrain_code(cell))
    }

    /// The terrain byte of a cell, for the loops that compare bytes.
    #[inline]
    pub(crate) fn terrain_code(&self, cell: Cell) -> u8 {
        self.terrain.get(self.checked_index(cell))
    }

    /// Whether an obstruction stands on the cell (see [`Grid::set_blocked`]).
    ///
    /// # Panics
    /// When the cell is outside the grid.
    #[inline]
    pub fn is_obstructed(&self, cell: Cell) -> bool {
        self.is_obstructed_at(self.checked_index(cell))
    }

    /// The terrain codes this grid treats as passable.
    #[inline]
    pub fn passable(&self) -> &TerrainSet {
        &self.passable
    }

    /// Recomputes the free bit of cell `i` from its terrain and obstruction; returns
    /// whether it changed.
    fn refresh_free(&mut self, i: usize) -> bool {
        let free = self.passable.contains(self.terrain.get(i)) && !self.is_obstructed_at(i);
        let changed = bit(&self.free, i) != free;
        set_bit(&mut self.free, i, free);
        changed
    }

    /// Changes the terrain of every cell of `area` (a cell or a [`Rect`]), leaving any
    /// obstruction in place; returns how many cells changed passability.
    ///
    /// # Panics
    /// When `area` is not inside the grid. ([`HpaMap::set_terrain`](crate::HpaMap::set_terrain)
    /// and [`World::set_terrain`](crate::World::set_terrain) return an error instead.)
    ///
    /// ```
    /// use quadpath::{Cell, Grid, Rect, Terrain};
    ///
    /// let mut grid = Grid::new_free(4, 4);
    /// assert_eq!(grid.set_terrain(Cell::new(1, 1), Terrain::WATER), 1, "water is not passable");
    /// assert_eq!(grid.set_terrain(Cell::new(1, 1), Terrain::TREES), 0, "neither are trees");
    /// assert_eq!(grid.set_terrain(Rect::new(0, 1, 3, 1), b'G'), 1, "a road is");
    /// ```
    pub fn set_terrain(&mut self, area: impl Into<Rect>, terrain: impl Into<Terrain>) -> usize {
        let (rect, code) = (area.into(), terrain.into().code());
        self.check_rect(rect);
        rect.cells()
            .filter(|&c| self.set_cell_terrain(c, code))
            .count()
    }

    /// Sets one cell's terrain byte; returns whether its passability changed.
    pub(crate) fn set_cell_terrain(&mut self, cell: Cell, code: u8) -> bool {
        let i = self.checked_index(cell);
        self.terrain.set(i, code);
        self.refresh_free(i)
    }

    /// Blocks or unblocks every cell of `area` (a cell or a [`Rect`]); returns how many
    /// cells changed passability. A cell that is already as asked is left exactly as it
    /// is, so repeating an edit changes nothing.
    ///
    /// Blocking a free cell places an obstruction on it and keeps the terrain, so that
    /// unblocking, which takes the obstruction away, restores exactly what was there: a road
    /// under a removed building is a road again. (A cell blocked by its terrain gets no
    /// obstruction: nothing was placed on it.)
    ///
    /// Unblocking leaves the cell free. When its *terrain* is impassable (a wall or water
    /// from the map file), the cell is dug out: its terrain becomes
    /// [`Terrain::GROUND`], or, if the passable set lacks it, the lowest passable code. Only
    /// a grid with an empty passable set cannot free a cell; it stays blocked.
    ///
    /// # Panics
    /// When `area` is not inside the grid. ([`HpaMap::set_blocked`](crate::HpaMap::set_blocked)
    /// and [`World::set_blocked`](crate::World::set_blocked) return an error instead.)
    ///
    /// ```
    /// use quadpath::{Cell, Grid, Rect, Terrain};
    ///
    /// let mut grid = Grid::from_fn(3, 1, |x, _| x != 2);
    /// let c = Cell::new(2, 0);
    /// assert_eq!(grid.set_blocked(c, true), 0, "already blocked by its terrain");
    /// assert_eq!(grid.set_blocked(Rect::new(0, 0, 2, 0), false), 1);
    /// assert_eq!(grid.terrain(c), Terrain::GROUND, "the wall was dug out");
    /// ```
    pub fn set_blocked(&mut self, area: impl Into<Rect>, blocked: bool) -> usize {
        let rect = area.into();
        self.check_rect(rect);
        rect.cells()
            .filter(|&c| self.set_cell_blocked(c, blocked))
            .count()
    }

    /// [`Grid::set_blocked`] on one cell; returns whether its passability changed.
    pub(crate) fn set_cell_blocked(&mut self, cell: Cell, blocked: bool) -> bool {
        let i = self.checked_index(cell);
        if bit(&self.free, i) != blocked {
            return false;
        }
        self.set_obstructed_at(i, blocked);
        if !blocked && !self.passable.contains(self.terrain.get(i)) {
            let dug_out = if self.passable.contains(GROUND) {
                Some(GROUND)
            } else {
                self.passable.iter().next().map(Terrain::code)
            };
            if let Some(code) = dug_out {
                self.terrain.set(i, code);
            }
        }
        self.refresh_free(i)
    }

    /// Places (`true`) or takes away (`false`) an obstruction on every cell of `area` (a
    /// cell or a [`Rect`]), whatever its terrain; returns how many cells' obstruction
    /// changed. Unlike [`Grid::set_blocked`], which speaks of this grid's own passable set,
    /// this is the building itself: a dock built on water obstructs the ships that the
    /// grid's set never let through, and taking it away leaves the water as it was. It is
    /// what [`World::set_blocked`](crate::World::set_blocked) does to the world's grid.
    ///
    /// # Panics
    /// When `area` is not inside the grid.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, Terrain};
    ///
    /// let mut grid = Grid::new_free(3, 1);
    /// let dock = Cell::new(2, 0);
    /// grid.set_terrain(dock, Terrain::WATER);
    /// assert_eq!(grid.set_obstructed(dock, true), 1, "a dock on the water");
    /// assert!(grid.is_obstructed(dock));
    /// assert_eq!(grid.set_obstructed(dock, false), 1);
    /// assert_eq!(grid.terrain(dock), Terrain::WATER);
    /// ```
    pub fn set_obstructed(&mut self, area: impl Into<Rect>, obstructed: bool) -> usize {
        let rect = area.into();
        self.check_rect(rect);
        rect.cells()
            .filter(|&c| {
                let i = self.index(c.x, c.y);
                let changed = self.is_obstructed_at(i) != obstructed;
                if changed {
                    self.set_obstructed_at(i, obstructed);
                    self.refresh_free(i);
                }
                changed
            })
            .count()
    }

    fn check_rect(&self, rect: Rect) {
        assert!(
            self.contains(Cell::new(rect.x2, rect.y2)),
            "rectangle {rect} is not inside the {}×{} grid",
            self.width,
            self.height
        );
    }

    /// Number of free cells.
    pub fn free_count(&self) -> u64 {
        self.free.iter().map(|w| w.count_ones() as u64).sum()
    }

    /// Heap bytes held: the passability bits, the obstruction bits (from the first
    /// obstruction on) and the packed terrain codes.
    pub fn memory_bytes(&self) -> usize {
        (self.free.capacity() + self.obstructed.capacity()) * 8 + self.terrain.memory_bytes()
    }

    /// Heap bytes a `width × height` grid takes at most ([`Grid::memory_bytes`] of a new
    /// one is no more, whatever its codes), to check a size from untrusted input before
    /// allocating it.
    pub fn estimate_bytes(width: u32, height: u32) -> usize {
        let cells = width as usize * height as usize;
        cells.div_ceil(64) * 16 + cells
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

    /// Whether one step from `from` in `dir` is legal for a 1×1 agent on this grid's free
    /// cells (see [`Movement`](super::Movement)): the target is free and, for a diagonal, both orthogonal
    /// cells beside the step are free (no corner cutting). `from` itself is not checked.
    #[inline]
    pub fn can_step(&self, from: Cell, dir: Direction) -> bool {
        legal_step(
            |x, y| self.is_free_at(x, y),
            from.x as i64,
            from.y as i64,
            dir,
        )
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
                    step_cost(d),
                )
            })
    }

    /// Octile distance between two cells (see [`movement::octile`]).
    #[inline]
    pub fn octile(&self, a: Cell, b: Cell) -> f64 {
        movement::octile(a, b)
    }
}

/// The walk from `a` to `b` that takes its diagonal steps first, walked one cell at a time
/// for the tests of the layers above (no scan, bend or line of theirs used): its cells
/// (`a` included) and its corner points (`a`, the cell where it turns straight if it does,
/// `b`), or `None` if a step of it is illegal on `grid` (a blocked cell, or a diagonal
/// step past a blocked corner cell).
#[cfg(test)]
pub(crate) fn diagonal_first_walk(grid: &Grid, a: Cell, b: Cell) -> Option<(Vec<Cell>, Vec<Cell>)> {
    let free = |x: i64, y: i64| grid.is_free_at(x, y);
    let (mut x, mut y) = (i64::from(a.x), i64::from(a.y));
    let (bx, by) = (i64::from(b.x), i64::from(b.y));
    let (mut cells, mut diagonal_steps, mut turn) = (vec![a], 0, None);
    while (x, y) != (bx, by) {
        let (dx, dy) = ((bx - x).signum(), (by - y).signum());
        if dx != 0 && dy != 0 {
            if !free(x + dx, y) || !free(x, y + dy) {
                return None;
            }
            diagonal_steps += 1;
        } else if diagonal_steps > 0 && turn.is_none() {
            turn = Some(Cell::new(x as u32, y as u32));
        }
        (x, y) = (x + dx, y + dy);
        if !free(x, y) {
            return None;
        }
        cells.push(Cell::new(x as u32, y as u32));
    }
    let points = [Some(a), turn, Some(b)].into_iter().flatten().collect();
    Some((cells, points))
}

/// Random maps for the property tests of the layers above: a width and a height drawn
/// from `sides`, and each cell blocked with probability `blocked`, row by row.
#[cfg(test)]
pub(crate) fn arb_blocked_cells(
    sides: std::ops::Range<u32>,
    blocked: f64,
) -> impl proptest::strategy::Strategy<Value = (u32, u32, Vec<bool>)> {
    arb_blocked_cells_sized(sides.clone(), sides, blocked)
}

/// [`arb_blocked_cells`] with the width drawn from `widths` and the height from `heights`.
#[cfg(test)]
pub(crate) fn arb_blocked_cells_sized(
    widths: std::ops::Range<u32>,
    heights: std::ops::Range<u32>,
    blocked: f64,
) -> impl proptest::strategy::Strategy<Value = (u32, u32, Vec<bool>)> {
    use proptest::prelude::*;
    (widths, heights).prop_flat_map(move |(w, h)| {
        (
            Just(w),
            Just(h),
            proptest::collection::vec(proptest::bool::weighted(blocked), (w * h) as usize),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest::proptest! {
        /// A free grid made a word at a time is the one made cell by cell, and a grid
        /// obstructed a word at a time is the grid obstructed cell by cell, down to whether
        /// it keeps obstruction bits at all (a word's bits shifted by one fail this).
        #[test]
        fn obstructing_by_words_equals_obstructing_by_cells(
            (w, h, closed) in crate::grid::arb_blocked_cells(1..140, 0.3),
        ) {
            let free = Grid::new_free(w, h);
            let by_fn = Grid::from_fn(w, h, |_, _| true);
            proptest::prop_assert_eq!(&free, &by_fn);
            proptest::prop_assert_eq!(free.memory_bytes(), by_fn.memory_bytes());
            let by_words = Grid::new_free_obstructed(w, h, |i| closed[i]);
            let mut by_cells = Grid::new_free(w, h);
            for (i, _) in closed.iter().enumerate().filter(|&(_, &c)| c) {
                by_cells.set_cell_blocked(Cell::new(i as u32 % w, i as u32 / w), true);
            }
            proptest::prop_assert_eq!(&by_words, &by_cells);
            proptest::prop_assert_eq!(by_words.obstructed.len(), by_cells.obstructed.len());
            proptest::prop_assert_eq!(by_words.free_count(), by_cells.free_count());
        }
    }

    proptest! {
        /// A word of a row reads as its cells one by one, off the grid included, on
        /// widths that are and are not multiples of 64.
        #[test]
        fn free_bits_read_as_cells(
            (w, h) in (1u32..200, 1u32..5),
            free in prop::collection::vec(any::<bool>(), 200 * 5),
        ) {
            let g = Grid::from_fn(w, h, |x, y| free[(y * 200 + x) as usize]);
            for y in -1..=h as i64 {
                for x in (-70..w as i64 + 3).step_by(7) {
                    let bits = g.free_bits_at(x, y);
                    for j in 0..64 {
                        prop_assert_eq!(bits >> j & 1 == 1, g.is_free_at(x + j, y), "({}, {}) + {}", x, y, j);
                    }
                }
            }
        }
    }

    proptest! {
        /// The diagonal-first walk's test agrees with taking its steps one by one with
        /// [`Grid::can_step`] (corner rule included), on rows that straddle words and in
        /// all eight headings.
        #[test]
        fn diagonal_first_walk_is_its_steps(
            (w, h, blocked) in crate::grid::arb_blocked_cells_sized(1..140, 1..40, 0.12),
            pairs in prop::collection::vec((any::<u32>(), any::<u32>(), any::<u32>(), any::<u32>()), 40),
        ) {
            let g = Grid::from_fn(w, h, |x, y| !blocked[(y * w + x) as usize]);
            for (ax, ay, bx, by) in pairs {
                let (a, b) = (Cell::new(ax % w, ay % h), Cell::new(bx % w, by % h));
                let mut p = a;
                let mut legal = true;
                while p != b && legal {
                    let dx = (b.x as i64 - p.x as i64).signum() as i32;
                    let dy = (b.y as i64 - p.y as i64).signum() as i32;
                    let dir = Direction::ALL
                        .into_iter()
                        .find(|d| d.delta() == (dx, dy))
                        .expect("a heading");
                    legal = g.can_step(p, dir);
                    p = Cell::new(p.x.wrapping_add_signed(dx), p.y.wrapping_add_signed(dy));
                }
                prop_assert_eq!(g.diagonal_first_walk_free(a, b), legal, "{} -> {}", a, b);
            }
        }
    }

    #[test]
    fn bits_and_terrain() {
        let mut g = Grid::new_free(13, 7);
        assert_eq!(g.free_count(), 91);
        g.set_terrain(Cell::new(12, 6), b'T');
        assert!(!g.is_free(Cell::new(12, 6)));
        assert_eq!(g.terrain(Cell::new(12, 6)), b'T');
        assert!(!g.is_free(Cell::new(13, 0)), "outside counts as blocked");
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
        let free: Vec<Cell> = all.iter().copied().filter(|&c| g.is_free(c)).collect();
        let blocked: Vec<Cell> = all.iter().copied().filter(|&c| !g.is_free(c)).collect();
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

    #[test]
    fn a_road_under_a_building_comes_back() {
        let mut g = Grid::new_free(5, 5);
        let road = Rect::new(0, 2, 4, 2);
        assert_eq!(g.set_terrain(road, b'G'), 0, "roads are passable");
        let building = Rect::new(1, 1, 3, 3);
        assert_eq!(g.set_blocked(building, true), 9);
        assert_eq!(g.set_blocked(building, true), 0, "already blocked");
        assert!(!g.is_free(Cell::new(2, 2)) && g.is_obstructed(Cell::new(2, 2)));
        assert_eq!(
            g.terrain(Cell::new(2, 2)),
            b'G',
            "terrain kept under the building"
        );
        assert_eq!(g.set_blocked(building, false), 9);
        for c in building.cells() {
            assert!(g.is_free(c) && !g.is_obstructed(c));
            assert_eq!(g.terrain(c), if c.y == 2 { b'G' } else { b'.' }, "{c}");
        }
        assert_eq!(g, {
            let mut fresh = Grid::new_free(5, 5);
            fresh.set_terrain(road, b'G');
            fresh
        });
    }

    #[test]
    fn terrain_edits_follow_the_passable_set() {
        let mut g = Grid::from_terrain(4, 1, b".GWx".to_vec(), TerrainSet::from_codes(b".Gx"));
        assert_eq!(g.free_count(), 3);
        assert_eq!(g.set_terrain(Cell::new(0, 0), b'W'), 1);
        assert_eq!(g.set_terrain(Cell::new(0, 0), b'@'), 0, "still impassable");
        assert_eq!(g.set_terrain(Cell::new(2, 0), b'x'), 1);
        assert_eq!(g.set_terrain(Rect::new(0, 0, 3, 0), b'G'), 1);
        // An obstruction outlasts terrain edits beneath it.
        g.set_blocked(Cell::new(3, 0), true);
        assert_eq!(g.set_terrain(Cell::new(3, 0), b'.'), 0);
        assert!(!g.is_free(Cell::new(3, 0)));
        assert_eq!(g.set_blocked(Cell::new(3, 0), false), 1);
        assert_eq!(g.terrain(Cell::new(3, 0)), b'.');
    }

    #[test]
    fn unblocking_digs_out_impassable_terrain() {
        let mut g = Grid::from_terrain(3, 1, b"W#W".to_vec(), TerrainSet::from_codes(b"#"));
        assert_eq!(g.set_blocked(Cell::new(0, 0), false), 1);
        assert_eq!(
            g.terrain(Cell::new(0, 0)),
            b'#',
            "no `.` here: the lowest passable code"
        );
        let mut g = Grid::from_fn(2, 1, |_, _| false);
        assert_eq!(g.set_blocked(Cell::new(1, 0), false), 1);
        assert_eq!(g.terrain(Cell::new(1, 0)), Terrain::GROUND);
        let mut rock = Grid::from_terrain(1, 1, vec![b'@'], TerrainSet::empty());
        assert_eq!(
            rock.set_blocked(Cell::new(0, 0), false),
            0,
            "nothing is passable"
        );
    }

    #[test]
    #[should_panic(expected = "not inside")]
    fn edits_outside_the_grid_panic() {
        Grid::new_free(3, 3).set_blocked(Rect::new(1, 1, 3, 1), true);
    }

    /// One edit of a random sequence.
    #[derive(Clone, Debug)]
    enum Edit {
        Terrain(Rect, u8),
        Blocked(Rect, bool),
    }

    fn arb_edit(w: u32, h: u32) -> impl Strategy<Value = Edit> {
        let rect = (0..w, 0..h, 0..w, 0..h).prop_map(|(a, b, c, d)| Rect::new(a, b, c, d));
        prop_oneof![
            (rect.clone(), prop::sample::select(b".GSW@x".to_vec()))
                .prop_map(|(r, t)| Edit::Terrain(r, t)),
            (rect, any::<bool>()).prop_map(|(r, b)| Edit::Blocked(r, b)),
        ]
    }

    proptest! {
        #[test]
        fn free_bits_follow_terrain_and_obstructions(
            (w, h, edits) in (1u32..70, 1u32..5).prop_flat_map(|(w, h)| {
                (Just(w), Just(h), prop::collection::vec(arb_edit(w, h), 0..30))
            }),
            with_x in any::<bool>(),
        ) {
            let set = if with_x { TerrainSet::from_codes(b".Gx") } else { TerrainSet::moving_ai() };
            let mut g = Grid::from_terrain(w, h, vec![b'.'; (w * h) as usize], set);
            for edit in edits {
                let before = g.free_count() as i64;
                // Every cell an edit changes goes the same way, so the count is the change.
                let (changed, frees) = match edit {
                    Edit::Terrain(r, t) => (g.set_terrain(r, t), set.contains(t)),
                    Edit::Blocked(r, b) => {
                        let changed = g.set_blocked(r, b);
                        prop_assert!(r.cells().all(|c| g.is_free(c) != b));
                        (changed, !b)
                    }
                };
                let sign = if frees { 1 } else { -1 };
                prop_assert_eq!(g.free_count() as i64 - before, sign * changed as i64);
                let mut count = 0;
                for c in g.bounds().cells() {
                    let expected = set.contains(g.terrain(c)) && !g.is_obstructed(c);
                    prop_assert_eq!(g.is_free(c), expected, "{}", c);
                    count += expected as u64;
                }
                prop_assert_eq!(g.free_count(), count);
            }
        }
    }
}
