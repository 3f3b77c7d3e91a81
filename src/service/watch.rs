//! Edits against live paths: which delivered paths an edit breaks or may shorten, their
//! events, and their repairs.

use super::closest::{cheapest_cost, distance_between, distance_to};
use super::types::{PathEvent, Ticket};
use super::{PathService, Request, TicketState};
use crate::geom::{Cell, Direction, Rect};
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

/// What an edit does to one live path.
enum Verdict {
    Intact,
    /// Broken from this index of the path.
    Broken(usize),
    /// Valid, but a shorter route may exist now.
    MayShorten,
}

/// Checks the live paths against one edit (see the module docs), and records it.
pub(super) fn check(service: &mut PathService, world: &World, report: &WorldEditReport) {
    service.edits.record(world, report);
    let Some(area) = report.area else {
        return;
    };
    let freed = report.opened + report.recosted > 0 && service.config.replan_after_frees;
    let mut repairs: Vec<(Ticket, Request, Cell)> = Vec::new();
    for (&ticket, state) in service.tickets.iter_mut() {
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
        let size = movement.size();
        let verdict = judge(
            layer,
            path,
            *bounds,
            costs.as_deref(),
            *progress,
            (area, size),
            freed,
            request.goal,
        );
        let from = path.cells[*progress];
        let request = *request;
        match verdict {
            Verdict::Intact => {}
            Verdict::Broken(first_bad_index) => {
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
                }
            }
            Verdict::MayShorten if request.options.repair => {
                // Low priority: queued when the lanes have nothing else to do.
                service.replans.insert(ticket);
            }
            Verdict::MayShorten => {}
        }
    }
    for (ticket, request, from) in repairs {
        service.stats.repairs += 1;
        service.queue(ticket, request, from);
    }
}

/// The verdict of an edit of `area` on `path` (its bounding box `bounds`, positions' costs
/// `costs` when delivered), from index `progress`, for agents of side `size` going to
/// `goal`.
#[allow(clippy::too_many_arguments)] // one verdict, read off everything an edit touches
fn judge(
    layer: &HpaMap,
    path: &Path,
    bounds: Option<Rect>,
    costs: Option<&[f64]>,
    progress: usize,
    (area, size): (Rect, u32),
    freed: bool,
    goal: Rect,
) -> Verdict {
    // Positions whose footprint meets the area, and one more cell around them for the
    // orthogonal positions a diagonal step needs.
    let (w, h) = (layer.grid().width(), layer.grid().height());
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
    let cells = &path.cells;
    let grid = layer.grid();
    // Most edits are nowhere near a given path: its bounding box, kept since delivery,
    // rules them out without walking it.
    let near = bounds.map_or(true, |b| b.intersects(&zone));
    for i in (progress..cells.len()).filter(|_| near) {
        let c = cells[i];
        let next = cells.get(i + 1).copied();
        if !zone.contains(c) && !next.is_some_and(|n| zone.contains(n)) {
            continue;
        }
        let open = grid.is_free(c);
        let step_ok = next.map_or(true, |n| {
            Direction::between(c, n).is_some_and(|d| grid.can_step(c, d))
        });
        let same_cost = costs.map_or(true, |k| k[i] == layer.costs().cell_cost(grid, c));
        if !open || !step_ok || !same_cost {
            return Verdict::Broken(i);
        }
    }
    if !freed {
        return Verdict::Intact;
    }
    let here = cells[progress];
    let floor = cheapest_cost(layer);
    let bound = floor * (distance_to(touched, here) + distance_between(touched, goal));
    // The whole path costs at least what is left of it: no need to price the rest when
    // even the whole is within the bound.
    if bound + 1e-9 >= path.cost {
        return Verdict::Intact;
    }
    let remaining = Path::from_cells_with_costs(cells[progress..].to_vec(), grid, layer.costs());
    if bound + 1e-9 < remaining.cost {
        Verdict::MayShorten
    } else {
        Verdict::Intact
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
