//! A path service for the game loop: orders in, paths out, within a frame budget, shared
//! by groups, repaired when the map changes. It sits on top of a [`World`] that the game
//! owns beside it.
//!
//! - `mod.rs` (this file): [`PathService`], requests, tickets, results, reachability;
//! - `types`: tickets, goals, options, budgets, outcomes, events;
//! - `table`: the tickets' states, by slot, each split into a hot and a cold part;
//! - `walk`: the units' walk along their paths (`step`, `advance`), from the hot part;
//! - `tick`: grouping requests into jobs, lanes, delivery;
//! - `beside`: the tick on a rayon worker beside the rest of the game's frame;
//! - `job`: one job's steps (search, flow field, closest position);
//! - `closest`: the reachable position closest to a goal;
//! - `watch`: edits against live paths (invalidation, repair, re-planning);
//! - `follow`: string-pulling along a delivered path;
//! - `error`: [`ServiceError`].
//!
//! # The loop
//! The game asks with [`PathService::request`] and gets a [`Ticket`] at once. Each frame
//! it calls [`PathService::tick`] with a [`Budget`], reads what finished with
//! [`PathService::drain_finished`] (or [`PathService::poll`]), moves its units along their
//! paths with [`PathService::step`] (or reports where they are with
//! [`PathService::advance`]), tells the service about its map edits
//! with [`PathService::notify_edit`] and reads the resulting [`PathEvent`]s with
//! [`PathService::drain_events`], and releases a path it no longer follows with
//! [`PathService::release`] (or drops a request with [`PathService::cancel`]). Every ticket
//! ends in exactly one first outcome or one cancellation; a repair after an invalidation is
//! one more outcome for the same ticket.
//!
//! ```
//! use quadpath::service::{Budget, Goal, Outcome, PathService, RequestOptions};
//! use quadpath::units::UnitId;
//! use quadpath::{Cell, Grid, Mode, Movement, Rect, World};
//!
//! // A wall down column 10 with a gap at the bottom.
//! let mut world = World::new(Grid::from_fn(21, 12, |x, y| x != 10 || y == 11));
//! let infantry = world.add_class(Movement::default(), Mode::Exact)?;
//! let mut service = PathService::new(&world);
//!
//! // A group of 12 orders to one rally point, and one order into the wall.
//! let rally = Cell::new(18, 2);
//! let group: Vec<_> = (0..12)
//!     .map(|i| service.request(&world, infantry, UnitId::new(i), Cell::new(1, i), rally, RequestOptions::default()))
//!     .collect::<Result<_, _>>()?;
//! let odd = service.request(&world, infantry, UnitId::new(99), Cell::new(2, 2), Goal::Cell(Cell::new(10, 3)), RequestOptions::default())?;
//!
//! while service.pending() > 0 {
//!     service.tick(&world, Budget::Expansions(200))?;
//! }
//! let finished: Vec<_> = service.drain_finished().collect();
//! assert_eq!(finished.len(), 13);
//! assert!(group.iter().all(|t| matches!(service.outcome(*t), Some(Outcome::Full(_)))));
//! // The wall cell itself cannot be reached: the closest reachable position, next to it.
//! let Some(Outcome::Partial { goal_distance, .. }) = service.outcome(odd) else { panic!() };
//! assert_eq!(*goal_distance, 1.0);
//! assert_eq!(service.stats().shared, 12, "one flow field for the group");
//!
//! // A building goes up across the group's route: every path through it is invalidated
//! // and repaired from where its unit stands.
//! let report = world.set_blocked(Rect::new(11, 9, 20, 11), true)?;
//! service.notify_edit(&world, &report); // recorded; the next tick checks the paths
//! service.tick(&world, Budget::Expansions(200))?;
//! assert!(service.drain_events().count() > 0);
//! while service.pending() > 0 {
//!     service.tick(&world, Budget::Expansions(200))?;
//! }
//! for (_, outcome) in service.drain_finished() {
//!     assert!(matches!(outcome, Outcome::Partial { .. }), "the east side is walled off now");
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The budget
//! Work is counted in units: one gate expansion of a search, one cell of a ring scanned
//! for a closest position, one cell of a path read off a flow field, one for a request's
//! first checks. [`Budget::Expansions`] is split evenly between the lanes with work (what
//! a lane leaves, its queue emptied, goes round again to the busy ones), and each lane
//! stops as soon as its share is spent, after the step under way: so a tick does at most
//! `budget + lanes × (largest step)` units. The steps are: a slice of a gate search on an
//! exact layer (which stops exactly at its share and resumes in the next tick, its state
//! kept in the lane's [`SearchContext`](crate::SearchContext)), a whole search on a fast layer (its clustered
//! search does not pause), one ring of a scan, one node settled by a flow field's backward
//! Dijkstra (a gate on an exact layer, a cell on a fast one; before it, 1,024 entries of
//! its arrays filled: builds pause exactly too, their state kept in the job), one position
//! of a path walked down a field (and 64 cells of a leaf's first sweep, or 192 cells worked
//! on in a larger leaf's table, made a slice of whole rows at a time before it is read). [`TickReport::largest_step`] reports the largest. A paused search whose layer is
//! edited starts over (its work so far is lost once, never its answer's truth).
//!
//! A budget in expansions is the deterministic mode: the same requests, edits and budgets
//! in the same order give the same outcomes on every machine and for any number of rayon
//! threads (lanes, not threads, divide the work, and answers are delivered in lane order).
//! [`Budget::Time`] gives that up: where a search pauses depends on the machine's speed,
//! so outcomes may arrive in other frames (their paths are the same). Under a time budget
//! the lanes stop a quarter of it before its end, at most 1 ms before (the rest is for the
//! steps under way and delivery), and look at the clock before
//! every step, in slices of at most 32 units; each lane also learns what its kinds of step
//! have cost lately and does not start one late in a tick whose cost would overrun the
//! deadline (the lane stops and the next lane of its thread goes on), and cuts slices
//! thinner where units cost more. The lane whose turn it is owes the tick one step even
//! past the deadline, so every tick makes progress. The calling thread waits for them in
//! `tick`, past the budget by at most the step under way plus that owed step
//! (docs/service.md, *Ticks and the budget*).
//!
//! Within a lane, single searches go before field jobs and the oldest first within a kind,
//! except that a new job goes before jobs of its kind already late (taken in 3 to 63 ticks
//! ago: they missed the frames the service aims at, the new one need not), never ahead of
//! a paused search, which would restart; new jobs go to the lane with the least work
//! expected of its queue, and one tick's new jobs are queued by Smith's rule, the most
//! tickets per expected work unit first (docs/service.md, *Order of work*). These choices
//! depend only on the requests and the tick count, never on timing.
//!
//! # Beside the frame
//! [`PathService::tick_beside`] runs the tick on rayon's pool (with the `parallel`
//! feature) while the calling thread does the rest of its frame, whose closure it is
//! given and which only reads the [`World`]: the tick's budget is then its own (most of a
//! frame, say `Budget::Time(8 ms)` of a 16.7 ms frame), and the main thread pays only for
//! the calls between ticks (requests, cancels, `advance`, `notify_edit`, drains: a few
//! microseconds each; the intake, the sweep after edits and the delivery run in the tick)
//! and for any wait at the frame's end ([`BesideTick::waited`]). The frame's closure stays
//! on the calling thread (it need not be `Send`). Under [`Budget::Expansions`] the outcomes
//! are those of [`PathService::tick`]; a time budget is not deterministic either way.
//!
//! # Groups
//! Requests taken in by one tick are grouped by class, goal and
//! [`WhenUnreachable`]. A group whose goal is an area or a unit, or with at least
//! [`ServiceConfig::flow_threshold`] distinct starts, is answered from one flow field
//! (exact in both modes, see [`FlowField`](crate::FlowField)). A smaller group of two or
//! more distinct starts shares the goal side ([`ServiceConfig::share_small_groups`]): one
//! backward search from the goal that stops as soon as it covers every member (a bounded
//! field, exact where it covers, see [the flow module](crate::flow)). A lone start to a cell
//! gets one search, and identical requests (class, start, goal) share one answer. A field,
//! and every cell-goal answer, is kept for the next tick's requests while the layer is
//! unedited. [`TickReport::shared`] and [`ServiceStats::shared`] count the outcomes
//! answered from shared work.
//!
//! # Partial paths
//! When the goal cannot be reached (walled off, or not open for the class), the request
//! gets, by default, an optimal path to the reachable position closest to the goal: the
//! position whose octile distance to the nearest cell of the goal is smallest among all
//! positions connected to the start; among equals, the one with the shortest path from the
//! start (its cost; its length under unit costs), then the top-most, then the left-most.
//! The positions are found by scanning rings of growing Chebyshev radius around the goal,
//! testing each position against the start's component in constant time (a ring of radius
//! `r` holds nothing closer than `r`, which ends the scan); the tied ones are then searched
//! nearest first, until the octile lower bound of the next exceeds the best path found.
//!
//! # Edits
//! [`PathService::notify_edit`] takes the [`WorldEditReport`] of each edit and only records
//! it (O(1) amortised). The next [`PathService::tick`] first sweeps the live paths against
//! the edits recorded, as budgeted work (one unit per 32 paths looked at, one per 64
//! positions walked), resuming in the next tick if the budget runs out; it takes in and
//! delivers nothing before the sweep is finished, and until a path is swept
//! [`PathService::poll`] says [`Status::Rechecking`] for it if an edit may touch it. A live path
//! (delivered and not released) whose remaining part (from the position last reported
//! with [`PathService::advance`], or stepped to with [`PathService::step`]) has a position
//! that is no longer open, a step no longer legal, or a position whose cost changed gets
//! one [`PathEvent::Invalidated`] and, when the request asked for repairs, a new search
//! from that reported position, delivered as a fresh outcome.
//!
//! ## Edits that free ground
//! An edit that opens or re-prices positions (a building removed, a road laid) may make a
//! shorter path possible (on exact and fast layers alike). Any route through the edited positions `Z`
//! (the edited rectangle, grown by the agent's size up and left) from the unit's position
//! `p` to the goal `G` is at least `floor × (d(p, Z) + d(Z, G))` long, `d` being the octile
//! distance between the nearest cells and `floor` the cheapest cost per cell of the class.
//! A live path whose remaining cost exceeds that bound is re-planned
//! ([`PathEvent::Replanning`], then a fresh outcome); the others cannot improve and are
//! left alone. Re-plans are low priority: the path stays valid meanwhile, and a tick that
//! finds nothing else queued takes a batch of them (and emits their events).
//!
//! # Following a path
//! [`PathService::next_waypoint`] string-pulls: from the unit's position on its path it
//! returns the farthest position ahead (up to 32 cells) that the straight line reaches over
//! open positions with legal steps only, so the footprint and the corner rule hold all the
//! way. A unit that goes a cell a frame calls [`PathService::step`], which moves it on by one
//! position of its path and returns that position in O(1), from a small record of the
//! ticket (its progress, its position, the next moves of its path packed 4 bits each) kept
//! apart from the rest of its state: the same as [`PathService::outcome`] then
//! [`PathService::advance`], without reading the path.

mod beside;
mod closest;
mod error;
mod follow;
mod job;
mod table;
mod tick;
mod types;
mod walk;
mod watch;

pub use beside::BesideTick;
pub use error::ServiceError;
pub use types::{
    Budget, Failure, Goal, Outcome, PathEvent, RequestOptions, ServiceConfig, ServiceStats, Status,
    TickReport, Ticket, WhenUnreachable, WorkSplit,
};

use crate::geom::{Cell, Rect};
use crate::units::UnitId;
use crate::world::{ClassId, World, WorldEditReport};
use hashbrown::HashMap;
use std::collections::BTreeSet;
use table::TicketTable;
use tick::{GroupKey, Lane, Recent};
use walk::Walk;
use watch::{EditLog, Sweep};

/// What a request asked for, checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Request {
    class: ClassId,
    unit: UnitId,
    goal: Rect,
    options: RequestOptions,
}

impl Request {
    fn key(&self) -> GroupKey {
        (self.class, self.goal, self.options.when_unreachable)
    }
}

/// A request waiting for the next tick's intake.
#[derive(Clone, Copy, Debug)]
struct Intake {
    ticket: Ticket,
    key: GroupKey,
    start: Cell,
}

/// Where one ticket stands.
#[derive(Clone, Debug)]
enum TicketState {
    /// Waiting for an answer (a first one, or a repair), from `start`; its job (number,
    /// lane) once taken in.
    Pending {
        request: Request,
        start: Cell,
        job: Option<(u64, usize)>,
    },
    /// Answered. `costs` holds each position's cost when delivered (for paths); the index
    /// the unit last reported (or stepped to) is in the ticket's [`Walk`].
    Done {
        request: Request,
        outcome: Outcome,
        costs: Option<Vec<f64>>,
        /// The edited cells that may touch the path (`watch::reach`): edits outside
        /// cannot.
        reach: Option<Rect>,
        /// The same for each piece of 16 positions (`watch::piece_reaches`): empty until
        /// the sweep first finds an edit inside `reach` (most paths are released before
        /// one comes near them), then worked out for the whole path and kept.
        pieces: Vec<Rect>,
        /// The cost of the path up to `walked_to` (at most the walk's progress): `step`
        /// and `advance` only move the progress, so that they touch neither the path's
        /// cells nor its costs (cache misses, for every unit every frame); the sweep
        /// catches `walked` up when it needs the cost ahead.
        walked: f64,
        walked_to: usize,
        /// The number of the last reported edit the path has been checked against (or
        /// was delivered after).
        checked: u64,
    },
    /// Answered, invalidated, not to be repaired.
    Invalidated,
}

/// The path service: requests in, outcomes out, a frame budget at a time. See
/// [the module](self) for the loop, the budget, groups, partial paths and edits.
///
/// ```
/// use quadpath::service::{Budget, PathService, RequestOptions};
/// use quadpath::units::UnitId;
/// use quadpath::{Cell, Grid, Mode, Movement, World};
/// let mut world = World::new(Grid::new_free(16, 16));
/// let infantry = world.add_class(Movement::default(), Mode::Exact)?;
/// let mut service = PathService::new(&world);
/// let (from, to) = (Cell::new(0, 0), Cell::new(15, 15));
/// let ticket = service.request(&world, infantry, UnitId::new(0), from, to, RequestOptions::default())?;
/// while service.pending() > 0 {
///     service.tick(&world, Budget::Expansions(100))?; // once a frame
/// }
/// let path = service.outcome(ticket).and_then(|outcome| outcome.path()).expect("a path");
/// assert_eq!((path.start(), path.goal()), (Some(from), Some(to)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct PathService {
    config: ServiceConfig,
    lanes: Vec<Lane>,
    tickets: TicketTable<Walk, TicketState>,
    intake: Vec<Intake>,
    finished: Vec<(Ticket, Outcome)>,
    events: Vec<PathEvent>,
    pending_per_unit: HashMap<UnitId, usize>,
    recent: Recent,
    /// What the reported edits did (whether kept subgoal fields still answer).
    edits: EditLog,
    /// The reported edits still to check the live paths against.
    sweep: Sweep,
    /// Tickets pending (waiting for a first answer or a repair).
    pending: usize,
    /// Delivered paths an edit that freed ground may have made longer than needed, waiting
    /// for idle lanes (see `watch::take_replans`).
    replans: BTreeSet<Ticket>,
    /// The states of delivered paths cancelled or released since the last tick, freed by
    /// the tick (on its worker, beside the frame): freeing a path's buffers (its cells,
    /// costs and pieces, written by the worker) was most of a cancel's time on the main
    /// thread.
    released: Vec<TicketState>,
    next_job: u64,
    frame: u64,
    /// The lane whose turn it is in the next tick, if it has jobs: the first of the lanes
    /// without new work in the serving order, and the one that owes the tick a step (see
    /// `tick::serving_order`).
    lane_turn: usize,
    stats: ServiceStats,
}

impl PathService {
    /// A service for `world` with the default [`ServiceConfig`].
    pub fn new(world: &World) -> Self {
        Self::with_config(world, ServiceConfig::default())
    }

    /// A service for `world` configured by `config`.
    pub fn with_config(_world: &World, config: ServiceConfig) -> Self {
        let lanes = config.lanes.max(1);
        PathService {
            config: ServiceConfig { lanes, ..config },
            lanes: (0..lanes).map(|_| Lane::default()).collect(),
            tickets: TicketTable::default(),
            intake: Vec::new(),
            finished: Vec::new(),
            events: Vec::new(),
            pending_per_unit: HashMap::new(),
            recent: Recent::default(),
            edits: EditLog::default(),
            sweep: Sweep::default(),
            pending: 0,
            replans: BTreeSet::new(),
            released: Vec::new(),
            next_job: 0,
            frame: 0,
            lane_turn: 0,
            stats: ServiceStats::default(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> ServiceConfig {
        self.config
    }

    /// Asks for a path for `unit` of `class` from `start` to `goal`: a ticket at once, the
    /// work in later ticks.
    ///
    /// # Errors
    /// [`ServiceError::UnknownClass`], [`ServiceError::StartOffMap`],
    /// [`ServiceError::GoalOffMap`] (a goal reaching off the map), [`ServiceError::EmptyGoal`]
    /// (a unit goal of size 0), [`ServiceError::TooManyRequests`] when `unit` already has
    /// [`ServiceConfig::max_pending_per_unit`] requests pending, and
    /// [`ServiceError::TooManyTickets`] when the service holds 2^32 live tickets. No ticket is
    /// issued then.
    pub fn request(
        &mut self,
        world: &World,
        class: ClassId,
        unit: UnitId,
        start: Cell,
        goal: impl Into<Goal>,
        options: RequestOptions,
    ) -> Result<Ticket, ServiceError> {
        let movement = world.movement(class).ok_or(ServiceError::UnknownClass {
            class,
            count: world.classes().count(),
        })?;
        let (width, height) = (world.grid().width(), world.grid().height());
        if start.x >= width || start.y >= height {
            return Err(ServiceError::StartOffMap {
                cell: start,
                width,
                height,
            });
        }
        let goal = goal_area(goal.into(), movement.size(), (width, height))?;
        let pending = self.pending_per_unit.get(&unit).copied().unwrap_or(0);
        if pending >= self.config.max_pending_per_unit {
            return Err(ServiceError::TooManyRequests {
                unit,
                limit: self.config.max_pending_per_unit,
            });
        }
        let request = Request {
            class,
            unit,
            goal,
            options,
        };
        let state = TicketState::Pending {
            request,
            start,
            job: None,
        };
        let ticket = (self.tickets)
            .issue(Walk::of(&state), state)
            .map_err(|full| ServiceError::TooManyTickets { limit: full.limit })?;
        self.take_in_next(ticket, request, start);
        self.stats.requests += 1;
        Ok(ticket)
    }

    /// Puts the live `ticket` (a repair, a re-plan) back in the next intake, pending from
    /// `start`.
    fn queue(&mut self, ticket: Ticket, request: Request, start: Cell) {
        let state = TicketState::Pending {
            request,
            start,
            job: None,
        };
        if self.settle(ticket, state) {
            self.take_in_next(ticket, request, start);
        }
    }

    /// Replaces the state of the live `ticket`, and its walk with it (back to the start of
    /// a new path); `false`, and nothing done, when the ticket is not live.
    fn settle(&mut self, ticket: Ticket, state: TicketState) -> bool {
        self.tickets.set(ticket, Walk::of(&state), state)
    }

    /// Counts the pending `ticket` and adds it to the next intake.
    fn take_in_next(&mut self, ticket: Ticket, request: Request, start: Cell) {
        *self.pending_per_unit.entry(request.unit).or_insert(0) += 1;
        self.pending += 1;
        self.intake.push(Intake {
            ticket,
            key: request.key(),
            start,
        });
    }

    /// Drops `ticket`: a pending request is taken out of its job (by the next tick: a job
    /// with no one left is dropped then), a delivered path is forgotten. The ticket is
    /// unknown afterwards (its slot in the ticket table is reused, under another number).
    /// O(1) amortized (one call in many tidies the ticket table's ordered index, in
    /// O(live tickets)), plus O(log n) for any ticket while a re-plan is pending; a
    /// delivered path's buffers are freed by the next tick.
    ///
    /// # Errors
    /// [`ServiceError::UnknownTicket`] for a ticket never issued, released or cancelled.
    pub fn cancel(&mut self, ticket: Ticket) -> Result<(), ServiceError> {
        let state = self
            .tickets
            .remove(ticket)
            .ok_or(ServiceError::UnknownTicket { ticket })?;
        if !self.replans.is_empty() {
            self.replans.remove(&ticket);
        }
        if let TicketState::Pending { request, job, .. } = state {
            self.pending -= 1;
            if let Some(n) = self.pending_per_unit.get_mut(&request.unit) {
                *n -= 1;
                if *n == 0 {
                    self.pending_per_unit.remove(&request.unit);
                }
            }
            // Not taken in yet: the intake skips tickets it no longer knows. Taken in: its
            // lane takes it out of the job at the start of the next tick.
            if let Some((number, lane)) = job {
                self.lanes[lane].cancelled.push((number, ticket));
            }
            self.stats.cancelled += 1;
        } else if matches!(state, TicketState::Done { .. }) {
            self.released.push(state);
        }
        Ok(())
    }

    /// Forgets a delivered (or invalidated) path the unit no longer follows: the same as
    /// [`PathService::cancel`], by its other name.
    ///
    /// # Errors
    /// As [`PathService::cancel`].
    pub fn release(&mut self, ticket: Ticket) -> Result<(), ServiceError> {
        self.cancel(ticket)
    }

    /// Where `ticket` stands.
    ///
    /// # Errors
    /// [`ServiceError::UnknownTicket`] for a ticket never issued, released or cancelled.
    pub fn poll(&self, ticket: Ticket) -> Result<Status<'_>, ServiceError> {
        match self.tickets.get(ticket) {
            None => Err(ServiceError::UnknownTicket { ticket }),
            Some(TicketState::Pending { .. }) => Ok(Status::Pending),
            Some(TicketState::Done {
                outcome,
                reach,
                checked,
                ..
            }) => Ok(if self.sweep.may_touch(*checked, *reach) {
                Status::Rechecking(outcome)
            } else {
                Status::Done(outcome)
            }),
            Some(TicketState::Invalidated) => Ok(Status::Invalidated),
        }
    }

    /// The outcome `ticket` holds, if it has one and it is not under recheck (see
    /// [`PathService::poll`]): a path returned here is valid on the map as the service
    /// last heard of it.
    pub fn outcome(&self, ticket: Ticket) -> Option<&Outcome> {
        match self.poll(ticket) {
            Ok(Status::Done(outcome)) => Some(outcome),
            _ => None,
        }
    }

    /// The outcomes delivered since the last drain, in delivery order (first answers and
    /// repairs alike). Each stays readable with [`PathService::poll`] until released.
    pub fn drain_finished(&mut self) -> impl Iterator<Item = (Ticket, Outcome)> + '_ {
        self.finished.drain(..)
    }

    /// The path events since the last drain, in order.
    pub fn drain_events(&mut self) -> impl Iterator<Item = PathEvent> + '_ {
        self.events.drain(..)
    }

    /// Tickets waiting for an answer (first answers and repairs).
    pub fn pending(&self) -> usize {
        self.pending
    }

    /// Whether reported edits still wait to be checked against the live paths (by the
    /// next ticks' sweep; see [the rules](self#edits)).
    pub fn rechecking(&self) -> bool {
        !self.sweep.is_done()
    }

    /// Tickets the service holds: pending, delivered, or invalidated, not yet released.
    pub fn live_tickets(&self) -> usize {
        self.tickets.len()
    }

    /// Running totals.
    pub fn stats(&self) -> ServiceStats {
        self.stats
    }

    /// Ticks run so far.
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// Whether an agent of `class` can go from `from` to `to`, in constant time from the
    /// layer's component labels (kept up to date by every edit). `false` when either
    /// position is not open for the class.
    ///
    /// ```
    /// use quadpath::service::PathService;
    /// use quadpath::{Cell, Grid, Mode, Movement, World};
    /// let mut world = World::new(Grid::from_fn(9, 9, |x, y| x != 4 || y == 8));
    /// let tank = world.add_class(Movement::default().with_size(2)?, Mode::Exact)?;
    /// let service = PathService::new(&world);
    /// assert!(!service.reachable(&world, tank, Cell::new(0, 0), Cell::new(7, 0))?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ServiceError::UnknownClass`], and [`ServiceError::StartOffMap`] for a position off
    /// the map.
    pub fn reachable(
        &self,
        world: &World,
        class: ClassId,
        from: Cell,
        to: Cell,
    ) -> Result<bool, ServiceError> {
        let layer = world.layer(class).ok_or(ServiceError::UnknownClass {
            class,
            count: world.classes().count(),
        })?;
        let (width, height) = (world.grid().width(), world.grid().height());
        for cell in [from, to] {
            if cell.x >= width || cell.y >= height {
                return Err(ServiceError::StartOffMap {
                    cell,
                    width,
                    height,
                });
            }
        }
        Ok(layer.connected(from, to).unwrap_or(false))
    }

    /// Heap bytes the service holds (tickets, queued jobs, kept answers and fields, search
    /// buffers excluded): bounded by the live tickets and the paths dropped since the last
    /// tick (a tick under a time budget frees those only within its time, so a burst of
    /// releases may wait a few ticks; see `free_released`).
    pub fn memory_bytes(&self) -> usize {
        let paths: usize = (self.tickets.states())
            .chain(&self.released)
            .map(|s| match s {
                TicketState::Done {
                    outcome,
                    costs,
                    pieces,
                    ..
                } => {
                    outcome.path().map_or(0, |p| p.cells.capacity() * 8)
                        + costs.as_ref().map_or(0, |c| c.capacity() * 8)
                        + pieces.capacity() * std::mem::size_of::<Rect>()
                }
                _ => 0,
            })
            .sum();
        let fields: usize = self
            .recent
            .fields
            .values()
            .map(|f| f.memory_bytes())
            .sum::<usize>()
            + (self.recent.subgoal_fields.iter())
                .map(|(_, f)| f.memory_bytes())
                .sum::<usize>();
        paths
            + fields
            + self.tickets.memory_bytes()
            + self.intake.capacity() * std::mem::size_of::<Intake>()
            + self.released.capacity() * std::mem::size_of::<TicketState>()
    }
}

/// The rectangle of positions `goal` stands for, for an agent of side `size` on a map of
/// `dims`.
fn goal_area(goal: Goal, size: u32, (width, height): (u32, u32)) -> Result<Rect, ServiceError> {
    let area = match goal {
        Goal::Cell(c) => Rect::new(c.x, c.y, c.x, c.y),
        Goal::Area(r) => r,
        Goal::Unit { at, size: 0 } => return Err(ServiceError::EmptyGoal { at }),
        Goal::Unit { at, size: unit } => {
            // Positions whose K×K footprint touches the unit's: up to K cells left/above,
            // and up to one cell right/below of it; clipped to the map.
            let x2 = (at.x as u64 + unit as u64).min(width.saturating_sub(1) as u64) as u32;
            let y2 = (at.y as u64 + unit as u64).min(height.saturating_sub(1) as u64) as u32;
            if at.x >= width || at.y >= height {
                return Err(ServiceError::GoalOffMap {
                    area: Rect::new(at.x, at.y, at.x, at.y),
                    width,
                    height,
                });
            }
            Rect::new(at.x.saturating_sub(size), at.y.saturating_sub(size), x2, y2)
        }
    };
    if area.x2 >= width || area.y2 >= height {
        return Err(ServiceError::GoalOffMap {
            area,
            width,
            height,
        });
    }
    Ok(area)
}

impl PathService {
    /// Records one edit of the world (see [the rules](self#edits)), in O(1) amortised: the
    /// next ticks check the live paths against it within their budget, before they take in
    /// or deliver anything, and emit the events. Until then [`PathService::poll`] says
    /// [`Status::Rechecking`] for a path the edit may touch.
    pub fn notify_edit(&mut self, world: &World, report: &WorldEditReport) {
        watch::note(self, world, report);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Grid, Mode, Movement};

    /// Cancelling tickets leaves their places in the ticket order to the next tick (a
    /// pass over the whole index, O(live tickets), which a `cancel` on the main thread
    /// must not pay), and that tick takes them out once they outnumber the live ones.
    #[test]
    fn cancelled_tickets_leave_the_order_at_the_next_tick() {
        let mut world = World::new(Grid::new_free(16, 16));
        let class = world.add_class(Movement::default(), Mode::Exact).unwrap();
        let mut service = PathService::new(&world);
        let goal = Cell::new(15, 15);
        let tickets: Vec<Ticket> = (0..300u32)
            .map(|i| {
                let start = Cell::new(i % 16, i / 16 % 16);
                let unit = UnitId::new(i);
                let options = RequestOptions::default();
                service.request(&world, class, unit, start, goal, options)
            })
            .collect::<Result<_, _>>()
            .unwrap();
        for &ticket in &tickets[10..] {
            service.cancel(ticket).unwrap();
        }
        assert_eq!(service.live_tickets(), 10);
        assert_eq!(
            service.tickets.index_len(),
            300,
            "no cancel tidied the index"
        );
        service.tick(&world, Budget::Expansions(1)).unwrap();
        assert_eq!(service.tickets.index_len(), 10, "the tick tidied it");
    }

    /// Past the most live tickets the table can name (2^32, shrunk to 2 here), `request`
    /// refuses with a typed error and changes nothing; a released ticket makes room.
    #[test]
    fn requests_past_the_ticket_limit_get_a_typed_error() {
        let mut world = World::new(Grid::new_free(8, 8));
        let class = world.add_class(Movement::default(), Mode::Exact).unwrap();
        let mut service = PathService::new(&world);
        service.tickets = TicketTable::with_slot_limit(2);
        let options = RequestOptions::default();
        let order = |service: &mut PathService, unit: u32| {
            let start = Cell::new(unit, 0);
            service.request(
                &world,
                class,
                UnitId::new(unit),
                start,
                Cell::new(7, 7),
                options,
            )
        };
        let first = order(&mut service, 0).unwrap();
        let second = order(&mut service, 1).unwrap();
        assert_eq!(
            order(&mut service, 2),
            Err(ServiceError::TooManyTickets { limit: 2 })
        );
        assert_eq!((service.pending(), service.live_tickets()), (2, 2));
        assert_eq!(
            service.stats().requests,
            2,
            "a refused request is not counted"
        );
        service.release(first).unwrap();
        let third = order(&mut service, 2).expect("a released ticket makes room");
        assert_eq!(third.number(), 2, "no number lost to the refusal");
        while service.pending() > 0 {
            service.tick(&world, Budget::Expansions(100)).unwrap();
        }
        let mut delivered: Vec<Ticket> = service.drain_finished().map(|(t, _)| t).collect();
        delivered.sort();
        assert_eq!(
            delivered,
            [second, third],
            "both answered, the refused one never"
        );
    }

    /// A released path's buffers wait for the next tick (off the main thread beside the
    /// frame), counted in the service's memory meanwhile, and that tick frees them: no more
    /// than the paths dropped between two ticks are held.
    #[test]
    fn released_paths_are_freed_by_the_next_tick() {
        let mut world = World::new(Grid::new_free(64, 64));
        let class = world.add_class(Movement::default(), Mode::Exact).unwrap();
        let mut service = PathService::new(&world);
        service.tick(&world, Budget::Expansions(100)).unwrap();
        let empty = service.memory_bytes();
        let options = RequestOptions::default();
        let (from, to) = (Cell::new(0, 0), Cell::new(63, 40));
        let ticket = (service.request(&world, class, UnitId::new(0), from, to, options)).unwrap();
        while service.pending() > 0 {
            service.tick(&world, Budget::Expansions(1_000)).unwrap();
        }
        let holding = service.memory_bytes();
        assert!(
            holding > empty + 64 * 8,
            "{holding} bytes with a path, {empty} without"
        );
        service.release(ticket).unwrap();
        assert_eq!(service.released.len(), 1, "the path waits for the tick");
        let waiting = service.memory_bytes();
        // The path's cells, 8 bytes a position, are counted meanwhile.
        assert!(waiting >= 64 * 8, "{waiting} bytes");
        service.tick(&world, Budget::Expansions(100)).unwrap();
        assert!(service.released.is_empty(), "the tick frees it");
        let freed = service.memory_bytes();
        assert!(
            freed <= waiting - 64 * 8,
            "{empty} / {holding} / {waiting} / {freed}"
        );
    }

    /// A tick under a time budget frees released paths only until a quarter of its lanes'
    /// time, reading the clock every 32 frees, and leaves the rest to the next ticks (a
    /// game releasing thousands at once must not take a tick past its budget, as a review
    /// found when they were all freed at once); `Budget::Expansions` frees them all. Fails
    /// when the frees ignore the deadline or the next tick forgets the rest.
    #[test]
    fn a_tick_frees_released_paths_within_its_time() {
        let mut world = World::new(Grid::new_free(64, 64));
        let class = world.add_class(Movement::default(), Mode::Exact).unwrap();
        let mut service = PathService::new(&world);
        let options = RequestOptions::default();
        let tickets: Vec<Ticket> = (0..100)
            .map(|u| {
                let from = Cell::new(u % 64, u / 64);
                let to = Cell::new(63, 40);
                service.request(&world, class, UnitId::new(u), from, to, options)
            })
            .collect::<Result<_, _>>()
            .unwrap();
        while service.pending() > 0 {
            service.tick(&world, Budget::Expansions(10_000)).unwrap();
        }
        for &t in &tickets {
            service.release(t).unwrap();
        }
        assert_eq!(service.released.len(), 100);
        // A deadline already past: one round of frees, then the clock says stop.
        let now = std::time::Instant::now();
        service.free_released(now, Some(now));
        assert_eq!(service.released.len(), 100 - 32, "one round of 32 frees");
        // Time enough: the rest goes.
        let later = now + std::time::Duration::from_secs(3600);
        service.free_released(now, Some(later));
        assert!(service.released.is_empty());
        assert!(
            service.released.capacity() <= 256,
            "the peak's room is given back"
        );
    }

    /// A delivered path's pieces (the reach of each 16 positions) are left out until the
    /// sweep first finds an edit inside the path's reach, then worked out from the path's
    /// own cells, all of them: checked against reaches written out by hand for a straight
    /// path along the top row, and by an edit breaking the path in a piece past the unit's
    /// position. Fails when the pieces are worked out at delivery, never, from the cells
    /// ahead of the unit only, or grown wrong.
    #[test]
    fn a_paths_pieces_are_worked_out_when_an_edit_first_comes_near() {
        let mut world = World::new(Grid::new_free(64, 64));
        let class = world.add_class(Movement::default(), Mode::Exact).unwrap();
        let mut service = PathService::new(&world);
        let options = RequestOptions::default();
        let (from, to) = (Cell::new(0, 0), Cell::new(63, 0));
        let ticket = (service.request(&world, class, UnitId::new(0), from, to, options)).unwrap();
        while service.pending() > 0 {
            service.tick(&world, Budget::Expansions(1_000)).unwrap();
        }
        let pieces = |service: &PathService| match service.tickets.get(ticket) {
            Some(TicketState::Done {
                outcome, pieces, ..
            }) => {
                let cells = &outcome.path().unwrap().cells;
                assert_eq!(cells.len(), 64, "the straight row");
                assert!(cells
                    .iter()
                    .enumerate()
                    .all(|(i, c)| *c == Cell::new(i as u32, 0)));
                pieces.clone()
            }
            other => panic!("not a live path: {other:?}"),
        };
        assert!(
            pieces(&service).is_empty(),
            "nothing worked out at delivery"
        );
        service.advance(ticket, 20).unwrap();
        // Outside the path's reach (rows 0 and 1): the pieces are still not needed.
        let report = world.set_blocked(Rect::new(10, 30, 12, 31), true).unwrap();
        service.notify_edit(&world, &report);
        service.tick(&world, Budget::Expansions(1_000)).unwrap();
        assert!(pieces(&service).is_empty(), "an edit far away");
        // Inside the reach, and harmless: a straight step needs no cell beside it.
        let report = world.set_blocked(Rect::new(5, 1, 5, 1), true).unwrap();
        service.notify_edit(&world, &report);
        service.tick(&world, Budget::Expansions(1_000)).unwrap();
        assert!(
            service.drain_events().next().is_none(),
            "the path still holds"
        );
        // Piece k: positions 16k..=16k+16 (the next piece's first, its last step's end),
        // one cell around up and left, the footprint and one cell right and down.
        let by_hand: Vec<Rect> = (0..4u32)
            .map(|k| Rect::new((16 * k).saturating_sub(1), 0, (16 * k + 16).min(63) + 1, 1))
            .collect();
        assert_eq!(
            pieces(&service),
            by_hand,
            "every piece, from the whole path"
        );
        // An edit in the last piece, ahead of the unit: found at the step into it.
        let report = world.set_blocked(Rect::new(50, 0, 50, 0), true).unwrap();
        service.notify_edit(&world, &report);
        service.tick(&world, Budget::Expansions(1_000)).unwrap();
        let events: Vec<PathEvent> = service.drain_events().collect();
        assert_eq!(
            events,
            [PathEvent::Invalidated {
                ticket,
                first_bad_index: 49
            }]
        );
    }
}
