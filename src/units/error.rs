//! What can go wrong when building, editing or querying a unit index.

use super::{Aabb, UnitId};

/// Why the unit index refused a call. Every value it names is the one it was given.
///
/// ```
/// use quadpath::units::{Aabb, LooseQuadtree, UnitError, UnitIndex};
/// let mut index = UnitIndex::new(LooseQuadtree::new(100.0, 100.0))?;
/// let outside = index.insert(Aabb::new(95.0, 95.0, 105.0, 99.0));
/// assert!(matches!(outside, Err(UnitError::OutsideWorld { width: 100.0, .. })));
/// let scout = index.insert(Aabb::from_centre(50.0, 50.0, 1.0, 1.0))?;
/// index.remove(scout)?;
/// assert!(matches!(index.remove(scout), Err(UnitError::UnknownId { id }) if id == scout));
/// # Ok::<(), UnitError>(())
/// ```
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum UnitError {
    /// A coordinate or size is NaN or infinite.
    #[error("{what} is {value}: coordinates and sizes must be finite")]
    NotFinite {
        /// Which value (`min_x`, `x`, `width`, ...).
        what: &'static str,
        /// The value given.
        value: f32,
    },
    /// A box whose maximum is below its minimum on some axis.
    #[error("box {aabb} has a negative size")]
    NegativeSize {
        /// The box given.
        aabb: Aabb,
    },
    /// A unit's box reaches outside the world the index covers, `[0, width]×[0, height]`.
    #[error("box {aabb} reaches outside the {width}x{height} world")]
    OutsideWorld {
        /// The box given.
        aabb: Aabb,
        /// World width.
        width: f32,
        /// World height.
        height: f32,
    },
    /// An id the index does not hold.
    #[error("{id} is not in the index")]
    UnknownId {
        /// The id given.
        id: UnitId,
    },
    /// An id the index already holds (or that appears twice in one rebuild).
    #[error("{id} is already in the index")]
    DuplicateId {
        /// The id given.
        id: UnitId,
    },
    /// An id past the largest the index keeps a table for.
    #[error("{id} is too large: ids index a table and must be at most {max}")]
    IdTooLarge {
        /// The id given.
        id: UnitId,
        /// The largest id allowed.
        max: u32,
    },
    /// A NaN, infinite or negative radius.
    #[error("radius {radius} must be finite and not negative")]
    BadRadius {
        /// The radius given.
        radius: f32,
    },
    /// A world whose width or height is not a finite positive number.
    #[error("a {width}x{height} world cannot be indexed: both sides must be finite and positive")]
    BadWorld {
        /// World width.
        width: f32,
        /// World height.
        height: f32,
    },
    /// A cell side that is not a finite positive number, or so small for the world that the
    /// cells would not fit in memory.
    #[error("cell side {side} does not suit a {width}x{height} world: it must be finite, positive and leave at most {max_cells} cells")]
    BadCellSize {
        /// The cell side given.
        side: f32,
        /// World width.
        width: f32,
        /// World height.
        height: f32,
        /// The most cells a layout may have.
        max_cells: u64,
    },
}
