//! Edits against live paths: which delivered paths an edit breaks or may shorten, their
//! events, and their repairs. `notify_edit` records an edit (O(1) amortised); the next
//! ticks sweep the live paths against the edits recorded, within their budget, before
//! they take in or deliver anything.

use super::closest::{cheapest_cost, distance_between, distance_to};
use super::job::{Allowance, Kind};
use super::types::{PathEvent, Ticket};
use super::{PathService, Request, TicketState, Walk};
use crate::geom::{Cell, Direction, Rect};
use crate::grid::movement::octile;
use crate::hpa::{HpaMap, Path, SubgoalField};
use crate::world::{ClassId, World, WorldEditReport};
use hashbrown::HashMap;
use std::collections::VecDeque;

/// Edits that freed or re-priced positions remembered for kept subgoal fields: a field
/// older than the oldest one remembered is dropped.
const FREES_KEPT: usize = 32;

/// At most this many freeing edits since a subgoal field started, or it is dropped (each
/// adds a bound to check per member).
const FREES_PER_FIELD: usize = 8;

/// What the service was told of the world's edits: enough to know what happened since a
/// subgoal field was started, so that the field still answers what it can vouch for (see
/// `hpa::subgoals::field`, "After edits").
#[derive(Debug, Default)]
pub(super) struct EditLog {
    /// Each class's layer revision after the last edit the service was told about.
    notified: HashMap<ClassId, u64>,
    /// The edits that opened or re-priced positions: the highest layer revision each led
    /// to (revisions grow over the whole process), and its rectangle. Oldest first.
    ///
    /// The highest, not the lowest: an edit leaves the revision of a layer it changed
    /// nothing in (a cell freed where a larger class still cannot stand) as it was, older
    /// than a field that layer's neighbour started after it; taking the lowest over the
    /// layers made such a free look older than that field, which then answered as if
    /// nothing had opened (a path 17.07 long where 16.49 was the optimum, found by
    /// `fields_kept_through_edits_match_dijkstra`). A layer the edit did change got a
    /// revision above every one handed out before the edit, so the highest is above the
    /// start of every field the free concerns (and above some it does not: those only
    /// get a looser bound).
    frees: Vec<(u64, Rect)>,
    /// The revision of the newest free forgotten (fields older than it are dropped).
    forgotten: u64,
}

impl EditLog {
    /// Records one edit's report (O(classes)).
    pub fn record(&mut self, world: &World, report: &WorldEditReport) {
        let mut highest = 0;
        for (class, _) in world.classes() {
            if let Some(layer) = world.layer(class) {
                self.notified.insert(class, layer.revision());
                highest = highest.max(layer.revision());
            }
        }
        if let (Some(area), true) = (report.area, report.opened + report.recosted > 0) {
            self.frees.push((highest, area));
            if self.frees.len() > FREES_KEPT {
                self.forgotten = self.frees.remove(0).0;
            }
        }
    }

    /// For `field`, started on an earlier revision of `class`'s layer `map` (agents of
    /// side `size`): the positions every edit since freed or re-priced, each rectangle
    /// grown by `size − 1` up and left (the positions whose footprint meets it) and one
    /// more cell around (the positions a diagonal step beside it needs). `None` when the
    /// field must be dropped: the last edit of the layer was not reported (the game broke
    /// the contract of `notify_edit`), or the frees since are too many or forgotten.
    pub fn freed_since(
        &self,
        class: ClassId,
        map: &HpaMap,
        size: u32,
        field: &SubgoalField,
    ) -> Option<Vec<Rect>> {
        let started = field.revision();
        if !field.is_older_than(map)
            || self.notified.get(&class) != Some(&map.revision())
            || started < self.forgotten
        {
            return None;
        }
        let (w, h) = (map.grid().width(), map.grid().height());
        let zones: Vec<Rect> = (self.frees.iter())
            .filter(|&&(at, _)| at > started)
            .map(|&(_, a)| {
                Rect::new(
                    a.x1.saturating_sub(size),
                    a.y1.saturating_sub(size),
                    (a.x2 + 1).min(w - 1),
                    (a.y2 + 1).min(h - 1),
                )
            })
            .collect();
        (zones.len() <= FREES_PER_FIELD).then_some(zones)
    }
}

/// An edit reported to the service and not yet swept against every live path.
#[derive(Clone, Copy, Debug)]
struct ReportedEdit {
    /// Its number among the edits reported (from 1).
    number: u64,
    /// The edited rectangle.
    area: Rect,
    /// Whether it opened or re-priced positions (a shorter route may exist then).
    freed: bool,
}

/// The sweep of live paths against reported edits. [`PathService::notify_edit`] only
/// records an edit here (O(1) amortised); each [`PathService::tick`] first sweeps the live
/// paths against the edits recorded, a slice of its budget at a time, before it takes in
/// or delivers anything (see [`sweep`]).
#[derive(Debug, Default)]
pub(super) struct Sweep {
    /// Edits reported so far: the number of the last one.
    pub reported: u64,
    /// Edits not yet swept against every live path, oldest first.
    unswept: VecDeque<ReportedEdit>,
    /// The pass under way: the last ticket it looked at (`None` before the first), and
    /// the number of the last edit reported when it started.
    pass: Option<(Option<Ticket>, u64)>,
    /// Work done and not booked yet, in 64ths of a unit (carried between ticks, so the
    /// count does not depend on where a tick stops).
    credit: usize,
}

/// A sweep's cost per path looked at, in 64ths of a unit (an expansion is a few hundred
/// nanoseconds, looking at a path and its bounding box a few nanoseconds).
const CREDIT_PER_PATH: usize = 2;

/// A sweep's cost per edit tried against a path, and per position of a path walked.
const CREDIT_PER_TEST: usize = 1;

impl Sweep {
    /// Records one edit of `area`, `freed` when it opened or re-priced positions.
    fn record(&mut self, area: Rect, freed: bool) {
        self.reported += 1;
        self.unswept.push_back(ReportedEdit {
            number: self.reported,
            area,
            freed,
        });
        if self.pass.is_none() {
            self.pass = Some((None, self.reported));
        }
    }

    /// Whether every live path has been checked against every edit reported.
    pub fn is_done(&self) -> bool {
        self.pass.is_none()
    }

    /// Whether no reported edit waits to be swept: then [`Sweep::may_touch`] is `false`
    /// for every path.
    pub fn is_settled(&self) -> bool {
        self.unswept.is_empty()
    }

    /// Whether an edit reported after the `checked`-th may have broken a path whose
    /// `reach` (see [`reach`]; `None` without a path) it meets: such a path is not vouched
    /// for until swept.
    pub fn may_touch(&self, checked: u64, reach: Option<Rect>) -> bool {
        // No reach: no path (a failure), which no edit can break.
        reach.is_some_and(|r| {
            (self.unswept.iter().rev())
                .take_while(|e| e.number > checked)
                .any(|e| r.intersects(&e.area))
        })
    }
}

/// The rectangle of edited cells that may touch a path whose cells span `bounds`, for
/// agents of side `size`: an edit outside it changes neither a position of the path (its
/// footprint reaches `size − 1` right and down) nor the orthogonal positions a diagonal
/// step of it needs (one more cell around).
pub(super) fn reach(bounds: Rect, size: u32) -> Rect {
    Rect::new(
        bounds.x1.saturating_sub(1),
        bounds.y1.saturating_sub(1),
        bounds.x2.saturating_add(size),
        bounds.y2.saturating_add(size),
    )
}

/// Positions of a path per piece whose reach is kept (see [`piece_reaches`]).
const PIECE: usize = 16;

/// The reach of each piece of [`PIECE`] positions of `cells` (with the position after it,
/// which its last step goes to), for agents of side `size`: an edit that misses a piece's
/// reach changes none of its positions or steps, so the sweep skips the piece (a path
/// crossing the map has a bounding box that most edits meet). Worked out by the sweep the
/// first time an edit meets the path's whole reach, not at delivery (most delivered paths
/// are released before an edit comes near them).
fn piece_reaches(cells: &[Cell], size: u32) -> Vec<Rect> {
    (0..cells.len().div_ceil(PIECE))
        .filter_map(|k| {
            let end = ((k + 1) * PIECE).min(cells.len() - 1);
            bounding_box(&cells[k * PIECE..=end]).map(|b| reach(b, size))
        })
        .collect()
}

/// The smallest rectangle holding `cells` (`None` for no cells).
pub(super) fn bounding_box(cells: &[Cell]) -> Option<Rect> {
    let first = *cells.first()?;
    let mut r = Rect::new(first.x, first.y, first.x, first.y);
    for c in cells {
        r = Rect::new(r.x1.min(c.x), r.y1.min(c.y), r.x2.max(c.x), r.y2.max(c.y));
    }
    Some(r)
}

/// Records one edit for the next tick's sweep, and for the kept subgoal fields.
pub(super) fn note(service: &mut PathService, world: &World, report: &WorldEditReport) {
    service.edits.record(world, report);
    if let Some(area) = report.area {
        let freed = report.opened + report.recosted > 0;
        service.sweep.record(area, freed);
    }
}

/// What the edits since it was last checked do to one live path.
enum Verdict {
    Intact,
    /// Broken from `index` of the path: to repair from `from` when `request` asks.
    Broken {
        index: usize,
        request: Request,
        from: Cell,
    },
    /// Valid, but a shorter route may exist now.
    MayShorten,
}

/// Sweeps the live paths against the reported edits within `allowance` (see the module
/// docs), in ticket order, resuming where the last tick stopped: a broken path gets its
/// [`PathEvent::Invalidated`] and, if asked, its repair queued; a path an edit that freed
/// ground may have made longer than needed waits for a re-plan. Returns whether the sweep
/// is finished (every live path checked against every edit reported).
pub(super) fn sweep(service: &mut PathService, world: &World, allowance: &mut Allowance) -> bool {
    let replan = service.config.replan_after_frees;
    let PathService {
        tickets,
        events,
        replans,
        stats,
        sweep,
        ..
    } = service;
    let mut repairs: Vec<(Ticket, Request, Cell)> = Vec::new();
    let mut stop = false;
    while let Some((after, target)) = sweep.pass {
        let reached_end = tickets.visit_after(after, |ticket, walk, state| {
            if stop {
                return false;
            }
            sweep.pass = Some((Some(ticket), target));
            sweep.credit += CREDIT_PER_PATH;
            if let Some(verdict) = check_one(world, walk.progress, state, sweep) {
                match verdict {
                    Verdict::Intact => {}
                    Verdict::Broken {
                        index,
                        request,
                        from,
                    } => {
                        replans.remove(&ticket);
                        events.push(PathEvent::Invalidated {
                            ticket,
                            first_bad_index: index,
                        });
                        stats.invalidated += 1;
                        if request.options.repair {
                            repairs.push((ticket, request, from));
                        } else {
                            *state = TicketState::Invalidated;
                            *walk = Walk::of(state);
                        }
                    }
                    Verdict::MayShorten => {
                        let repair = matches!(state, TicketState::Done { request, .. } if request.options.repair);
                        if replan && repair {
                            // Low priority: queued when the lanes have nothing else to do.
                            replans.insert(ticket);
                        }
                    }
                }
            }
            let units = sweep.credit / 64;
            if units > 0 {
                sweep.credit %= 64;
                allowance.book(units, units, Kind::Sweep);
                // The clock (under a time budget) is read only when a unit is booked.
                stop = allowance.spent();
            }
            true
        });
        if !reached_end {
            break;
        }
        // Every live path is checked through edit `target`: those edits are done with.
        while sweep.unswept.front().is_some_and(|e| e.number <= target) {
            sweep.unswept.pop_front();
        }
        sweep.pass = (sweep.reported > target).then_some((None, sweep.reported));
    }
    for (ticket, request, from) in repairs {
        service.stats.repairs += 1;
        service.queue(ticket, request, from);
    }
    service.sweep.is_done()
}

/// Checks one ticket's path against the edits reported since it was last checked, if it
/// holds a delivered path not checked yet (else `None`), and books the work. The unit
/// stands at `progress` on the path.
fn check_one(
    world: &World,
    progress: usize,
    state: &mut TicketState,
    sweep: &mut Sweep,
) -> Option<Verdict> {
    let TicketState::Done {
        request,
        outcome,
        costs,
        reach,
        pieces,
        walked,
        walked_to,
        checked,
    } = state
    else {
        return None;
    };
    if *checked >= sweep.reported {
        return None;
    }
    let since = *checked;
    *checked = sweep.reported;
    let (Some(path), Some(layer), Some(movement)) = (
        outcome.path(),
        world.layer(request.class),
        world.movement(request.class),
    ) else {
        return None;
    };
    let edits = (sweep.unswept.iter()).filter(|e| e.number > since);
    let mut first_bad: Option<usize> = None;
    let mut tests = 0;
    for edit in edits.clone() {
        tests += 1;
        if reach.map_or(true, |r| r.intersects(&edit.area)) {
            if pieces.is_empty() {
                // The first edit near the path: its pieces' reach, left out at delivery,
                // one pass over the positions. Not booked again: the delivery's units
                // (`job::DELIVERY_CELLS`) still price it for every path (booking it here
                // too moved the deterministic replay's sweeps from 36k to 259k units and
                // its outcomes within 3 frames from 93.25 to 92.62 %).
                *pieces = piece_reaches(&path.cells, movement.size());
            }
            let limit = first_bad.unwrap_or(path.cells.len());
            let (bad, walked_cells) = first_broken(
                layer,
                (path, pieces, costs.as_deref()),
                (progress, limit),
                (edit.area, movement.size()),
            );
            tests += walked_cells;
            first_bad = bad.or(first_bad);
        }
    }
    sweep.credit += tests * CREDIT_PER_TEST;
    if let Some(index) = first_bad {
        return Some(Verdict::Broken {
            index,
            request: *request,
            from: path.cells[progress],
        });
    }
    let mut freed = edits.filter(|e| e.freed).peekable();
    if freed.peek().is_none() {
        return Some(Verdict::Intact);
    }
    // The part ahead costs what the whole did, less what the unit has walked (nothing on
    // it changed: every edit that could have was just checked). O(positions walked since
    // the last catch-up), summed once each.
    *walked += walked_cost(&path.cells, costs.as_deref(), *walked_to, progress);
    *walked_to = progress;
    let remaining = path.cost - *walked;
    let here = path.cells[progress];
    // (A look at every terrain code: only for edits that freed ground.)
    let floor = cheapest_cost(layer);
    let may_shorten = freed.any(|e| {
        let touched = footprint_zone(e.area, movement.size());
        let bound = floor * (distance_to(touched, here) + distance_between(touched, request.goal));
        bound + 1e-9 < remaining
    });
    Some(if may_shorten {
        Verdict::MayShorten
    } else {
        Verdict::Intact
    })
}

/// The positions whose footprint (side `size`) meets `area`.
fn footprint_zone(area: Rect, size: u32) -> Rect {
    Rect::new(
        area.x1.saturating_sub(size - 1),
        area.y1.saturating_sub(size - 1),
        area.x2,
        area.y2,
    )
}

/// The first index in `from..limit` of `path` (each piece's reach `pieces`, positions'
/// costs `costs` when delivered) whose position, step to the next, or cost an edit of
/// `area` may have changed for agents of side `size` and did: no longer open, the step no
/// longer legal (corner rule), the cost changed. Also the pieces and positions looked at.
fn first_broken(
    layer: &HpaMap,
    (path, pieces, costs): (&Path, &[Rect], Option<&[f64]>),
    (from, limit): (usize, usize),
    (area, size): (Rect, u32),
) -> (Option<usize>, usize) {
    // Positions whose footprint meets the area, and one more cell around them for the
    // orthogonal positions a diagonal step needs.
    let (w, h) = (layer.grid().width(), layer.grid().height());
    let touched = footprint_zone(area, size);
    let zone = Rect::new(
        touched.x1.saturating_sub(1),
        touched.y1.saturating_sub(1),
        (touched.x2 + 1).min(w - 1),
        (touched.y2 + 1).min(h - 1),
    );
    let cells = &path.cells;
    let grid = layer.grid();
    let end = limit.min(cells.len());
    let (mut i, mut looked) = (from, 0);
    while i < end {
        let piece = i / PIECE;
        let piece_end = ((piece + 1) * PIECE).min(end);
        looked += 1;
        if pieces.get(piece).is_some_and(|r| !r.intersects(&area)) {
            i = piece_end;
            continue;
        }
        for j in i..piece_end {
            looked += 1;
            let c = cells[j];
            let next = cells.get(j + 1).copied();
            if !zone.contains(c) && !next.is_some_and(|n| zone.contains(n)) {
                continue;
            }
            let open = grid.is_free(c);
            let step_ok = next.map_or(true, |n| {
                Direction::between(c, n).is_some_and(|d| grid.can_step(c, d))
            });
            let same_cost = costs.map_or(true, |k| k[j] == layer.costs().cell_cost(grid, c));
            if !open || !step_ok || !same_cost {
                return (Some(j), looked);
            }
        }
        i = piece_end;
    }
    (None, looked)
}

/// The cost of the steps of `cells` from index `from` to index `to` (positions' costs
/// `costs` when delivered, unit costs without): what a unit walks when it reports that
/// progress, summed as [`Path::from_cells_with_costs`] sums them.
fn walked_cost(cells: &[Cell], costs: Option<&[f64]>, from: usize, to: usize) -> f64 {
    (from..to).fold(0.0, |sum, i| {
        let length = octile(cells[i], cells[i + 1]);
        sum + match costs {
            Some(k) => length * (k[i] + k[i + 1]) / 2.0,
            None => length,
        }
    })
}

/// Re-plans waiting for idle lanes taken in per tick.
const REPLAN_BATCH: usize = 64;

/// Queues up to a batch of the waiting re-plans (oldest tickets first) once no job is
/// queued: each gets its [`PathEvent::Replanning`] now and its new plan as a fresh outcome.
pub(super) fn take_replans(service: &mut PathService) {
    if service.lanes.iter().any(|l| !l.queue.is_empty()) || !service.intake.is_empty() {
        return;
    }
    while service.intake.len() < REPLAN_BATCH {
        let Some(ticket) = service.replans.pop_first() else {
            break;
        };
        let Some((
            walk,
            TicketState::Done {
                request, outcome, ..
            },
        )) = service.tickets.parts(ticket)
        else {
            continue; // released, or invalidated since
        };
        let Some(from) = outcome.path().map(|p| p.cells[walk.progress]) else {
            continue;
        };
        let request = *request;
        service.events.push(PathEvent::Replanning { ticket });
        service.stats.repairs += 1;
        service.stats.replans += 1;
        service.queue(ticket, request, from);
    }
}

#[cfg(test)]
mod tests {
    use super::EditLog;
    use crate::{Cell, Grid, Mode, Movement, Rect, World};

    /// A free that changes one class's layer and not another's (a one-cell gap a 2×2 agent
    /// never stands in) still counts for a field of the first class started after the
    /// other layer's last change: the zones name it. With the lowest revision of the
    /// layers recorded for the free, it was taken for older than the field and left out.
    #[test]
    fn a_free_counts_for_fields_started_after_an_unchanged_layers_revision() {
        // A wall down x = 10 with a one-cell gap at y = 5.
        let grid = Grid::from_fn(20, 12, |x, y| x != 10 || y == 5);
        let mut world = World::new(grid);
        let small = world.add_class(Movement::default(), Mode::Exact).unwrap();
        let big = Movement::default().with_size(2).unwrap();
        let big = world.add_class(big, Mode::Exact).unwrap();
        let mut log = EditLog::default();
        let gap = Rect::new(10, 5, 10, 5);
        let report = world.set_blocked(gap, true).unwrap();
        log.record(&world, &report);
        let big_revision = world.layer(big).unwrap().revision();
        // A field of the small class, started with the gap shut.
        let map = world.layer(small).unwrap();
        let goal = Rect::new(15, 5, 15, 5);
        let (field, _) = map.start_subgoal_field(goal, &mut Vec::new()).unwrap();
        let report = world.set_blocked(gap, false).unwrap();
        log.record(&world, &report);
        let unchanged = world.layer(big).unwrap().revision();
        assert_eq!(
            unchanged, big_revision,
            "the 2×2 class's layer did not change"
        );
        let map = world.layer(small).unwrap();
        let zones = log
            .freed_since(small, map, 1, &field)
            .expect("still usable");
        assert!(
            zones.iter().any(|z| z.contains(Cell::new(10, 5))),
            "{zones:?}"
        );
    }
}
