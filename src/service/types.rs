//! The vocabulary of the service: tickets, goals, options, budgets, outcomes and events.

use crate::geom::{Cell, Rect};
use crate::hpa::Path;
use std::fmt;
use std::time::Duration;

/// The receipt for one request: handed out at once by
/// [`PathService::request`](super::PathService::request), numbered in increasing order, and
/// never reused by the same service. It also names the slot of the service's ticket table
/// that holds the request's state (a slot freed by `cancel` or `release` is reused: the
/// number tells a stale ticket from the new one, which is refused as unknown), so that
/// looking a ticket up is one index.
///
/// ```
/// use quadpath::service::{PathService, RequestOptions};
/// use quadpath::units::UnitId;
/// use quadpath::{Cell, Grid, Mode, Movement, World};
/// let mut world = World::new(Grid::new_free(16, 16));
/// let infantry = world.add_class(Movement::default(), Mode::Exact)?;
/// let mut service = PathService::new(&world);
/// let mut order = |unit| service.request(&world, infantry, UnitId::new(unit), Cell::new(0, unit), Cell::new(9, 9), RequestOptions::default());
/// let (first, second) = (order(0)?, order(1)?);
/// assert_eq!((first.number(), second.number()), (0, 1));
/// assert_eq!(second.to_string(), "ticket 1");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ticket {
    /// Unique per service, first in the derived order: tickets compare by number.
    pub(super) number: u64,
    pub(super) slot: u32,
}

impl Ticket {
    /// The ticket's number: requests are numbered from 0 in the order they were made.
    pub fn number(self) -> u64 {
        self.number
    }
}

impl fmt::Display for Ticket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ticket {}", self.number)
    }
}

/// Where a request wants to go. Every goal is, in the end, a rectangle of positions
/// (top-left cells of the agent's footprint); the path ends on an open one of them.
///
/// ```
/// use quadpath::service::{Budget, Goal, PathService, RequestOptions};
/// use quadpath::units::UnitId;
/// use quadpath::{Cell, Grid, Mode, Movement, Rect, World};
/// let mut world = World::new(Grid::new_free(16, 16));
/// let infantry = world.add_class(Movement::default(), Mode::Exact)?;
/// let mut service = PathService::new(&world);
/// let mine = Goal::Area(Rect::new(10, 10, 15, 15)); // "gather at this mine"
/// let ticket = service.request(&world, infantry, UnitId::new(0), Cell::new(0, 0), mine, RequestOptions::default())?;
/// while service.pending() > 0 {
///     service.tick(&world, Budget::Expansions(100))?;
/// }
/// let path = service.outcome(ticket).and_then(|outcome| outcome.path()).expect("a path");
/// assert_eq!(path.goal(), Some(Cell::new(10, 10)), "the nearest position of the area");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
///
/// ```
/// use quadpath::service::{Budget, Failure, Outcome, PathService, RequestOptions, WhenUnreachable};
/// use quadpath::units::UnitId;
/// use quadpath::{Cell, Grid, Mode, Movement, World};
/// let mut world = World::new(Grid::from_fn(16, 16, |x, _| x != 8)); // walled off at column 8
/// let infantry = world.add_class(Movement::default(), Mode::Exact)?;
/// let mut service = PathService::new(&world);
/// let (from, to, closest) = (Cell::new(0, 0), Cell::new(15, 0), RequestOptions::default());
/// let fail = closest.when_unreachable(WhenUnreachable::Fail);
/// let near = service.request(&world, infantry, UnitId::new(0), from, to, closest)?;
/// let refused = service.request(&world, infantry, UnitId::new(1), from, to, fail)?;
/// while service.pending() > 0 {
///     service.tick(&world, Budget::Expansions(100))?;
/// }
/// assert!(matches!(service.outcome(near), Some(Outcome::Partial { goal_distance, .. }) if *goal_distance == 8.0));
/// assert!(matches!(service.outcome(refused), Some(Outcome::Failed(Failure::Unreachable { .. }))));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
///
/// ```
/// use quadpath::service::{Budget, PathService, RequestOptions, Status};
/// use quadpath::units::UnitId;
/// use quadpath::{Cell, Grid, Mode, Movement, Rect, World};
/// let mut world = World::new(Grid::new_free(16, 16));
/// let infantry = world.add_class(Movement::default(), Mode::Exact)?;
/// let mut service = PathService::new(&world);
/// let no_repair = RequestOptions::default().repair(false);
/// let ticket = service.request(&world, infantry, UnitId::new(0), Cell::new(0, 5), Cell::new(15, 5), no_repair)?;
/// service.tick(&world, Budget::Expansions(1000))?;
/// // A wall across the path: the path is invalidated and, as asked, not planned again.
/// let report = world.set_blocked(Rect::new(8, 0, 8, 14), true)?;
/// service.notify_edit(&world, &report);
/// assert!(matches!(service.poll(ticket)?, Status::Rechecking(_)), "until the next tick");
/// service.tick(&world, Budget::Expansions(1000))?;
/// assert_eq!(service.poll(ticket)?, Status::Invalidated);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
///
/// ```
/// use quadpath::service::{Budget, PathService, RequestOptions};
/// use quadpath::units::UnitId;
/// use quadpath::{Cell, Grid, Mode, Movement, World};
/// use std::time::Duration;
/// let mut world = World::new(Grid::from_fn(64, 64, |x, y| x % 8 != 4 || y % 16 == 0));
/// let infantry = world.add_class(Movement::default(), Mode::Exact)?;
/// let mut service = PathService::new(&world);
/// let ticket = service.request(&world, infantry, UnitId::new(0), Cell::new(0, 63), Cell::new(63, 1), RequestOptions::default())?;
/// // A tenth of a millisecond a frame: the search is spread over as many frames as it needs.
/// while service.pending() > 0 {
///     service.tick(&world, Budget::Time(Duration::from_micros(100)))?;
/// }
/// assert!(service.outcome(ticket).and_then(|outcome| outcome.path()).is_some());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
///
/// ```
/// use quadpath::service::{Budget, Failure, Outcome, PathService, RequestOptions};
/// use quadpath::units::UnitId;
/// use quadpath::{Cell, Grid, Mode, Movement, World};
/// let mut world = World::new(Grid::from_fn(16, 16, |x, _| x != 8));
/// let infantry = world.add_class(Movement::default(), Mode::Exact)?;
/// let mut service = PathService::new(&world);
/// let in_wall = Cell::new(8, 3);
/// let ticket = service.request(&world, infantry, UnitId::new(0), in_wall, Cell::new(0, 0), RequestOptions::default())?;
/// service.tick(&world, Budget::Expansions(100))?;
/// assert_eq!(service.outcome(ticket), Some(&Outcome::Failed(Failure::StartNotOpen { start: in_wall })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
///
/// ```
/// use quadpath::service::{Budget, Outcome, PathService, RequestOptions};
/// use quadpath::units::UnitId;
/// use quadpath::{Cell, Grid, Mode, Movement, World};
/// let mut world = World::new(Grid::new_free(16, 16));
/// let infantry = world.add_class(Movement::default(), Mode::Exact)?;
/// let mut service = PathService::new(&world);
/// service.request(&world, infantry, UnitId::new(0), Cell::new(0, 0), Cell::new(5, 0), RequestOptions::default())?;
/// service.tick(&world, Budget::Expansions(100))?;
/// for (_ticket, outcome) in service.drain_finished() {
///     assert!(matches!(&outcome, Outcome::Full(path) if path.length == 5.0));
///     assert_eq!(outcome.path().map(|path| path.cells.len()), Some(6));
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
///
/// ```
/// use quadpath::service::{Budget, PathEvent, PathService, RequestOptions};
/// use quadpath::units::UnitId;
/// use quadpath::{Cell, Grid, Mode, Movement, Rect, World};
/// let mut world = World::new(Grid::new_free(16, 16));
/// let infantry = world.add_class(Movement::default(), Mode::Exact)?;
/// let mut service = PathService::new(&world);
/// let ticket = service.request(&world, infantry, UnitId::new(0), Cell::new(0, 5), Cell::new(15, 5), RequestOptions::default())?;
/// service.tick(&world, Budget::Expansions(1000))?;
/// let report = world.set_blocked(Rect::new(8, 0, 8, 14), true)?; // a wall across the path
/// service.notify_edit(&world, &report);
/// service.tick(&world, Budget::Expansions(1000))?; // checks the live paths first
/// let events: Vec<PathEvent> = service.drain_events().collect();
/// assert!(matches!(events[..], [PathEvent::Invalidated { ticket: t, .. }] if t == ticket));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
    /// plan follows as a fresh outcome. Re-plans are low priority: this event comes from
    /// the [`tick`](super::PathService::tick) that queues the re-plan, once no other job
    /// waits, not from [`notify_edit`](super::PathService::notify_edit).
    Replanning {
        /// The request.
        ticket: Ticket,
    },
}

/// Where a request stands, as [`PathService::poll`](super::PathService::poll) tells.
///
/// ```
/// use quadpath::service::{Budget, PathService, RequestOptions, Status};
/// use quadpath::units::UnitId;
/// use quadpath::{Cell, Grid, Mode, Movement, World};
/// let mut world = World::new(Grid::new_free(16, 16));
/// let infantry = world.add_class(Movement::default(), Mode::Exact)?;
/// let mut service = PathService::new(&world);
/// let ticket = service.request(&world, infantry, UnitId::new(0), Cell::new(0, 0), Cell::new(9, 0), RequestOptions::default())?;
/// assert_eq!(service.poll(ticket)?, Status::Pending);
/// service.tick(&world, Budget::Expansions(100))?;
/// assert!(matches!(service.poll(ticket)?, Status::Done(outcome) if outcome.path().is_some()));
/// service.release(ticket)?; // done with it: the ticket is forgotten
/// assert!(service.poll(ticket).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Status<'a> {
    /// Waiting for work or being worked on (a first answer, or a repair).
    Pending,
    /// Answered; the outcome stays readable until the ticket is released.
    Done(&'a Outcome),
    /// Answered, then invalidated by an edit, and not to be repaired.
    Invalidated,
    /// Answered, but an edit reported since (with
    /// [`notify_edit`](super::PathService::notify_edit)) touched the path's surroundings
    /// and the sweep of the next [`tick`](super::PathService::tick) has not checked the
    /// path against it yet: it may be broken. The tick that sweeps it makes it
    /// [`Status::Done`] again, or invalidates it (see [the rules](super#edits)).
    Rechecking(&'a Outcome),
}

/// How the service runs.
///
/// ```
/// use quadpath::service::{PathService, RequestOptions, ServiceConfig, ServiceError};
/// use quadpath::units::UnitId;
/// use quadpath::{Cell, Grid, Mode, Movement, World};
/// let mut world = World::new(Grid::new_free(16, 16));
/// let infantry = world.add_class(Movement::default(), Mode::Exact)?;
/// let config = ServiceConfig::default().with_lanes(2).with_max_pending_per_unit(1);
/// let mut service = PathService::with_config(&world, config);
/// assert_eq!(service.config().lanes, 2);
/// let mut order = || service.request(&world, infantry, UnitId::new(7), Cell::new(0, 0), Cell::new(9, 9), RequestOptions::default());
/// order()?;
/// assert!(matches!(order(), Err(ServiceError::TooManyRequests { .. })), "one pending order per unit");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServiceConfig {
    /// Independent lanes of work: each has its own search buffers and an equal share of
    /// each tick's [`Budget::Expansions`] (under a [`Budget::Time`], the tick's deadline,
    /// the lanes served in an order that turns from tick to tick), and with the `parallel`
    /// feature they run on rayon's workers.
    /// Jobs are dealt to lanes by number, so outcomes depend on this count and never on the
    /// number of threads. Default 1 without `parallel`, 4 with it.
    pub lanes: usize,
    /// Requests of one class to one goal (in the same tick's intake) from at least this
    /// many distinct starts are answered from one complete flow field, kept for the next
    /// tick's requests to the same goal (default 8).
    pub flow_threshold: usize,
    /// Whether groups smaller than `flow_threshold` (two or more distinct starts to one
    /// goal) share the goal side: one backward search from the goal, stopped as soon as it
    /// covers every member (a bounded flow field), rather than a search per member
    /// (default `true`).
    pub share_small_groups: bool,
    /// Whether an edit that opens or cheapens ground re-plans the live paths it may have
    /// made longer than needed (see [the rule](super#edits-that-free-ground); default
    /// `true`). The re-plans wait until no other job is queued, and go a batch per tick.
    pub replan_after_frees: bool,
    /// Requests one unit may have pending at once; more are refused with
    /// [`ServiceError::TooManyRequests`](super::ServiceError::TooManyRequests) (default 4).
    pub max_pending_per_unit: usize,
}

impl Default for ServiceConfig {
    fn default() -> Self {
        ServiceConfig {
            lanes: if cfg!(feature = "parallel") { 4 } else { 1 },
            flow_threshold: 8,
            share_small_groups: true,
            replan_after_frees: true,
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

    /// This configuration with small groups sharing the goal side or not.
    pub fn with_share_small_groups(mut self, share: bool) -> Self {
        self.share_small_groups = share;
        self
    }

    /// This configuration with re-plans after edits that free ground, or without.
    pub fn with_replan_after_frees(mut self, replan: bool) -> Self {
        self.replan_after_frees = replan;
        self
    }

    /// This configuration with at most `requests` pending per unit.
    pub fn with_max_pending_per_unit(mut self, requests: usize) -> Self {
        self.max_pending_per_unit = requests.max(1);
        self
    }
}

/// What one tick did.
///
/// ```
/// use quadpath::service::{Budget, PathService, RequestOptions};
/// use quadpath::units::UnitId;
/// use quadpath::{Cell, Grid, Mode, Movement, World};
/// let mut world = World::new(Grid::new_free(16, 16));
/// let infantry = world.add_class(Movement::default(), Mode::Exact)?;
/// let mut service = PathService::new(&world);
/// for unit in 0..2 {
///     // Two units with the same order.
///     service.request(&world, infantry, UnitId::new(unit), Cell::new(0, 0), Cell::new(15, 9), RequestOptions::default())?;
/// }
/// let report = service.tick(&world, Budget::Expansions(10_000))?;
/// assert_eq!((report.delivered, report.pending_jobs), (2, 0));
/// assert!(report.shared >= 1, "identical requests share one search");
/// assert!(report.work > 0 && report.largest_step <= report.work);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
    /// Of `work`, the units spent sweeping the live paths against the edits reported since
    /// the last tick (see [the rules](super#edits)).
    pub sweep_work: usize,
    /// Whether that sweep is still unfinished (the tick's budget ran out in it): the tick
    /// then took no requests in and delivered nothing.
    pub sweep_unfinished: bool,
}

/// Work units spent, by what they were spent on (see [the budget](super#the-budget)):
/// where a service's time goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct WorkSplit {
    /// Taking requests in (under [`Budget::Expansions`] only: the intake is timed, not
    /// counted, under a time budget).
    pub intake: u64,
    /// Sweeping live paths against reported edits.
    pub sweep: u64,
    /// Taking cancelled tickets out of their jobs.
    pub cancels: u64,
    /// A start's first checks.
    pub checks: u64,
    /// Single searches (a lone start to a cell).
    pub single_searches: u64,
    /// Growing subgoal fields: starting them, members' cone scans, settled subgoals.
    pub subgoal_fields: u64,
    /// Building flow fields over gates (layers without a subgoal graph, large goals).
    pub gate_fields: u64,
    /// Reading members' paths off fresh fields (subgoal or gate fields).
    pub field_reads: u64,
    /// Working out the tables of a gate field's large leaves (more than 4,096 cells: a
    /// free 1,024² map is one leaf of a million) a slice at a time, before a path is read
    /// through them.
    pub leaf_tables: u64,
    /// Answers a field older than the map vouched for (its checks and writing out).
    pub vouched: u64,
    /// Repair searches over fields older than the map.
    pub repair_searches: u64,
    /// Closest-position scans and the searches to their candidates.
    pub closest: u64,
    /// Preparing answers for delivery (the ticket's copy of the path, the path's reach for
    /// the sweep after edits), done by the lane that found them.
    pub delivery: u64,
}

impl WorkSplit {
    /// The sum of every part.
    pub fn total(&self) -> u64 {
        self.intake
            + self.sweep
            + self.cancels
            + self.checks
            + self.single_searches
            + self.subgoal_fields
            + self.gate_fields
            + self.field_reads
            + self.leaf_tables
            + self.vouched
            + self.repair_searches
            + self.closest
            + self.delivery
    }
}

/// Running totals of a service.
///
/// ```
/// use quadpath::service::{Budget, PathService, RequestOptions};
/// use quadpath::units::UnitId;
/// use quadpath::{Cell, Grid, Mode, Movement, World};
/// let mut world = World::new(Grid::new_free(32, 32));
/// let infantry = world.add_class(Movement::default(), Mode::Exact)?;
/// let mut service = PathService::new(&world);
/// for unit in 0..8 {
///     // A group of 8 to one rally point: one flow field answers them all.
///     service.request(&world, infantry, UnitId::new(unit), Cell::new(0, unit), Cell::new(30, 30), RequestOptions::default())?;
/// }
/// while service.pending() > 0 {
///     service.tick(&world, Budget::Expansions(1000))?;
/// }
/// let stats = service.stats();
/// assert_eq!((stats.requests, stats.delivered, stats.flow_fields), (8, 8, 1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
    /// Of the flow fields, those searched over a layer's subgoal graph (see
    /// [`Config::subgoals`](crate::Config::subgoals)) rather than over its gates.
    pub subgoal_fields: u64,
    /// Outcomes a subgoal field answered after edits that only blocked cells (without a
    /// new field: see [the service docs](super#edits)).
    pub stale_field_answers: u64,
    /// Outcomes answered after such edits by a search toward the goal guided by a subgoal
    /// field (where the field could not vouch for an answer by itself).
    pub field_repair_searches: u64,
    /// Paths invalidated by edits.
    pub invalidated: u64,
    /// Repairs and re-plans queued.
    pub repairs: u64,
    /// Tickets cancelled.
    pub cancelled: u64,
    /// Work units spent so far, by kind.
    pub work: WorkSplit,
    /// Of `repairs`, the re-plans after edits that freed ground.
    pub replans: u64,
}
