//! Edits against live paths: which delivered paths an edit breaks or may shorten, their
//! events, and their repairs.

use super::closest::{cheapest_cost, distance_between, distance_to};
use super::types::{PathEvent, Ticket};
use super::{PathService, Request, TicketState};
use crate::geom::{Cell, Direction, Rect};
use crate::hpa::{HpaMap, Path};
use crate::world::{World, WorldEditReport};

/// What an edit does to one live path.
enum Verdict {
    Intact,
    /// Broken from this index of the path.
    Broken(usize),
    /// Valid, but a shorter route may exist now.
    MayShorten,
}

pub(super) fn check(service: &mut PathService, world: &World, report: &WorldEditReport) {
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

/// The verdict of an edit of `area` on `path` (positions' costs `costs` when delivered),
/// from index `progress`, for agents of side `size` going to `goal`.
fn judge(
    layer: &HpaMap,
    path: &Path,
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
    for i in progress..cells.len() {
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
    let remaining = Path::from_cells_with_costs(cells[progress..].to_vec(), grid, layer.costs());
    let floor = cheapest_cost(layer);
    let bound = floor * (distance_to(touched, here) + distance_between(touched, goal));
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
