//! The legal steps out of every cell of a landmark table's map and their weights in table
//! units ([`Steps`]): kept apart from the table, as the one model of movement and cost
//! that the column searches, the flood and the repairs after edits all read.

use crate::geom::{Cell, Direction};
use crate::grid::movement::{
    lattice_step_cost, legal_steps, LATTICE_DIAGONAL as DIAGONAL, LATTICE_STRAIGHT as STRAIGHT,
};
use crate::grid::Grid;
use crate::hpa::costs::CostBands;

/// The legal steps out of every cell, one bit per [`Direction::ALL`] entry (none for a
/// wall): the build runs a dozen searches over the whole grid, and this turns each step
/// test into one bit test without bounds checks. Kept up to date through edits, it also
/// serves the repairs and recomputations after them.
#[derive(Clone, Debug, Default)]
pub(super) struct Steps {
    pub(super) width: usize,
    pub(super) masks: Vec<u8>,
    /// Index offset of a step in each direction.
    offsets: [isize; 8],
    /// Each cell's cost in units of `1/Q` (see the module docs), rounded down; empty on a
    /// map without terrain costs, whose steps weigh the plain lattice lengths.
    pub(super) weights: Vec<u32>,
    /// Units of `1/Q` per unit of cost: `Q`.
    quantum: f64,
    /// Cells per table unit: what turns a column's difference into a bound.
    pub(super) per_unit: f64,
}

/// A cell's cost counts this many units for the cheapest terrain: 8 keeps the bounds within
/// an eighth of the true cost on the cheapest ground, and the costs 0.5, 1, 2, 4 exact.
const CHEAPEST_UNITS: f64 = 8.0;
/// The most units a cell's cost counts: dearer ground is counted at this, which only
/// loosens the bound, so that the bucket queue's ring stays small.
const DEAREST_UNITS: u32 = 512;

impl Steps {
    pub(super) fn new(grid: &Grid, costs: &CostBands) -> Self {
        let mut steps = Self::unfilled(grid, costs);
        for c in grid.free_cells() {
            steps.fill_cell(grid, costs, c);
        }
        steps
    }

    /// The steps of `grid` with every cell still a wall: to be filled by
    /// [`Steps::fill`]. Zeroed allocations only.
    pub(super) fn unfilled(grid: &Grid, costs: &CostBands) -> Self {
        let (w, h) = (grid.width() as usize, grid.height() as usize);
        let masks = vec![0u8; w * h];
        let offsets = Direction::ALL.map(|d| {
            let (dx, dy) = d.delta();
            dy as isize * w as isize + dx as isize
        });
        let mut steps = Steps {
            width: w,
            masks,
            offsets,
            weights: Vec::new(),
            quantum: 1.0,
            per_unit: 1.0 / STRAIGHT as f64,
        };
        if !costs.is_unit() {
            steps.quantum = CHEAPEST_UNITS / costs.min();
            steps.per_unit = 1.0 / (STRAIGHT as f64 * steps.quantum);
            steps.weights = vec![0; w * h];
        }
        steps
    }

    /// Fills in the cells of indexes `range` from `grid`.
    pub(super) fn fill(&mut self, grid: &Grid, costs: &CostBands, range: std::ops::Range<usize>) {
        for i in range {
            self.fill_cell(grid, costs, self.cell(i));
        }
    }

    /// Fills in cell `c`'s steps and weight from `grid`.
    fn fill_cell(&mut self, grid: &Grid, costs: &CostBands, c: Cell) {
        let i = c.y as usize * self.width + c.x as usize;
        self.masks[i] = if grid.is_free(c) {
            Self::mask(grid, c)
        } else {
            0
        };
        if !self.weights.is_empty() {
            self.weights[i] = self.units(grid, costs, c);
        }
    }

    /// Free cell `c`'s cost in units (see `weights`).
    fn units(&self, grid: &Grid, costs: &CostBands, c: Cell) -> u32 {
        if !grid.is_free(c) {
            return 0;
        }
        ((costs.cell_cost(grid, c) * self.quantum) as u32).min(DEAREST_UNITS)
    }

    /// The weight of the legal step in `dir` from cell index `i` to `j`, in table units.
    #[inline]
    pub(super) fn weight(&self, i: usize, j: usize, dir: Direction) -> u32 {
        let length = lattice_step_cost(dir);
        if self.weights.is_empty() {
            return length;
        }
        length * (self.weights[i] + self.weights[j]) / 2
    }

    /// The largest weight a step can have: what the bucket queue's ring must span.
    pub(super) fn max_weight(&self) -> u32 {
        if self.weights.is_empty() {
            DIAGONAL
        } else {
            DIAGONAL * DEAREST_UNITS
        }
    }

    /// The legal steps out of `c` (none if it is a wall).
    #[inline]
    fn mask(grid: &Grid, c: Cell) -> u8 {
        if !grid.is_free(c) {
            return 0;
        }
        legal_steps(|x, y| grid.is_free_at(x, y), c.x as i64, c.y as i64)
    }

    /// Refreshes the masks an edit of `c` can change (its own and its neighbours') and its
    /// weight.
    pub(super) fn update(&mut self, grid: &Grid, costs: &CostBands, c: Cell) {
        if !self.weights.is_empty() {
            self.weights[c.y as usize * self.width + c.x as usize] = self.units(grid, costs, c);
        }
        for dy in -1..=1i64 {
            for dx in -1..=1i64 {
                let (x, y) = (c.x as i64 + dx, c.y as i64 + dy);
                if grid.contains_at(x, y) {
                    let n = Cell::new(x as u32, y as u32);
                    self.masks[y as usize * self.width + x as usize] = Self::mask(grid, n);
                }
            }
        }
    }

    /// The cells one legal step from cell index `i`, with the step's cost in table units.
    #[inline]
    pub(super) fn from(&self, i: usize) -> impl Iterator<Item = (usize, u32)> + '_ {
        let mut m = self.masks[i];
        std::iter::from_fn(move || {
            (m != 0).then(|| {
                let d = m.trailing_zeros() as usize;
                m &= m - 1;
                let j = i.wrapping_add_signed(self.offsets[d]);
                (j, self.weight(i, j, Direction::ALL[d]))
            })
        })
    }

    pub(super) fn cell(&self, i: usize) -> Cell {
        Cell::new((i % self.width) as u32, (i / self.width) as u32)
    }
}
