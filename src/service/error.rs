//! What the service refuses.

use super::types::Ticket;
use crate::geom::{Cell, Rect};
use crate::units::UnitId;
use crate::world::ClassId;

/// Why a [`PathService`](super::PathService) refused a call. Nothing changes then.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ServiceError {
    /// The class is not a class of the world.
    #[error("{class} is not a class of this world ({count} registered)")]
    UnknownClass {
        /// The id given.
        class: ClassId,
        /// How many classes the world has.
        count: usize,
    },
    /// The ticket was never handed out, or is finished with (released or cancelled).
    #[error("{ticket} is unknown: never issued, released or cancelled")]
    UnknownTicket {
        /// The ticket given.
        ticket: Ticket,
    },
    /// The start of a request is off the map.
    #[error("the start {cell} is off the {width}x{height} map")]
    StartOffMap {
        /// The start.
        cell: Cell,
        /// Map width.
        width: u32,
        /// Map height.
        height: u32,
    },
    /// A goal reaches off the map.
    #[error("the goal {area:?} reaches off the {width}x{height} map")]
    GoalOffMap {
        /// The goal's rectangle of positions.
        area: Rect,
        /// Map width.
        width: u32,
        /// Map height.
        height: u32,
    },
    /// A unit goal of size 0.
    #[error("a unit goal at {at} has size 0")]
    EmptyGoal {
        /// The unit's cell.
        at: Cell,
    },
    /// A budget of no work.
    #[error("a tick needs a budget above zero")]
    ZeroBudget,
    /// The unit has as many requests pending as it may.
    #[error("{unit} already has {limit} requests pending")]
    TooManyRequests {
        /// The unit.
        unit: UnitId,
        /// The limit ([`ServiceConfig::max_pending_per_unit`](super::ServiceConfig)).
        limit: usize,
    },
    /// A ticket that holds no path was asked about its path (pending, failed, or
    /// invalidated).
    #[error("{ticket} holds no delivered path")]
    NoPath {
        /// The ticket.
        ticket: Ticket,
    },
    /// A path index beyond the end of the ticket's path.
    #[error("{ticket}: index {index} is beyond its path of {len} positions")]
    IndexOutOfRange {
        /// The ticket.
        ticket: Ticket,
        /// The index given.
        index: usize,
        /// The path's length in positions.
        len: usize,
    },
}
