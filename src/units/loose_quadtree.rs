//! The loose quadtree: every level of the tree stored as a flat grid of list heads, the
//! level and cell of a box found by arithmetic rather than by descent.
//!
//! Level `L` cuts the world into cells of side `s = S / 2^L` (`S` the world's longer side).
//! A box of extent `e = max(width, height)` goes to the deepest level whose cells are at
//! least `e` wide, in the cell holding its centre. Its box then lies within the cell grown
//! by `s / 2` on every side, the cell's *loose* bounds, twice its side, which are fixed:
//! nothing moves up or down the tree when units move, and a unit only changes cells when
//! its centre crosses a cell border of its level. Huge units live on coarse levels, where
//! a query looks at a handful of cells, so they cost the small units nothing.

use super::layout::{cell_coord, check_world, grid_dims, square_area, Layout, Sealed, MAX_CELLS};
use super::{Aabb, UnitError};
use std::mem::size_of;

/// The most levels (a finest cell of `S / 2^MAX_DEPTH`).
const MAX_DEPTH: usize = 15;

/// A loose quadtree over a `width`×`height` world: see the [module docs](super) for when it
/// wins. Build one with [`LooseQuadtree::new`] and the `with_*` methods, then hand it to
/// [`UnitIndex::new`](super::UnitIndex::new).
///
/// ```
/// use quadpath::units::{LooseQuadtree, UnitIndex};
///
/// let layout = LooseQuadtree::new(1024.0, 768.0).with_finest_cell(8.0);
/// let index = UnitIndex::new(layout)?;
/// assert!(index.is_empty());
/// # Ok::<(), quadpath::units::UnitError>(())
/// ```
#[derive(Clone, Debug)]
pub struct LooseQuadtree {
    width: f32,
    height: f32,
    finest_cell: f32,
    /// Per level: cell side, its inverse, columns, rows, first cell number, unit count.
    levels: Vec<Level>,
    /// Loose margin slack for rounding: the queries widen the margin by it.
    slack: f32,
}

#[derive(Clone, Copy, Debug)]
struct Level {
    side: f32,
    inv_side: f32,
    cols: u32,
    rows: u32,
    first: u32,
    units: u32,
    /// The largest half width or half height filed on this level since the last reset: a
    /// box's centre is in its cell, so it reaches at most this far out of it. Usually far
    /// below the `side / 2` the level allows, which lets queries look at fewer cells.
    reach: f32,
}

impl LooseQuadtree {
    /// A loose quadtree over `[0, width]×[0, height]`, with finest cells about 8 world units
    /// wide. Checked by [`UnitIndex::new`](super::UnitIndex::new).
    ///
    /// ```
    /// # use quadpath::units::{LooseQuadtree, UnitIndex};
    /// assert!(UnitIndex::new(LooseQuadtree::new(f32::NAN, 10.0)).is_err());
    /// ```
    pub fn new(width: f32, height: f32) -> Self {
        Self {
            width,
            height,
            finest_cell: 8.0,
            levels: Vec::new(),
            slack: 0.0,
        }
    }

    /// The side the finest cells should have, rounded to the nearest `S / 2^L`. About twice
    /// the typical unit's size is a good start: smaller cells hold fewer units each but
    /// queries visit more of them.
    ///
    /// ```
    /// # use quadpath::units::{LooseQuadtree, UnitIndex};
    /// let index = UnitIndex::new(LooseQuadtree::new(1000.0, 1000.0).with_finest_cell(4.0))?;
    /// # Ok::<(), quadpath::units::UnitError>(())
    /// ```
    pub fn with_finest_cell(mut self, side: f32) -> Self {
        self.finest_cell = side;
        self
    }

    fn level_of_cell(&self, cell: u32) -> usize {
        // Few levels, numbered from the root: a linear scan beats a binary search.
        self.levels
            .iter()
            .rposition(|l| l.first <= cell)
            .unwrap_or(0)
    }
}

impl Layout for LooseQuadtree {}

impl Sealed for LooseQuadtree {
    fn init(&mut self) -> Result<usize, UnitError> {
        check_world(self.width, self.height)?;
        let longer = self.width.max(self.height);
        grid_dims(self.finest_cell, self.width, self.height)?;
        let depth = (f64::from(longer) / f64::from(self.finest_cell))
            .log2()
            .round()
            .clamp(0.0, MAX_DEPTH as f64) as usize;
        self.levels.clear();
        let mut first = 0u64;
        for level in 0..=depth {
            let side = (f64::from(longer) / (1u64 << level) as f64) as f32;
            let (cols, rows) = grid_dims(side, self.width, self.height)?;
            self.levels.push(Level {
                side,
                inv_side: 1.0 / side,
                cols,
                rows,
                first: first as u32,
                units: 0,
                reach: 0.0,
            });
            first += u64::from(cols) * u64::from(rows);
            if first > MAX_CELLS {
                return Err(UnitError::BadCellSize {
                    side: self.finest_cell,
                    width: self.width,
                    height: self.height,
                    max_cells: MAX_CELLS,
                });
            }
        }
        // A few hundred ulps of the world's size: centres and cell numbers are rounded,
        // and the loose margin must still cover every box in the cell.
        self.slack = longer * 1e-5;
        Ok(first as usize)
    }

    fn world(&self) -> (f32, f32) {
        (self.width, self.height)
    }

    #[inline]
    fn cell_of(&self, aabb: &Aabb) -> u32 {
        let extent = aabb.width().max(aabb.height());
        // The deepest level whose cells are at least `extent` wide.
        let mut level = self.levels.len() - 1;
        while level > 0 && self.levels[level].side < extent {
            level -= 1;
        }
        let l = &self.levels[level];
        let (cx, cy) = aabb.centre();
        l.first + cell_coord(cy, l.inv_side, l.rows) * l.cols + cell_coord(cx, l.inv_side, l.cols)
    }

    fn arrived(&mut self, cell: u32, aabb: &Aabb) {
        let index = self.level_of_cell(cell);
        let level = &mut self.levels[index];
        level.units += 1;
        level.reach = level.reach.max(aabb.width().max(aabb.height()) * 0.5);
    }

    #[inline]
    fn moved_within(&mut self, cell: u32, aabb: &Aabb) {
        // Cells are fixed: a unit that stays in its cell only may reach further (a resize).
        let half = aabb.width().max(aabb.height()) * 0.5;
        if half > self.levels[self.levels.len() - 1].reach {
            let level = self.level_of_cell(cell);
            self.levels[level].reach = self.levels[level].reach.max(half);
        }
    }

    fn left(&mut self, cell: u32, _now_empty: bool) {
        let level = self.level_of_cell(cell);
        self.levels[level].units -= 1;
    }

    fn candidates(&self, area: &Aabb, first_cell: u32, mut visit: impl FnMut(u32)) {
        let start = self.level_of_cell(first_cell);
        for l in &self.levels[start..] {
            if l.units == 0 {
                continue;
            }
            let margin = l.reach + self.slack;
            let x0 = cell_coord(area.min_x - margin, l.inv_side, l.cols);
            let x1 = cell_coord(area.max_x + margin, l.inv_side, l.cols);
            let y0 = cell_coord(area.min_y - margin, l.inv_side, l.rows);
            let y1 = cell_coord(area.max_y + margin, l.inv_side, l.rows);
            for y in y0..=y1 {
                let row = l.first + y * l.cols;
                for x in x0..=x1 {
                    if row + x >= first_cell {
                        visit(row + x);
                    }
                }
            }
        }
    }

    fn reset(&mut self) {
        for l in &mut self.levels {
            l.units = 0;
            l.reach = 0.0;
        }
    }

    fn memory_bytes(&self) -> usize {
        self.levels.capacity() * size_of::<Level>()
    }

    fn cell_area(&self, cell: u32) -> Aabb {
        let level = &self.levels[self.level_of_cell(cell)];
        let at = cell - level.first;
        square_area(
            (at % level.cols, at / level.cols),
            level.side,
            (self.width, self.height),
        )
    }
}
