//! The movement model: which positions an agent may stand on, which single steps are legal,
//! and what they cost. Every layer of the crate asks this module; nothing else restates
//! the rules.
//!
//! The model itself is documented on [`Movement`], the type users meet.

use super::costs::{CostError, TerrainCosts};
use super::{Grid, Terrain};
use crate::geom::{Cell, Direction};
use std::fmt;

/// The cost of one straight step.
pub const STRAIGHT_COST: f64 = 1.0;
/// The cost of one diagonal step: √2.
pub const DIAGONAL_COST: f64 = std::f64::consts::SQRT_2;

/// The straight or the diagonal value of a per-step quantity, by the kind of step `dir` is:
/// every cost unit below (real, lattice, fixed point) picks through here.
#[inline]
const fn per_step<T: Copy>(dir: Direction, straight: T, diagonal: T) -> T {
    if dir.is_diagonal() {
        diagonal
    } else {
        straight
    }
}

/// The cost of one step in `dir`: [`STRAIGHT_COST`] or [`DIAGONAL_COST`].
///
/// ```
/// use quadpath::{step_cost, DIAGONAL_COST};
/// use quadpath::Direction;
///
/// assert_eq!(step_cost(Direction::E), 1.0);
/// assert_eq!(step_cost(Direction::NE), DIAGONAL_COST);
/// ```
#[inline]
pub const fn step_cost(dir: Direction) -> f64 {
    per_step(dir, STRAIGHT_COST, DIAGONAL_COST)
}

/// Octile distance: the length of the shortest 8-connected path between two cells on an
/// obstacle-free grid, with straight steps costing [`STRAIGHT_COST`] and diagonal steps
/// [`DIAGONAL_COST`].
///
/// ```
/// use quadpath::{octile, Cell};
///
/// // 3 diagonal steps and 2 straight ones.
/// let d = octile(Cell::new(0, 0), Cell::new(5, 3));
/// assert!((d - (2.0 + 3.0 * std::f64::consts::SQRT_2)).abs() < 1e-12);
/// ```
#[inline]
pub fn octile(a: Cell, b: Cell) -> f64 {
    octile_apart(a.x.abs_diff(b.x), a.y.abs_diff(b.y))
}

/// [`octile`] of two cells `dx` columns and `dy` rows apart (the same bits), for loops
/// that have the differences already.
#[inline(always)]
pub(crate) fn octile_apart(dx: u32, dy: u32) -> f64 {
    let (dx, dy) = (dx as f64, dy as f64);
    let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
    hi * STRAIGHT_COST + (DIAGONAL_COST - STRAIGHT_COST) * lo
}

/// Lattice units per straight step, for searches that need exact integer distances
/// (the landmark tables).
pub(crate) const LATTICE_STRAIGHT: u32 = 29;
/// Lattice units per diagonal step: 41/29 = 1.41379… ≤ √2, so a lattice distance never
/// exceeds the true one and bounds built from it stay admissible, without floating-point
/// doubt.
pub(crate) const LATTICE_DIAGONAL: u32 = 41;

/// The cost of one step in `dir` in lattice units ([`LATTICE_STRAIGHT`] or
/// [`LATTICE_DIAGONAL`]).
#[inline]
pub(crate) const fn lattice_step_cost(dir: Direction) -> u32 {
    per_step(dir, LATTICE_STRAIGHT, LATTICE_DIAGONAL)
}

// The fixed-point costs serve only the `pathfinding` A* baseline.
#[cfg(feature = "baseline")]
/// Fixed-point units per cell for searches that need a totally ordered integer cost: at
/// 2^32 per unit the rounding of √2 stays far below 1e-3 over any path that fits in a grid.
pub(crate) const FIXED_POINT_SCALE: f64 = (1u64 << 32) as f64;

#[cfg(feature = "baseline")]
const FIXED_POINT_STRAIGHT: u64 = (STRAIGHT_COST * FIXED_POINT_SCALE) as u64;
#[cfg(feature = "baseline")]
const FIXED_POINT_DIAGONAL: u64 = (DIAGONAL_COST * FIXED_POINT_SCALE) as u64;

/// [`step_cost`] in fixed point (see [`FIXED_POINT_SCALE`]).
#[cfg(feature = "baseline")]
#[inline]
pub(crate) const fn fixed_point_step_cost(dir: Direction) -> u64 {
    per_step(dir, FIXED_POINT_STRAIGHT, FIXED_POINT_DIAGONAL)
}

/// Whether one step from `(x, y)` in `dir` is legal, given which positions are open:
/// the target is open and, for a diagonal, so are both orthogonal positions beside the step
/// (no corner cutting). `(x, y)` itself is not checked.
///
/// This is the crate's one statement of the rule; grids, movement classes, landmark masks,
/// cluster borders and path checks all call it.
#[inline]
pub(crate) fn legal_step(open: impl Fn(i64, i64) -> bool, x: i64, y: i64, dir: Direction) -> bool {
    let (dx, dy) = dir.delta();
    let (tx, ty) = (x + dx as i64, y + dy as i64);
    open(tx, ty) && (!dir.is_diagonal() || (open(tx, y) && open(x, ty)))
}

/// The legal steps out of `(x, y)` as a mask: bit `i` is set when the step in
/// `Direction::ALL[i]` is [legal](legal_step). `(x, y)` itself is not checked.
///
/// Each of the 8 neighbours is probed once, then the rule runs over the probed values, so
/// a caller filling masks for a whole map pays for 8 probes per cell, not 16.
#[inline]
pub(crate) fn legal_steps(open: impl Fn(i64, i64) -> bool, x: i64, y: i64) -> u8 {
    let mut near = [[false; 3]; 3];
    for (dy, row) in near.iter_mut().enumerate() {
        for (dx, slot) in row.iter_mut().enumerate() {
            *slot = (dx, dy) != (1, 1) && open(x + dx as i64 - 1, y + dy as i64 - 1);
        }
    }
    let probed = |nx: i64, ny: i64| near[(ny - y + 1) as usize][(nx - x + 1) as usize];
    Direction::ALL
        .into_iter()
        .enumerate()
        .fold(0, |mask, (i, dir)| {
            mask | (legal_step(probed, x, y, dir) as u8) << i
        })
}

/// A set of [`Terrain`] codes, stored as 256 bits.
///
/// Grids and movement classes use it to say which terrain is passable; it is `Copy` and
/// compares in four word operations.
///
/// ```
/// use quadpath::{Terrain, TerrainSet};
///
/// let mut hover = TerrainSet::moving_ai();
/// hover.insert(Terrain::WATER); // hovercraft cross water
/// assert!(hover.contains(b'W') && hover.contains(Terrain::GROUND) && !hover.contains(b'T'));
/// assert_eq!(hover.iter().map(u8::from).collect::<Vec<u8>>(), b".GSW".to_vec());
/// let land: TerrainSet = b".GS".iter().copied().collect();
/// assert_eq!(land, TerrainSet::moving_ai());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TerrainSet {
    bits: [u64; 4],
}

impl TerrainSet {
    /// The set with no codes.
    pub const fn empty() -> Self {
        TerrainSet { bits: [0; 4] }
    }

    /// The passable characters of the Moving AI benchmark maps: `.` (open ground), `G`
    /// (ground) and `S` (swamp). `@`, `O` (out of bounds), `T` (trees) and `W` (water) are
    /// not in it. Swamp and water are passable from like terrain in the original benchmark
    /// rules, but every published scenario treats them as here.
    ///
    /// This is the crate's one definition of the default free set.
    pub const fn moving_ai() -> Self {
        Self::from_codes(b".GS")
    }

    /// The set of the given codes, as bytes (`b".GS"`).
    pub const fn from_codes(codes: &[u8]) -> Self {
        let mut set = Self::empty();
        let mut i = 0;
        while i < codes.len() {
            set.bits[(codes[i] / 64) as usize] |= 1 << (codes[i] % 64);
            i += 1;
        }
        set
    }

    /// Whether `terrain` is in the set.
    #[inline]
    pub fn contains(&self, terrain: impl Into<Terrain>) -> bool {
        let code = terrain.into().code();
        self.bits[(code / 64) as usize] >> (code % 64) & 1 == 1
    }

    /// Adds `terrain`; returns whether it was not in the set before.
    pub fn insert(&mut self, terrain: impl Into<Terrain>) -> bool {
        let code = terrain.into().code();
        let added = !self.contains(code);
        self.bits[(code / 64) as usize] |= 1 << (code % 64);
        added
    }

    /// Removes `terrain`; returns whether it was in the set.
    pub fn remove(&mut self, terrain: impl Into<Terrain>) -> bool {
        let code = terrain.into().code();
        let present = self.contains(code);
        self.bits[(code / 64) as usize] &= !(1 << (code % 64));
        present
    }

    /// Number of codes in the set.
    pub fn len(&self) -> usize {
        self.bits.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the set has no codes.
    pub fn is_empty(&self) -> bool {
        self.bits == [0; 4]
    }

    /// The terrains in the set, in increasing order of code.
    pub fn iter(&self) -> impl Iterator<Item = Terrain> {
        let set = *self;
        (0..=u8::MAX)
            .filter(move |&code| set.contains(code))
            .map(Terrain)
    }
}

/// Collects [`Terrain`]s, or their bytes.
impl<T: Into<Terrain>> FromIterator<T> for TerrainSet {
    fn from_iter<I: IntoIterator<Item = T>>(codes: I) -> Self {
        let mut set = TerrainSet::empty();
        set.extend(codes);
        set
    }
}

/// Adds [`Terrain`]s, or their bytes.
impl<T: Into<Terrain>> Extend<T> for TerrainSet {
    fn extend<I: IntoIterator<Item = T>>(&mut self, codes: I) {
        for code in codes {
            self.insert(code);
        }
    }
}

impl fmt::Debug for TerrainSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Codes are characters by convention; show them as such.
        f.debug_set()
            .entries(self.iter().map(|terrain| terrain.code() as char))
            .finish()
    }
}

/// Why a [`Movement`] could not be built.
///
/// ```
/// use quadpath::{CostError, Movement, MovementError};
/// let no_size = Movement::default().with_size(0);
/// assert!(matches!(no_size, Err(MovementError::SizeOutOfRange { size: 0, .. })));
/// // Walls are not in the default passable set, so they cannot be given a cost.
/// let wall_cost = Movement::default().with_terrain_cost(b'@', 2.0);
/// assert!(matches!(wall_cost, Err(MovementError::Cost(CostError::Impassable { .. }))));
/// ```
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum MovementError {
    /// The agent size is 0 or larger than [`Movement::MAX_SIZE`].
    #[error("agent size {size} is out of range: it must be 1 to {max}")]
    SizeOutOfRange {
        /// The size asked for.
        size: u32,
        /// The largest size accepted.
        max: u32,
    },
    /// A terrain cost was refused (see [`CostError`]).
    #[error(transparent)]
    Cost(#[from] CostError),
}

/// A movement class: the agent's size and the terrain it may cross.
///
/// # The model
///
/// - **Positions.** `x` is the column and `y` the row; `(0, 0)` is the top-left cell. An agent
///   of size `K` stands at its top-left cell and covers the `K × K` cells from there. A
///   position is *open* when that whole square is inside the map and every cell in it is
///   passable: its terrain code is in the movement's [`TerrainSet`] and no obstruction
///   (a building placed on top of the terrain) stands on it. For `K = 1` with the grid's own
///   set, open is exactly [`Grid::is_free`].
/// - **Steps.** Movement is 8-connected. A straight step `(x, y) → (x + dx, y + dy)` is
///   legal when the target position is open. A diagonal step is legal when the target and
///   both orthogonal positions `(x + dx, y)` and `(x, y + dy)` are open: no corner cutting,
///   so an agent never squeezes between two obstacles that touch at a corner.
/// - **Costs.** A straight step is 1 long and a diagonal one √2 ([`STRAIGHT_COST`],
///   [`DIAGONAL_COST`]), so the length of a shortest path on an open map is the
///   [`octile`] distance.
/// - **Terrain costs.** A class may weigh each passable terrain code with a cost per unit
///   of length ([`TerrainCosts`]: a finite number from [`TerrainCosts::MIN`] (1/64) to
///   [`TerrainCosts::MAX`]; 1 for every code not set). The cost of a position is the
///   largest cost under its footprint: the slowest ground an agent touches sets its pace,
///   so a tank half on a road and half in a swamp moves at swamp speed. A step from `a` to
///   `b` costs its length times `(cost(a) + cost(b)) / 2`: symmetric, so every answer is
///   the same both ways, and with every cost 1 exactly the octile model. Paths report both
///   their geometric [`length`](crate::Path::length) and their
///   [`cost`](crate::Path::cost). The searches' heuristic is the octile distance times the
///   smallest cost of any free cell on the map, which never overestimates.
///
/// Why exact mode stays exact with terrain costs: the quadtree of a map with costs keeps
/// every leaf uniform in cost as well as in openness (the split stopper sees each cell's
/// cost band, see [`QuadTree::build_with_kinds`](crate::quadtree::QuadTree::build_with_kinds)).
/// Inside a free leaf of cost `c` every step costs its length times `c`, so the cheapest
/// way between two of its cells that stays inside is `c ×` the octile distance, and no way
/// is cheaper. Any cheapest path splits into runs inside leaves joined by single legal
/// steps between leaves; the gate graph holds every such step at its true cost and joins
/// every two gates of a leaf at `c ×` octile, so its cheapest route costs no more than the
/// path, and every route of it is a real path. The flow fields rest on the same argument.
///
/// [`Movement`] bundles the agent size and the passable set: it is the description of a
/// movement class (infantry, tanks, hovercraft). An [`HpaMap`](crate::HpaMap) moves the
/// grid's own 1×1 class; a [`World`](crate::World) keeps one search layer per registered
/// class, over the class's [open positions](Movement::open_grid), all updated by one edit.
///
/// The default is a 1×1 agent on the [Moving AI passable set](TerrainSet::moving_ai).
///
/// ```
/// use quadpath::{Movement, TerrainSet};
/// use quadpath::{Cell, Direction, Grid};
///
/// // ....
/// // ..@.
/// // ....
/// let grid = Grid::from_fn(4, 3, |x, y| (x, y) != (2, 1));
/// let tank = Movement::default().with_size(2)?;
/// assert!(tank.is_open(&grid, Cell::new(0, 0)));
/// assert!(!tank.is_open(&grid, Cell::new(1, 0)), "the footprint covers the wall");
/// assert!(!tank.is_open(&grid, Cell::new(3, 0)), "the footprint leaves the map");
/// assert!(tank.can_step(&grid, Cell::new(0, 0), Direction::S));
/// assert!(!tank.can_step(&grid, Cell::new(0, 0), Direction::E));
///
/// // Walls are terrain `@`: a movement class that may cross it sees no wall.
/// let ghost = Movement::default().with_passable(TerrainSet::from_codes(b".@"));
/// assert!(ghost.is_open(&grid, Cell::new(2, 1)));
/// # Ok::<(), quadpath::MovementError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Movement {
    size: u32,
    passable: TerrainSet,
    /// Cost per terrain code (a unit table costs nothing).
    costs: TerrainCosts,
}

// Two classes are equal when they behave the same: same size, same passable codes, and the
// same cost on each of them (however the costs are stored). Costs are checked to be finite,
// so comparing and hashing their bits is a total, consistent equality: movement classes
// can key a cache.
impl PartialEq for Movement {
    fn eq(&self, other: &Self) -> bool {
        self.size == other.size && self.passable == other.passable && self.costs == other.costs
    }
}

impl Eq for Movement {}

impl std::hash::Hash for Movement {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.size.hash(state);
        self.passable.hash(state);
        self.costs.hash(state);
    }
}

/// `2x2 on .GS`: the size and the passable codes, non-printable ones escaped. Error
/// messages name a class this way.
impl fmt::Display for Movement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = format!("{0}x{0} on ", self.size);
        if self.passable.is_empty() {
            text += "no terrain";
        }
        for code in self.passable.iter() {
            text.extend(std::ascii::escape_default(code.code()).map(char::from));
        }
        if !self.has_unit_costs() {
            text += " with terrain costs";
        }
        // Padded as a whole, so that `{:<12}` lines classes up in tables.
        f.pad(&text)
    }
}

impl Default for Movement {
    fn default() -> Self {
        Movement {
            size: 1,
            passable: TerrainSet::moving_ai(),
            costs: TerrainCosts::unit(),
        }
    }
}

impl Movement {
    /// The largest agent size accepted: far beyond any unit, small enough that a footprint
    /// check stays cheap.
    pub const MAX_SIZE: u32 = 1024;

    /// This movement class for agents covering `size × size` cells.
    ///
    /// # Errors
    /// [`MovementError::SizeOutOfRange`] when `size` is 0 or above [`Movement::MAX_SIZE`].
    ///
    /// ```
    /// use quadpath::{Movement, MovementError};
    ///
    /// assert_eq!(Movement::default().with_size(3)?.size(), 3);
    /// assert!(matches!(
    ///     Movement::default().with_size(0),
    ///     Err(MovementError::SizeOutOfRange { size: 0, .. })
    /// ));
    /// # Ok::<(), MovementError>(())
    /// ```
    pub fn with_size(self, size: u32) -> Result<Self, MovementError> {
        if !(1..=Self::MAX_SIZE).contains(&size) {
            return Err(MovementError::SizeOutOfRange {
                size,
                max: Self::MAX_SIZE,
            });
        }
        Ok(Movement { size, ..self })
    }

    /// This movement class crossing the terrain codes in `passable`. Costs set earlier for
    /// codes that are no longer passable are dropped.
    pub fn with_passable(self, passable: TerrainSet) -> Self {
        let costs = self.costs.restricted_to(&passable);
        Movement {
            passable,
            costs,
            ..self
        }
    }

    /// This movement class with `terrain` costing `cost` per unit of step length (see
    /// [the model](Movement#the-model)).
    ///
    /// ```
    /// use quadpath::{Cell, Direction, Grid, Movement};
    /// let mut grid = Grid::new_free(3, 1);
    /// grid.set_terrain(Cell::new(1, 0), b'G');
    /// let wheeled = Movement::default().with_terrain_cost(b'G', 0.5)?;
    /// // From plain ground (1) onto the road (0.5): one cell at the mean of both.
    /// assert_eq!(wheeled.weighted_step_cost(&grid, Cell::new(0, 0), Direction::E), 0.75);
    /// assert!(Movement::default().with_terrain_cost(b'@', 2.0).is_err(), "walls are impassable");
    /// # Ok::<(), quadpath::MovementError>(())
    /// ```
    ///
    /// # Errors
    /// [`MovementError::Cost`] with [`CostError::OutOfRange`] for a cost that is not finite
    /// or lies outside [`TerrainCosts::MIN`]`..=`[`TerrainCosts::MAX`], with
    /// [`CostError::Impassable`] for a code the class cannot stand on, and with
    /// [`CostError::TooManyCosts`] past [`TerrainCosts::MAX_DISTINCT`] distinct costs.
    pub fn with_terrain_cost(
        mut self,
        terrain: impl Into<Terrain>,
        cost: f32,
    ) -> Result<Self, MovementError> {
        let terrain = terrain.into();
        let costs = std::mem::take(&mut self.costs).with(terrain, cost)?;
        if !self.passable.contains(terrain) {
            return Err(CostError::Impassable { terrain }.into());
        }
        Ok(Movement { costs, ..self })
    }

    /// This movement class with every cost of `costs` (see
    /// [`Movement::with_terrain_cost`]), replacing the ones it had.
    ///
    /// # Errors
    /// [`MovementError::Cost`] with [`CostError::Impassable`] when `costs` weighs a code
    /// the class cannot stand on.
    pub fn with_terrain_costs(self, costs: TerrainCosts) -> Result<Self, MovementError> {
        costs.check_passable(&self.passable)?;
        Ok(Movement { costs, ..self })
    }

    /// The cost of `terrain` per unit of step length (1 unless set).
    pub fn terrain_cost(&self, terrain: impl Into<Terrain>) -> f32 {
        self.costs.get(terrain)
    }

    /// The class's terrain costs.
    pub fn terrain_costs(&self) -> &TerrainCosts {
        &self.costs
    }

    /// Whether every terrain costs 1, so that step costs are the plain octile ones.
    pub fn has_unit_costs(&self) -> bool {
        self.costs.is_unit()
    }

    /// The agent's side in cells.
    pub fn size(&self) -> u32 {
        self.size
    }

    /// The terrain codes the agent may stand on.
    pub fn passable(&self) -> &TerrainSet {
        &self.passable
    }

    /// Whether the agent may stand at `cell` (its top-left cell): the whole footprint is on
    /// the map, and every cell in it has passable terrain and no obstruction.
    pub fn is_open(&self, grid: &Grid, cell: Cell) -> bool {
        self.is_open_at(grid, cell.x as i64, cell.y as i64)
    }

    /// [`Movement::is_open`] on signed coordinates, so that a step can probe outside the map.
    fn is_open_at(&self, grid: &Grid, x: i64, y: i64) -> bool {
        let k = self.size as i64;
        if x < 0 || y < 0 || x + k > grid.width() as i64 || y + k > grid.height() as i64 {
            return false;
        }
        (y..y + k).all(|cy| {
            (x..x + k).all(|cx| grid.cell_passable_for(&self.passable, cx as u32, cy as u32))
        })
    }

    /// The grid of this class's open positions: a cell of it is free exactly when an agent
    /// of this class may stand there ([`Movement::is_open`]). Every search of this crate
    /// moves a 1×1 agent over free cells with the rule of [the model](Movement#the-model),
    /// and that rule over open positions is the footprint rule of a `K × K` agent, so a
    /// search structure built over this grid ([`HpaMap`](crate::HpaMap), or a
    /// [`World`](crate::World) layer) serves the class exactly.
    ///
    /// ```
    /// use quadpath::{Cell, Grid, Movement};
    ///
    /// // A 1-cell gap in a wall: infantry passes, a 2×2 tank does not.
    /// let grid = Grid::from_fn(8, 8, |x, y| x != 4 || y == 3);
    /// let tank = Movement::default().with_size(2)?;
    /// let open = tank.open_grid(&grid);
    /// assert!(open.is_free(Cell::new(0, 0)) && !open.is_free(Cell::new(3, 3)));
    /// // Columns 0..=2 left of the wall and 5..=6 right of it, rows 0..=6: cut apart.
    /// assert_eq!(open.free_count(), 3 * 7 + 2 * 7);
    /// # Ok::<(), quadpath::MovementError>(())
    /// ```
    pub fn open_grid(&self, grid: &Grid) -> Grid {
        if self.size == 1 {
            return Grid::from_fn(grid.width(), grid.height(), |x, y| {
                grid.cell_passable_for(&self.passable, x, y)
            });
        }
        let field = super::ClearanceField::new(grid, self.passable, self.size);
        Grid::from_fn(grid.width(), grid.height(), |x, y| {
            field.get(Cell::new(x, y)) >= self.size
        })
    }

    /// Whether one step from `from` in `dir` is [legal](Movement#the-model) for this agent.
    /// `from` itself is not checked.
    pub fn can_step(&self, grid: &Grid, from: Cell, dir: Direction) -> bool {
        legal_step(
            |x, y| self.is_open_at(grid, x, y),
            from.x as i64,
            from.y as i64,
            dir,
        )
    }

    /// The length of one step in `dir`: 1 or √2 (see [`step_cost`]), whatever the terrain.
    pub fn step_cost(&self, dir: Direction) -> f64 {
        step_cost(dir)
    }

    /// The cost of the position at `cell`: the largest terrain cost under the footprint
    /// (see [the model](Movement#the-model)).
    /// The position should be open; cells off the map are skipped.
    pub fn position_cost(&self, grid: &Grid, cell: Cell) -> f64 {
        if self.costs.is_unit() {
            return 1.0;
        }
        self.footprint(grid, cell)
            .map(|c| self.terrain_cost(grid.terrain(c)))
            .fold(TerrainCosts::MIN, f32::max) as f64
    }

    /// The cells under the footprint of an agent at `cell` that lie on `grid`, row by row.
    pub(crate) fn footprint(&self, grid: &Grid, cell: Cell) -> impl Iterator<Item = Cell> {
        let k = self.size;
        let (x2, y2) = (
            (cell.x + k).min(grid.width()),
            (cell.y + k).min(grid.height()),
        );
        (cell.y..y2).flat_map(move |y| (cell.x..x2).map(move |x| Cell::new(x, y)))
    }

    /// The cost of the step from `from` in `dir` under [the model](Movement#the-model):
    /// its length times the mean of both positions' costs. The step should be legal
    /// ([`Movement::can_step`]).
    pub fn weighted_step_cost(&self, grid: &Grid, from: Cell, dir: Direction) -> f64 {
        let length = step_cost(dir);
        if self.costs.is_unit() {
            return length;
        }
        let to = from.step(dir).expect("a legal step stays on the map");
        length * (self.position_cost(grid, from) + self.position_cost(grid, to)) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::Rect;
    use proptest::prelude::*;

    #[test]
    fn costs_and_lattice() {
        assert_eq!(step_cost(Direction::N), STRAIGHT_COST);
        assert_eq!(step_cost(Direction::SW), DIAGONAL_COST);
        assert!((LATTICE_DIAGONAL as f64 / LATTICE_STRAIGHT as f64) <= DIAGONAL_COST);
        assert_eq!(lattice_step_cost(Direction::NW), LATTICE_DIAGONAL);
        #[cfg(feature = "baseline")]
        assert_eq!(fixed_point_step_cost(Direction::E), 1 << 32);
    }

    #[test]
    fn octile_matches_step_counting() {
        // 3 diagonal + 2 straight steps.
        let d = octile(Cell::new(0, 0), Cell::new(5, 3));
        assert!((d - (2.0 + 3.0 * DIAGONAL_COST)).abs() < 1e-12);
        assert_eq!(octile(Cell::new(4, 4), Cell::new(4, 4)), 0.0);
    }

    #[test]
    fn terrain_set_basics() {
        let mut s = TerrainSet::from_codes(b"a\xff\x00");
        assert_eq!(s.len(), 3);
        assert!(s.contains(0) && s.contains(255) && s.contains(b'a') && !s.contains(b'b'));
        assert!(s.insert(b'b') && !s.insert(b'b'));
        assert!(s.remove(0) && !s.remove(0));
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![b'a', b'b', 255]);
        assert_eq!(format!("{:?}", TerrainSet::moving_ai()), "{'.', 'G', 'S'}");
        let hover = Movement::default().with_passable(TerrainSet::from_codes(b".W\x01"));
        assert_eq!(format!("[{:<14}]", hover), "[1x1 on \\x01.W ]");
        let empty = Movement::default().with_passable(TerrainSet::empty());
        assert_eq!(empty.to_string(), "1x1 on no terrain");
        assert!(TerrainSet::empty().is_empty() && !s.is_empty());
        assert_eq!(TerrainSet::default(), TerrainSet::empty());
    }

    #[test]
    fn sizes_out_of_range_are_errors() {
        for size in [0, Movement::MAX_SIZE + 1, u32::MAX] {
            assert_eq!(
                Movement::default().with_size(size),
                Err(MovementError::SizeOutOfRange {
                    size,
                    max: Movement::MAX_SIZE
                })
            );
        }
        assert_eq!(
            Movement::default()
                .with_size(Movement::MAX_SIZE)
                .map(|m| m.size()),
            Ok(Movement::MAX_SIZE)
        );
    }

    #[test]
    fn obstruction_closes_positions_for_every_class() {
        let mut g = Grid::new_free(4, 4);
        g.set_terrain(Cell::new(3, 3), b'W');
        g.set_blocked(Cell::new(1, 1), true);
        let amphibious = Movement::default().with_passable(TerrainSet::from_codes(b".W"));
        assert!(amphibious.is_open(&g, Cell::new(3, 3)));
        assert!(
            !amphibious.is_open(&g, Cell::new(1, 1)),
            "a building stays a building"
        );
        let big = amphibious.with_size(2).unwrap();
        assert!(big.is_open(&g, Cell::new(2, 2)));
        assert!(!big.is_open(&g, Cell::new(0, 0)));
        g.set_blocked(Rect::new(1, 1, 1, 1), false);
        assert!(big.is_open(&g, Cell::new(0, 0)));
    }

    /// A grid of terrain drawn from `.`, `G` and `@`, `W`, with some cells obstructed.
    #[test]
    fn terrain_costs_are_checked() {
        let m = Movement::default();
        assert!(m.has_unit_costs());
        for bad in [0.0, -1.0, f32::NAN, f32::INFINITY, 1.0 / 128.0, 2.0e6] {
            assert!(
                matches!(
                    m.clone().with_terrain_cost(b'S', bad),
                    Err(MovementError::Cost(CostError::OutOfRange {
                        terrain: Terrain(b'S'),
                        ..
                    }))
                ),
                "{bad}"
            );
        }
        assert_eq!(
            m.clone().with_terrain_cost(b'W', 2.0),
            Err(MovementError::Cost(CostError::Impassable {
                terrain: Terrain(b'W')
            }))
        );
        let swamp = m.clone().with_terrain_cost(b'S', 3.0).unwrap();
        assert!(!swamp.has_unit_costs());
        assert_eq!(
            (swamp.terrain_cost(b'S'), swamp.terrain_cost(b'.')),
            (3.0, 1.0)
        );
        // Dropping a code from the passable set drops its cost, and equal classes hash equal.
        let dry = swamp.clone().with_passable(TerrainSet::from_codes(b".G"));
        assert_eq!(dry.terrain_cost(b'S'), 1.0);
        assert_eq!(dry, m.clone().with_passable(TerrainSet::from_codes(b".G")));
        let hash = |m: &Movement| {
            use std::hash::{BuildHasher, BuildHasherDefault};
            BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(m)
        };
        assert_eq!(
            hash(&dry),
            hash(&m.clone().with_passable(TerrainSet::from_codes(b".G")))
        );
        assert_ne!(swamp, m);
    }

    #[test]
    fn a_large_agent_pays_for_the_worst_ground_under_it() {
        // ..S
        // ...
        let mut g = Grid::new_free(3, 2);
        g.set_terrain(Cell::new(2, 0), b'S');
        let m = Movement::default()
            .with_size(2)
            .unwrap()
            .with_terrain_cost(b'S', 4.0)
            .unwrap();
        assert_eq!(m.position_cost(&g, Cell::new(0, 0)), 1.0);
        assert_eq!(m.position_cost(&g, Cell::new(1, 0)), 4.0);
        assert_eq!(m.weighted_step_cost(&g, Cell::new(0, 0), Direction::E), 2.5);
    }

    fn arb_grid() -> impl Strategy<Value = Grid> {
        (1u32..9, 1u32..9).prop_flat_map(|(w, h)| {
            let n = (w * h) as usize;
            (
                prop::collection::vec(prop::sample::select(b".GS@W".to_vec()), n),
                prop::collection::vec(prop::bool::weighted(0.15), n),
            )
                .prop_map(move |(codes, obstructed)| {
                    let mut g = Grid::from_terrain(w, h, codes, TerrainSet::moving_ai());
                    for (i, &o) in obstructed.iter().enumerate() {
                        if o {
                            g.set_blocked(Cell::new(i as u32 % w, i as u32 / w), true);
                        }
                    }
                    g
                })
        })
    }

    /// Whether a `k × k` agent may stand at `(x, y)`, by the rules read plainly.
    fn oracle_open(g: &Grid, set: &TerrainSet, k: i64, x: i64, y: i64) -> bool {
        let mut open = x >= 0 && y >= 0;
        for cy in y..y + k {
            for cx in x..x + k {
                open = open
                    && cx < g.width() as i64
                    && cy < g.height() as i64
                    && !g.is_obstructed(Cell::new(cx as u32, cy as u32))
                    && set.contains(g.terrain(Cell::new(cx as u32, cy as u32)));
            }
        }
        open
    }

    /// Whether a `k × k` agent may step from `(x, y)` by `(dx, dy)`, by the rules read
    /// plainly.
    fn oracle_step(g: &Grid, set: &TerrainSet, k: i64, x: i64, y: i64, dx: i64, dy: i64) -> bool {
        let open = |x, y| oracle_open(g, set, k, x, y);
        open(x + dx, y + dy) && (dx == 0 || dy == 0 || (open(x + dx, y) && open(x, y + dy)))
    }

    proptest! {
        #[test]
        fn unit_movement_agrees_with_the_grid(g in arb_grid()) {
            let m = Movement::default().with_passable(*g.passable());
            for c in g.bounds().cells() {
                prop_assert_eq!(m.is_open(&g, c), g.is_free(c));
                for d in Direction::ALL {
                    prop_assert_eq!(m.can_step(&g, c, d), g.can_step(c, d), "{} {:?}", c, d);
                }
            }
        }

        #[test]
        fn large_agents_follow_the_rules(g in arb_grid(), k in 2u32..4, water in any::<bool>()) {
            let set = if water { TerrainSet::from_codes(b".GW") } else { TerrainSet::moving_ai() };
            let m = Movement::default().with_size(k).unwrap().with_passable(set);
            for c in g.bounds().cells() {
                let (x, y) = (c.x as i64, c.y as i64);
                prop_assert_eq!(m.is_open(&g, c), oracle_open(&g, &set, k as i64, x, y));
                for d in Direction::ALL {
                    let (dx, dy) = d.delta();
                    prop_assert_eq!(
                        m.can_step(&g, c, d),
                        oracle_step(&g, &set, k as i64, x, y, dx as i64, dy as i64),
                        "{} {:?}", c, d
                    );
                }
            }
        }

        #[test]
        fn weighted_steps_are_symmetric_and_follow_the_formula(
            g in arb_grid(),
            road in 1u32..=256,
            swamp in 64u32..=1024,
        ) {
            // Costs as exact binary fractions, so that the expected values are exact too.
            let (road, swamp) = (road as f32 / 64.0, swamp as f32 / 64.0);
            let m = Movement::default()
                .with_terrain_cost(b'G', road)
                .unwrap()
                .with_terrain_cost(b'S', swamp)
                .unwrap();
            let cost = |c: Cell| match g.terrain(c).code() {
                b'G' => road as f64,
                b'S' => swamp as f64,
                _ => 1.0,
            };
            for c in g.free_cells() {
                for d in Direction::ALL {
                    if !m.can_step(&g, c, d) {
                        continue;
                    }
                    let n = c.step(d).unwrap();
                    let there = m.weighted_step_cost(&g, c, d);
                    let length = if d.is_diagonal() { std::f64::consts::SQRT_2 } else { 1.0 };
                    prop_assert!((there - length * (cost(c) + cost(n)) / 2.0).abs() < 1e-12);
                    prop_assert_eq!(there, m.weighted_step_cost(&g, n, d.opposite()));
                    prop_assert_eq!(
                        Movement::default().weighted_step_cost(&g, c, d),
                        step_cost(d)
                    );
                }
            }
        }

        #[test]
        fn step_mask_is_the_eight_steps(open_cells in prop::collection::vec(any::<bool>(), 9)) {
            // A 3×3 neighbourhood around (1, 1); outside it nothing is open.
            let open = |x: i64, y: i64| {
                (0..3).contains(&x) && (0..3).contains(&y) && open_cells[(y * 3 + x) as usize]
            };
            let mask = legal_steps(open, 1, 1);
            for (i, d) in Direction::ALL.into_iter().enumerate() {
                prop_assert_eq!(mask >> i & 1 == 1, legal_step(open, 1, 1, d), "{:?}", d);
            }
        }
    }
}
