//! Jobs: the unit of work a lane runs. A job answers one or more starts of one class to one
//! goal, start after start, and can stop after any step and go on in a later tick.

use super::closest::{ClosestRoute, ClosestScan};
use super::types::{Failure, Outcome, Ticket, WhenUnreachable, WorkSplit};
use super::watch::{bounding_box, reach, EditLog};
use crate::flow::{FieldBuild, FlowField, FlowGoal};
use crate::geom::{Cell, Rect};
use crate::hpa::{
    HpaMap, Path, PathSearch, QueryError, SearchContext, SearchProgress, SubgoalField,
};
use crate::world::{ClassId, World};
use hashbrown::HashSet;
use std::time::Instant;

/// Expansions (or settled nodes of a field's build) between two looks at the clock under a
/// time budget: small, since one node of a large open leaf offers its distance to every
/// gate of the leaf (a few microseconds), and a look at the clock costs tens of
/// nanoseconds.
const TIME_SLICE: usize = 32;

/// Work units of a subgoal field's growth between two looks at whether the member is
/// answered, under a budget of units (a time budget slices finer already, at most
/// [`TIME_SLICE`]): a field grown past its members spends units the tick's other jobs wait
/// for (an aimed field's growth past its army serves no one), and a look costs about a
/// unit (the member's ties against the field's lowest key). Before, a step took all the
/// lane's units left.
const FIELD_SLICE: usize = 256;

/// Cells of a leaf's first sweep (working out its distances on a walk down a field) that
/// count as one unit of work: a sweep cell is a few nanoseconds, an expansion a few
/// hundred.
const SWEEP_CELLS: usize = 64;

/// Cells worked on by a large leaf's sweep run a slice at a time ([`FlowField::prepare`])
/// that count as one unit: each cell is worked on three times there (filled, then both
/// raster passes), once per [`SWEEP_CELLS`] in a first read's sweep.
const SLICED_SWEEP_CELLS: usize = 3 * SWEEP_CELLS;

/// Repair searches a job runs over a subgoal field older than the map before it starts a
/// new field instead (see `Job::answer_member`).
const REPAIRS_PER_OLD_FIELD: usize = 3;

/// Spare subgoal fields a lane keeps for their buffers.
pub(super) const SPARE_FIELDS: usize = 4;

/// [`Job::weight`] of a job that builds a flow field: about as many single searches.
const FIELD_WEIGHT: usize = 16;

/// What work units are spent on (see [`WorkSplit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Sweep,
    Cancels,
    Checks,
    SingleSearches,
    SubgoalFields,
    GateFields,
    FieldReads,
    LeafTables,
    Vouched,
    RepairSearches,
    Closest,
    Delivery,
}

impl Kind {
    /// Adds `work` units to this kind's part of `split`.
    pub fn add(self, split: &mut WorkSplit, work: usize) {
        let part = match self {
            Kind::Sweep => &mut split.sweep,
            Kind::Cancels => &mut split.cancels,
            Kind::Checks => &mut split.checks,
            Kind::SingleSearches => &mut split.single_searches,
            Kind::SubgoalFields => &mut split.subgoal_fields,
            Kind::GateFields => &mut split.gate_fields,
            Kind::FieldReads => &mut split.field_reads,
            Kind::LeafTables => &mut split.leaf_tables,
            Kind::Vouched => &mut split.vouched,
            Kind::RepairSearches => &mut split.repair_searches,
            Kind::Closest => &mut split.closest,
            Kind::Delivery => &mut split.delivery,
        };
        *part += work as u64;
    }
}

/// What a lane (or the tick's sweep of live paths) may still spend in this tick, and what
/// it has spent.
#[derive(Clone, Copy, Debug)]
pub(super) struct Allowance {
    /// Work units left (`usize::MAX` under a time budget).
    pub left: usize,
    pub deadline: Option<Instant>,
    pub work: usize,
    pub largest_step: usize,
    /// `work` by kind.
    pub split: WorkSplit,
    /// Under a time budget: the most the next resumable step may take (set by
    /// [`Allowance::admit`]).
    time_slice: usize,
    /// Steps a job took with this allowance.
    steps: usize,
    /// Under a time budget: what the lane's steps have cost lately (the lane keeps it from
    /// tick to tick).
    pub pace: Pace,
    /// Under a time budget: whether the lane owes the tick a step even past the deadline
    /// (the lane whose turn it is, so that every tick makes progress however late the
    /// lanes start; see `tick::serving_order`).
    pub owes_a_step: bool,
    /// Under a time budget: whether a step was refused for not fitting before the
    /// deadline. The lane stops there (asking again would only wait for the deadline) and
    /// leaves the time to the next lane of its thread.
    declined: bool,
}

impl Allowance {
    /// Whether the lane must stop before its next step: its units are spent, a step did
    /// not fit before the deadline, or the deadline has passed, unless it owes the tick a
    /// step and has not taken one yet.
    pub fn spent(&self) -> bool {
        let owed = self.owes_a_step && self.steps == 0;
        self.left == 0 || self.declined || (!owed && self.out_of_time())
    }

    /// Whether the units are spent or the deadline has passed, owed step or not: work
    /// that is no job's step (taking out cancelled tickets, freeing a field) waits then.
    pub fn exhausted(&self) -> bool {
        self.left == 0 || self.out_of_time()
    }

    /// Whether the deadline, if any, has passed.
    fn out_of_time(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// The most a resumable step may take now.
    fn slice(&self) -> usize {
        if self.deadline.is_some() {
            self.time_slice
        } else {
            self.left
        }
    }

    /// An allowance of `left` units (`usize::MAX` under a time budget) until `deadline`.
    pub fn new(left: usize, deadline: Option<Instant>) -> Self {
        Allowance {
            left,
            deadline,
            work: 0,
            largest_step: 0,
            split: WorkSplit::default(),
            time_slice: TIME_SLICE,
            steps: 0,
            pace: Pace::default(),
            owes_a_step: false,
            declined: false,
        }
    }

    /// Under a time budget, whether a step of `kind` still fits before the deadline by
    /// what such steps have cost lately, and if so, the slice a resumable one may take
    /// (fewer units where they have cost more than usual); the step a lane owes the tick
    /// always runs (so that every tick makes progress, see `tick::serving_order`), any
    /// other only if it fits. Returns the time the step
    /// starts at, for [`Allowance::done`]. Always admits under a budget of units (which
    /// stays deterministic).
    fn admit(&mut self, kind: StepKind) -> Result<Option<Instant>, ()> {
        let Some(deadline) = self.deadline else {
            return Ok(None);
        };
        let now = Instant::now();
        let left_us = deadline.saturating_duration_since(now).as_secs_f32() * 1e6;
        let (per_step, per_unit) = self.pace.estimate(kind);
        self.time_slice = if kind.is_sliced() {
            // At least one unit (the step could not stop sooner anyway).
            (left_us / per_unit).clamp(1.0, TIME_SLICE as f32) as usize
        } else {
            TIME_SLICE
        };
        // A resumable step's least cost is one unit.
        let cost = if kind.is_sliced() { per_unit } else { per_step };
        let owed = self.owes_a_step && self.steps == 0;
        if !owed && cost > left_us {
            self.declined = true;
            return Err(());
        }
        self.steps += 1;
        Ok(Some(now))
    }

    /// Learns what the step admitted at `started` cost: `work` units.
    fn done(&mut self, kind: StepKind, started: Option<Instant>, work: usize) {
        if let Some(t) = started {
            let us = t.elapsed().as_secs_f32() * 1e6;
            self.pace.learn(kind, us, work);
        }
    }

    /// Books `work` units of `kind` done by one run of steps, the largest of them `step`.
    pub fn book(&mut self, work: usize, step: usize, kind: Kind) {
        kind.add(&mut self.split, work);
        self.work += work;
        self.left = self.left.saturating_sub(work);
        self.largest_step = self.largest_step.max(step);
    }
}

/// Positions of a path looked at per work unit when it is prepared for delivery (its
/// bounding box worked out from its cells, or each position's terrain cost looked up):
/// callgrind of the armies' burst (session 41), 9.5 instructions a position for the box,
/// where a unit is about 1,030.
const DELIVERY_CELLS: usize = 64;

/// Positions of a path copied per work unit when it is prepared for delivery (the
/// ticket's own copy: one allocation and a copy of 8 bytes a position). Callgrind of the
/// armies' burst on Cauldron (session 41), once the subgoal fields' answers came with
/// their box: 2,000 deliveries of ~580 positions in 4.59M instructions, ~2,300 each
/// (about 450 fixed, ~3.2 a position); a unit (~1,030) per 256 positions prices a
/// position at ~4.
const DELIVERY_COPIED_CELLS: usize = 256;

/// The kinds of a job's steps, by what they cost (see [`Pace`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StepKind {
    /// A start's first checks.
    Checks,
    /// Starting a field for the job (a subgoal field's start, priced by what the previous
    /// use of its buffers left to empty, see `HpaMap::start_subgoal_field`) and joining
    /// the first member to it, or a slice of a gate field's build.
    FieldStart,
    /// Joining a member to the job's field (its cone scan and direct line).
    Join,
    /// A slice of a single search (to the goal, or to a closest position).
    Search,
    /// A slice of a subgoal field's growth, or writing out a member's path.
    Growth,
    /// A slice of a repair search over a field older than the map (its cone scans of the
    /// goal's outline make a unit cost up to 20 times a growth's).
    Repair,
    /// A slice of a walk down a gate field, or of a closest-position scan.
    Walk,
}

impl StepKind {
    const COUNT: usize = 7;

    /// Whether the step stops after the slice it is given.
    fn is_sliced(self) -> bool {
        !matches!(
            self,
            StepKind::Checks | StepKind::FieldStart | StepKind::Join
        )
    }
}

/// What a lane's steps have cost lately under a time budget, in microseconds, by kind:
/// a fixed cost per step and a cost per work unit. Estimates rise at once to half-way
/// toward a dearer step and fall slowly (so that a rare long step is remembered for a
/// while), and a step is never admitted late in a tick when its estimate would overrun
/// the deadline: the tick stops before it instead (see [`Allowance::admit`]).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Pace {
    per_step: [f32; StepKind::COUNT],
    per_unit: [f32; StepKind::COUNT],
}

impl Pace {
    /// The estimates for `kind`: per step, per unit.
    fn estimate(&self, kind: StepKind) -> (f32, f32) {
        let k = kind as usize;
        (self.per_step[k], self.per_unit[k].max(0.001))
    }

    /// Learns a step of `kind` that took `us` microseconds and `work` units.
    fn learn(&mut self, kind: StepKind, us: f32, work: usize) {
        let k = kind as usize;
        let (estimate, sample) = if kind.is_sliced() {
            (&mut self.per_unit[k], us / work.max(1) as f32)
        } else {
            (&mut self.per_step[k], us)
        };
        // A sample far above the estimate (most likely the thread was preempted: the
        // clock is the wall's) moves it only so far.
        let slack = if kind.is_sliced() { 1.0 } else { 50.0 };
        let sample = sample.min(4.0 * *estimate + slack);
        if sample > *estimate {
            *estimate += (sample - *estimate) / 2.0;
        } else {
            *estimate += (sample - *estimate) / 16.0;
        }
    }
}

/// One answer a job gives, ready to be handed to its ticket. What delivering it needs
/// besides the outcome (the ticket's own copy, the reach the sweep after edits looks at)
/// is worked out by whoever found it: a lane, within its share of the budget (and off the
/// calling thread with `parallel`). Delivering on the calling thread, after the lanes'
/// deadline, only moves it into place: copying the paths there took up to ~0.5 ms in a
/// tick that delivered 170 outcomes of a few hundred positions each.
#[derive(Clone, Debug)]
pub(super) struct Answer {
    pub ticket: Ticket,
    /// The copy handed to the game by `drain_finished`.
    pub outcome: Outcome,
    /// Answered from work shared with other requests.
    pub shared: bool,
    /// The ticket's own copy of the outcome.
    pub held: Outcome,
    /// Whether the next tick's identical requests may reuse the answer (cell goals only):
    /// they copy the ticket's own copy then, if it is still held.
    pub keep: bool,
    /// Each position's cost when found, on a layer with terrain costs.
    pub costs: Option<Vec<f64>>,
    /// The edited cells that may touch the path (`watch::reach`). The same for each
    /// piece of the path (`watch::piece_reaches`) is left to the sweep, the first time an
    /// edit meets this reach: most paths are released before any edit comes near them.
    pub reach: Option<Rect>,
}

impl Answer {
    /// `outcome` for `ticket`, prepared for delivery on `map` for a class of footprint
    /// `size` (`keep`: also a copy for the answers kept for the next tick); `known_box`,
    /// when the finder knows it, the smallest rectangle holding the path's cells (a
    /// subgoal field's route has it from its corner points). Returns it with the work
    /// units it took: one, plus one per [`DELIVERY_CELLS`] positions looked at (the
    /// bounding box when it is not known, the terrain costs on a map with them) and one
    /// per [`DELIVERY_COPIED_CELLS`] copied.
    pub(super) fn prepare(
        map: &HpaMap,
        size: u32,
        keep: bool,
        (ticket, outcome, shared): (Ticket, Outcome, bool),
        known_box: Option<Rect>,
    ) -> (Answer, usize) {
        // Under unit costs no edit can re-price a position: nothing to remember.
        let priced = !map.costs().is_unit();
        let cells = outcome.path().map_or(&[][..], |p| &p.cells[..]);
        let costs = (priced && !cells.is_empty()).then(|| {
            cells
                .iter()
                .map(|&c| map.costs().cell_cost(map.grid(), c))
                .collect()
        });
        let looked_at = usize::from(known_box.is_none()) + usize::from(priced);
        let known_box = known_box.filter(|_| !cells.is_empty());
        let reach = known_box
            .or_else(|| bounding_box(cells))
            .map(|b| reach(b, size));
        let work =
            1 + looked_at * cells.len() / DELIVERY_CELLS + cells.len() / DELIVERY_COPIED_CELLS;
        let answer = Answer {
            ticket,
            held: outcome.clone(),
            keep,
            outcome,
            shared,
            costs,
            reach,
        };
        (answer, work)
    }
}

/// Where the answer for the current start stands.
#[derive(Clone, Debug)]
enum Attempt {
    /// Nothing done yet for this start.
    Fresh,
    /// A search straight to the goal cell.
    Direct(PathSearch),
    /// Reading the path off the job's flow field (built first if need be).
    Field,
    /// Walking down the field, a slice at a time: the cells so far.
    Walk(Vec<Cell>),
    /// A member of the job's subgoal field, waiting for the field to answer it.
    Member(usize),
    /// A member a subgoal field older than the map could not vouch for: its repair
    /// search (A\* guided by the field) under way.
    Repair(usize),
    /// Answering a start strictly inside the box of the job's subgoal field from the
    /// box's ring (`hpa::subgoals::field`, "Members inside a box").
    Boxed,
    /// Looking for the closest reachable position.
    Scan(ClosestScan),
    /// Searches to the closest reachable positions found, one tied candidate at a time.
    ToClosest(PathSearch, ClosestRoute),
}

/// A job: starts (each with the tickets that asked from it) of one class to one goal.
#[derive(Debug)]
pub(super) struct Job {
    pub number: u64,
    pub class: ClassId,
    pub goal: Rect,
    pub when_unreachable: WhenUnreachable,
    pub starts: Vec<(Cell, Vec<Ticket>)>,
    /// Answer from one flow field to the goal rather than a search per start.
    pub flow: bool,
    /// Whether the field's build may stop once every start is covered (a small group's
    /// shared goal side); a complete field otherwise.
    pub bounded: bool,
    /// The field's build under way.
    build: Option<FieldBuild>,
    /// The field, once built (or handed over from the tick before).
    pub field: Option<FlowField>,
    /// On a layer with a subgoal graph: the shared backward search over its subgoals,
    /// grown as far as the members need (see `hpa::subgoals::field`), instead of `field`.
    pub subgoals: Option<SubgoalField>,
    /// Subgoal fields started since the lane last looked (for the service's statistics).
    pub subgoal_fields_started: u64,
    /// Members answered by a subgoal field older than the map's last edits (edits that
    /// only blocked) since the lane last looked.
    pub stale_answers: u64,
    /// Members answered by repair searches over such fields, since the lane last looked.
    pub repairs: u64,
    /// Repair searches this job ran over its current subgoal field.
    repairs_on_field: usize,
    /// During [`Job::run`]: the lane's spare subgoal fields (buffers to start new ones in).
    spare: Vec<SubgoalField>,
    /// For a subgoal field older than the map: the positions freed since it started.
    freed: Vec<Rect>,
    /// Whether the goal holds no open position (found when building the field).
    goal_closed: bool,
    /// The field came from an earlier job: every answer is shared.
    pub field_reused: bool,
    next: usize,
    attempt: Attempt,
    /// The layer revision the current attempt started on.
    revision: u64,
    /// The tick (the service's frame count) that took the job's first requests in: how
    /// late its answers are (see `PathService::enqueue`).
    pub taken_at: u64,
    /// The work units the job is expected to take ([`Job::estimate`]), for the order of
    /// work: its lane's share of what is queued, and its place in a burst.
    pub estimate: usize,
    /// The work units its steps have taken so far.
    pub spent: usize,
    /// The bounding box of the path the last step found, when it came with one (a
    /// subgoal field's route), for its delivery ([`Answer::prepare`]).
    route_box: Option<Rect>,
}

impl Job {
    pub(super) fn new(
        number: u64,
        (class, goal, when_unreachable): (ClassId, Rect, WhenUnreachable),
        starts: Vec<(Cell, Vec<Ticket>)>,
        flow: bool,
    ) -> Self {
        let mut starts = starts;
        if flow {
            by_distance(&mut starts, goal);
        }
        Job {
            number,
            class,
            goal,
            when_unreachable,
            starts,
            flow,
            bounded: false,
            build: None,
            field: None,
            subgoals: None,
            subgoal_fields_started: 0,
            stale_answers: 0,
            repairs: 0,
            taken_at: 0,
            repairs_on_field: 0,
            spare: Vec::new(),
            freed: Vec::new(),
            goal_closed: false,
            field_reused: false,
            next: 0,
            attempt: Attempt::Fresh,
            revision: 0,
            estimate: 0,
            spent: 0,
            route_box: None,
        }
    }

    /// Works out [`Job::estimate`] on `map` (the job's class's layer), from the starts and
    /// the goal alone (deterministic).
    pub(super) fn estimate(&mut self, map: Option<&HpaMap>) {
        let Some(map) = map else {
            return;
        };
        let members: usize = (self.starts.iter())
            .map(|(start, tickets)| member_estimate(*start, tickets.len(), self.goal))
            .sum();
        let cells: Vec<Cell> = self.starts.iter().map(|s| s.0).collect();
        let kept = self.field.is_some() || self.subgoals.is_some();
        let bounds = bounding_box(&cells).filter(|_| !kept);
        let growth = bounds.map_or(0, |b| match self.flow {
            true => SubgoalField::growth_estimate(map, self.goal, b),
            // A single search: about an aimed field's growth to its one start.
            false => {
                SubgoalField::growth_estimate(map, self.goal, Rect::new(b.x1, b.y1, b.x1, b.y1))
            }
        });
        // An army answered through its box (`hpa::subgoals::field`, "Members inside a
        // box") scans for its ring cells only, not for every member.
        let spared = bounds
            .filter(|_| self.flow)
            .map_or(0, |b| SubgoalField::box_saving(map, self.goal, b, &cells));
        self.estimate = (members + growth).saturating_sub(spared);
    }

    /// The units the job is still expected to take: its estimate less what it spent (at
    /// least one while it is queued).
    pub(super) fn estimate_left(&self) -> usize {
        self.estimate.saturating_sub(self.spent).max(1)
    }

    /// The group the job answers: class, goal, and what to do when it is out of reach.
    pub(super) fn key(&self) -> super::tick::GroupKey {
        (self.class, self.goal, self.when_unreachable)
    }

    /// Whether the job holds a paused search in its lane's search context: nothing may
    /// run before it then, or the search would have to restart.
    pub(super) fn holds_search(&self) -> bool {
        matches!(self.attempt, Attempt::Direct(_) | Attempt::ToClosest(..))
    }

    /// A rough, deterministic measure of the work queued in the job, to order and deal
    /// jobs: one for a single search, more for a field a group shares.
    pub(super) fn weight(&self) -> usize {
        if self.flow {
            FIELD_WEIGHT
        } else {
            1
        }
    }

    /// Adds starts of a later tick to the job, ordered with those not begun yet.
    pub(super) fn add_starts(&mut self, starts: Vec<(Cell, Vec<Ticket>)>) {
        self.estimate += (starts.iter())
            .map(|(start, tickets)| member_estimate(*start, tickets.len(), self.goal))
            .sum::<usize>();
        self.starts.extend(starts);
        let begun = (self.next + 1).min(self.starts.len());
        by_distance(&mut self.starts[begun..], self.goal);
    }

    /// Whether every start is answered (or cancelled away).
    pub(super) fn is_done(&self) -> bool {
        self.next >= self.starts.len()
    }

    /// Tickets asking in this job.
    pub(super) fn tickets(&self) -> usize {
        self.starts.iter().map(|(_, t)| t.len()).sum()
    }

    /// Takes the tickets of `cancelled` out of the job, in one pass over the starts not
    /// answered yet (a pending ticket of the job is among them); returns the starts
    /// looked at.
    pub(super) fn remove_all(&mut self, cancelled: &HashSet<Ticket>) -> usize {
        let first = self.next.min(self.starts.len());
        for (i, (_, tickets)) in self.starts.iter_mut().enumerate().skip(first) {
            let before = tickets.len();
            tickets.retain(|t| !cancelled.contains(t));
            if tickets.is_empty() && before > 0 && i == self.next {
                // The start being worked on has no one left to answer.
                self.attempt = Attempt::Fresh;
            }
        }
        self.starts.len() - first
    }

    /// Works on the job until it is done or `allowance` is spent, pushing answers to `out`.
    pub(super) fn run(
        &mut self,
        world: &World,
        ctx: &mut SearchContext,
        edits: &EditLog,
        allowance: &mut Allowance,
        out: &mut Vec<Answer>,
        spare: &mut Vec<SubgoalField>,
    ) {
        // The lane's spare subgoal fields, lent for the run (see `retire_subgoals`).
        std::mem::swap(&mut self.spare, spare);
        self.run_on(world, ctx, edits, allowance, out);
        std::mem::swap(&mut self.spare, spare);
    }

    /// [`Job::run`] with the lane's spare fields in `self.spare`.
    fn run_on(
        &mut self,
        world: &World,
        ctx: &mut SearchContext,
        edits: &EditLog,
        allowance: &mut Allowance,
        out: &mut Vec<Answer>,
    ) {
        let Some(map) = world.layer(self.class) else {
            // A class of another world: cannot happen through the service's checks.
            self.next = self.starts.len();
            return;
        };
        if self.revision != map.revision() {
            // The map changed under a paused step: start this start over on the map as it
            // is (delivered answers were true when delivered; edits after are the watch's).
            self.attempt = Attempt::Fresh;
            self.revision = map.revision();
            if self.field.as_ref().is_some_and(|f| !f.is_current(map)) {
                self.field = None;
                self.field_reused = false;
            }
            // A subgoal field outlives reported edits (it answers the members it can vouch
            // for on the new map, with the positions freed since: `hpa::subgoals::field`).
            let size = world.movement(self.class).map_or(1, |m| m.size());
            match self.subgoals.as_ref().filter(|f| !f.is_current(map)) {
                Some(f) => match edits.freed_since(self.class, map, size, f) {
                    Some(zones) => self.freed = zones,
                    None => self.retire_subgoals(),
                },
                None => self.freed.clear(),
            }
            self.build = None;
            self.goal_closed = false;
        }
        let shared_job = self.tickets() > 1 || self.field_reused;
        let size = world.movement(self.class).map_or(1, |m| m.size());
        let keep = self.goal.x1 == self.goal.x2 && self.goal.y1 == self.goal.y2;
        while !self.is_done() && !allowance.spent() {
            if self.starts[self.next].1.is_empty() {
                self.next += 1;
                self.attempt = Attempt::Fresh;
                continue;
            }
            let kind = self.next_step_kind();
            let Ok(started) = allowance.admit(kind) else {
                break; // the step would overrun the deadline: the next tick takes it first
            };
            let before = allowance.work;
            let outcome = self.step(map, ctx, allowance);
            allowance.done(kind, started, allowance.work - before);
            if let Some(outcome) = outcome {
                let (_, tickets) = &self.starts[self.next];
                let mut work = 0;
                let mut outcome = Some(outcome);
                for (i, &ticket) in tickets.iter().enumerate() {
                    // The last ticket of the start takes the outcome itself, the others a copy.
                    let outcome = match i + 1 == tickets.len() {
                        true => outcome.take(),
                        false => outcome.clone(),
                    }
                    .expect("taken by the last ticket only");
                    let (answer, units) = Answer::prepare(
                        map,
                        size,
                        keep,
                        (ticket, outcome, shared_job),
                        self.route_box,
                    );
                    out.push(answer);
                    work += units;
                }
                // Delivery cannot be put off once the step has an outcome, so it is part
                // of that step: a step that overran the lane's share with its last units
                // overruns it by those and its delivery's.
                allowance.book(work, allowance.work - before + work, Kind::Delivery);
                self.route_box = None;
                self.next += 1;
                self.attempt = Attempt::Fresh;
            }
        }
    }

    /// What the next [`Job::step`] does, by what it costs.
    fn next_step_kind(&self) -> StepKind {
        match self.attempt {
            Attempt::Fresh => StepKind::Checks,
            Attempt::Field if self.subgoals.is_none() && self.field.is_none() => {
                StepKind::FieldStart
            }
            Attempt::Field => StepKind::Join,
            Attempt::Direct(_) | Attempt::ToClosest(..) => StepKind::Search,
            Attempt::Member(_) => StepKind::Growth,
            Attempt::Boxed => match self.subgoals.as_ref().is_some_and(|f| f.box_joins_next()) {
                true => StepKind::Join,
                false => StepKind::Growth,
            },
            Attempt::Repair(_) => StepKind::Repair,
            Attempt::Walk(_) | Attempt::Scan(_) => StepKind::Walk,
        }
    }

    /// One step for the current start; its outcome once it has one.
    fn step(
        &mut self,
        map: &HpaMap,
        ctx: &mut SearchContext,
        allowance: &mut Allowance,
    ) -> Option<Outcome> {
        let start = self.starts[self.next].0;
        let attempt = std::mem::replace(&mut self.attempt, Attempt::Fresh);
        match attempt {
            Attempt::Fresh => {
                allowance.book(1, 1, Kind::Checks);
                if !map.grid().is_free(start) {
                    return Some(Outcome::Failed(Failure::StartNotOpen { start }));
                }
                if self.flow {
                    self.attempt = Attempt::Field;
                    return None;
                }
                let goal = Cell::new(self.goal.x1, self.goal.y1);
                self.attempt = Attempt::Direct(PathSearch::new(start, goal));
                None
            }
            Attempt::Field => self.read_field(map, start, allowance),
            Attempt::Member(m) => self.answer_member(map, m, allowance),
            Attempt::Boxed => self.answer_boxed(map, start, allowance),
            Attempt::Repair(m) => self.repair_member(map, m, allowance),
            Attempt::Walk(mut cells) => {
                let field = self.field.as_mut().expect("a walk has its field");
                let slice = allowance.slice().max(1);
                let here = *cells.last().expect("a walk starts somewhere");
                if !prepare_leaves(field, map, here, allowance) {
                    self.attempt = Attempt::Walk(cells);
                    return None;
                }
                let before = cells.len();
                let (done, swept) = field.walk(map, &mut cells, slice);
                // A leaf's first sweep costs about one expansion per `SWEEP_CELLS` cells.
                let work = (cells.len() - before + swept / SWEEP_CELLS).max(1);
                allowance.book(work, work.saturating_sub(slice).max(1), Kind::FieldReads);
                if !done {
                    self.attempt = Attempt::Walk(cells);
                    return None;
                }
                let path = Path::from_cells_with_costs(cells, map.grid(), map.costs());
                Some(Outcome::Full(path))
            }
            Attempt::Direct(mut search) => {
                match run_search(map, ctx, &mut search, allowance, Kind::SingleSearches) {
                    None => {
                        self.attempt = Attempt::Direct(search);
                        None
                    }
                    Some(Ok(path)) => Some(Outcome::Full(path)),
                    Some(Err(_)) => self.unreachable(start),
                }
            }
            Attempt::Scan(mut scan) => {
                let allow = allowance.slice().max(1);
                let (spent, found) = scan.step(map, allow);
                allowance.book(spent, spent, Kind::Closest);
                match found {
                    None => {
                        self.attempt = Attempt::Scan(scan);
                        None
                    }
                    Some(None) => Some(Outcome::Failed(Failure::Unreachable { start })),
                    Some(Some((distance, candidates))) => {
                        self.closest(map, start, ClosestRoute::new(start, candidates, distance))
                    }
                }
            }
            Attempt::ToClosest(mut search, mut route) => {
                match run_search(map, ctx, &mut search, allowance, Kind::Closest) {
                    None => {
                        self.attempt = Attempt::ToClosest(search, route);
                        None
                    }
                    Some(Ok(path)) => {
                        route.offer(path);
                        self.closest(map, start, route)
                    }
                    // The scan found it connected on this very map.
                    Some(Err(_)) => Some(Outcome::Failed(Failure::Unreachable { start })),
                }
            }
        }
    }

    /// The search to the next candidate of `route` worth one, or the partial path once
    /// none is left.
    fn closest(&mut self, map: &HpaMap, start: Cell, route: ClosestRoute) -> Option<Outcome> {
        match route.next_candidate(map, start) {
            Some(cell) => {
                self.attempt = Attempt::ToClosest(PathSearch::new(start, cell), route);
                None
            }
            None => match route.best {
                Some(path) => Some(Outcome::Partial {
                    path,
                    goal_distance: route.goal_distance,
                }),
                None => Some(Outcome::Failed(Failure::Unreachable { start })),
            },
        }
    }

    /// The goal is out of reach from `start`: a failure, or a scan for the closest
    /// position.
    fn unreachable(&mut self, start: Cell) -> Option<Outcome> {
        match self.when_unreachable {
            WhenUnreachable::Fail => Some(Outcome::Failed(Failure::Unreachable { start })),
            _ => {
                self.attempt = Attempt::Scan(ClosestScan::new(self.goal, start));
                None
            }
        }
    }

    /// The answer for `start` read from the job's flow field (built first, a slice at a
    /// time, if need be).
    fn read_field(
        &mut self,
        map: &HpaMap,
        start: Cell,
        allowance: &mut Allowance,
    ) -> Option<Outcome> {
        if self.field.is_none() {
            if let Some(outcome) = self.join_subgoal_field(map, start, allowance) {
                return outcome;
            }
        }
        if self.field.is_none() && !self.goal_closed {
            self.build_field(map, allowance);
            self.attempt = Attempt::Field;
            return None;
        }
        if let Some(field) = &self.field {
            if !field.covers(map, start) && reaches(map, start, self.goal) {
                // A bounded field from before this start joined: build one that covers it.
                self.field = None;
                self.field_reused = false;
                self.attempt = Attempt::Field;
                return None;
            }
        }
        let Some(field) = &mut self.field else {
            return self.unreachable(start); // no open position in the goal
        };
        if !prepare_leaves(field, map, start, allowance) {
            // The start's leaf is being worked out: read the field again next step.
            self.attempt = Attempt::Field;
            return None;
        }
        if field.reaches_goal(map, start) {
            allowance.book(1, 1, Kind::FieldReads);
            self.attempt = Attempt::Walk(vec![start]);
            None
        } else {
            self.unreachable(start)
        }
    }

    /// On a layer with a subgoal graph: makes `start` a member of the job's subgoal field
    /// (started first if need be). `None` when the layer or the goal does not suit one
    /// (the job builds a gate field then); else the step's outcome.
    fn join_subgoal_field(
        &mut self,
        map: &HpaMap,
        start: Cell,
        allowance: &mut Allowance,
    ) -> Option<Option<Outcome>> {
        // The field's start and the first member's join are one step.
        let mut started = 0;
        if self.subgoals.is_none() {
            let (mut field, work) = map.start_subgoal_field(self.goal, &mut self.spare)?;
            // Aimed at the group when it stands together (`hpa::subgoals::field`, "Aimed
            // at an army"): the box of the starts still to answer.
            let cells: Vec<Cell> = self.starts[self.next..].iter().map(|s| s.0).collect();
            let bounds = bounding_box(&cells);
            let aim = bounds.map_or(0, |b| field.aim_at(map, b));
            // An army's inner members answered from its box's ring when that pays
            // (`hpa::subgoals::field`, "Members inside a box").
            let boxed = match bounds {
                Some(b) if field.is_aimed() && SubgoalField::box_pays(map, b, &cells) => {
                    field.box_in(map, b).1
                }
                _ => 0,
            };
            let work = work + aim + boxed + cells.len() / 64;
            self.subgoals = Some(field);
            self.repairs_on_field = 0;
            self.subgoal_fields_started += 1;
            allowance.book(work, work, Kind::SubgoalFields);
            started = work;
        }
        if !reaches(map, start, self.goal) {
            return Some(self.unreachable(start));
        }
        let field = self.subgoals.as_mut().expect("started above");
        if field.boxes(map, start) {
            self.attempt = Attempt::Boxed;
            return Some(None);
        }
        if let Some(member) = field.ring_member(map, start) {
            // Joined already, as a cell of the box's ring.
            self.attempt = Attempt::Member(member);
            return Some(None);
        }
        let (member, work) = field.join(map, start);
        allowance.book(work, started + work, Kind::SubgoalFields);
        self.attempt = Attempt::Member(member);
        Some(None)
    }

    /// The answer of member `m` of the job's subgoal field, once the field has grown far
    /// enough (a slice of its search at a time).
    fn answer_member(
        &mut self,
        map: &HpaMap,
        m: usize,
        allowance: &mut Allowance,
    ) -> Option<Outcome> {
        let field = self.subgoals.as_mut().expect("a member has its field");
        if !field.is_current(map) {
            // Kept through reported edits (`run` dropped it otherwise): it answers what it
            // can vouch for, and is not searched further.
            let (cells, work) = field.stale_path(map, m, &self.freed);
            allowance.book(work, work, Kind::Vouched);
            let Some(cells) = cells else {
                if self.repairs_on_field >= REPAIRS_PER_OLD_FIELD {
                    // Repairs cost a few thousand units each, a new field ~16,000 on a
                    // 1,024² map and it answers the members left and later jobs at once.
                    self.retire_subgoals();
                    self.attempt = Attempt::Field;
                    return None;
                }
                self.repairs_on_field += 1;
                self.attempt = Attempt::Repair(m);
                return None;
            };
            self.stale_answers += 1;
            allowance.book(cells.len() / SWEEP_CELLS, 1, Kind::Vouched);
            let path = Path::from_cells_with_costs(cells, map.grid(), map.costs());
            return Some(Outcome::Full(path));
        }
        if !field.is_answered(map, m) {
            let slice = allowance.slice().clamp(1, FIELD_SLICE);
            let work = field.step(map, slice).max(1);
            // The search stops at its slice, or a seed's scan past it.
            allowance.book(work, work.saturating_sub(slice).max(1), Kind::SubgoalFields);
            self.attempt = Attempt::Member(m);
            return None;
        }
        let route = field.route(map, m);
        self.read_out(route, 0, allowance)
    }

    /// The outcome of a route read off the job's subgoal field (its path, box and hops),
    /// its read-out booked as one step with `before` units of the same step.
    fn read_out(
        &mut self,
        route: Option<(Path, Rect, usize)>,
        before: usize,
        allowance: &mut Allowance,
    ) -> Option<Outcome> {
        let Some((path, route_box, hops)) = route else {
            // The components said the goal is reachable on this very map.
            debug_assert!(false, "a subgoal field missed a reachable goal");
            return Some(Outcome::Failed(Failure::Unreachable {
                start: self.starts[self.next].0,
            }));
        };
        let work = read_units(path.cells.len(), hops);
        allowance.book(work, before + work, Kind::FieldReads);
        self.route_box = Some(route_box);
        Some(Outcome::Full(path))
    }

    /// The answer of `start`, strictly inside the box of the job's subgoal field, once the
    /// box's ring is answered and its Dijkstra has run (a step at a time: a ring cell's
    /// join, a slice of the search, a slice of the Dijkstra); a start joins as a member of
    /// its own when the map changed since the box was taken on.
    fn answer_boxed(
        &mut self,
        map: &HpaMap,
        start: Cell,
        allowance: &mut Allowance,
    ) -> Option<Outcome> {
        let field = self.subgoals.as_mut().expect("a boxed start has its field");
        if !field.boxes(map, start) {
            self.attempt = Attempt::Field;
            return None;
        }
        let slice = allowance.slice().clamp(1, FIELD_SLICE);
        let joins = field.box_joins_next();
        let (work, ready) = field.box_step(map, slice);
        if !ready {
            // A ring cell's join is one step; the search and the box's Dijkstra stop at
            // their slice, or a seed's scan (a cell's eighths) past it.
            let step = match joins {
                true => work,
                false => work.saturating_sub(slice).max(1),
            };
            allowance.book(work, step, Kind::SubgoalFields);
            self.attempt = Attempt::Boxed;
            return None;
        }
        // The Dijkstra's last slice, when it ended in this step, and the read-out are one
        // step (the slice stops at its units, or a cell's eighths past them).
        let over = work.saturating_sub(slice);
        allowance.book(work, over, Kind::SubgoalFields);
        let route = field.box_route(map, start);
        self.read_out(route, over, allowance)
    }

    /// Drops the job's subgoal field, keeping its buffers among the lane's spares.
    fn retire_subgoals(&mut self) {
        if let Some(field) = self.subgoals.take() {
            if self.spare.len() < SPARE_FIELDS {
                self.spare.push(field);
            }
        }
        self.field_reused = false;
    }

    /// One slice of member `m`'s repair search over a subgoal field older than the map;
    /// its answer once over.
    fn repair_member(
        &mut self,
        map: &HpaMap,
        m: usize,
        allowance: &mut Allowance,
    ) -> Option<Outcome> {
        let field = self.subgoals.as_mut().expect("a member has its field");
        let slice = allowance.slice().max(1);
        let (work, done) = field.repair(map, m, slice, &self.freed);
        // The search stops at its slice, or the goal outline's scans past it.
        allowance.book(
            work,
            work.saturating_sub(slice).max(1),
            Kind::RepairSearches,
        );
        let Some(done) = done else {
            self.attempt = Attempt::Repair(m);
            return None;
        };
        let Some(cells) = done else {
            // The components said the goal is reachable on this very map.
            debug_assert!(false, "a repair search missed a reachable goal");
            return Some(Outcome::Failed(Failure::Unreachable {
                start: self.starts[self.next].0,
            }));
        };
        self.repairs += 1;
        allowance.book(cells.len() / SWEEP_CELLS, 1, Kind::RepairSearches);
        let path = Path::from_cells_with_costs(cells, map.grid(), map.costs());
        Some(Outcome::Full(path))
    }

    /// One slice of the field's build (started first if need be; bounded by the starts
    /// still to answer when the job is).
    fn build_field(&mut self, map: &HpaMap, allowance: &mut Allowance) {
        if self.build.is_none() {
            allowance.book(1, 1, Kind::GateFields);
            match map.start_flow_field(FlowGoal::Area(self.goal)) {
                Ok(mut build) => {
                    if self.bounded {
                        for (start, tickets) in &self.starts[self.next..] {
                            // A start the goal cannot be reached from would keep the
                            // search going over its whole component for nothing.
                            if !tickets.is_empty() && reaches(map, *start, self.goal) {
                                build.target(map, *start);
                            }
                        }
                    }
                    self.build = Some(build);
                }
                Err(_) => {
                    self.goal_closed = true;
                    return;
                }
            }
        }
        let build = self.build.as_mut().expect("started above");
        let slice = allowance.slice().max(1);
        let work = build.step(map, slice);
        // The build stops exactly at its slice (one pop is the step).
        allowance.book(work, work.saturating_sub(slice).max(1), Kind::GateFields);
        if build.is_finished() {
            let build = self.build.take().expect("started above");
            self.field = Some(build.finish(map));
        }
    }
}

/// Work units of reading a member's path off a subgoal field (`SubgoalField::route`), a
/// fixed part: callgrind of the armies' burst on Cauldron (session 41; 1,999 routes, 29.6M
/// instructions): ~1,750 instructions a route (its best tie looked up again, the vector
/// allocated and trimmed), ~107 a hop (the waypoint read off the labels, the hop's two
/// runs set up), ~10.6 a cell written, where a unit is about 1,030.
const READ_FIXED_UNITS: usize = 2;

/// Hops of a member's route read per work unit (see [`READ_FIXED_UNITS`]).
const READ_HOPS: usize = 10;

/// Cells of a member's path written per work unit (see [`READ_FIXED_UNITS`]).
const READ_CELLS: usize = 96;

/// Cells a hop of a subgoal route spans, for estimates made before the route is known:
/// 10.0 on the armies' burst on Cauldron (session 41: 1,227,232 cells in 122,833 hops).
const CELLS_PER_HOP: usize = 10;

/// The work units of reading a member's path of `cells` cells and `hops` hops off a
/// subgoal field (docs/service.md's table).
fn read_units(cells: usize, hops: usize) -> usize {
    READ_FIXED_UNITS + hops / READ_HOPS + cells / READ_CELLS
}

/// The work units a start asked by `tickets` tickets is expected to take beyond its
/// field's growth: its first checks, its join (a cone scan and about a walk), reading
/// its path ([`read_units`], a hop taken as [`CELLS_PER_HOP`] cells) and preparing each
/// ticket's copy (a unit per [`DELIVERY_COPIED_CELLS`], its box known from the route),
/// the path taken as long as its octile distance to `goal` (the least it can be). The
/// prices of docs/service.md's table for a subgoal field's member, so that the estimate
/// is in the units the budget counts.
fn member_estimate(start: Cell, tickets: usize, goal: Rect) -> usize {
    let cells = octile_gap(start, goal) as usize;
    let read = read_units(cells, cells / CELLS_PER_HOP);
    let delivery = 1 + cells / DELIVERY_COPIED_CELLS;
    1 + SubgoalField::SCAN_UNITS + 1 + read + tickets * delivery
}

/// The octile distance from `cell` to the nearest cell of `rect`, in cells.
fn octile_gap(cell: Cell, rect: Rect) -> f64 {
    let gap = |v: u32, lo: u32, hi: u32| lo.saturating_sub(v).max(v.saturating_sub(hi));
    let (dx, dy) = (gap(cell.x, rect.x1, rect.x2), gap(cell.y, rect.y1, rect.y2));
    crate::grid::movement::octile(Cell::new(0, 0), Cell::new(dx, dy))
}

/// Orders `starts` by their octile distance to `goal`, nearest first (then by cell): a
/// search over the subgoals from the goal answers them in about that order, so the near
/// ones are delivered as soon as it reaches them.
fn by_distance(starts: &mut [(Cell, Vec<Ticket>)], goal: Rect) {
    let gap = |v: u32, lo: u32, hi: u32| lo.saturating_sub(v).max(v.saturating_sub(hi));
    starts.sort_by_cached_key(|(c, _)| {
        let (dx, dy) = (gap(c.x, goal.x1, goal.x2), gap(c.y, goal.y1, goal.y2));
        // Octile distance times 1,000, in integers: 1,000 · max + 414 · min.
        (
            1000 * u64::from(dx.max(dy)) + 414 * u64::from(dx.min(dy)),
            *c,
        )
    });
}

/// Works out, within `allowance`'s slice, the tables of the large leaves that reading
/// `cell` on `field` needs ([`FlowField::prepare`]: a free 1,024² map is one leaf of a
/// million cells, whose table at a first read would be one step of tens of milliseconds),
/// booking the work as field reads. Whether they are all worked out.
fn prepare_leaves(
    field: &mut FlowField,
    map: &HpaMap,
    cell: Cell,
    allowance: &mut Allowance,
) -> bool {
    let slice = allowance.slice().max(1);
    let (ready, worked) = field.prepare(map, cell, slice.saturating_mul(SLICED_SWEEP_CELLS));
    if worked > 0 {
        let work = worked.div_ceil(SLICED_SWEEP_CELLS);
        allowance.book(work, work.saturating_sub(slice).max(1), Kind::LeafTables);
    }
    ready
}

/// Whether some open position of `goal` is reachable from `start` (component labels).
fn reaches(map: &HpaMap, start: Cell, goal: Rect) -> bool {
    goal.cells().any(|c| map.connected(start, c) == Ok(true))
}

/// Runs `search` for one slice of the allowance; its answer once it has one.
fn run_search(
    map: &HpaMap,
    ctx: &mut SearchContext,
    search: &mut PathSearch,
    allowance: &mut Allowance,
    kind: Kind,
) -> Option<Result<Path, QueryError>> {
    let before = search.expansions();
    let progress = map.resume_path_search(ctx, search, allowance.slice().max(1));
    let work = (search.expansions() - before).max(1);
    // A gate search stops exactly at its slice; anything beyond it was one whole step.
    let step = work.saturating_sub(allowance.slice()).max(1);
    allowance.book(work, step, kind);
    match progress {
        SearchProgress::Done(answer) => Some(answer),
        SearchProgress::Paused => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// An allowance with a minute left and a pace that prices a field's start at `start_us`
    /// and a unit of a repair search at `repair_us`.
    fn priced(start_us: f32, repair_us: f32) -> Allowance {
        let mut allowance = Allowance::new(usize::MAX, Some(Instant::now() + MINUTE));
        allowance.pace.per_step[StepKind::FieldStart as usize] = start_us;
        allowance.pace.per_unit[StepKind::Repair as usize] = repair_us;
        allowance
    }

    const MINUTE: Duration = Duration::from_secs(60);

    #[test]
    fn a_step_priced_past_the_deadline_waits_unless_it_is_owed() {
        // Priced at an hour: the step the lane owes the tick runs anyway (progress), the
        // next one waits for the next tick, and the lane stops there.
        let mut allowance = priced(3.6e9, 0.0);
        allowance.owes_a_step = true;
        assert!(!allowance.spent());
        assert!(allowance.admit(StepKind::FieldStart).is_ok());
        assert!(!allowance.spent(), "a minute is left");
        assert!(allowance.admit(StepKind::FieldStart).is_err());
        assert!(allowance.spent(), "a refused step ends the lane's turn");
        // A lane that owes nothing waits from its first step on, and leaves the rest of
        // the minute to the next lane (it does not ask again until the deadline).
        let mut allowance = priced(3.6e9, 0.0);
        assert!(allowance.admit(StepKind::FieldStart).is_err());
        assert!(allowance.spent());
        // A step priced within the minute left still runs.
        let mut allowance = priced(1e6, 0.0);
        assert!(allowance.admit(StepKind::Checks).is_ok());
        assert!(allowance.admit(StepKind::FieldStart).is_ok());
        assert!(!allowance.spent());
    }

    #[test]
    fn dear_units_get_thinner_slices() {
        // 10 s a unit with a minute left: at most 6 units (not the usual 32).
        let mut allowance = priced(0.0, 1e7);
        allowance.admit(StepKind::Checks).unwrap();
        allowance.admit(StepKind::Repair).unwrap();
        assert!(
            (5..=6).contains(&allowance.slice()),
            "{}",
            allowance.slice()
        );
        // Other kinds keep the usual slice.
        allowance.admit(StepKind::Growth).unwrap();
        assert_eq!(allowance.slice(), TIME_SLICE);
        // Two minutes a unit: not even one fits; the step waits.
        let mut allowance = priced(0.0, 1.2e8);
        allowance.admit(StepKind::Checks).unwrap();
        assert!(allowance.admit(StepKind::Repair).is_err());
    }

    #[test]
    fn the_pace_rises_fast_falls_slowly_and_shrugs_off_outliers() {
        let mut pace = Pace::default();
        pace.learn(StepKind::FieldStart, 40.0, 1);
        // Up from nothing, half-way: 20.
        assert_eq!(pace.estimate(StepKind::FieldStart).0, 20.0);
        pace.learn(StepKind::FieldStart, 45.0, 1);
        assert_eq!(pace.estimate(StepKind::FieldStart).0, 32.5);
        // Down by a sixteenth of the gap.
        pace.learn(StepKind::FieldStart, 3.0, 1);
        assert_eq!(pace.estimate(StepKind::FieldStart).0, 30.656_25);
        // An outlier (preempted?) counts as at most 4 × 30.66 + 50.
        pace.learn(StepKind::FieldStart, 5_000.0, 1);
        assert_eq!(pace.estimate(StepKind::FieldStart).0, 101.640_625);
        // Per unit for sliced kinds: 64 µs over 32 units is 2 µs a unit, capped at
        // 4 × 0 + 1 from nothing.
        pace.learn(StepKind::Repair, 64.0, 32);
        assert_eq!(pace.estimate(StepKind::Repair).1, 0.5);
        // Under a budget of units nothing is refused and slices are the units left.
        let mut units = Allowance::new(7, None);
        units.pace = pace;
        units.steps = 1;
        assert_eq!(units.admit(StepKind::FieldStart), Ok(None));
        assert_eq!(units.slice(), 7);
    }
}
