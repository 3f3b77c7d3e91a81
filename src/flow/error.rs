//! What can go wrong when building or reading a flow field.

use super::FlowGoal;
use crate::geom::Cell;

/// Why a flow field could not be built or answer.
///
/// ```
/// use quadpath::{Cell, FlowError, Grid, HpaMap, Mode, Rect};
/// let mut map = HpaMap::new(Grid::new_free(8, 8), Mode::Exact)?;
/// let off_map = map.flow_field(Cell::new(8, 0));
/// assert!(matches!(off_map, Err(FlowError::GoalOutOfBounds { width: 8, .. })));
/// let field = map.flow_field(Cell::new(7, 7))?;
/// // A wall goes up after the field was computed: it answers nothing until refreshed.
/// map.set_blocked(Rect::new(3, 0, 3, 6), true)?;
/// assert_eq!(field.distance(&map, Cell::new(0, 0)), Err(FlowError::Stale));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FlowError {
    /// The map changed after the field was computed (its
    /// [`revision`](crate::HpaMap::revision) moved on): a stale field could send units
    /// through a wall that went up since, so it answers nothing until
    /// [`FlowField::refresh`](super::FlowField::refresh) recomputes it. Also the answer
    /// for a map other than the field's own.
    #[error("the flow field is stale: the map changed after it was computed; refresh it")]
    Stale,
    /// A position off the map.
    #[error("cell {cell} is outside the {width}x{height} map")]
    OutOfBounds {
        /// The position asked about.
        cell: Cell,
        /// Map width.
        width: u32,
        /// Map height.
        height: u32,
    },
    /// A goal that reaches off the map.
    #[error("goal {goal} reaches outside the {width}x{height} map")]
    GoalOutOfBounds {
        /// The goal.
        goal: FlowGoal,
        /// Map width.
        width: u32,
        /// Map height.
        height: u32,
    },
    /// A goal with no open position in it: nothing could ever arrive.
    #[error("goal {goal} has no open position")]
    GoalNotOpen {
        /// The goal.
        goal: FlowGoal,
    },
}
