//! The loose/tight grid pair: units filed by centre into a fine grid of *loose* cells whose
//! bounds grow to fit what they hold, and a coarse *tight* grid whose cells list the loose
//! cells their bounds reach into.
//!
//! A query walks the tight cells it overlaps, checks the bounds of the loose cells listed
//! there, and walks only the units of those that intersect it. Growing a loose cell's bounds
//! when a unit arrives or grows only adds entries to tight lists; a unit leaving a cell that
//! still holds others costs nothing, and the bounds stay correct (if loose) until
//! [`UnitIndex::cleanup`](super::UnitIndex::cleanup) recomputes them. When a cell's last unit
//! leaves, its bounds are dropped and its list entries go back to a free pool.
//!
//! A loose cell whose bounds reach over more than [`WIDE_SPAN`] tight cells (a huge unit
//! lives there, or did since the cell was last empty) is not listed in tight cells but on
//! one short list of *wide* cells that every query checks.
//!
//! ## Memory
//! Bounded by the cells and the units, whatever the moves. With `L` loose cells, `T` tight
//! cells, `U` the most units held at once since the last cleanup and `I` the largest id,
//! [`UnitIndex::memory_bytes`](super::UnitIndex::memory_bytes) is at most
//!
//! `24 (L + 1) + 4 T + 2 (40 + 8 WIDE_SPAN) U + 8 (I + 1)`
//!
//! bytes: per loose cell its bounds (16), the index's list head and sort count (4 + 4); per
//! tight cell a list head; per occupied loose cell at most [`WIDE_SPAN`] list nodes of 8
//! bytes or one 4-byte wide entry, and per unit its 32-byte slot and a 4-byte free-id entry,
//! each buffer at most twice what it holds; the id table, 4 bytes per id. Freed list nodes
//! are reused, so the pool keeps its peak until a cleanup, which gives back any buffer more
//! than twice its need. (Before, bounds only grew between cleanups: a unit as long as a
//! long world left an entry in every tight cell it reached from every cell it crossed,
//! 1.1 GiB after 6,000 moves of 80 units in issue 26's 2²⁴ × 1,000 world.)

use super::layout::{
    cell_coord, check_world, for_each_in_range, grid_dims, release_spare, square_area, Layout,
    Sealed,
};
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
    /// Per loose cell: the union of the boxes filed there since the last cleanup or since
    /// it was last empty; [`Aabb::EMPTY`] while it holds no unit.
    bounds: Vec<Aabb>,
    /// Per tight cell: the first node of its list of loose cells.
    tight_heads: Vec<u32>,
    /// List nodes `(loose cell, next node)`, in one pool; the free ones are chained from
    /// `free_node` through their `next`.
    nodes: Vec<(u32, u32)>,
    /// The first free node, or `NIL`.
    free_node: u32,
    /// The occupied loose cells whose bounds reach over more than [`WIDE_SPAN`] tight
    /// cells, each once, in no order.
    wide: Vec<u32>,
}

/// The most tight cells a loose cell is listed in; a cell whose bounds reach over more goes
/// on the wide list instead. 16 keeps the bench's huge units (up to 64 wide, in tight cells
/// of 32) in tight lists, and bounds the list entries to 16 per occupied cell.
pub const WIDE_SPAN: u64 = 16;

/// A tight-grid range: inclusive columns, inclusive rows.
type Range = ((u32, u32), (u32, u32));

/// How many tight cells a range holds.
fn span(((x0, x1), (y0, y1)): Range) -> u64 {
    u64::from(x1 - x0 + 1) * u64::from(y1 - y0 + 1)
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
            free_node: NIL,
            wide: Vec::new(),
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
    fn list(&mut self, cell: u32, range: Range, old: Option<Range>) {
        let cols = self.tight.cols;
        for_each_in_range(range.0, range.1, |x, y| {
            if let Some(((ox0, ox1), (oy0, oy1))) = old {
                if (ox0..=ox1).contains(&x) && (oy0..=oy1).contains(&y) {
                    return;
                }
            }
            let t = (y * cols + x) as usize;
            let node = self.new_node((cell, self.tight_heads[t]));
            self.tight_heads[t] = node;
        });
    }

    /// A node holding `entry`: a free one, else a new one at the pool's end.
    fn new_node(&mut self, entry: (u32, u32)) -> u32 {
        if self.free_node == NIL {
            self.nodes.push(entry);
            return self.nodes.len() as u32 - 1;
        }
        let node = self.free_node;
        self.free_node = self.nodes[node as usize].1;
        self.nodes[node as usize] = entry;
        node
    }

    /// Takes `cell` off the list of every tight cell of `range` (where it is listed) and
    /// frees its nodes. Each list is walked to the entry: lists are short, since only cells
    /// reaching over at most [`WIDE_SPAN`] tight cells are on them.
    fn unlist(&mut self, cell: u32, range: Range) {
        let cols = self.tight.cols;
        for_each_in_range(range.0, range.1, |x, y| {
            let t = (y * cols + x) as usize;
            let (mut before, mut node) = (NIL, self.tight_heads[t]);
            while node != NIL {
                let (listed, next) = self.nodes[node as usize];
                if listed == cell {
                    if before == NIL {
                        self.tight_heads[t] = next;
                    } else {
                        self.nodes[before as usize].1 = next;
                    }
                    self.nodes[node as usize] = (NIL, self.free_node);
                    self.free_node = node;
                    return;
                }
                (before, node) = (node, next);
            }
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
        if was.is_some_and(|r| span(r) > WIDE_SPAN) {
            return; // Wide already, and growing keeps it so.
        }
        let now = self.tight.range(&grown);
        if span(now) > WIDE_SPAN {
            if let Some(was) = was {
                self.unlist(cell, was);
            }
            self.wide.push(cell);
        } else if was != Some(now) {
            self.list(cell, now, was);
        }
    }

    /// The last unit has left `cell`: its bounds and list entries go.
    fn emptied(&mut self, cell: u32) {
        let bounds = std::mem::replace(&mut self.bounds[cell as usize], Aabb::EMPTY);
        let range = self.tight.range(&bounds);
        if span(range) > WIDE_SPAN {
            if let Some(at) = self.wide.iter().position(|&c| c == cell) {
                self.wide.swap_remove(at);
            }
        } else {
            self.unlist(cell, range);
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
        self.reset();
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

    fn left(&mut self, cell: u32, now_empty: bool) {
        // Bounds shrink at cleanup, or all at once when the cell empties.
        if now_empty {
            self.emptied(cell);
        }
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
        for &cell in &self.wide {
            if cell >= first_cell && self.bounds[cell as usize].intersects(area) {
                visit(cell);
            }
        }
    }

    fn reset(&mut self) {
        self.bounds.fill(Aabb::EMPTY);
        self.tight_heads.fill(NIL);
        self.nodes.clear();
        self.free_node = NIL;
        self.wide.clear();
    }

    fn release_spare(&mut self) {
        release_spare(&mut self.nodes);
        release_spare(&mut self.wide);
    }

    fn memory_bytes(&self) -> usize {
        self.bounds.capacity() * size_of::<Aabb>()
            + self.tight_heads.capacity() * size_of::<u32>()
            + self.nodes.capacity() * size_of::<(u32, u32)>()
            + self.wide.capacity() * size_of::<u32>()
    }

    fn cell_area(&self, cell: u32) -> Aabb {
        let cols = self.loose.cols;
        square_area(
            (cell % cols, cell / cols),
            self.cell,
            (self.width, self.height),
        )
    }
}
