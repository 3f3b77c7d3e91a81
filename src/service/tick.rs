//! A tick: the requests taken in since the last one are grouped into jobs, the lanes work
//! on their jobs within their share of the budget, and the answers are delivered in lane
//! order.

use super::job::{Allowance, Answer, Job, Kind};
use super::types::{Budget, TickReport, Ticket, WhenUnreachable};
use super::watch::EditLog;
use super::{Intake, PathService, ServiceError, TicketState};
use crate::flow::FlowField;
use crate::geom::{Cell, Rect};
use crate::hpa::{SearchContext, SubgoalField};
use crate::world::{ClassId, World};
use hashbrown::{HashMap, HashSet};
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// Requests taken in between two looks at the clock under a time budget.
const INTAKE_SLICE: usize = 64;

/// Ticks after which a queued job is late: new jobs of its kind go before it (see
/// `PathService::enqueue`). Three, the frames within which the service aims to answer.
const LATE_TICKS: u64 = 3;

/// Ticks after which a late job is overtaken no more (about a second at 60 frames a
/// second): however many orders come, it is answered.
const STARVING_TICKS: u64 = 64;

/// Subgoal fields kept for later requests (repairs, later orders to the same goal), the
/// newest first out when more are finished: each holds a few arrays by subgoal ID (about
/// 0.3 MB on a 1,024² map).
const KEPT_SUBGOAL_FIELDS: usize = 16;

/// What a group of requests has in common: class, goal, and what to do when it is out of
/// reach.
pub(super) type GroupKey = (ClassId, Rect, WhenUnreachable);

/// One lane: its queue of jobs and its own search buffers.
#[derive(Debug, Default)]
pub(super) struct Lane {
    pub queue: VecDeque<Job>,
    ctx: SearchContext,
    /// Subgoal fields no longer used, whose buffers new fields take over (freeing a
    /// field's arrays and bucket lists costs a few hundred microseconds on a 1,024² map).
    spare: Vec<SubgoalField>,
    /// Tickets cancelled since the last tick, with their job's number: taken out of their
    /// jobs at the start of the lane's next run (so that `cancel` stays O(1)).
    pub cancelled: Vec<(u64, Ticket)>,
    /// Whether a job was dealt to the lane since it last ran one: such a lane goes first in
    /// the next tick's order (see [`serving_order`]).
    new_work: bool,
    /// What the lane's steps have cost lately, under a time budget.
    pace: super::job::Pace,
    /// Subgoal fields no longer used and beyond the spares: freed one per tick, at the
    /// start of the lane's run and before its deadline (freeing one, its arrays and its
    /// thousands of bucket lists, takes up to a few hundred microseconds on a 1,024² map).
    retired: Vec<SubgoalField>,
}

/// [`Lane::retired`] fields beyond which the rest are freed at once (a bound on memory;
/// fields are retired a few at a time, after edits that free ground, and freed one a
/// tick).
const RETIRED_FIELDS: usize = 8;

/// Work units booked for freeing one retired subgoal field.
const FREE_FIELD_UNITS: usize = 16;

/// What a lane did in one tick.
#[derive(Debug, Default)]
struct LaneRun {
    answers: Vec<Answer>,
    allowance: Option<Allowance>,
    /// Flow fields of jobs finished in this tick, kept for the next.
    fields: Vec<(GroupKey, FlowField)>,
    /// Subgoal fields of jobs finished in this tick, kept for the next.
    subgoal_fields: Vec<(GroupKey, SubgoalField)>,
    /// Subgoal fields started.
    subgoal_fields_started: u64,
    /// Members answered by subgoal fields older than the map's last edits.
    stale_answers: u64,
    /// Members answered by repair searches over such fields.
    repairs: u64,
}

impl Lane {
    fn run(&mut self, world: &World, edits: &EditLog, mut allowance: Allowance) -> LaneRun {
        let mut run = LaneRun::default();
        allowance.pace = self.pace;
        // Cancelled tickets go first, so that no step goes to one: also past the deadline
        // on the lane that owes the tick a step (a few hash look-ups per cancel; else, when
        // every tick starts late, cancels would never be applied). Freeing a field is no
        // job's step: it waits for a tick with time left.
        if !allowance.spent() {
            self.take_out_cancelled(&mut allowance);
        }
        if !allowance.exhausted() {
            if let Some(field) = self.retired.pop() {
                drop(field);
                allowance.book(FREE_FIELD_UNITS, FREE_FIELD_UNITS, Kind::Cancels);
            }
        }
        while let Some(job) = self.queue.front_mut() {
            if allowance.spent() {
                break;
            }
            self.new_work = false;
            let before = allowance.work;
            job.run(
                world,
                &mut self.ctx,
                edits,
                &mut allowance,
                &mut run.answers,
                &mut self.spare,
            );
            job.spent += allowance.work - before;
            run.subgoal_fields_started += std::mem::take(&mut job.subgoal_fields_started);
            run.stale_answers += std::mem::take(&mut job.stale_answers);
            run.repairs += std::mem::take(&mut job.repairs);
            if job.is_done() {
                let job = self.queue.pop_front().expect("the front job");
                let key = job.key();
                if let Some(field) = job.field {
                    run.fields.push((key, field));
                }
                if let Some(field) = job.subgoals {
                    run.subgoal_fields.push((key, field));
                }
            }
        }
        self.pace = allowance.pace;
        run.allowance = Some(allowance);
        run
    }
}

impl Lane {
    /// Whether the lane has anything to spend units on: jobs, cancelled tickets to take
    /// out of them, or a retired field to free.
    fn wants_units(&self) -> bool {
        !self.queue.is_empty() || !self.cancelled.is_empty() || !self.retired.is_empty()
    }

    /// Keeps `field`'s buffers as a spare if there is room, else retires it to be freed
    /// in a later tick (at once beyond [`RETIRED_FIELDS`]).
    fn retire(&mut self, field: SubgoalField) {
        if self.spare.len() < super::job::SPARE_FIELDS {
            self.spare.push(field);
        } else if self.retired.len() < RETIRED_FIELDS {
            self.retired.push(field);
        }
    }

    /// Takes the tickets cancelled since the last tick out of their jobs, in one pass over
    /// the queue, and drops the jobs left with no one to answer. One unit per 16 tickets
    /// and per 64 starts looked at (the lane runs it before anything else, so it is never
    /// cut short; it is bounded by the cancels since the last tick).
    fn take_out_cancelled(&mut self, allowance: &mut Allowance) {
        if self.cancelled.is_empty() {
            return;
        }
        let mut by_job: HashMap<u64, HashSet<Ticket>> = HashMap::new();
        for (number, ticket) in self.cancelled.drain(..) {
            by_job.entry(number).or_default().insert(ticket);
        }
        let mut credit = 4 * by_job.values().map(HashSet::len).sum::<usize>();
        for job in self.queue.iter_mut() {
            if let Some(tickets) = by_job.get(&job.number) {
                credit += job.remove_all(tickets);
            }
        }
        // A job left with no one keeps its subgoal field's buffers for the lane (freeing
        // them here took up to ~0.8 ms in one tick).
        let mut kept = VecDeque::with_capacity(self.queue.len());
        for mut job in std::mem::take(&mut self.queue) {
            if job.tickets() > 0 {
                kept.push_back(job);
            } else if let Some(field) = job.subgoals.take() {
                self.retire(field);
            }
        }
        self.queue = kept;
        let units = credit.div_ceil(64);
        allowance.book(units, units, Kind::Cancels);
    }
}

/// Answers and fields kept from the last tick, for requests of the next one; subgoal
/// fields for longer (up to [`KEPT_SUBGOAL_FIELDS`], through edits that only block).
#[derive(Debug, Default)]
pub(super) struct Recent {
    /// Cell-goal answers by (group, start): the ticket that holds the answer, and the
    /// layer revision it was true on. A copy of the ticket's outcome answers (a ticket
    /// released since has none to give: its start is searched again).
    pub answers: HashMap<(GroupKey, Cell), (Ticket, u64)>,
    pub fields: HashMap<GroupKey, FlowField>,
    /// Oldest first.
    pub subgoal_fields: Vec<(GroupKey, SubgoalField)>,
}

impl Recent {
    /// Keeps `field` for `key`, in place of an older one; the oldest beyond
    /// [`KEPT_SUBGOAL_FIELDS`] goes to `spare`.
    fn keep_subgoal_field(
        &mut self,
        key: GroupKey,
        field: SubgoalField,
        spare: &mut Vec<SubgoalField>,
    ) {
        if let Some(i) = self.subgoal_fields.iter().position(|(k, _)| *k == key) {
            spare.push(self.subgoal_fields.remove(i).1);
        }
        self.subgoal_fields.push((key, field));
        if self.subgoal_fields.len() > KEPT_SUBGOAL_FIELDS {
            spare.push(self.subgoal_fields.remove(0).1);
        }
    }

    /// Takes the kept subgoal field for `key`, if any.
    fn take_subgoal_field(&mut self, key: GroupKey) -> Option<SubgoalField> {
        let i = self.subgoal_fields.iter().position(|(k, _)| *k == key)?;
        Some(self.subgoal_fields.remove(i).1)
    }
}

/// The part of a tick's time reserve that does not grow with the budget: the steps under
/// way at the lanes' deadline (a thread's step at the deadline and the owed step, each up
/// to a subgoal field's start, 100–450 µs on a 1,024² map).
const MAX_TAIL_RESERVE: Duration = Duration::from_millis(1);

/// What a tick under `Budget::Time(budget)` keeps back from its lanes: a quarter of the
/// budget up to [`MAX_TAIL_RESERVE`], and never less than an eighth. The eighth is for the
/// delivery of the lanes' answers on the calling thread after them (1–2 µs an answer),
/// which grows with what the lanes had time to answer: a review of session 35 saw ticks of
/// 32 and 64 ms with a fixed 1 ms reserve overrun by up to 6–8 ms on thousands of cheap
/// answers. A main-thread budget of 1 ms keeps its 250 µs, as before session 35; beside
/// the frame, an 8 ms budget gives the lanes 7 ms instead of 6 (the quarter kept back
/// there was mostly left unused: the ticks' wall time reached 6.1 ms at p99, 7.1 ms at
/// most). Booking each answer's delivery against the lanes' deadline as they prepare it
/// would be tighter; not done.
fn tail_reserve(budget: Duration) -> Duration {
    (budget / 4).min(MAX_TAIL_RESERVE).max(budget / 8)
}

/// When the lanes of a tick that started at `start` under `Budget::Time(budget)` stop:
/// [`tail_reserve`] before the end, the intake's time included (it runs first, from the
/// same start). A budget too large for the clock has no deadline worth the name: it is
/// taken as [`MAX_TIME_BUDGET`].
fn lanes_deadline(start: Instant, budget: Duration) -> Instant {
    let budget = budget.min(MAX_TIME_BUDGET);
    start + (budget - tail_reserve(budget))
}

/// How many released paths a tick frees between two looks at the clock.
const FREES_BETWEEN_CLOCK_READS: usize = 32;

/// The room for released paths kept once they are all freed (a burst of releases does
/// not keep its peak's room for good).
const RELEASED_KEPT_CAPACITY: usize = 256;

/// The longest time budget a tick honours as given: a day. Longer ones (up to
/// `Duration::MAX`) are taken as a day, so that the deadline never overflows the clock.
const MAX_TIME_BUDGET: Duration = Duration::from_secs(86_400);

impl PathService {
    /// Does one frame's work within `budget`: takes in the requests made since the last
    /// tick, works on the queued jobs, and delivers what finishes (read it with
    /// [`PathService::drain_finished`] or [`PathService::poll`]). Work left over stays
    /// queued, paused searches resume in the next tick.
    ///
    /// A [`Budget::Expansions`] is split evenly between the lanes
    /// ([`ServiceConfig::lanes`]) that have work, in rounds: the units a lane leaves when its
    /// queue empties go round again to the lanes still busy; each lane overruns its share
    /// by at most one step (see [the budget](super#the-budget)). Under a [`Budget::Time`] the lanes with jobs are
    /// served in an order that turns from tick to tick, each until its queue is empty or the
    /// tick's deadline, new orders first; the lane whose turn it is takes one step even
    /// past the deadline. With the `parallel` feature the lanes run on rayon's current
    /// pool (the first of the order first), and the outcomes are the same for any number
    /// of threads.
    ///
    /// [`ServiceConfig::lanes`]: super::ServiceConfig::lanes
    ///
    /// # Errors
    /// [`ServiceError::ZeroBudget`] for a budget of no expansions or no time; nothing runs
    /// then.
    pub fn tick(&mut self, world: &World, budget: Budget) -> Result<TickReport, ServiceError> {
        let now = Instant::now();
        let (total, deadline) = match budget {
            Budget::Expansions(0) => return Err(ServiceError::ZeroBudget),
            Budget::Time(d) if d.is_zero() => return Err(ServiceError::ZeroBudget),
            Budget::Expansions(n) => (n, None),
            // The lanes stop `tail_reserve` before the end: the rest is for the steps under
            // way at the deadline and delivering the answers.
            Budget::Time(d) => (usize::MAX, Some(lanes_deadline(now, d))),
        };
        let mut report = TickReport::default();
        // The paths cancelled or released since the last tick are freed here, off the main
        // thread when the tick runs beside the frame (their buffers, a few kilobytes a
        // path, were most of `cancel`'s time).
        self.free_released(now, deadline);
        // So are the cancelled and released tickets' places in the ticket order, once
        // they outnumber the live ones (a pass over the index: not in a main-thread call).
        self.tickets.tidy_if_due();
        // First the live paths against the edits reported since the last tick: nothing is
        // taken in or delivered before every path the service holds is checked.
        let mut sweeping = Allowance::new(total, deadline);
        let swept = super::watch::sweep(self, world, &mut sweeping);
        report.work += sweeping.work;
        report.sweep_work = sweeping.work;
        report.largest_step = sweeping.largest_step;
        self.stats.work.sweep += sweeping.split.sweep;
        if !swept {
            report.sweep_unfinished = true;
            report.pending_jobs = self.lanes.iter().map(|l| l.queue.len()).sum();
            self.frame += 1;
            return Ok(report);
        }
        let total = total.saturating_sub(sweeping.work);
        super::watch::take_replans(self);
        // The intake may take up to a quarter of the budget: of the time, or of the units
        // (one per request taken in, counted in the tick's work).
        let (intake_until, intake_cap) = match budget {
            Budget::Time(d) => (Some(now + d.min(MAX_TIME_BUDGET) / 4), usize::MAX),
            // Nothing when the sweep spent the budget (the next tick takes them in).
            Budget::Expansions(_) => (None, (total / 4).max(usize::from(total > 0))),
        };
        let taken = self.take_in(world, &mut report, (intake_until, intake_cap));
        let total = match budget {
            Budget::Expansions(_) => {
                report.work += taken;
                report.largest_step = report.largest_step.max(1);
                self.stats.work.intake += taken as u64;
                total.saturating_sub(taken)
            }
            Budget::Time(_) => total,
        };
        let count = self.lanes.len();
        let runs = match deadline {
            Some(_) => {
                let mut allowances: Vec<Allowance> = (0..count)
                    .map(|_| Allowance::new(usize::MAX, deadline))
                    .collect();
                let (order, turn) = serving_order(&self.lanes, self.lane_turn);
                if let Some(turn) = turn {
                    self.lane_turn = (turn + 1) % count;
                    // However late the lanes start, the tick moves the lane whose turn it
                    // is on.
                    allowances[turn].owes_a_step = true;
                }
                run_lanes(&mut self.lanes, world, &self.edits, allowances, &order)
            }
            None => self.run_lanes_on_units(world, total),
        };
        // Answers and flow fields serve the next tick only; subgoal fields while they
        // still answer (unedited, or edited by reported edits that only blocked).
        let mut spare = Vec::new();
        let mut kept = Vec::new();
        for (key, f) in std::mem::take(&mut self.recent.subgoal_fields) {
            let size = world.movement(key.0).map_or(1, |m| m.size());
            let usable = world.layer(key.0).is_some_and(|map| {
                f.is_current(map) || self.edits.freed_since(key.0, map, size, &f).is_some()
            });
            if usable {
                kept.push((key, f));
            } else {
                spare.push(f);
            }
        }
        self.recent = Recent {
            subgoal_fields: kept,
            ..Recent::default()
        };
        for run in runs {
            let allowance = run.allowance.expect("every lane reports its allowance");
            report.work += allowance.work;
            add_split(&mut self.stats.work, &allowance.split);
            self.stats.subgoal_fields += run.subgoal_fields_started;
            self.stats.stale_field_answers += run.stale_answers;
            self.stats.field_repair_searches += run.repairs;
            report.largest_step = report.largest_step.max(allowance.largest_step);
            for (key, field) in run.fields {
                self.recent.fields.insert(key, field);
            }
            for (key, field) in run.subgoal_fields {
                self.recent.keep_subgoal_field(key, field, &mut spare);
            }
            for answer in run.answers {
                self.deliver(world, answer, &mut report);
            }
        }
        // Spare fields go to the lanes with the fewest (beyond a few each, retired to be
        // freed in later ticks).
        for field in spare {
            let lane = (self.lanes.iter_mut())
                .min_by_key(|l| (l.spare.len(), l.retired.len()))
                .expect("at least one lane");
            lane.retire(field);
        }
        report.pending_jobs = self.lanes.iter().map(|l| l.queue.len()).sum();
        self.frame += 1;
        Ok(report)
    }

    /// Runs the lanes on `total` units (a [`Budget::Expansions`]), round after round: each
    /// round splits the units left evenly between the lanes that want them (jobs,
    /// cancels to take out, a retired field to free; see [`Lane::wants_units`]), and the
    /// units a lane leaves, its queue emptied, go round again to the lanes with jobs
    /// still queued. Every share is worked out from the lanes' queues alone, never from
    /// which thread ran what first, so the outcomes stay the same for any number of
    /// threads. Each lane overruns its share by at most one step, so the tick its total
    /// by at most one step per lane of the last round.
    ///
    /// Why rounds: with an even split among all lanes (before session 39), a tick with
    /// one busy lane (a group's field, a closest-position scan) spent a quarter of its
    /// units and left the rest unused, where a time budget lets that lane run to the
    /// deadline; a closest-position scan of 50,000 units took seven ticks of a 28,000-unit
    /// budget instead of two.
    fn run_lanes_on_units(&mut self, world: &World, total: usize) -> Vec<LaneRun> {
        let count = self.lanes.len();
        let mut runs: Vec<LaneRun> = Vec::new();
        let mut left = total;
        let mut round = 0;
        // The turn moves on as under a time budget (it only orders the lanes' start on the
        // pool's threads here: outcomes do not depend on it).
        let (mut order, turn) = serving_order(&self.lanes, self.lane_turn);
        if let Some(turn) = turn {
            self.lane_turn = (turn + 1) % count;
        }
        loop {
            // The first round serves every lane that wants units; later ones only the
            // lanes with jobs (their cancels and frees were done in the first).
            let wanting: Vec<bool> = (self.lanes.iter())
                .map(|l| match round {
                    0 => l.wants_units(),
                    _ => !l.queue.is_empty(),
                })
                .collect();
            let served = wanting.iter().filter(|&&w| w).count();
            if served == 0 || left == 0 {
                break; // an idle lane's run would be empty
            }
            let mut k = 0;
            let allowances: Vec<Allowance> = (0..count)
                .map(|i| {
                    let share = if wanting[i] {
                        // The units left over go round the lanes frame by frame, so that
                        // a budget smaller than the lane count starves none.
                        let turn = (k + self.frame as usize) % served;
                        k += 1;
                        left / served + usize::from(turn < left % served)
                    } else {
                        0
                    };
                    Allowance::new(share, None)
                })
                .collect();
            if round > 0 {
                order = serving_order(&self.lanes, self.lane_turn).0;
            }
            let round_runs = run_lanes(&mut self.lanes, world, &self.edits, allowances, &order);
            let worked: usize = (round_runs.iter())
                .map(|r| r.allowance.as_ref().map_or(0, |a| a.work))
                .sum();
            runs.extend(round_runs);
            left = left.saturating_sub(worked);
            round += 1;
            if worked == 0 || round > count {
                break;
            }
        }
        runs
    }

    /// Frees the states of paths cancelled or released since the last tick. Under a time
    /// budget it stops at a quarter of the lanes' time (the clock read every
    /// [`FREES_BETWEEN_CLOCK_READS`] frees) and leaves the rest to the next tick, so that
    /// a game releasing thousands of paths at once (a few hundred nanoseconds each) does
    /// not take the tick past its budget; under `Budget::Expansions`, which promises
    /// outcomes and not time, it frees them all (freeing changes no outcome). Memory held
    /// for released paths is therefore what the game released since the last tick plus
    /// what the ticks since had no time to free.
    pub(super) fn free_released(&mut self, start: Instant, deadline: Option<Instant>) {
        let Some(deadline) = deadline else {
            self.released.clear();
            self.released.shrink_to(RELEASED_KEPT_CAPACITY);
            return;
        };
        let stop = start + deadline.saturating_duration_since(start) / 4;
        while !self.released.is_empty() {
            let from = self
                .released
                .len()
                .saturating_sub(FREES_BETWEEN_CLOCK_READS);
            self.released.truncate(from);
            if Instant::now() >= stop {
                break;
            }
        }
        if self.released.is_empty() {
            self.released.shrink_to(RELEASED_KEPT_CAPACITY);
        }
    }

    /// Groups the requests taken since the last tick into jobs, answering at once those an
    /// answer or field of the last tick serves.
    ///
    /// The intake stops at `until` under a time budget (looked at every [`INTAKE_SLICE`]
    /// requests), after `cap` requests under a budget of units, and the rest waits for
    /// the next tick: a group cut in two joins its job there (see
    /// [`PathService::join_queued`]). Returns the requests taken in.
    fn take_in(
        &mut self,
        world: &World,
        report: &mut TickReport,
        (until, cap): (Option<Instant>, usize),
    ) -> usize {
        let mut intake = std::mem::take(&mut self.intake).into_iter();
        let mut order: Vec<GroupKey> = Vec::new();
        let mut groups: HashMap<GroupKey, Vec<(Cell, Vec<super::Ticket>)>> = HashMap::new();
        let mut taken = 0usize;
        while let Some(Intake { ticket, key, start }) = intake.next() {
            taken += 1;
            let late = taken % INTAKE_SLICE == 0 && until.is_some_and(|t| Instant::now() >= t);
            if late || taken > cap {
                taken -= 1;
                self.intake.push(Intake { ticket, key, start });
                self.intake.extend(intake);
                break;
            }
            if !matches!(self.tickets.get(ticket), Some(TicketState::Pending { .. })) {
                continue; // cancelled before it was taken in
            }
            let layer = world.layer(key.0);
            let revision = layer.map_or(0, |l| l.revision());
            let kept = (self.recent.answers.get(&(key, start)))
                .filter(|&&(_, at)| at == revision)
                .and_then(|&(holder, _)| match self.tickets.get(holder) {
                    Some(TicketState::Done { outcome, .. }) => Some(outcome.clone()),
                    _ => None, // released or re-planned since
                });
            if let (Some(outcome), Some(layer)) = (kept, layer) {
                let size = world.movement(key.0).map_or(1, |m| m.size());
                let (answer, _) = Answer::prepare(layer, size, true, (ticket, outcome, true), None);
                self.deliver(world, answer, report);
                continue;
            }
            let starts = groups.entry(key).or_insert_with(|| {
                order.push(key);
                Vec::new()
            });
            match starts.iter_mut().find(|(s, _)| *s == start) {
                Some((_, tickets)) => tickets.push(ticket),
                None => starts.push((start, vec![ticket])),
            }
        }
        let mut jobs = Vec::new();
        for key in order {
            let starts = groups.remove(&key).expect("a group per key");
            let Some(starts) = self.join_queued(key, starts) else {
                continue;
            };
            let layer = world.layer(key.0);
            let field = self
                .recent
                .fields
                .remove(&key)
                .filter(|f| layer.is_some_and(|l| f.is_current(l)));
            let single_cell = key.1.x1 == key.1.x2 && key.1.y1 == key.1.y2;
            // A kept subgoal field still answers after reported edits (see `watch::EditLog`).
            let size = world.movement(key.0).map_or(1, |m| m.size());
            let subgoals = self.recent.take_subgoal_field(key).filter(|f| {
                layer.is_some_and(|l| {
                    f.is_current(l) || self.edits.freed_since(key.0, l, size, f).is_some()
                })
            });
            let kept = field.is_some() || subgoals.is_some();
            let whole_group = kept || starts.len() >= self.config.flow_threshold;
            let small_group = starts.len() >= 2 && self.config.share_small_groups;
            if whole_group || small_group || !single_cell {
                let mut job = Job::new(0, key, starts, true);
                job.bounded = !whole_group;
                job.field_reused = kept;
                job.field = field;
                job.subgoals = subgoals;
                self.stats.flow_fields += u64::from(!kept);
                jobs.push(job);
            } else {
                for start in starts {
                    jobs.push(Job::new(0, key, vec![start], false));
                }
            }
        }
        // Smith's rule: the jobs that answer the most tickets per unit of work they are
        // expected to take go first (`Job::estimate`: their members' joins, reads and
        // deliveries by their distance to the goal, and their field's growth: a plain
        // field's disc out to its farthest member, an aimed one's band to its army). On
        // one machine it is the order that minimises the tickets' summed waits when each
        // job's members come at its end (an aimed field answers its army together), and
        // the greedy one for the most answers by a deadline (a burst's first frames).
        // Before session 41 the larger groups went first (a plain field costs about the
        // same whatever its size, so that was the same rule for scattered groups), which
        // put an army far from its goal before a nearer one whose members cost half as
        // much (BENCHMARKS.md, session 41). A stable sort: jobs of one ratio keep the
        // order their first requests came in.
        for job in &mut jobs {
            job.estimate(world.layer(job.class));
        }
        jobs.sort_by(|a, b| {
            let (ta, tb) = (a.tickets() as u128, b.tickets() as u128);
            (tb * a.estimate as u128).cmp(&(ta * b.estimate as u128))
        });
        for mut job in jobs {
            job.number = self.next_job;
            self.enqueue(job);
        }
        taken
    }

    /// Adds `starts` to a queued job building (or holding) a flow field to the same goal,
    /// if there is one: requests of the next tick share the field under way (a bounded
    /// field that does not cover a joining start is built again when its turn comes; a
    /// subgoal field grows on). Returns the starts when no such job waits.
    ///
    /// The job's lane is marked as having new work, as [`PathService::enqueue`] marks it:
    /// the joining requests are new orders and go first in the next tick's serving order
    /// (else a later order to the goal of a field under way would wait for its lane's turn,
    /// up to `lanes` ticks of one step, where an order that needs a field of its own goes
    /// first). It costs nothing under `Budget::Expansions`, where the order changes nothing.
    fn join_queued(
        &mut self,
        key: GroupKey,
        starts: Vec<(Cell, Vec<super::Ticket>)>,
    ) -> Option<Vec<(Cell, Vec<super::Ticket>)>> {
        let Some((lane, job)) = (self.lanes.iter_mut().enumerate())
            .flat_map(|(i, lane)| lane.queue.iter_mut().map(move |job| (i, job)))
            .find(|(_, job)| job.flow && job.key() == key)
        else {
            return Some(starts);
        };
        let number = job.number;
        for (_, tickets) in &starts {
            for t in tickets {
                if let Some(TicketState::Pending { job: j, .. }) = self.tickets.get_mut(*t) {
                    *j = Some((number, lane));
                }
            }
        }
        job.add_starts(starts);
        self.lanes[lane].new_work = true;
        None
    }

    /// Deals `job` to the lane with the least work expected of its queue (each job's
    /// [`Job::estimate_left`]; the first among equals, so the choice depends only on the
    /// requests), and places it in the lane's queue: small
    /// jobs (one search) before jobs that build a field, oldest first within each kind
    /// except that a new job goes before the jobs of its kind already late (taken in
    /// [`LATE_TICKS`] ticks ago or more, and fewer than [`STARVING_TICKS`]), never before a
    /// job holding a paused search (which would restart).
    ///
    /// Why late jobs give way: a game wants every order answered within a few frames, and
    /// a job already past that (a field of the frame-0 burst of a whole army, which takes
    /// a dozen frames) gains nothing from going first, while the new order behind it would
    /// miss its frames too. The late job's work is paused, not lost (a field pauses
    /// exactly), and goes on when the new job is done; past [`STARVING_TICKS`] nothing
    /// overtakes it, so a stream of new orders cannot starve it.
    ///
    /// Why by expected work (session 41): with every field job weighing the same, the
    /// intake's order dealt round the lanes gave the first lane the first of every four
    /// jobs; with the larger groups first, its queue held 588 of the replay's 2,000
    /// burst members on Cauldron and finished a frame after the others.
    fn enqueue(&mut self, mut job: Job) {
        self.next_job += 1;
        job.taken_at = self.frame;
        let frame = self.frame;
        let late = |queued: &Job| {
            let age = frame.saturating_sub(queued.taken_at);
            (LATE_TICKS..STARVING_TICKS).contains(&age)
        };
        let lane = (0..self.lanes.len())
            .min_by_key(|&i| {
                (self.lanes[i].queue.iter())
                    .map(Job::estimate_left)
                    .sum::<usize>()
            })
            .expect("at least one lane");
        for (_, tickets) in &job.starts {
            for t in tickets {
                if let Some(TicketState::Pending { job: j, .. }) = self.tickets.get_mut(*t) {
                    *j = Some((job.number, lane));
                }
            }
        }
        self.lanes[lane].new_work = true;
        let queue = &mut self.lanes[lane].queue;
        let first = usize::from(queue.front().is_some_and(Job::holds_search));
        let at = (first..queue.len())
            .find(|&i| {
                let queued = &queue[i];
                queued.weight() > job.weight() || (queued.weight() == job.weight() && late(queued))
            })
            .unwrap_or(queue.len());
        queue.insert(at, job);
    }

    /// Hands `answer` to its ticket, if the ticket still waits for it: moves what the lane
    /// prepared into place (see [`Answer`]).
    fn deliver(&mut self, world: &World, answer: Answer, report: &mut TickReport) {
        let Some(state) = self.tickets.get_mut(answer.ticket) else {
            return; // cancelled
        };
        let TicketState::Pending { request, start, .. } = state else {
            return;
        };
        let (request, start) = (*request, *start);
        if let (true, Some(layer)) = (answer.keep, world.layer(request.class)) {
            (self.recent.answers).insert((request.key(), start), (answer.ticket, layer.revision()));
        }
        if let Some(n) = self.pending_per_unit.get_mut(&request.unit) {
            *n -= 1;
            if *n == 0 {
                self.pending_per_unit.remove(&request.unit);
            }
        }
        self.pending -= 1;
        let delivered = TicketState::Done {
            request,
            outcome: answer.held,
            costs: answer.costs,
            reach: answer.reach,
            pieces: Vec::new(),
            walked: 0.0,
            walked_to: 0,
            // Answered on the map as it stands: true after every edit reported so far.
            checked: self.sweep.reported,
        };
        self.settle(answer.ticket, delivered);
        self.finished.push((answer.ticket, answer.outcome));
        report.delivered += 1;
        report.shared += usize::from(answer.shared);
        self.stats.delivered += 1;
        self.stats.shared += u64::from(answer.shared);
    }
}

/// Adds the lane's work by kind to the service's totals (the sweep and the intake are
/// booked by the tick itself).
fn add_split(total: &mut super::WorkSplit, lane: &super::WorkSplit) {
    total.cancels += lane.cancels;
    total.checks += lane.checks;
    total.single_searches += lane.single_searches;
    total.subgoal_fields += lane.subgoal_fields;
    total.gate_fields += lane.gate_fields;
    total.field_reads += lane.field_reads;
    total.leaf_tables += lane.leaf_tables;
    total.vouched += lane.vouched;
    total.repair_searches += lane.repair_searches;
    total.closest += lane.closest;
    total.delivery += lane.delivery;
}

/// The order in which a tick serves its lanes, and the lane whose turn it is (the first
/// with jobs from `turn` on, round the end; `None` when no lane has jobs): first the lanes
/// with jobs dealt since they last ran one, then the other lanes with jobs, each kind from
/// `turn` on, then the idle ones (which only take out cancelled tickets and free a retired
/// field, if the deadline leaves time for it).
///
/// Under a time budget each lane runs until its queue is empty or the tick's deadline, so
/// on a pool with fewer threads than busy lanes the first of the order take the tick and
/// the later ones may not start before the deadline. The lane whose turn it is owes the
/// tick a step (see [`Allowance::spent`]), and the next tick's turn is the lane after it
/// (`PathService::lane_turn`), so that every busy lane has its turn, and its step, within
/// `lanes` ticks. New work goes first so that a new order does not wait for its turn
/// behind lanes busy with long fields (each job jumps ahead once: its lane loses the mark
/// when it runs; but a lane whose queued field is joined by new orders every tick is
/// marked again every tick, and goes first as long as they come: the other busy lanes
/// still get their owed step within `lanes` ticks). Sharing the time instead (session 33: each busy lane a share of the
/// time left) made every subgoal field of a burst on a 1-thread pool grow a quarter of
/// each tick: all of them finished late (see docs/service.md, "Beside the frame").
fn serving_order(lanes: &[Lane], turn: usize) -> (Vec<usize>, Option<usize>) {
    let count = lanes.len();
    let from_turn = (0..count).map(|k| (turn + k) % count);
    let busy = |i: &usize| !lanes[*i].queue.is_empty();
    let turn = from_turn.clone().find(busy);
    let new = from_turn.clone().filter(|i| busy(i) && lanes[*i].new_work);
    let old = from_turn.clone().filter(|i| busy(i) && !lanes[*i].new_work);
    let idle = from_turn.filter(|i| !busy(i));
    (new.chain(old).chain(idle).collect(), turn)
}

/// A lane and its allowance, until a thread takes them to run the lane.
type LaneWork<'a> = Option<(&'a mut Lane, Allowance)>;

/// Runs every lane with its allowance, starting them in `order` (lane indices, each once):
/// on rayon's current pool with the `parallel` feature, each of its threads (as many as
/// there are lanes, at most) taking the next lane of the order as it comes free; without
/// it, one after the other on the calling thread. Results in lane order either way, so
/// that the order changes no outcome under a budget of units.
fn run_lanes(
    lanes: &mut [Lane],
    world: &World,
    edits: &EditLog,
    allowances: Vec<Allowance>,
    order: &[usize],
) -> Vec<LaneRun> {
    debug_assert_eq!(order.len(), lanes.len());
    let work: Vec<LaneWork<'_>> = lanes.iter_mut().zip(allowances).map(Some).collect();
    #[cfg(feature = "parallel")]
    if rayon::current_num_threads() > 1 && work.len() > 1 {
        return run_on_pool(work, world, edits, order);
    }
    run_in_order(work, world, edits, order)
}

/// [`run_lanes`] on the calling thread, one lane after the other.
fn run_in_order(
    mut work: Vec<LaneWork<'_>>,
    world: &World,
    edits: &EditLog,
    order: &[usize],
) -> Vec<LaneRun> {
    let mut runs: Vec<Option<LaneRun>> = (0..work.len()).map(|_| None).collect();
    for &i in order {
        let (lane, allowance) = work[i].take().expect("each lane once in the order");
        runs[i] = Some(lane.run(world, edits, allowance));
    }
    runs.into_iter()
        .map(|r| r.expect("every lane ran"))
        .collect()
}

/// [`run_lanes`] on rayon's current pool: one worker per thread (per lane, at most), each
/// taking the next lane of `order` until none is left (see [`serve_in_order`]).
#[cfg(feature = "parallel")]
fn run_on_pool(
    work: Vec<LaneWork<'_>>,
    world: &World,
    edits: &EditLog,
    order: &[usize],
) -> Vec<LaneRun> {
    serve_in_order(work, order, |(lane, allowance)| {
        lane.run(world, edits, allowance)
    })
}

/// Runs `run` on every item of `work` on rayon's current pool, starting them in `order`
/// (indices into `work`, each once): one worker per thread (per item, at most), each
/// taking the next item of the order as it comes free, so that the first `P` items of the
/// order start first on a pool of `P` threads. (A `par_iter` over the order would split
/// it in halves: on 2 threads the first and the third item would start first.) Results
/// in `work`'s order.
#[cfg(feature = "parallel")]
fn serve_in_order<W: Send, R: Send>(
    work: Vec<Option<W>>,
    order: &[usize],
    run: impl Fn(W) -> R + Sync,
) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let workers = rayon::current_num_threads().min(work.len());
    let slots: Vec<Mutex<(Option<W>, Option<R>)>> =
        work.into_iter().map(|w| Mutex::new((w, None))).collect();
    let next = AtomicUsize::new(0);
    let serve = || {
        while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
            let mut slot = slots[i].lock().expect("no lane panicked");
            let item = slot.0.take().expect("each item once in the order");
            slot.1 = Some(run(item));
        }
    };
    rayon::scope(|scope| {
        for _ in 1..workers {
            scope.spawn(|_| serve());
        }
        serve();
    });
    (slots.into_iter())
        .map(|slot| {
            let (_, run) = slot.into_inner().expect("no lane panicked");
            run.expect("every item ran")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{lanes_deadline, serving_order, tail_reserve, Lane, MAX_TIME_BUDGET};
    use crate::service::job::Job;
    use crate::service::{Budget, Failure, Outcome, PathService, RequestOptions, ServiceConfig};
    use crate::units::UnitId;
    use crate::{Cell, Grid, Mode, Movement, Rect, World};
    use std::time::{Duration, Instant};

    /// A 160² map with a one-cell post every six cells (thousands of subgoals for a
    /// group's field to settle), an exact class, and a service of `lanes` lanes.
    fn posts(lanes: usize) -> (World, crate::ClassId, PathService) {
        let grid = Grid::from_fn(160, 160, |x, y| x % 6 != 3 || y % 6 != 3);
        let mut world = World::new(grid);
        let class = world.add_class(Movement::default(), Mode::Exact).unwrap();
        let config = ServiceConfig::default().with_lanes(lanes);
        let service = PathService::with_config(&world, config);
        (world, class, service)
    }

    /// A budget of units goes to the lanes with work: one group's field on a service of
    /// four lanes spends the whole budget every tick until it is done, not its lane's
    /// quarter, and what a lone search leaves when it is done goes round to the field
    /// (never more than the budget and one step per lane).
    #[test]
    fn busy_lanes_spend_the_whole_budget_of_units() {
        let (world, class, mut service) = posts(4);
        let options = RequestOptions::default();
        let mut ask = |unit: u32, start: Cell, goal: Cell| {
            let unit = UnitId::new(unit);
            service
                .request(&world, class, unit, start, goal, options)
                .unwrap();
        };
        for i in 0..12u32 {
            ask(i, Cell::new(13 * i, 159 - 13 * i), Cell::new(80, 0));
        }
        // A short search of its own, done in its first tick with units to spare.
        ask(12, Cell::new(0, 0), Cell::new(20, 20));
        let budget = 200;
        let mut full_ticks = 0;
        while service.pending() > 0 {
            let report = service.tick(&world, Budget::Expansions(budget)).unwrap();
            assert!(
                report.work <= budget + 4 * report.largest_step,
                "{report:?}"
            );
            if service.pending() > 0 {
                assert!(
                    report.work >= budget,
                    "a tick with work left spent {report:?}"
                );
                full_ticks += 1;
            }
        }
        assert!(
            full_ticks >= 5,
            "the field took {full_ticks} full ticks: too small a test"
        );
    }

    /// One tick's intake queues its jobs by Smith's rule, the most tickets per unit of
    /// work they are expected to take first, and deals each to the lane with the least
    /// work expected of its queue: an army of 60 next to its goal, one of 5 farther away,
    /// one of 10 across the map, asked in the opposite order. Each other rule gives
    /// other queues: largest first with the lanes dealt by job counts `[60, 5] [10]`, by
    /// work `[60] [10, 5]`; Smith's rule by job counts `[60, 10] [5]`; the requests' order
    /// `[10] [5, 60]`.
    #[test]
    fn an_intake_queues_the_most_answers_per_unit_first() {
        let (world, class, mut service) = posts(2);
        let options = RequestOptions::default();
        let mut unit = 0;
        // (size, the army's top-left cell and width, its goal)
        let armies = [
            (10u32, Cell::new(10, 120), 10u32, Cell::new(150, 20)),
            (5, Cell::new(10, 10), 5, Cell::new(60, 40)),
            (60, Cell::new(100, 80), 20, Cell::new(150, 100)),
        ];
        for (size, corner, width, goal) in armies {
            for i in 0..size {
                let start = Cell::new(corner.x + i % width, corner.y + i / width);
                let id = UnitId::new(unit);
                service
                    .request(&world, class, id, start, goal, options)
                    .unwrap();
                unit += 1;
            }
        }
        // Enough units to take every request in (a quarter of the budget), too few to
        // answer any group.
        service.tick(&world, Budget::Expansions(300)).unwrap();
        assert_eq!(service.pending(), 75);
        let queues: Vec<Vec<usize>> = (service.lanes.iter())
            .map(|l| l.queue.iter().map(Job::tickets).collect())
            .collect();
        assert_eq!(queues, [vec![60], vec![5, 10]]);
    }

    /// The intake's estimate of an army answered through its box (`hpa::subgoals::field`,
    /// "Members inside a box": a cone scan for its ring cells only) is what the army
    /// spends, within a factor of 1.5 either way: the oracle is the service's own count of
    /// the units spent, with nothing else queued. Estimating a cone scan for every member
    /// (as before session 42's review) put it at 2.23× the units spent.
    #[test]
    fn a_boxed_armys_estimate_is_what_it_spends() {
        // Open ground with one wall between the army and its goal: the members' work,
        // not the field's growth round a few subgoals, is most of what the army costs.
        let mut world = World::new(Grid::from_fn(96, 96, |x, y| {
            x != 40 || !(8..60).contains(&y)
        }));
        let class = world.add_class(Movement::default(), Mode::Exact).unwrap();
        let mut service = PathService::with_config(&world, ServiceConfig::default().with_lanes(1));
        let options = RequestOptions::default();
        let mut unit = 0;
        for y in 20..34 {
            for x in 10..24 {
                let start = Cell::new(x, y);
                if world.grid().is_free(start) {
                    let id = UnitId::new(unit);
                    service
                        .request(&world, class, id, start, Cell::new(70, 30), options)
                        .unwrap();
                    unit += 1;
                }
            }
        }
        // The intake's share of the budget (a quarter) takes the whole group in as one
        // job, and the rest is far from answering it.
        service
            .tick(&world, Budget::Expansions(4 * unit as usize))
            .unwrap();
        let queued: Vec<&Job> = service.lanes.iter().flat_map(|l| l.queue.iter()).collect();
        assert_eq!(queued.len(), 1, "one group, one job");
        assert_eq!(
            queued[0].tickets(),
            unit as usize,
            "the whole group taken in"
        );
        let estimate = queued[0].estimate as f64;
        let mut answered = 0;
        for _ in 0..1_000 {
            service.tick(&world, Budget::Expansions(1_000)).unwrap();
            answered += service.drain_finished().count();
            if answered == unit as usize {
                break;
            }
        }
        assert_eq!(answered, unit as usize);
        let spent = service.stats().work.total() as f64;
        let ratio = estimate / spent;
        assert!(
            (1.0 / 1.5..=1.5).contains(&ratio),
            "estimated {estimate} units, spent {spent} (ratio {ratio:.2})"
        );
    }

    /// Lanes with new jobs first, then the other lanes with jobs, from the turn on and
    /// round the end, then the idle ones; the turn is the first lane with jobs from it on.
    #[test]
    fn busy_lanes_are_served_from_the_turn_on() {
        let mut world = World::new(Grid::new_free(8, 8));
        let class = world.add_class(Movement::default(), Mode::Exact).unwrap();
        let mut lanes: Vec<Lane> = (0..4).map(|_| Lane::default()).collect();
        let order = |lanes: &[Lane], turn| serving_order(lanes, turn).0;
        assert_eq!(serving_order(&lanes, 2), (vec![2, 3, 0, 1], None));
        for i in [1, 3] {
            let key = (class, Rect::new(7, 7, 7, 7), Default::default());
            let job = Job::new(i as u64, key, vec![(Cell::new(0, 0), Vec::new())], false);
            lanes[i].queue.push_back(job);
        }
        assert_eq!(serving_order(&lanes, 0), (vec![1, 3, 0, 2], Some(1)));
        assert_eq!(serving_order(&lanes, 2), (vec![3, 1, 2, 0], Some(3)));
        assert_eq!(order(&lanes, 3), [3, 1, 0, 2]);
        // A lane with new work goes first, the turn stays where it is.
        lanes[3].new_work = true;
        assert_eq!(serving_order(&lanes, 0), (vec![3, 1, 0, 2], Some(1)));
    }

    /// Under a time budget whose deadline has always passed when the lanes start, each tick
    /// moves exactly one lane on (its owed step), and a lane with jobs never waits more than
    /// `lanes` ticks for its step: the order turns from tick to tick. (Served in a fixed
    /// order, lane 3 would wait until lanes 0 to 2 ran dry.) Every request here is answered
    /// in one step (its start is blocked), so a lane's step shows as one ticket fewer in its
    /// queue; the test reads no clock.
    #[test]
    fn every_busy_lane_steps_within_lanes_ticks_past_the_deadline() {
        // On the global pool, and on pools of 1 to 3 threads (`run_in_order` and
        // `run_on_pool`, with fewer threads than lanes); the jobs as the service deals
        // them, and dealt unevenly with an idle lane (the turn must pass over it).
        for spread in [None, Some([1, 5, 0, 5])] {
            busy_lanes_step_within_lanes_ticks(spread);
            #[cfg(feature = "parallel")]
            for threads in 1..=3 {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
                let pool = pool.expect("a test pool");
                pool.install(|| busy_lanes_step_within_lanes_ticks(spread));
            }
        }
    }

    /// The body of the test above; `spread` deals the jobs left after the first tick
    /// again, so many to each lane.
    fn busy_lanes_step_within_lanes_ticks(spread: Option<[usize; 4]>) {
        const LANES: usize = 4;
        // Column 0 is blocked: every start there fails its first checks.
        let mut world = World::new(Grid::from_fn(32, 32, |x, _| x != 0));
        let class = world.add_class(Movement::default(), Mode::Exact).unwrap();
        let config = ServiceConfig::default().with_lanes(LANES);
        let mut service = PathService::with_config(&world, config);
        let tickets: Vec<_> = (0..3 * LANES as u32)
            .map(|i| {
                let (start, goal) = (Cell::new(0, i), Cell::new(31, i));
                let options = RequestOptions::default();
                (service.request(&world, class, UnitId::new(i), start, goal, options)).unwrap()
            })
            .collect();
        let past = Budget::Time(Duration::from_nanos(1));
        let waiting = |service: &PathService| -> Vec<usize> {
            let tickets = |lane: &Lane| lane.queue.iter().map(Job::tickets).sum();
            service.lanes.iter().map(tickets).collect()
        };
        // The first tick takes the requests in (its lanes start past the deadline too).
        assert_eq!(service.tick(&world, past).unwrap().delivered, 1);
        if let Some(spread) = spread {
            let lanes = &mut service.lanes;
            let mut jobs: Vec<Job> = lanes.iter_mut().flat_map(|l| l.queue.drain(..)).collect();
            assert_eq!(jobs.len(), spread.iter().sum::<usize>(), "one ticket a job");
            for (lane, count) in lanes.iter_mut().zip(spread) {
                lane.queue.extend(jobs.drain(..count));
                lane.new_work = false;
            }
        }
        let mut before = waiting(&service);
        assert_eq!(before.iter().sum::<usize>(), tickets.len() - 1);
        let mut idle_ticks = [0usize; LANES];
        while service.pending() > 0 {
            assert_eq!(service.tick(&world, past).unwrap().delivered, 1);
            let after = waiting(&service);
            for lane in 0..LANES {
                if after[lane] < before[lane] {
                    idle_ticks[lane] = 0;
                } else if after[lane] > 0 {
                    idle_ticks[lane] += 1;
                    assert!(
                        idle_ticks[lane] < LANES,
                        "lane {lane} waited {} ticks with jobs: {after:?}",
                        idle_ticks[lane]
                    );
                }
            }
            before = after;
        }
        for ticket in tickets {
            let failed = matches!(
                service.outcome(ticket),
                Some(Outcome::Failed(Failure::StartNotOpen { .. }))
            );
            assert!(failed, "{ticket:?}: {:?}", service.outcome(ticket));
        }
    }

    /// The lanes of a time budget stop a quarter of it before its end, but never more
    /// than 1 ms before: the tail (the steps under way, the delivery) does not grow with
    /// the budget. A 1 ms budget on the main thread keeps its 3/4; 8 ms beside the frame
    /// gives the lanes 7 ms.
    #[test]
    fn the_lanes_stop_at_most_a_millisecond_before_the_end() {
        let ms = Duration::from_millis;
        assert_eq!(tail_reserve(ms(1)), Duration::from_micros(250));
        assert_eq!(tail_reserve(ms(4)), ms(1));
        assert_eq!(tail_reserve(ms(8)), ms(1));
        assert_eq!(tail_reserve(Duration::from_nanos(1)), Duration::ZERO);
        for us in [1, 10, 999, 1_000, 3_999, 4_000, 8_000] {
            let budget = Duration::from_micros(us);
            let reserve = tail_reserve(budget);
            assert!(
                reserve <= budget / 4 && reserve <= ms(1),
                "{budget:?}: {reserve:?}"
            );
        }
        // Past 8 ms the delivery's eighth: a 64 ms budget keeps 8 ms back.
        assert_eq!(tail_reserve(ms(16)), ms(2));
        assert_eq!(tail_reserve(ms(64)), ms(8));
        assert_eq!(tail_reserve(MAX_TIME_BUDGET), MAX_TIME_BUDGET / 8);
        // The tick's deadline is this reserve before the end, from the tick's start (a
        // tick with the old `3/4` or a deadline counted the other way fails here).
        let start = Instant::now();
        assert_eq!(
            lanes_deadline(start, ms(1)),
            start + Duration::from_micros(750)
        );
        assert_eq!(lanes_deadline(start, ms(8)), start + ms(7));
        assert_eq!(lanes_deadline(start, ms(64)), start + ms(56));
        assert_eq!(
            lanes_deadline(start, Duration::MAX),
            start + MAX_TIME_BUDGET - MAX_TIME_BUDGET / 8
        );
    }

    /// On a pool of `P` threads the first `P` lanes of the serving order start first (each
    /// thread then takes the next): each of the first `P` lanes to start waits until `P`
    /// have started (so the test does not hang on the clock: a thread that comes late
    /// only delays it), and the lanes that started then must be the first `P` of the
    /// order. A `par_iter` over the order in `serve_in_order`'s place starts the first and
    /// the third of [2, 0, 3, 1] on 2 threads and fails it.
    #[cfg(feature = "parallel")]
    #[test]
    fn the_pool_starts_the_lanes_in_the_serving_order() {
        use super::serve_in_order;
        use std::sync::{Condvar, Mutex};
        for (threads, order) in [
            (2, vec![2, 0, 3, 1]),
            (3, vec![1, 3, 0, 2]),
            (2, vec![3, 2, 1, 0]),
        ] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
            let started: Mutex<Vec<usize>> = Mutex::new(Vec::new());
            let all_in = Condvar::new();
            let results = pool.expect("a test pool").install(|| {
                serve_in_order((0..4).map(Some).collect(), &order, |lane: usize| {
                    let mut list = started.lock().unwrap();
                    list.push(lane);
                    if list.len() <= threads {
                        all_in.notify_all();
                        let wait = Duration::from_secs(10);
                        let (list, _) = all_in
                            .wait_timeout_while(list, wait, |l| l.len() < threads)
                            .unwrap();
                        drop(list);
                    }
                    lane * 10
                })
            });
            assert_eq!(results, [0, 10, 20, 30], "results in lane order");
            let mut first = started.lock().unwrap()[..threads].to_vec();
            first.sort_unstable();
            let mut expected = order[..threads].to_vec();
            expected.sort_unstable();
            assert_eq!(first, expected, "{threads} threads, order {order:?}");
        }
    }

    /// Requests that join a field job already queued are new orders: they mark the job's
    /// lane as having new work, as a job dealt to it does, so that it goes first in the
    /// next tick's serving order.
    #[test]
    fn joining_a_queued_field_marks_its_lane() {
        let mut world = World::new(Grid::new_free(64, 64));
        let class = world.add_class(Movement::default(), Mode::Exact).unwrap();
        let config = ServiceConfig::default().with_lanes(4);
        let mut service = PathService::with_config(&world, config);
        let goal = Rect::new(60, 60, 62, 62);
        let order = |service: &mut PathService, unit: u32| {
            let start = Cell::new(unit, 0);
            let options = RequestOptions::default();
            (service.request(&world, class, UnitId::new(unit), start, goal, options)).unwrap()
        };
        for unit in 0..10 {
            order(&mut service, unit);
        }
        let mut report = Default::default();
        service.take_in(&world, &mut report, (None, usize::MAX));
        let lane = (service.lanes.iter())
            .position(|l| !l.queue.is_empty())
            .expect("one field job queued");
        assert!(service.lanes[lane].new_work);
        // The lane runs (a step of the field): the mark goes.
        for l in &mut service.lanes {
            l.new_work = false;
        }
        let late = order(&mut service, 20);
        service.take_in(&world, &mut report, (None, usize::MAX));
        let queued: usize = service.lanes.iter().map(|l| l.queue.len()).sum();
        assert_eq!(queued, 1, "the late request joined the job");
        assert_eq!(service.lanes[lane].queue[0].tickets(), 11);
        assert!(service.lanes[lane].new_work, "{late:?} joined: new work");
        let others = (0..4).filter(|&i| i != lane);
        assert!(others.into_iter().all(|i| !service.lanes[i].new_work));
    }

    /// The longest budget honoured fits the clock with room to spare.
    #[test]
    fn the_longest_time_budget_fits_the_clock() {
        assert!(Instant::now().checked_add(MAX_TIME_BUDGET).is_some());
    }
}
