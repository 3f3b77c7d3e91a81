//! What can go wrong when building or reading a flow field.

use super::FlowGoal;
use crate::geom::Cell;

/// Why a flow field could not be built or answer.
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
