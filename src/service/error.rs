//! What the service refuses.

use super::types::Ticket;
use crate::geom::{Cell, Rect};
use crate::units::UnitId;
use crate::world::ClassId;

/// Why a [`PathService`](super::PathService) refused a call. Nothing changes then.
///
/// ```
/// use quadpath::service::{PathService, RequestOptions, ServiceError};
/// use quadpath::units::UnitId;
/// use quadpath::{Cell, Grid, Mode, Movement, World};
/// let mut world = World::new(Grid::new_free(16, 16));
/// let infantry = world.add_class(Movement::default(), Mode::Exact)?;
/// let mut service = PathService::new(&world);
/// let (unit, opts) = (UnitId::new(0), RequestOptions::default());
/// let off_map = service.request(&world, infantry, unit, Cell::new(16, 0), Cell::new(0, 0), opts);
/// assert!(matches!(off_map, Err(ServiceError::StartOffMap { width: 16, .. })));
/// let ticket = service.request(&world, infantry, unit, Cell::new(0, 0), Cell::new(9, 9), opts)?;
/// service.cancel(ticket)?;
/// assert_eq!(service.cancel(ticket), Err(ServiceError::UnknownTicket { ticket }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
    /// The service holds as many live tickets as a ticket can name (2^32): release or
    /// cancel some first.
    #[error("the service holds {limit} live tickets, as many as it can name")]
    TooManyTickets {
        /// The most live tickets a service holds.
        limit: u64,
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
    /// A path that an edit reported since it was last checked may have broken, asked to
    /// move on before a tick's sweep has checked it (see
    /// [`Status::Rechecking`](super::Status::Rechecking)).
    #[error("{ticket}: its path waits to be checked against an edit")]
    Rechecking {
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
    /// A path index behind the one last reported with `advance` (or stepped to with
    /// `step`): edits are checked against a path only
    /// from where its unit stands, so the part behind it may be stale. A unit pushed back
    /// asks for a new path.
    #[error("{ticket}: index {index} is behind the position {progress} last reported")]
    IndexBehind {
        /// The ticket.
        ticket: Ticket,
        /// The index given.
        index: usize,
        /// The index last reported (or stepped to).
        progress: usize,
    },
}
