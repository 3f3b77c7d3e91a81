//! What a layout (the cells units are filed under) must provide to [`UnitIndex`](super::UnitIndex).
//! The index owns the units and one list head per cell; a layout says which cell a box goes
//! to and which cells a query must look at.

use super::{Aabb, UnitError};

/// A way of filing units into cells: [`LooseQuadtree`](super::LooseQuadtree) or
/// [`LooseGrid`](super::LooseGrid). Sealed: the index relies on its exact contract.
///
/// ```
/// use quadpath::units::{Aabb, Layout, LooseGrid, LooseQuadtree, UnitError, UnitIndex};
/// // Code written once for either layout.
/// fn units_in_west<L: Layout>(layout: L) -> Result<usize, UnitError> {
///     let mut index = UnitIndex::new(layout)?;
///     for i in 0..10 {
///         index.insert(Aabb::from_centre(5.0 + 10.0 * i as f32, 50.0, 1.0, 1.0))?;
///     }
///     let mut found = Vec::new();
///     index.query_box(Aabb::new(0.0, 0.0, 30.0, 100.0), &mut found)?;
///     Ok(found.len())
/// }
/// assert_eq!(units_in_west(LooseQuadtree::new(100.0, 100.0))?, 3);
/// assert_eq!(units_in_west(LooseGrid::new(100.0, 100.0))?, 3);
/// # Ok::<(), UnitError>(())
/// ```
pub trait Layout: sealed::Sealed {}

pub(crate) mod sealed {
    use super::{Aabb, UnitError};

    /// The contract, kept out of users' reach.
    pub trait Sealed {
        /// Checks the parameters, sizes the cells, and returns how many there are.
        fn init(&mut self) -> Result<usize, UnitError>;

        /// The world's `(width, height)`.
        fn world(&self) -> (f32, f32);

        /// The cell a (checked, in-world) box belongs to.
        fn cell_of(&self, aabb: &Aabb) -> u32;

        /// A unit has come to `cell` (inserted, rebuilt, or moved from another cell).
        fn arrived(&mut self, cell: u32, aabb: &Aabb);

        /// A unit's box changed and it stays in `cell`: a layout whose cell bounds grow
        /// makes room for it.
        fn moved_within(&mut self, cell: u32, aabb: &Aabb);

        /// A unit has left `cell`; `now_empty` when it was the last one there.
        fn left(&mut self, cell: u32, now_empty: bool);

        /// Calls `visit` once for every cell numbered `first_cell` or more that may hold a
        /// box intersecting `area`, and for no cell twice.
        fn candidates(&self, area: &Aabb, first_cell: u32, visit: impl FnMut(u32));

        /// Forgets every unit (the index is about to file them all again).
        fn reset(&mut self);

        /// Bytes held by the layout's own buffers.
        fn memory_bytes(&self) -> usize;
        /// The area of `cell` (a number below what `init` returned): where the centres of
        /// the boxes filed there lie, clipped to the world.
        fn cell_area(&self, cell: u32) -> Aabb;

        /// After a cleanup has filed every unit again: gives back buffer space the units
        /// now held do not need.
        fn release_spare(&mut self) {}
    }
}

/// The most cells a layout may allocate (64 Mi list heads, 256 MiB): a cell side far too
/// small for the world is refused rather than exhausting memory.
pub const MAX_CELLS: u64 = 1 << 26;

/// Checks a world size.
pub(crate) fn check_world(width: f32, height: f32) -> Result<(), UnitError> {
    if width.is_finite() && height.is_finite() && width > 0.0 && height > 0.0 {
        Ok(())
    } else {
        Err(UnitError::BadWorld { width, height })
    }
}

/// Checks a cell side against the world and returns the number of `(columns, rows)`.
pub(crate) fn grid_dims(side: f32, width: f32, height: f32) -> Result<(u32, u32), UnitError> {
    let bad = UnitError::BadCellSize {
        side,
        width,
        height,
        max_cells: MAX_CELLS,
    };
    if !(side.is_finite() && side > 0.0) {
        return Err(bad);
    }
    let (cols, rows) = (
        (f64::from(width) / f64::from(side)).ceil().max(1.0),
        (f64::from(height) / f64::from(side)).ceil().max(1.0),
    );
    if cols * rows > MAX_CELLS as f64 {
        return Err(bad);
    }
    Ok((cols as u32, rows as u32))
}

/// The column (or row) of coordinate `v` on an axis of `count` cells of side `1/inv_side`,
/// clamped to the grid: monotone in `v`, which the queries' completeness relies on.
#[inline]
pub(crate) fn cell_coord(v: f32, inv_side: f32, count: u32) -> u32 {
    // `as` saturates (NaN would give 0, but boxes are checked before they get here).
    ((v * inv_side) as i64).clamp(0, i64::from(count) - 1) as u32
}

/// The square of side `side` at column and row `(col, row)` of a grid over the world
/// `(width, height)`, clipped to the world.
pub(crate) fn square_area((col, row): (u32, u32), side: f32, (width, height): (f32, f32)) -> Aabb {
    let (x, y) = (col as f32 * side, row as f32 * side);
    Aabb::new(x, y, (x + side).min(width), (y + side).min(height))
}

/// Every cell in the inclusive ranges, row by row.
#[inline]
pub(crate) fn for_each_in_range(
    (x0, x1): (u32, u32),
    (y0, y1): (u32, u32),
    mut visit: impl FnMut(u32, u32),
) {
    for y in y0..=y1 {
        for x in x0..=x1 {
            visit(x, y);
        }
    }
}

/// Gives back a buffer's capacity when it is more than twice what it holds (a cleanup's
/// way of returning memory a crowd, or a long run, no longer needs, without reallocating
/// at every call in steady state).
pub(crate) fn release_spare<T>(buffer: &mut Vec<T>) {
    if buffer.capacity() > 2 * buffer.len() {
        buffer.shrink_to_fit();
    }
}

pub(crate) use sealed::Sealed;
