//! The vocabulary of the service: tickets, goals, options, budgets, outcomes and events.

use crate::geom::{Cell, Rect};
use crate::hpa::Path;
use std::fmt;
use std::time::Duration;

/// The receipt for one request: handed out at once by
/// [`PathService::request`](super::PathService::request), in increasing order, and never
/// reused by the same service.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ticket(pub(super) u64);

impl Ticket {
    /// The ticket's number: requests are numbered from 0 in the order they were made.
    pub fn number(self) -> u64 {
        self.0
    }
}

impl fmt::Display for Ticket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ticket {}", self.0)
    }
}

/// Where a request wants to go. Every goal is, in the end, a rectangle of positions
/// (top-left cells of the agent's footprint); the path ends on an open one of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Goal {
    /// One position.
    Cell(Cell),
    /// Any position of the rectangle ("attack this building", "gather at this mine").
    Area(Rect),
    /// Any position from which the agent's footprint touches or overlaps the `size × size`
    /// footprint of a unit whose top-left cell is `at` (contact, diagonal contact
    /// included).
    Unit {
        /// The unit's top-left cell.
        at: Cell,
        /// The side of its footprint, at least 1.
        size: u32,
    },
}

impl From<Cell> for Goal {
    fn from(c: Cell) -> Self {
        Goal::Cell(c)
    }
}

impl From<Rect> for Goal {
    fn from(r: Rect) -> Self {
        Goal::Area(r)
    }
}

/// What a request does when its goal cannot be reached (walled off, or not open for the
/// class).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WhenUnreachable {
    /// Deliver a [`Outcome::Partial`] path to the reachable position closest to the goal
    /// (see [the rule](super#partial-paths)): what games expect, the default.
    #[default]
    Closest,
    /// Deliver [`Failure::Unreachable`].
    Fail,
}

/// Per-request options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct RequestOptions {
    /// Unreachable goals: closest position (default) or failure.
    pub when_unreachable: WhenUnreachable,
    /// Whether a delivered path that an edit invalidates (or may have made longer than
    /// needed) is planned again from the unit's reported position (default `true`).
    pub repair: bool,
}

impl Default for RequestOptions {
    fn default() -> Self {
        RequestOptions {
            when_unreachable: WhenUnreachable::Closest,
            repair: true,
        }
    }
}

impl RequestOptions {
    /// These options with `when_unreachable` set.
    pub fn when_unreachable(mut self, when: WhenUnreachable) -> Self {
        self.when_unreachable = when;
        self
    }

    /// These options with `repair` set.
    pub fn repair(mut self, repair: bool) -> Self {
        self.repair = repair;
        self
    }
}

/// How much work one [`PathService::tick`](super::PathService::tick) may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Budget {
    /// A number of work units (gate expansions, cells scanned, path cells read; see
    /// [the budget](super#the-budget)), spread over the service's lanes. Deterministic:
    /// the same requests, edits and budgets give the same outcomes on every machine.
    Expansions(usize),
    /// Wall-clock time. Not deterministic: how far a search gets depends on the machine.
    Time(Duration),
}

/// Why a request ended without a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Failure {
    /// The agent cannot stand at its start position.
    #[error("the start {start} is not open for the class")]
    StartNotOpen {
        /// The start.
        start: Cell,
    },
    /// The goal cannot be reached, and the request asked for a failure then
    /// ([`WhenUnreachable::Fail`]).
    #[error("the goal cannot be reached from {start}")]
    Unreachable {
        /// The start.
        start: Cell,
    },
}

/// How a request ended.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Outcome {
    /// A path to the goal: in exact mode an optimal one.
    Full(Path),
    /// The goal cannot be reached: a path (optimal in exact mode) to the reachable position
    /// closest to the goal (see [the rule](super#partial-paths)).
    Partial {
        /// The path.
        path: Path,
        /// The octile distance from its end to the goal.
        goal_distance: f64,
    },
    /// No path.
    Failed(Failure),
}

impl Outcome {
    /// The path, full or partial.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Outcome::Full(p) | Outcome::Partial { path: p, .. } => Some(p),
            Outcome::Failed(_) => None,
        }
    }
}

/// Something that happened to a delivered path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PathEvent {
    /// An edit blocked or re-priced a position (or a step) of the path's remaining part:
    /// `first_bad_index` is the index in the delivered path of the first position whose
    /// step or standing changed. A repair follows as a fresh outcome when the request asked
    /// for repairs.
    Invalidated {
        /// The request.
        ticket: Ticket,
        /// The first affected index of the delivered path.
        first_bad_index: usize,
    },
    /// An edit opened or cheapened ground that may give a shorter route than the remaining
    /// path (see [the rule](super#edits-that-free-ground)): the path stays valid, and a new
    /// plan follows as a fresh outcome.
    Replanning {
        /// The request.
        ticket: Ticket,
    },
}

/// Where a request stands, as [`PathService::poll`](super::PathService::poll) tells.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Status<'a> {
    /// Waiting for work or being worked on (a first answer, or a repair).
    Pending,
    /// Answered; the outcome stays readable until the ticket is released.
    Done(&'a Outcome),
    /// Answered, then invalidated by an edit, and not to be repaired.
    Invalidated,
}

/// How the service runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServiceConfig {
    /// Independent lanes of work: each has its own search buffers and an equal share of
    /// each tick's budget, and with the `parallel` feature they run on rayon's workers.
    /// Jobs are dealt to lanes by number, so outcomes depend on this count and never on the
    /// number of threads. Default 1 without `parallel`, 4 with it.
    pub lanes: usize,
    /// Requests of one class to one goal (in the same tick's intake) from at least this
    /// many distinct starts are answered from one flow field (default 8).
    pub flow_threshold: usize,
    /// Requests one unit may have pending at once; more are refused with
    /// [`ServiceError::TooManyRequests`](super::ServiceError::TooManyRequests) (default 4).
    pub max_pending_per_unit: usize,
}

impl Default for ServiceConfig {
    fn default() -> Self {
        ServiceConfig {
            lanes: if cfg!(feature = "parallel") { 4 } else { 1 },
            flow_threshold: 8,
            max_pending_per_unit: 4,
        }
    }
}

impl ServiceConfig {
    /// This configuration with `lanes` lanes (at least 1).
    pub fn with_lanes(mut self, lanes: usize) -> Self {
        self.lanes = lanes.max(1);
        self
    }

    /// This configuration with a flow field for groups of at least `members` starts.
    pub fn with_flow_threshold(mut self, members: usize) -> Self {
        self.flow_threshold = members.max(2);
        self
    }

    /// This configuration with at most `requests` pending per unit.
    pub fn with_max_pending_per_unit(mut self, requests: usize) -> Self {
        self.max_pending_per_unit = requests.max(1);
        self
    }
}

/// What one tick did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TickReport {
    /// Work units done, over all lanes.
    pub work: usize,
    /// The largest single step taken (see [the budget](super#the-budget)).
    pub largest_step: usize,
    /// Outcomes delivered.
    pub delivered: usize,
    /// Of those, answered from work shared with other requests (one flow field, one
    /// search for identical requests, or an answer or field kept from the tick before).
    pub shared: usize,
    /// Jobs still queued or paused.
    pub pending_jobs: usize,
}

/// Running totals of a service.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServiceStats {
    /// Requests accepted.
    pub requests: u64,
    /// Outcomes delivered (first answers and repairs).
    pub delivered: u64,
    /// Outcomes answered from shared work.
    pub shared: u64,
    /// Flow fields built.
    pub flow_fields: u64,
    /// Paths invalidated by edits.
    pub invalidated: u64,
    /// Repairs and re-plans queued.
    pub repairs: u64,
    /// Tickets cancelled.
    pub cancelled: u64,
}
