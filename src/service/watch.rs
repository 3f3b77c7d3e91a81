//! Edits against live paths: which delivered paths an edit breaks or may shorten, their
//! events, and their repairs.

use super::closest::{cheapest_cost, distance_between, distance_to};
use super::types::{PathEvent, Ticket};
use super::{PathService, Request, TicketState};
use crate::geom::{Cell, Direction, Rect};
use crate::grid::movement::octile;
use crate::hpa::{HpaMap, Path, SubgoalField};
use crate::world::{ClassId, World, WorldEditReport};
use hashbrown::HashMap;

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
    /// The edits that opened or re-priced positions: the lowest layer revision each led
    /// to (revisions grow over the whole process), and its rectangle. Oldest first.
    frees: Vec<(u64, Rect)>,
    /// The revision of the newest free forgotten (fields older than it are dropped).
    forgotten: u64,
}

impl EditLog {
    /// Records one edit's report (O(classes)).
    pub fn record(&mut self, world: &World, report: &WorldEditReport) {
        let mut lowest = u64::MAX;
        for (class, _) in world.classes() {
            if let Some(layer) = world.layer(class) {
                self.notified.insert(class, layer.revision());
                lowest = lowest.min(layer.revision());
            }
        }
        if let (Some(area), true) = (report.area, report.opened + report.recosted > 0) {
            self.frees.push((lowest, area));
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

/// The positions an edit of `area` touches for agents of side `size` (their footprint meets
/// it), and that rectangle grown by one cell around (the zone whose positions and steps
/// it can break: the orthogonal positions a diagonal step needs), on a `w`×`h` map.
fn zones(area: Rect, size: u32, (w, h): (u32, u32)) -> (Rect, Rect) {
    let touched = Rect::new(
        area.x1.saturating_sub(size - 1),
        area.y1.saturating_sub(size - 1),
        area.x2,
        area.y2,
    );
    let zone = Rect::new(
        touched.x1.saturating_sub(1),
        touched.y1.saturating_sub(1),
        (touched.x2 + 1).min(w - 1),
        (touched.y2 + 1).min(h - 1),
    );
    (touched, zone)
}

/// Checks the live paths against one edit (see the module docs), and records it.
///
/// Only the paths the path index lists near the edit can be broken by it; they are judged
/// in full, in ticket order. An edit that frees ground may shorten any path, wherever it
/// runs: the others then get the freeing rule alone, which costs O(1) for most (see
/// [`may_shorten`]).
pub(super) fn check(service: &mut PathService, world: &World, report: &WorldEditReport) {
    service.edits.record(world, report);
    let Some(area) = report.area else {
        return;
    };
    let freed = report.opened + report.recosted > 0 && service.config.replan_after_frees;
    let dims = (world.grid().width(), world.grid().height());
    // The widest zone any class's paths can be broken in.
    let largest = (world.classes()).map(|(_, m)| m.size()).max().unwrap_or(1);
    let mut near = service.paths.query(zones(area, largest, dims).1);
    // Paths delivered since the last tick are not indexed yet: each is judged whole (its
    // bounding box rules most out at once).
    if !service.paths.fresh().is_empty() {
        near.extend(service.paths.fresh().iter().map(|&t| (t, 0, usize::MAX)));
        near.sort_unstable();
        near.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.2 = kept.2.max(later.2);
            }
            same
        });
    }
    let mut repairs: Vec<(Ticket, Request, Cell)> = Vec::new();
    for &(ticket, first, last) in &near {
        let Some(state) = service.tickets.get_mut(&ticket) else {
            continue; // released: a stale entry
        };
        let TicketState::Done {
            request,
            outcome,
            costs,
            progress,
            bounds,
        } = state
        else {
            continue;
        };
        let (Some(path), Some(layer), Some(movement)) = (
            outcome.path(),
            world.layer(request.class),
            world.movement(request.class),
        ) else {
            continue;
        };
        let (touched, zone) = zones(area, movement.size(), dims);
        let from = path.cells[*progress];
        let request = *request;
        // Steps into the zone start at most one position before its first cell.
        let span = (*progress).max(first.saturating_sub(1))..=last.min(path.cells.len() - 1);
        let broken = first_broken(layer, path, *bounds, costs.as_deref(), span, zone);
        match broken {
            Some(first_bad_index) => {
                service.replans.remove(&ticket);
                service.events.push(PathEvent::Invalidated {
                    ticket,
                    first_bad_index,
                });
                service.stats.invalidated += 1;
                if request.options.repair {
                    repairs.push((ticket, request, from));
                } else {
                    *state = TicketState::Invalidated;
                    service.paths.remove(ticket);
                }
            }
            None if freed
                && request.options.repair
                && !service.replans.contains(&ticket)
                && may_shorten(layer, path, *progress, touched, request.goal) =>
            {
                // Low priority: queued when the lanes have nothing else to do.
                service.replans.insert(ticket);
            }
            None => {}
        }
    }
    if freed {
        for (ticket, state) in &service.tickets {
            let TicketState::Done {
                request,
                outcome,
                progress,
                ..
            } = state
            else {
                continue;
            };
            if !request.options.repair
                || service.replans.contains(ticket)
                || near.binary_search_by_key(ticket, |n| n.0).is_ok()
            {
                continue; // waiting already, or judged above
            }
            let (Some(path), Some(layer), Some(movement)) = (
                outcome.path(),
                world.layer(request.class),
                world.movement(request.class),
            ) else {
                continue;
            };
            let touched = zones(area, movement.size(), dims).0;
            if may_shorten(layer, path, *progress, touched, request.goal) {
                service.replans.insert(*ticket);
            }
        }
    }
    for (ticket, request, from) in repairs {
        service.stats.repairs += 1;
        service.queue(ticket, request, from);
    }
}

/// Indexes the paths delivered since the last call (the start of each tick: the work is
/// counted in the tick's budget rather than added to the delivery that ends it).
pub(super) fn index_fresh_paths(service: &mut PathService) {
    for ticket in service.paths.take_fresh() {
        if let Some(TicketState::Done { outcome, .. }) = service.tickets.get(&ticket) {
            if let Some(path) = outcome.path() {
                service.paths.insert(ticket, &path.cells);
            }
        }
    }
}

/// The first index in `span` (from the unit's progress, over every position of the path
/// in the zone or stepping into it) at which `path` (its bounding box `bounds`, its
/// positions' costs `costs` when delivered) is broken by an edit whose zone (see [`zones`])
/// is `zone`: a position no longer open, a step no longer legal, or a cost changed.
fn first_broken(
    layer: &HpaMap,
    path: &Path,
    bounds: Option<Rect>,
    costs: Option<&[f64]>,
    span: std::ops::RangeInclusive<usize>,
    zone: Rect,
) -> Option<usize> {
    let cells = &path.cells;
    let grid = layer.grid();
    // The bounding box, kept since delivery, rules out an edit beside the path cheaply.
    if !bounds.map_or(true, |b| b.intersects(&zone)) {
        return None;
    }
    span.into_iter().find(|&i| {
        let c = cells[i];
        let next = cells.get(i + 1).copied();
        if !zone.contains(c) && !next.is_some_and(|n| zone.contains(n)) {
            return false;
        }
        let open = grid.is_free(c);
        let step_ok = next.map_or(true, |n| {
            Direction::between(c, n).is_some_and(|d| grid.can_step(c, d))
        });
        let same_cost = costs.map_or(true, |k| k[i] == layer.costs().cell_cost(grid, c));
        !open || !step_ok || !same_cost
    })
}

/// Whether `path`, followed from index `progress` to `goal`, may be longer than a route
/// through the freed positions `touched` (see [the rule](super#edits-that-free-ground)).
/// O(1) unless the bound falls below what may be left of the path's cost; then the rest
/// is priced.
fn may_shorten(layer: &HpaMap, path: &Path, progress: usize, touched: Rect, goal: Rect) -> bool {
    let cells = &path.cells;
    let here = cells[progress];
    let floor = cheapest_cost(layer);
    let bound = floor * (distance_to(touched, here) + distance_between(touched, goal));
    // The whole path costs at least what is left of it: no need to price the rest when
    // even the whole is within the bound.
    if bound + 1e-9 >= path.cost {
        return false;
    }
    // Nor when the whole less what the walked part costs at least (the cheapest cost over
    // its straight-line length) is within it: the margin, far above rounding, keeps the
    // verdict the pricing below would give.
    let walked_at_least = floor * octile(cells[0], here);
    if bound + 1e-9 >= path.cost - walked_at_least + 1e-6 * (1.0 + path.cost) {
        return false;
    }
    bound + 1e-9 < remaining_cost(&cells[progress..], layer)
}

/// What `cells` cost on `layer`, summed as [`Path::from_cells_with_costs`] does (the same
/// figure to the last bit), without building a path.
fn remaining_cost(cells: &[Cell], layer: &HpaMap) -> f64 {
    let (grid, costs) = (layer.grid(), layer.costs());
    let steps = cells.windows(2);
    if costs.is_unit() {
        steps.map(|w| octile(w[0], w[1])).fold(0.0, |s, x| s + x)
    } else {
        steps
            .map(|w| costs.cost_between(grid, w[0], w[1]))
            .fold(0.0, |s, x| s + x)
    }
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
        let Some(TicketState::Done {
            request,
            outcome,
            progress,
            ..
        }) = service.tickets.get(&ticket)
        else {
            continue; // released, or invalidated since
        };
        let Some(from) = outcome.path().map(|p| p.cells[*progress]) else {
            continue;
        };
        let request = *request;
        service.events.push(PathEvent::Replanning { ticket });
        service.stats.repairs += 1;
        service.queue(ticket, request, from);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::{Budget, RequestOptions};
    use crate::units::UnitId;
    use crate::{Grid, Mode, Movement};
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    /// A small deterministic generator for the operations.
    struct Draw(u64);

    impl Draw {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// The full walk the index replaces, by brute force: every delivered path's remaining
    /// part checked position by position and step by step on the class's open grid built
    /// afresh from the world; the first bad index of each broken one.
    fn broken_by_full_walk(service: &PathService, world: &World) -> Vec<(Ticket, usize)> {
        let mut broken = Vec::new();
        for (&ticket, state) in &service.tickets {
            let TicketState::Done {
                request,
                outcome,
                progress,
                ..
            } = state
            else {
                continue;
            };
            let Some(path) = outcome.path() else { continue };
            let open: Grid = world
                .movement(request.class)
                .unwrap()
                .open_grid(world.grid());
            let cells = &path.cells;
            let bad = (*progress..cells.len()).find(|&i| {
                !open.is_free(cells[i])
                    || cells.get(i + 1).is_some_and(|&n| {
                        !Direction::between(cells[i], n).is_some_and(|d| open.can_step(cells[i], d))
                    })
            });
            if let Some(i) = bad {
                broken.push((ticket, i));
            }
        }
        broken
    }

    /// The freeing rule applied to every delivered path that asked for repairs (the full
    /// walk), pricing each remaining part afresh.
    fn may_shorten_by_full_walk(service: &PathService, world: &World, area: Rect) -> Vec<Ticket> {
        let mut found = Vec::new();
        for (&ticket, state) in &service.tickets {
            let TicketState::Done {
                request,
                outcome,
                progress,
                ..
            } = state
            else {
                continue;
            };
            let Some(path) = outcome.path().filter(|_| request.options.repair) else {
                continue;
            };
            let layer = world.layer(request.class).unwrap();
            let size = world.movement(request.class).unwrap().size();
            let touched = Rect::new(
                area.x1.saturating_sub(size - 1),
                area.y1.saturating_sub(size - 1),
                area.x2,
                area.y2,
            );
            let here = path.cells[*progress];
            let bound = cheapest_cost(layer)
                * (distance_to(touched, here) + distance_between(touched, request.goal));
            let rest = Path::from_cells_with_costs(
                path.cells[*progress..].to_vec(),
                layer.grid(),
                layer.costs(),
            );
            if bound + 1e-9 < rest.cost {
                found.push(ticket);
            }
        }
        found
    }

    fn run(seed: u64, ops: usize) {
        let (w, h) = (90, 70);
        let mut draw = Draw(seed | 1);
        let grid = Grid::from_fn(w, h, |x, y| (x * 7 + y * 13 + seed as u32) % 11 != 0);
        let mut world = World::new(grid);
        let small = world.add_class(Movement::default(), Mode::Exact).unwrap();
        let big =
            (world.add_class(Movement::default().with_size(2).unwrap(), Mode::Exact)).unwrap();
        let mut service = PathService::new(&world);
        let mut tickets: Vec<Ticket> = Vec::new();
        for op in 0..ops {
            let cell = |d: &mut Draw| Cell::new(d.below(w as u64) as u32, d.below(h as u64) as u32);
            match draw.below(8) {
                0..=2 => {
                    let class = if draw.below(3) == 0 { big } else { small };
                    let options = RequestOptions {
                        repair: draw.below(4) != 0,
                        ..RequestOptions::default()
                    };
                    let (from, to) = (cell(&mut draw), cell(&mut draw));
                    let unit = UnitId::new(op as u32);
                    if let Ok(t) = service.request(&world, class, unit, from, to, options) {
                        tickets.push(t);
                    }
                }
                3 => {
                    while service.pending() > 0 {
                        service.tick(&world, Budget::Expansions(100_000)).unwrap();
                    }
                    service.drain_finished().for_each(drop);
                }
                4 if !tickets.is_empty() => {
                    let t = tickets[draw.below(tickets.len() as u64) as usize];
                    if let Some(len) = service
                        .outcome(t)
                        .and_then(|o| o.path())
                        .map(|p| p.cells.len())
                    {
                        let _ = service.advance(t, draw.below(len as u64) as usize);
                    }
                }
                5 if !tickets.is_empty() => {
                    let t = tickets.swap_remove(draw.below(tickets.len() as u64) as usize);
                    let _ = service.release(t);
                }
                _ => {
                    let c = cell(&mut draw);
                    let (dx, dy) = (draw.below(5) as u32, draw.below(4) as u32);
                    let area = Rect::new(c.x, c.y, (c.x + dx).min(w - 1), (c.y + dy).min(h - 1));
                    let blocked = draw.below(2) == 0;
                    let report = world.set_blocked(area, blocked).unwrap();
                    let broken = broken_by_full_walk(&service, &world);
                    let freed = report.area.is_some() && report.opened + report.recosted > 0;
                    let mut replans: BTreeSet<Ticket> = service.replans.clone();
                    if freed {
                        replans.extend(may_shorten_by_full_walk(&service, &world, area));
                    }
                    for (t, _) in &broken {
                        replans.remove(t);
                    }
                    service.drain_events().for_each(drop);
                    service.notify_edit(&world, &report);
                    let events: Vec<PathEvent> = service.drain_events().collect();
                    let expected: Vec<PathEvent> = (broken.iter())
                        .map(|&(ticket, first_bad_index)| PathEvent::Invalidated {
                            ticket,
                            first_bad_index,
                        })
                        .collect();
                    assert_eq!(events, expected, "edit {area:?} blocked={blocked}");
                    assert_eq!(service.replans, replans, "edit {area:?} blocked={blocked}");
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// The index finds exactly the paths a full walk over every live path finds: the
        /// same invalidations (tickets and first bad indices, in ticket order) and the same
        /// re-plans after edits that free ground, over random requests, ticks, advances,
        /// releases and edits.
        #[test]
        fn index_finds_what_a_full_walk_finds(seed in any::<u64>(), ops in 40usize..160) {
            run(seed, ops);
        }
    }
}
