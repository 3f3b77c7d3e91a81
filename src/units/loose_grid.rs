//! The loose/tight grid pair: units filed by centre into a fine grid of *loose* cells whose
//! bounds grow to fit what they hold, and a coarse *tight* grid whose cells list the loose
//! cells their bounds reach into.
//!
//! A query walks the tight cells it overlaps, checks the bounds of the loose cells listed
//! there, and walks only the units of those that intersect it. Growing a loose cell's bounds
//! when a unit arrives or grows only adds entries to tight lists; bounds never shrink until
//! [`UnitIndex::cleanup`](super::UnitIndex::cleanup) recomputes them, so a unit leaving a cell
//! costs nothing and the bounds stay correct (if loose) in between.

use super::layout::{cell_coord, check_world, for_each_in_range, grid_dims, Layout, Sealed};
use super::store::NIL;
use super::{Aabb, UnitError};
use std::mem::size_of;

/// A loose/tight grid pair over a `width`×`height` world: see the [module docs](super) for
/// when it wins. Build one with [`LooseGrid::new`] and the `with_*` methods, then hand it to
/// [`UnitIndex::new`](super::UnitIndex::new).
///
/// ```
/// use quadpath::units::{LooseGrid, UnitIndex};
///
/// let layout = LooseGrid::new(1024.0, 768.0).with_cell(8.0).with_tight_factor(4);
/// let index = UnitIndex::new(layout)?;
/// assert!(index.is_empty());
/// # Ok::<(), quadpath::units::UnitError>(())
/// ```
#[derive(Clone, Debug)]
pub struct LooseGrid {
    width: f32,
    height: f32,
    cell: f32,
    tight_factor: u32,
    loose: Axis2,
    tight: Axis2,
    /// Per loose cell: the union of the boxes filed there since the last cleanup.
    bounds: Vec<Aabb>,
    /// Per tight cell: the first node of its list of loose cells.
    tight_heads: Vec<u32>,
    /// List nodes `(loose cell, next node)`, in one pool cleared by each cleanup: between
    /// cleanups lists only grow, so no node is ever freed alone.
    nodes: Vec<(u32, u32)>,
}

/// The shape of one of the two grids.
#[derive(Clone, Copy, Debug, Default)]
struct Axis2 {
    inv_side: f32,
    cols: u32,
    rows: u32,
}

impl Axis2 {
    fn new(side: f32, (cols, rows): (u32, u32)) -> Self {
        Self {
            inv_side: 1.0 / side,
            cols,
            rows,
        }
    }

    /// The inclusive column and row ranges of the cells `area` overlaps.
    #[inline]
    fn range(&self, area: &Aabb) -> ((u32, u32), (u32, u32)) {
        (
            (
                cell_coord(area.min_x, self.inv_side, self.cols),
                cell_coord(area.max_x, self.inv_side, self.cols),
            ),
            (
                cell_coord(area.min_y, self.inv_side, self.rows),
                cell_coord(area.max_y, self.inv_side, self.rows),
            ),
        )
    }
}

impl LooseGrid {
    /// A loose/tight grid over `[0, width]×[0, height]` with loose cells 8 world units wide
    /// and tight cells 4 loose cells wide. Checked by [`UnitIndex::new`](super::UnitIndex::new).
    ///
    /// ```
    /// # use quadpath::units::{LooseGrid, UnitIndex};
    /// assert!(UnitIndex::new(LooseGrid::new(100.0, -1.0)).is_err());
    /// ```
    pub fn new(width: f32, height: f32) -> Self {
        Self {
            width,
            height,
            cell: 8.0,
            tight_factor: 4,
            loose: Axis2::default(),
            tight: Axis2::default(),
            bounds: Vec::new(),
            tight_heads: Vec::new(),
            nodes: Vec::new(),
        }
    }

    /// The side of a loose cell. About twice the typical unit's size is a good start.
    ///
    /// ```
    /// # use quadpath::units::{LooseGrid, UnitIndex};
    /// let index = UnitIndex::new(LooseGrid::new(1000.0, 1000.0).with_cell(4.0))?;
    /// # Ok::<(), quadpath::units::UnitError>(())
    /// ```
    pub fn with_cell(mut self, side: f32) -> Self {
        self.cell = side;
        self
    }

    /// How many loose cells wide a tight cell is (at least 1). Larger tight cells make
    /// shorter lists to update when bounds grow, and longer ones for queries to scan.
    ///
    /// ```
    /// # use quadpath::units::{LooseGrid, UnitIndex};
    /// let index = UnitIndex::new(LooseGrid::new(1000.0, 1000.0).with_tight_factor(2))?;
    /// # Ok::<(), quadpath::units::UnitError>(())
    /// ```
    pub fn with_tight_factor(mut self, factor: u32) -> Self {
        self.tight_factor = factor.max(1);
        self
    }

    /// Lists `cell` in every tight cell of `range` outside `old` (the range it is already
    /// listed in, if any).
    fn list(
        &mut self,
        cell: u32,
        range: ((u32, u32), (u32, u32)),
        old: Option<((u32, u32), (u32, u32))>,
    ) {
        let cols = self.tight.cols;
        let (heads, nodes) = (&mut self.tight_heads, &mut self.nodes);
        for_each_in_range(range.0, range.1, |x, y| {
            if let Some(((ox0, ox1), (oy0, oy1))) = old {
                if (ox0..=ox1).contains(&x) && (oy0..=oy1).contains(&y) {
                    return;
                }
            }
            let t = (y * cols + x) as usize;
            nodes.push((cell, heads[t]));
            heads[t] = nodes.len() as u32 - 1;
        });
    }

    fn grow(&mut self, cell: u32, aabb: &Aabb) {
        let old = self.bounds[cell as usize];
        if old.contains(aabb) {
            return;
        }
        let grown = old.union(aabb);
        self.bounds[cell as usize] = grown;
        let was = (old.min_x <= old.max_x).then(|| self.tight.range(&old));
        let now = self.tight.range(&grown);
        if was != Some(now) {
            self.list(cell, now, was);
        }
    }
}

impl Layout for LooseGrid {}

impl Sealed for LooseGrid {
    fn init(&mut self) -> Result<usize, UnitError> {
        check_world(self.width, self.height)?;
        let loose = grid_dims(self.cell, self.width, self.height)?;
        let tight_side = self.cell * self.tight_factor as f32;
        let tight = grid_dims(tight_side, self.width, self.height)?;
        self.loose = Axis2::new(self.cell, loose);
        self.tight = Axis2::new(tight_side, tight);
        let cells = loose.0 as usize * loose.1 as usize;
        self.bounds = vec![Aabb::EMPTY; cells];
        self.tight_heads = vec![NIL; tight.0 as usize * tight.1 as usize];
        self.nodes.clear();
        Ok(cells)
    }

    fn world(&self) -> (f32, f32) {
        (self.width, self.height)
    }

    #[inline]
    fn cell_of(&self, aabb: &Aabb) -> u32 {
        let (cx, cy) = aabb.centre();
        let l = &self.loose;
        cell_coord(cy, l.inv_side, l.rows) * l.cols + cell_coord(cx, l.inv_side, l.cols)
    }

    #[inline]
    fn arrived(&mut self, cell: u32, aabb: &Aabb) {
        self.grow(cell, aabb);
    }

    #[inline]
    fn moved_within(&mut self, cell: u32, aabb: &Aabb) {
        self.grow(cell, aabb);
    }

    fn left(&mut self, _cell: u32) {
        // Bounds shrink at cleanup only: leaving costs nothing.
    }

    fn candidates(&self, area: &Aabb, first_cell: u32, mut visit: impl FnMut(u32)) {
        let ((x0, x1), (y0, y1)) = self.tight.range(area);
        for y in y0..=y1 {
            for x in x0..=x1 {
                let mut node = self.tight_heads[(y * self.tight.cols + x) as usize];
                while node != NIL {
                    let (cell, next) = self.nodes[node as usize];
                    node = next;
                    if cell < first_cell {
                        continue;
                    }
                    let bounds = &self.bounds[cell as usize];
                    if !bounds.intersects(area) {
                        continue;
                    }
                    // The loose cell is listed in every tight cell its bounds overlap, and
                    // the query may overlap several: visit it from the first tight cell
                    // both overlap, and only there.
                    let ((bx0, _), (by0, _)) = self.tight.range(bounds);
                    if x == x0.max(bx0) && y == y0.max(by0) {
                        visit(cell);
                    }
                }
            }
        }
    }

    fn reset(&mut self) {
        self.bounds.fill(Aabb::EMPTY);
        self.tight_heads.fill(NIL);
        self.nodes.clear();
    }

    fn memory_bytes(&self) -> usize {
        self.bounds.capacity() * size_of::<Aabb>()
            + self.tight_heads.capacity() * size_of::<u32>()
            + self.nodes.capacity() * size_of::<(u32, u32)>()
    }
}
